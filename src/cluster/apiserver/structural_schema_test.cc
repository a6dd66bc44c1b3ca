#include "cluster/apiserver/structural_schema.h"

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

}  // namespace
}  // namespace trimtab::cluster
