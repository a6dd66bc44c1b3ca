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

// Issue 27 (found by fuzz_yaml, tests/fuzz/findings/yaml-toyaml-roundtrip-anchors): characters
// YAML may not carry raw (U+FFFE and U+FFFF, which a reader turns into U+FFFD; the C1 controls,
// NEL and the line separators, which YAML 1.1 readers take as line breaks; a byte-order mark)
// are written as escapes, and a document with them reads back the same.
TEST(YamlTest, Issue27NonPrintableCharactersRoundTrip) {
  const std::vector<std::string> values = {
      "\xef\xbf\xbf", "a\xef\xbf\xbe b", "x\xc2\x85y", "x\xc2\x80\xc2\x9f",
      "line\xe2\x80\xa8sep\xe2\x80\xa9", "\xef\xbb\xbf" "bom", "mixed \x01 \xef\xbf\xbf \xe6\x90\x80"};
  Json doc = Json::object();
  Json list = Json::array();
  for (const std::string& v : values) {
    doc[v] = v;
    list.push_back(v);
  }
  doc["list"] = list;
  doc["plain"] = "\xe6\x90\x80 stays readable";
  const std::string yaml = ToYaml(doc);
  auto back = ParseYaml(yaml, "ToYaml");
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << yaml;
  EXPECT_EQ(*back, doc) << yaml;
  // Only strings that need it are escaped.
  EXPECT_NE(yaml.find("\xe6\x90\x80 stays readable"), std::string::npos) << yaml;
}

// Issue 27 (found by fuzz_yaml): a key longer than YAML's 1,024-character limit on implicit
// keys is written as an explicit "? key" and reads back.
TEST(YamlTest, Issue27LongKeysRoundTrip) {
  const std::string long_key(1500, 'k');
  const std::string escaped_key = std::string(400, '\x1b') + "x";  // 1,600 characters escaped
  const Json doc = {{long_key, "v"},
                    {escaped_key, {{"nested", 1}}},
                    {"list", Json::array({Json{{long_key, Json::array({1, 2})}, {"b", 2}}})}};
  const std::string yaml = ToYaml(doc);
  auto back = ParseYaml(yaml, "ToYaml");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, doc);
}

}  // namespace
}  // namespace trimtab
