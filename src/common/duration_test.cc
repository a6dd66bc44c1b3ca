#include "common/duration.h"

#include <limits>

#include <gtest/gtest.h>

namespace trimtab {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

TEST(GoDurationTest, Parse) {
  struct Case {
    const char* text;
    nanoseconds want;
  };
  const Case cases[] = {
      {"0", 0ns},
      {"5s", 5s},
      {"30s", 30s},
      {"1478s", 1478s},
      {"-5s", -5s},
      {"+5s", 5s},
      {"-0", 0ns},
      {"+0", 0ns},
      {"5.0s", 5s},
      {"5.6s", 5s + 600ms},
      {"5.s", 5s},
      {".5s", 500ms},
      {"1.0s", 1s},
      {"1.00s", 1s},
      {"1.004s", 1s + 4ms},
      {"1.0040s", 1s + 4ms},
      {"100.00100s", 100s + 1ms},
      {"10ns", 10ns},
      {"11us", 11us},
      {"12\xC2\xB5s", 12us},
      {"12\xCE\xBCs", 12us},
      {"13ms", 13ms},
      {"14s", 14s},
      {"15m", 15min},
      {"16h", 16h},
      {"3h30m", 3h + 30min},
      {"1h30m", 90min},
      {"10.5s4m", 4min + 10s + 500ms},
      {"-2m3.4s", -(2min + 3s + 400ms)},
      {"1h2m3s4ms5us6ns", 1h + 2min + 3s + 4ms + 5us + 6ns},
      {"39h9m14.425s", 39h + 9min + 14s + 425ms},
      {"52763797000ns", 52763797000ns},
      {"0.3333333333333333333h", 20min},
      {"9007199254740993ns", nanoseconds((int64_t{1} << 53) + 1)},
      {"9223372036854775807ns", nanoseconds(std::numeric_limits<int64_t>::max())},
      {"-9223372036854775808ns", nanoseconds(std::numeric_limits<int64_t>::min())},
      {"0.100000000000000000000h", 6min},
      {"300ms", 300ms},
      {"1.5s", 1500ms},
  };
  for (const Case& c : cases) {
    StatusOr<nanoseconds> got = ParseGoDuration(c.text);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status().ToString();
    EXPECT_EQ(got->count(), c.want.count()) << c.text;
  }
}

TEST(GoDurationTest, ParseErrors) {
  for (const char* text : {"", "3", "-", "s", ".", "-.", ".s", "+.s", "1d", "\x85\x85",
                           "9223372036854775808ns", "9223372036854775.808us",
                           "9223372036854ms775us808ns", "-9223372036854775809ns", "1h 2m"}) {
    EXPECT_FALSE(ParseGoDuration(text).ok()) << text;
  }
  EXPECT_EQ(ParseGoDuration("3").status().message(), "time: missing unit in duration \"3\"");
  EXPECT_EQ(ParseGoDuration("1d").status().message(),
            "time: unknown unit \"d\" in duration \"1d\"");
  EXPECT_EQ(ParseGoDuration("").status().message(), "time: invalid duration \"\"");
}

TEST(GoDurationTest, Format) {
  struct Case {
    nanoseconds d;
    const char* want;
  };
  const Case cases[] = {
      {0ns, "0s"},
      {1ns, "1ns"},
      {1100ns, "1.1\xC2\xB5s"},
      {2200us, "2.2ms"},
      {3300ms, "3.3s"},
      {4min + 5s, "4m5s"},
      {4min + 5001ms, "4m5.001s"},
      {5h + 6min + 7001ms, "5h6m7.001s"},
      {8min + 1ns, "8m0.000000001s"},
      {90min, "1h30m0s"},
      {300ms, "300ms"},
      {-2min, "-2m0s"},
      {nanoseconds(std::numeric_limits<int64_t>::max()), "2562047h47m16.854775807s"},
      {nanoseconds(std::numeric_limits<int64_t>::min()), "-2562047h47m16.854775808s"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FormatGoDuration(c.d), c.want) << c.d.count();
    StatusOr<nanoseconds> back = ParseGoDuration(c.want);
    ASSERT_TRUE(back.ok()) << c.want;
    EXPECT_EQ(back->count(), c.d.count()) << c.want;
  }
}

}  // namespace
}  // namespace trimtab
