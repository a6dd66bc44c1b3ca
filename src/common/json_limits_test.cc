// Issue 27: the decoders are the gate for depth, numbers and encodings; nothing that passes them
// may crash what walks the document afterwards.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab {
namespace {

std::string Nested(int depth, char open = '[', char close = ']') {
  return std::string(static_cast<size_t>(depth), open) + std::string(static_cast<size_t>(depth), close);
}

TEST(JsonLimitsTest, Issue27DeepNestingIsAnErrorNamingTheLimit) {
  auto deep = ParseJson(Nested(70000), "request body");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(deep.status().message().find("nesting depth exceeds the limit of 10000"),
            std::string::npos)
      << deep.status().message();
  EXPECT_FALSE(ParseJson(Nested(kMaxJsonDepth + 1), "x").ok());
  std::string objects;
  for (int i = 0; i < 20000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(20000, '}');
  EXPECT_FALSE(ParseJson(objects, "x").ok());
}

// At the limit a document is accepted, and the recursive operations of nlohmann::json (copy,
// compare, dump, destroy) run at that depth on a normal thread stack.
TEST(JsonLimitsTest, DocumentAtTheLimitCanBeCopiedComparedAndDumped) {
  const std::string text = Nested(kMaxJsonDepth);
  auto doc = ParseJson(text, "x");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  Json copy = *doc;
  EXPECT_EQ(copy, *doc);
  EXPECT_EQ(copy.dump(), text);
  std::string objects;
  for (int i = 1; i < kMaxJsonDepth; ++i) objects += "{\"a\":";
  objects += "{}" + std::string(kMaxJsonDepth - 1, '}');
  ASSERT_TRUE(ParseJson(objects, "x").ok());
}

TEST(JsonLimitsTest, Issue27NumbersOutOfRangeAreErrorsNotExceptions) {
  for (const char* text : {"1e400", "[-1e400]", R"({"replicas": 1e999})"}) {
    auto v = ParseJson(text, "request body");
    ASSERT_FALSE(v.ok()) << text;
    EXPECT_NE(v.status().message().find("request body: invalid JSON"), std::string::npos);
  }
  EXPECT_EQ(*ParseJson("18446744073709551615", "x"), Json(18446744073709551615ULL));
  EXPECT_FALSE(ParseYaml("a: 1e400", "f").ok());
  EXPECT_FALSE(ParseYaml("a: -1e999", "f").ok());
}

TEST(JsonLimitsTest, Issue27InvalidUtf8IsRejectedByEveryDecoder) {
  const std::string bad = "{\"a\":\"\xff\xfe\"}";
  auto parsed = ParseJson(bad, "x");
  ASSERT_FALSE(parsed.ok());
  // The message quotes the bad bytes escaped, so it can itself be sent as JSON.
  EXPECT_TRUE(IsValidUtf8(parsed.status().message())) << parsed.status().message();
  EXPECT_NO_THROW(static_cast<void>(Json(parsed.status().message()).dump()));
  EXPECT_FALSE(ParseYaml("a: \"\xc3\x28\"", "x").ok());
  EXPECT_FALSE(ParseYaml("\xed\xa0\x80: 1", "x").ok());  // a surrogate as a key
  EXPECT_TRUE(ParseYaml("a: h\xc3\xa9llo", "x").ok());
  EXPECT_TRUE(IsValidUtf8("h\xc3\xa9llo \xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));          // truncated
}

TEST(JsonLimitsTest, DuplicateKeysAreReportedWithTheirPath) {
  std::vector<std::string> dups;
  auto v = ParseJson(
      R"({"metadata":{"name":"a","name":"b"},"spec":{"containers":[{"image":"x"},{"image":"y","image":"z"}]}})",
      "x", {.duplicate_fields = &dups});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ((*v)["metadata"]["name"], "b");  // the last one wins, as in Go
  EXPECT_EQ(dups, (std::vector<std::string>{"metadata.name", "spec.containers[1].image"}));
  dups.clear();
  ASSERT_TRUE(ParseJson(R"([{"a":1},{"a":2}])", "x", {.duplicate_fields = &dups}).ok());
  EXPECT_TRUE(dups.empty());
}

TEST(JsonLimitsTest, ParseErrorsKeepThePosition) {
  auto v = ParseJson("{\"a\": }", "body");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("column 7"), std::string::npos) << v.status().message();
}

TEST(JsonLimitsTest, YamlAliasBombsAndLoopsAreErrors) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + prev;
    bomb += "]\n";
    prev = c;
  }
  auto v = ParseYaml(bomb, "f");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("excessive aliasing"), std::string::npos)
      << v.status().message();
  EXPECT_FALSE(ParseYaml("&a [*a]", "f").ok());
  EXPECT_FALSE(ParseYaml("&a {x: *a}", "f").ok());
  // Merging an anchor a few times is fine.
  EXPECT_TRUE(ParseYaml("d: &d {x: 1, y: 2}\na: *d\nb: *d\nc: *d\n", "f").ok());
}

// Found by fuzz_yaml: yaml-cpp's LoadAll never returned on this input (the test fails by
// hanging until ctest's timeout). Whatever the answer, it comes.
TEST(JsonLimitsTest, MalformedYamlStreamEnds) {
  auto odd = ParseYamlStream(std::string(", {\xff\x16\xca: c}]\xca: c}],}", 19), "f");
  static_cast<void>(odd);
  auto docs = ParseYamlStream("a: 1\n---\nb: 2\n...\n--- c\n---\n", "f");
  ASSERT_TRUE(docs.ok()) << docs.status().message();
  EXPECT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[2], Json("c"));
}

TEST(JsonLimitsTest, DeepYamlIsAnError) {
  EXPECT_FALSE(ParseYaml(Nested(100000), "f").ok());
  EXPECT_FALSE(ParseYaml(Nested(100000, '{', '}'), "f").ok());
  std::string block;
  for (int i = 0; i < 5000; ++i) block += std::string(static_cast<size_t>(i), ' ') + "a:\n";
  EXPECT_FALSE(ParseYaml(block, "f").ok());
}

}  // namespace
}  // namespace trimtab
