#include "common/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace trimtab {
namespace {

using F = Quantity::Format;

Quantity MustParse(const std::string& s) {
  auto q = Quantity::Parse(s);
  EXPECT_TRUE(q.ok()) << s << ": " << q.status().ToString();
  return q.ok() ? *q : Quantity();
}

struct ParseCase {
  std::string input;
  int64_t value;
  int32_t exponent;
  F format;
};

// Values from upstream TestQuantityParse.
const std::vector<ParseCase>& ParseTable() {
  static const std::vector<ParseCase> kTable = {
      {"0", 0, 0, F::kDecimalSI},
      {"0n", 0, 0, F::kDecimalSI},
      {"0u", 0, 0, F::kDecimalSI},
      {"0m", 0, 0, F::kDecimalSI},
      {"0Ki", 0, 0, F::kBinarySI},
      {"0k", 0, 0, F::kDecimalSI},
      {"0Mi", 0, 0, F::kBinarySI},
      {"0M", 0, 0, F::kDecimalSI},
      {"0Gi", 0, 0, F::kBinarySI},
      {"0G", 0, 0, F::kDecimalSI},
      {"0Ti", 0, 0, F::kBinarySI},
      {"0T", 0, 0, F::kDecimalSI},
      {"1", 1, 0, F::kDecimalSI},
      {"1Ki", 1024, 0, F::kBinarySI},
      {"8Ki", 8 * 1024, 0, F::kBinarySI},
      {"7Mi", 7 * 1024 * 1024, 0, F::kBinarySI},
      {"6Gi", 6LL * 1024 * 1024 * 1024, 0, F::kBinarySI},
      {"5Ti", 5LL * 1024 * 1024 * 1024 * 1024, 0, F::kBinarySI},
      {"4Pi", 4LL * 1024 * 1024 * 1024 * 1024 * 1024, 0, F::kBinarySI},
      {"3Ei", 3LL * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0, F::kBinarySI},
      {"10Ti", 10LL * 1024 * 1024 * 1024 * 1024, 0, F::kBinarySI},
      {"100Ti", 100LL * 1024 * 1024 * 1024 * 1024, 0, F::kBinarySI},
      {"5n", 5, -9, F::kDecimalSI},
      {"4u", 4, -6, F::kDecimalSI},
      {"3m", 3, -3, F::kDecimalSI},
      {"9", 9, 0, F::kDecimalSI},
      {"8k", 8, 3, F::kDecimalSI},
      {"50k", 5, 4, F::kDecimalSI},
      {"7M", 7, 6, F::kDecimalSI},
      {"6G", 6, 9, F::kDecimalSI},
      {"5T", 5, 12, F::kDecimalSI},
      {"40T", 4, 13, F::kDecimalSI},
      {"300T", 3, 14, F::kDecimalSI},
      {"2P", 2, 15, F::kDecimalSI},
      {"1E", 1, 18, F::kDecimalSI},
      {"1E-3", 1, -3, F::kDecimalExponent},
      {"1e3", 1, 3, F::kDecimalExponent},
      {"1E6", 1, 6, F::kDecimalExponent},
      {"1e9", 1, 9, F::kDecimalExponent},
      {"1E12", 1, 12, F::kDecimalExponent},
      {"1e15", 1, 15, F::kDecimalExponent},
      {"1E18", 1, 18, F::kDecimalExponent},
      {"1e14", 1, 14, F::kDecimalExponent},
      {"1e13", 1, 13, F::kDecimalExponent},
      {"100.035k", 100035, 0, F::kDecimalSI},
      {"0.001", 1, -3, F::kDecimalSI},
      {"0.0005k", 5, -1, F::kDecimalSI},
      {"0.005", 5, -3, F::kDecimalSI},
      {"0.05", 5, -2, F::kDecimalSI},
      {"0.5", 5, -1, F::kDecimalSI},
      {"0.00050k", 5, -1, F::kDecimalSI},
      {"0.00500", 5, -3, F::kDecimalSI},
      {"0.05000", 5, -2, F::kDecimalSI},
      {"0.50000", 5, -1, F::kDecimalSI},
      {"0.5e0", 5, -1, F::kDecimalExponent},
      {"0.5e-1", 5, -2, F::kDecimalExponent},
      {"0.5e-2", 5, -3, F::kDecimalExponent},
      {"10.035M", 10035, 3, F::kDecimalSI},
      {"1.2e3", 12, 2, F::kDecimalExponent},
      {"1.3E+6", 13, 5, F::kDecimalExponent},
      {"1.40e9", 14, 8, F::kDecimalExponent},
      {"1.53E12", 153, 10, F::kDecimalExponent},
      {"1.6e15", 16, 14, F::kDecimalExponent},
      {"1.7E18", 17, 17, F::kDecimalExponent},
      {"9.01", 901, -2, F::kDecimalSI},
      {"8.1k", 81, 2, F::kDecimalSI},
      {"7.123456M", 7123456, 0, F::kDecimalSI},
      {"6.987654321G", 6987654321, 0, F::kDecimalSI},
      {"5.444T", 5444, 9, F::kDecimalSI},
      {"40.1T", 401, 11, F::kDecimalSI},
      {"300.2T", 3002, 11, F::kDecimalSI},
      {"2.5P", 25, 14, F::kDecimalSI},
      {"1.01E", 101, 16, F::kDecimalSI},
      // Things that saturate / round.
      {"3.001n", 4, -9, F::kDecimalSI},
      {"1.1E-9", 2, -9, F::kDecimalExponent},
      {"0.0000000001", 1, -9, F::kDecimalSI},
      {"0.0000000005", 1, -9, F::kDecimalSI},
      {"0.00000000050", 1, -9, F::kDecimalSI},
      {"0.5e-9", 1, -9, F::kDecimalExponent},
      {"0.9n", 1, -9, F::kDecimalSI},
      {"0.00000012345", 124, -9, F::kDecimalSI},
      {"0.00000012354", 124, -9, F::kDecimalSI},
      {"9Ei", std::numeric_limits<int64_t>::max(), 0, F::kBinarySI},
      {"9223372036854775807Ki", std::numeric_limits<int64_t>::max(), 0, F::kBinarySI},
      {"12E", 12, 18, F::kDecimalSI},
      // Fractional binary values.
      {"100.035Ki", 10243584, -2, F::kBinarySI},
      {"0.5Mi", 512 * 1024, 0, F::kBinarySI},
      {"0.05Gi", 536870912, -1, F::kBinarySI},
      {"0.025Ti", 274877906944, -1, F::kBinarySI},
      // Odd but accepted spellings.
      {"0.000000000001Ki", 2, -9, F::kDecimalSI},
      {".001", 1, -3, F::kDecimalSI},
      {".0001k", 100, -3, F::kDecimalSI},
      {"1.", 1, 0, F::kDecimalSI},
      {"1.G", 1, 9, F::kDecimalSI},
  };
  return kTable;
}

TEST(QuantityParseTest, UpstreamParseTable) {
  for (const ParseCase& c : ParseTable()) {
    const Quantity want = Quantity::FromScaled(c.value, c.exponent, c.format);
    for (const std::string prefix : {"", "+"}) {
      auto got = Quantity::Parse(prefix + c.input);
      ASSERT_TRUE(got.ok()) << prefix << c.input << ": " << got.status().ToString();
      EXPECT_EQ(got->Compare(want), 0)
          << prefix << c.input << " parsed as " << got->String() << ", want " << want.String();
      EXPECT_EQ(got->format(), c.format) << prefix << c.input;
    }
    auto neg = Quantity::Parse("-" + c.input);
    ASSERT_TRUE(neg.ok()) << "-" << c.input;
    EXPECT_EQ(neg->Compare(Quantity::FromScaled(-c.value, c.exponent, c.format)), 0)
        << "-" << c.input;
    EXPECT_EQ(neg->format(), c.format) << "-" << c.input;
  }
}

TEST(QuantityParseTest, RejectsUpstreamInvalidInputs) {
  for (const char* bad : {"", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i",
                          "-3.01e-", "1e4294967297", " 1", "1 ", "1K", "e", "1e"}) {
    auto q = Quantity::Parse(bad);
    EXPECT_FALSE(q.ok()) << "\"" << bad << "\" parsed unexpectedly as " << q.value_or({}).String();
    if (!q.ok()) {
      EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(q.status().message().find("quantity \""), std::string::npos);
    }
  }
}

TEST(QuantityParseTest, ErrorMessagesNameTheProblem) {
  EXPECT_EQ(Quantity::Parse("0.1mi").status().message(),
            "quantity \"0.1mi\": unable to parse quantity's suffix");
  EXPECT_NE(Quantity::Parse("1.1.M").status().message().find("must match the regular expression"),
            std::string::npos);
}

TEST(QuantityParseTest, ExponentBoundsAreInt32) {
  EXPECT_TRUE(Quantity::Parse("1E2147483647").ok());
  EXPECT_TRUE(Quantity::Parse("1E-2147483647").ok());
  EXPECT_FALSE(Quantity::Parse("1E2147483648").ok());
  EXPECT_FALSE(Quantity::Parse("1E-2147483648").ok());
}

struct StringCase {
  int64_t value;
  int32_t exponent;
  F format;
  std::string expect;
  std::string alternate;
};

// Values from upstream TestQuantityString.
TEST(QuantityStringTest, UpstreamCanonicalForms) {
  const std::vector<StringCase> table = {
      {1024LL * 1024 * 1024, 0, F::kBinarySI, "1Gi", "1024Mi"},
      {300LL * 1024 * 1024, 0, F::kBinarySI, "300Mi", "307200Ki"},
      {6 * 1024, 0, F::kBinarySI, "6Ki", ""},
      {1001LL * 1024 * 1024 * 1024, 0, F::kBinarySI, "1001Gi", "1025024Mi"},
      {1024LL * 1024 * 1024 * 1024, 0, F::kBinarySI, "1Ti", "1024Gi"},
      {5, 0, F::kBinarySI, "5", "5000m"},
      {500, -3, F::kBinarySI, "500m", "0.5"},
      {1, 9, F::kDecimalSI, "1G", "1000M"},
      {1000, 6, F::kDecimalSI, "1G", "0.001T"},
      {1000000, 3, F::kDecimalSI, "1G", ""},
      {1000000000, 0, F::kDecimalSI, "1G", ""},
      {1, -3, F::kDecimalSI, "1m", "1000u"},
      {80, -3, F::kDecimalSI, "80m", ""},
      {1080, -3, F::kDecimalSI, "1080m", "1.08"},
      {108, -2, F::kDecimalSI, "1080m", "1080000000n"},
      {10800, -4, F::kDecimalSI, "1080m", ""},
      {300, 6, F::kDecimalSI, "300M", ""},
      {1, 12, F::kDecimalSI, "1T", ""},
      {1, 18, F::kDecimalSI, "1E", ""},
      {1, 21, F::kDecimalSI, "1e21", "1000E"},
      {5, 21, F::kDecimalSI, "5e21", "5000E"},
      {1, 24, F::kDecimalSI, "1e24", "1000000E"},
      {1, 70, F::kBinarySI, "10e69", ""},
      {2, 70, F::kBinarySI, "20e69", ""},
      {1, 72, F::kBinarySI, "1e72", ""},
      {1234567, 6, F::kDecimalSI, "1234567M", ""},
      {1234567, -3, F::kBinarySI, "1234567m", ""},
      {3, 3, F::kDecimalSI, "3k", ""},
      {1025, 0, F::kBinarySI, "1025", ""},
      {0, 0, F::kDecimalSI, "0", ""},
      {0, 0, F::kBinarySI, "0", ""},
      {1, 9, F::kDecimalExponent, "1e9", ".001e12"},
      {1, -3, F::kDecimalExponent, "1e-3", "0.001e0"},
      {1, -9, F::kDecimalExponent, "1e-9", "1000e-12"},
      {80, -3, F::kDecimalExponent, "80e-3", ""},
      {300, 6, F::kDecimalExponent, "300e6", ""},
      {1, 12, F::kDecimalExponent, "1e12", ""},
      {1, 3, F::kDecimalExponent, "1e3", ""},
      {3, 3, F::kDecimalExponent, "3e3", ""},
      {0, 0, F::kDecimalExponent, "0", "00"},
      {1, -9, F::kDecimalSI, "1n", ""},
      {80, -9, F::kDecimalSI, "80n", ""},
      {1080, -9, F::kDecimalSI, "1080n", ""},
      {108, -8, F::kDecimalSI, "1080n", ""},
      {1, -6, F::kDecimalSI, "1u", ""},
      {80, -6, F::kDecimalSI, "80u", ""},
      {1080, -6, F::kDecimalSI, "1080u", ""},
  };
  for (const StringCase& c : table) {
    const Quantity q = Quantity::FromScaled(c.value, c.exponent, c.format);
    EXPECT_EQ(q.String(), c.expect) << c.value << "e" << c.exponent;
    EXPECT_EQ(MustParse(c.expect).String(), c.expect) << "canonical string must round-trip";
    if (!c.alternate.empty()) {
      EXPECT_EQ(MustParse(c.alternate).String(), c.expect) << "alternate " << c.alternate;
    }
    if (c.value != 0) {
      EXPECT_EQ(Quantity::FromScaled(-c.value, c.exponent, c.format).String(), "-" + c.expect);
    }
  }
}

TEST(QuantityStringTest, BelowNanoFallsBackToExponent) {
  EXPECT_EQ(Quantity::FromScaled(1, -12, F::kDecimalSI).String(), "1e-12");
  EXPECT_EQ(Quantity::FromScaled(1, -10, F::kDecimalSI).String(), "100e-12");
}

TEST(QuantityStringTest, BinarySIWithZeroBinaryExponentHasNoSuffix) {
  EXPECT_EQ(Quantity::FromScaled(2000, 0, F::kBinarySI).String(), "2000");
  EXPECT_EQ(Quantity::FromScaled(-2000, 0, F::kBinarySI).String(), "-2000");
}

// Values from upstream TestQuantityParseEmit.
TEST(QuantityStringTest, UpstreamParseEmit) {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"1Ki", "1Ki"},
      {"1Mi", "1Mi"},
      {"1Gi", "1Gi"},
      {"1024Mi", "1Gi"},
      {"1000M", "1G"},
      {".001Ki", "1024m"},
      {".000001Ki", "1024u"},
      {".000000001Ki", "1024n"},
      {".000000000001Ki", "2n"},
  };
  for (const auto& [in, want] : table) {
    EXPECT_EQ(MustParse(in).String(), want) << in;
    EXPECT_EQ(MustParse("-" + in).String(), "-" + want) << "-" << in;
  }
}

TEST(QuantityStringTest, CommonSpellings) {
  EXPECT_EQ(MustParse("1.5").String(), "1500m");
  EXPECT_EQ(MustParse("0.1").String(), "100m");
  EXPECT_EQ(MustParse("1500m").String(), "1500m");
  EXPECT_EQ(MustParse("1000Mi").String(), "1000Mi");
  EXPECT_EQ(MustParse("1024Mi").String(), "1Gi");
  EXPECT_EQ(MustParse("1.5Gi").String(), "1536Mi");
  // A DecimalExponent string already canonical is kept as written, like upstream.
  EXPECT_EQ(MustParse("1e3").String(), "1e3");
  EXPECT_EQ(MustParse("1000").String(), "1k");
  EXPECT_EQ(MustParse("0.1m").String(), "100u");
  EXPECT_EQ(Quantity::FromMilli(1500).String(), "1500m");
  EXPECT_EQ(Quantity::FromMilli(2000).String(), "2");
  EXPECT_EQ(Quantity::FromMilli(0).String(), "0");
  EXPECT_EQ(Quantity::FromInt(1024, F::kBinarySI).String(), "1Ki");
}

// Values from upstream TestQuantityCmp and TestQuantityCmpInt64AndDec.
TEST(QuantityCompareTest, UpstreamTables) {
  EXPECT_EQ(MustParse("0").Compare(MustParse("0")), 0);
  EXPECT_EQ(MustParse("100m").Compare(MustParse("50m")), 1);
  EXPECT_EQ(MustParse("50m").Compare(MustParse("100m")), -1);
  EXPECT_EQ(MustParse("10000T").Compare(MustParse("100Gi")), 1);
  struct Case {
    int64_t av;
    int32_t ae;
    int64_t bv;
    int32_t be;
    int cmp;
  };
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  constexpr int64_t kLeast = std::numeric_limits<int64_t>::min();
  const std::vector<Case> table = {
      {901, -2, 901, -2, 0},
      {90, -1, 901, -2, -1},
      {901, -2, 900, -2, 1},
      {0, 0, 0, 0, 0},
      {0, 1, 0, -1, 0},
      {800, -3, 1, 0, -1},
      {800, -3, 79, -2, 1},
      {kMost, 0, 1, -1, 1},
      {kMost, 1, 1, 0, 1},
      {kMost, 1, 1, 1, 1},
      {kMost, 1, 0, 1, 1},
      {kMost, -16, 1, 3, -1},
      {kLeast, 0, 0, 0, -1},
      {kLeast, -18, -1, 0, -1},
      {kLeast, -19, -1, 0, 1},
      {1000000000000000000, -17, 1, 1, 0},
      {1000000000000000000, -17, -10, 0, 1},
      {-1000000000000000000, -17, -10, 0, 0},
      {1000000000000000000, -17, 1, 0, 1},
      {1000000000000000001, -17, 1, 1, 1},
      {999999999999999999, -17, 1, 1, -1},
  };
  for (const Case& c : table) {
    const Quantity a = Quantity::FromScaled(c.av, c.ae, F::kDecimalSI);
    const Quantity b = Quantity::FromScaled(c.bv, c.be, F::kDecimalSI);
    EXPECT_EQ(a.Compare(b), c.cmp) << c.av << "e" << c.ae << " vs " << c.bv << "e" << c.be;
    EXPECT_EQ(b.Compare(a), -c.cmp) << c.bv << "e" << c.be << " vs " << c.av << "e" << c.ae;
  }
}

TEST(QuantityValueTest, MilliValueRoundsUp) {
  EXPECT_EQ(MustParse("1").MilliValue(), 1000);
  EXPECT_EQ(MustParse("1.5").MilliValue(), 1500);
  EXPECT_EQ(MustParse("250m").MilliValue(), 250);
  EXPECT_EQ(MustParse("0.1m").MilliValue(), 1);
  EXPECT_EQ(MustParse("1.5m").MilliValue(), 2);
  EXPECT_EQ(MustParse("1n").MilliValue(), 1);
  EXPECT_EQ(MustParse("1Ki").MilliValue(), 1024000);
  EXPECT_EQ(MustParse("1.5Gi").MilliValue(), 1610612736000);
  EXPECT_EQ(MustParse("30").MilliValue(), 30000);
  // int64 form rounds away from zero for negative values.
  EXPECT_EQ(MustParse("-1.5m").MilliValue(), -2);
  // Upstream returns 0 when an int64-form value overflows.
  EXPECT_EQ(MustParse("12E").MilliValue(), 0);
  EXPECT_EQ(MustParse("9.01").Value(), 10);
  EXPECT_EQ(MustParse("-9.01").Value(), -10);
  EXPECT_EQ(MustParse("100m").Value(), 1);
}

TEST(QuantityValueTest, ApproximateFloat) {
  EXPECT_DOUBLE_EQ(MustParse("50m").AsApproximateFloat64(), 0.05);
  EXPECT_EQ(MustParse("0.05").AsApproximateFloat64(), 5 * (1.0 / 100));
  EXPECT_EQ(MustParse("1.5Gi").AsApproximateFloat64(), 1610612736.0);
  EXPECT_EQ(MustParse("10").AsApproximateFloat64(), 10.0);
  EXPECT_EQ(MustParse("1e3").AsApproximateFloat64(), 1000.0);
}

TEST(QuantityJsonTest, AcceptsStringsAndNumbers) {
  auto a = QuantityFromJson(Json("250m"), "x");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->MilliValue(), 250);
  auto b = QuantityFromJson(Json(30), "x");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->MilliValue(), 30000);
  auto c = QuantityFromJson(Json(0.25), "x");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->MilliValue(), 250);
  auto d = QuantityFromJson(Json(true), "spec.target.value");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(),
            "spec.target.value: expected a quantity (string or number), got boolean");
  auto e = QuantityFromJson(Json("12Ki5"), "spec.target.value");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "spec.target.value: quantity \"12Ki5\": unable to parse quantity's suffix");
}

// Issue 27 (found by fuzz_quantity): the canonical form of a value beyond nano precision's
// range appends zeros to reach an exponent that is a multiple of 3 and must parse again, to an
// equal quantity, as upstream's inf.Dec does for any size.
TEST(QuantityTest, Issue27CanonicalFormOfAHugeValueParsesAgain) {
  for (const char* text : {"228209347758100002e19", "2282093477581000020e18",
                           "123456789012345678901234567890e30", "1000000000000000000000E"}) {
    auto q = Quantity::Parse(text);
    ASSERT_TRUE(q.ok()) << text << ": " << q.status().ToString();
    auto again = Quantity::Parse(q->String());
    ASSERT_TRUE(again.ok()) << text << " -> " << q->String() << ": " << again.status().ToString();
    EXPECT_EQ(again->Compare(*q), 0) << text << " -> " << q->String();
  }
  EXPECT_EQ(
      Quantity::Parse("2282093477581000020e18")->Compare(*Quantity::Parse("228209347758100002e19")),
      0);
  EXPECT_EQ(Quantity::Parse("2282093477581000020e18")->String(), "2282093477581000020e18");
  // Binary suffixes still cap (upstream caps BinarySI at its maximum; here it is an error).
  EXPECT_FALSE(Quantity::Parse("1000000000000000000000000000000000000000Ei").ok());
}

// Issue 27 (found by fuzz_quantity): Value() of a quantity with an exponent of billions looped
// once per power of ten; it is 0 (does not fit) at once, as upstream's answer.
TEST(QuantityTest, Issue27HugeExponentsDoNotLoop) {
  for (const char* text : {"1e2000000000", "0.5e2045597826", "123456789012345678901e2000000000"}) {
    auto q = Quantity::Parse(text);
    ASSERT_TRUE(q.ok()) << text << ": " << q.status().ToString();
    EXPECT_EQ(q->Value(), 0) << text;
    EXPECT_EQ(q->MilliValue(), 0) << text;
  }
}

}  // namespace
}  // namespace trimtab
