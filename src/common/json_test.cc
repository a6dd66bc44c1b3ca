#include "common/json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab {
namespace {

TEST(JsonReaderTest, ReadsTypedFieldsAndRejectsUnknown) {
  Json doc = Json::parse(R"({"min": 2, "name": "x", "ratio": 0.5, "on": true, "extra": 1})");
  JsonReader r(doc, "spec");
  int64_t min = 0;
  std::string name;
  double ratio = 0;
  bool on = false;
  ASSERT_TRUE(r.RequiredInt("min", &min).ok());
  ASSERT_TRUE(r.OptionalString("name", &name).ok());
  ASSERT_TRUE(r.OptionalDouble("ratio", &ratio).ok());
  ASSERT_TRUE(r.OptionalBool("on", &on).ok());
  EXPECT_EQ(min, 2);
  EXPECT_EQ(name, "x");
  EXPECT_EQ(ratio, 0.5);
  EXPECT_TRUE(on);
  Status unknown = r.NoUnknownFields();
  EXPECT_EQ(unknown.message(), "spec.extra: unknown field");
}

TEST(JsonReaderTest, WrongTypeNamesTheField) {
  Json doc = Json::parse(R"({"min": "two"})");
  JsonReader r(doc, "spec");
  int64_t min = 0;
  Status s = r.RequiredInt("min", &min);
  EXPECT_EQ(s.message(), "spec.min: expected integer, got string");
  JsonReader r2(doc, "");
  EXPECT_EQ(r2.RequiredInt("max", &min).message(), "max: required field is missing");
}

TEST(JsonReaderTest, EnumListsSupportedValues) {
  Json doc = Json::parse(R"({"selectPolicy": "Biggest"})");
  JsonReader r(doc, "spec.behavior.scaleUp");
  std::string v;
  Status s = r.OptionalEnum("selectPolicy", {"Max", "Min", "Disabled"}, &v);
  EXPECT_EQ(s.message(),
            "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Biggest\": supported "
            "values: \"Max\", \"Min\", \"Disabled\"");
}

TEST(YamlTest, ScalarTypesFollowYaml) {
  auto doc = ParseYaml("a: 1\nb: '1'\nc: true\nd: 1.5\ne: hello\nf: ~\ng: [1, x]\n", "test");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ((*doc)["a"], 1);
  EXPECT_EQ((*doc)["b"], "1");
  EXPECT_EQ((*doc)["c"], true);
  EXPECT_EQ((*doc)["d"], 1.5);
  EXPECT_EQ((*doc)["e"], "hello");
  EXPECT_TRUE((*doc)["f"].is_null());
  EXPECT_EQ((*doc)["g"][1], "x");
}

TEST(YamlTest, StreamSkipsEmptyDocumentsAndRoundTrips) {
  auto docs = ParseYamlStream("---\na: 1\n---\n---\nb: \"true\"\n", "stream");
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 2u);
  auto back = ParseYaml(ToYaml((*docs)[1]), "emitted");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)["b"], "true");  // stays a string
}

TEST(YamlTest, ErrorsNamePositionAndDuplicates) {
  EXPECT_FALSE(ParseYaml("a: [1, 2", "f.yaml").ok());
  auto dup = ParseYaml("a: 1\na: 2\n", "f.yaml");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("a: duplicate key"), std::string::npos);
}

// Issue 27 (found by fuzz_yaml): strings and keys with control characters are written
// double-quoted, as escapes, and read back the same.
TEST(YamlTest, Issue27ControlCharactersRoundTrip) {
  const Json doc = {{std::string("k\x01ey"), std::string("a\x01\x7f b\tc\x1b")},
                    {"list", {std::string("\x02"), std::string("x\ny"), std::string("\x00z", 2)}}};
  auto back = ParseYaml(ToYaml(doc), "ToYaml");
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << ToYaml(doc);
  EXPECT_EQ(*back, doc) << ToYaml(doc);
}

}  // namespace
}  // namespace trimtab
