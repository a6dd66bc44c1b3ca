#include "cluster/apiserver/surface/structural_schema.h"

#include <chrono>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

std::vector<std::string> Check(const std::string& schema) {
  std::vector<Json> causes;
  CheckStructural(Json::parse(schema), "s", &causes);
  std::vector<std::string> out;
  for (const Json& c : causes) out.push_back(c["field"].get<std::string>() + ": " + c["message"].get<std::string>());
  return out;
}

TEST(CheckStructural, AcceptsTypedIntOrStringAndPreservedNodes) {
  EXPECT_TRUE(Check(R"({"type":"object","properties":{
    "q":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
    "any":{"x-kubernetes-preserve-unknown-fields":true},
    "m":{"type":"object","additionalProperties":{"type":"string"}},
    "l":{"type":"array","items":{"type":"string"}},
    "metadata":{"type":"object","properties":{"name":{"type":"string","maxLength":10}}}}})").empty());
}

TEST(CheckStructural, ReportsEachViolation) {
  EXPECT_EQ(Check(R"({"type":"string"})"),
            std::vector<std::string>{"s.type: Invalid value: \"string\": must be object at the root"});
  EXPECT_EQ(Check(R"({"type":"object","properties":{"a":{"properties":{}},
                      "b":{"type":"array"},"c":{"$ref":"#/x","type":"object"},
                      "metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}})"),
            (std::vector<std::string>{
                "s.properties[a].type: Required value: must not be empty for specified object fields",
                "s.properties[b].items: Required value: must be specified",
                "s.properties[c].$ref: Forbidden: $ref is not supported",
                "s.properties[metadata].properties[labels]: Forbidden: must not specify anything "
                "other than name and generateName, but metadata is implicitly specified"}));
}

TEST(PruneAndDefault, NullsOfNonNullableFieldsAreDroppedSilently) {
  Json schema = Json::parse(R"({"type":"object","properties":{
    "a":{"type":"string","default":"x"},"b":{"type":"string","nullable":true},
    "c":{"type":"object","properties":{"d":{"type":"integer","default":5}}}}})");
  Json v = Json::parse(R"({"a":null,"b":null,"c":{}})");
  std::vector<std::string> unknown;
  PruneAndDefault(schema, &v, "", false, &unknown);
  EXPECT_EQ(v, Json::parse(R"({"a":"x","b":null,"c":{"d":5}})"));
  EXPECT_TRUE(unknown.empty());
  std::vector<Json> causes;
  ValidateValue(schema, v, "", &causes);
  EXPECT_TRUE(causes.empty());
}

// A pattern Go's regexp (RE2) cannot compile makes the CRD invalid, with the apiserver's text.
TEST(CheckStructural, PatternMustCompile) {
  EXPECT_EQ(Check(R"({"type":"object","properties":{"foo":{"type":"string","pattern":"+"},
                      "bar":{"type":"string","pattern":"(a)\\1"},"ok":{"type":"string","pattern":"^a+$"}}})"),
            (std::vector<std::string>{
                "s.properties[bar].pattern: Invalid value: \"(a)\\\\1\": must be a valid regular "
                "expression, but isn't: error parsing regexp: invalid escape sequence: `\\1`",
                "s.properties[foo].pattern: Invalid value: \"+\": must be a valid regular expression, "
                "but isn't: error parsing regexp: missing argument to repetition operator: `+`"}));
}

std::vector<std::string> Validate(const Json& schema, const Json& value) {
  std::vector<Json> causes;
  ValidateValue(schema, value, "", &causes);
  std::vector<std::string> out;
  for (const Json& c : causes) out.push_back(c["field"].get<std::string>() + ": " + c["message"].get<std::string>());
  return out;
}

// Issue 27: std::regex took 27 s per request for ^(a+)+$ on 30 characters and overflowed the
// stack on a 100,000-character value, taking the API server down.
TEST(ValidateValue, Issue27PatternsAreLinearTime) {
  const Json schema = Json::parse(R"({"type":"object","properties":{
      "evil":{"type":"string","pattern":"^(a+)+$"},
      "name":{"type":"string","pattern":"^[a-z]([-a-z0-9]*[a-z0-9])?$"}}})");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Validate(schema, Json{{"evil", std::string(30, 'a') + "!"}}),
            std::vector<std::string>{"evil: Invalid value: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\": evil "
                                     "in body should match '^(a+)+$'"});
  EXPECT_EQ(Validate(schema, Json{{"evil", std::string(100000, 'a')}}).size(), 0u);
  EXPECT_EQ(Validate(schema, Json{{"name", std::string(100000, 'a')}}).size(), 0u);
  EXPECT_EQ(Validate(schema, Json{{"name", std::string(100000, 'a') + "-"}}).size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace trimtab::cluster
