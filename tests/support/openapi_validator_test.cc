#include "tests/support/openapi_validator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trimtab::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kSpec[] = R"(
openapi: 3.0.1
info: {version: v1/test}
paths:
  /things/{id}:
    get:
      responses:
        "200":
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Thing"}
  /cluster:
    delete:
      responses:
        "200": {description: ok}
components:
  schemas:
    Id: {type: string, pattern: "[0-9a-f]{32}"}
    Thing:
      type: object
      required: [kind]
      properties:
        id: {$ref: "#/components/schemas/Id"}
        kind: {type: string, enum: [a, b]}
        count: {type: integer, format: int32}
        ratio: {type: number}
        tags: {type: array, items: {type: string}}
        labels: {type: object, additionalProperties: {type: integer}}
        maybe: {type: string, nullable: true}
        detail: {$ref: "#/components/schemas/Base"}
    Base:
      type: object
      required: [className]
      properties:
        className: {type: string}
        x: {type: integer}
      discriminator:
        propertyName: className
        mapping:
          big: "#/components/schemas/Big"
    Big:
      type: object
      allOf:
      - $ref: "#/components/schemas/Base"
      - type: object
        properties:
          size: {type: integer}
)";

Json ValidThing() {
  return Json::parse(R"({"id": "0123456789abcdef0123456789abcdef", "kind": "a", "count": 3, "ratio": 0.5,
                         "tags": ["x"], "labels": {"k": 1}, "maybe": null,
                         "detail": {"className": "big", "x": 1, "size": 2}})");
}

class OpenApiValidatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = OpenApiSpec::Parse(kSpec, "test spec");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    spec_ = std::move(*s);
  }
  std::vector<std::string> Check(const Json& v, const ValidationOptions& o = {}) {
    return ValidateJson(spec_, Op("/things/{id}").schema, v, o);
  }
  const OpenApiSpec::Operation& Op(const std::string& path) const {
    for (const OpenApiSpec::Operation& op : spec_.operations()) {
      if (op.path == path) return op;
    }
    static const OpenApiSpec::Operation kNone;
    return kNone;
  }
  OpenApiSpec spec_;
};

TEST_F(OpenApiValidatorTest, ListsOperationsWithTheirSuccessSchemas) {
  ASSERT_EQ(spec_.operations().size(), 2u);
  EXPECT_EQ(Op("/things/{id}").method, "GET");
  EXPECT_EQ(Op("/things/{id}").status, "200");
  EXPECT_TRUE(Op("/things/{id}").schema.is_object());
  EXPECT_EQ(Op("/cluster").method, "DELETE");
  EXPECT_TRUE(Op("/cluster").schema.is_null());
  EXPECT_EQ(spec_.version(), "v1/test");
}

TEST_F(OpenApiValidatorTest, AcceptsAConformingDocument) { EXPECT_THAT(Check(ValidThing()), IsEmpty()); }

TEST_F(OpenApiValidatorTest, ReportsEachKindOfMismatchWithItsPath) {
  Json v = ValidThing();
  v["id"] = "not-hex";
  v["kind"] = "c";
  v["count"] = 1.5;
  v["tags"][0] = 1;
  v["labels"]["k"] = "one";
  v["extra"] = true;
  const std::vector<std::string> p = Check(v);
  EXPECT_THAT(p, ::testing::UnorderedElementsAre(HasSubstr("$.id: \"not-hex\" does not match"),
                                                 HasSubstr("$.kind: value \"c\" is not one of"),
                                                 HasSubstr("$.count: expected integer"),
                                                 HasSubstr("$.tags[0]: expected string"),
                                                 HasSubstr("$.labels.k: expected integer"),
                                                 HasSubstr("$: property \"extra\" is not in the schema")));
}

TEST_F(OpenApiValidatorTest, RequiredNullableAndOptionalProperties) {
  Json v = ValidThing();
  v.erase("kind");
  v["ratio"] = nullptr;
  v.erase("tags");
  EXPECT_THAT(Check(v), ::testing::UnorderedElementsAre(HasSubstr("required property \"kind\" is missing"),
                                                        HasSubstr("$.ratio: is null"),
                                                        HasSubstr("\"tags\" (Thing.tags) is missing")));
  ValidationOptions o;
  o.optional = {"Thing.tags"};
  o.nullable = {"Thing.ratio"};
  v["kind"] = "b";
  EXPECT_THAT(Check(v, o), IsEmpty());
}

TEST_F(OpenApiValidatorTest, DiscriminatorSelectsTheSubtypeAndAllOfMergesProperties) {
  Json v = ValidThing();
  v["detail"]["size"] = "big";
  EXPECT_THAT(Check(v), ElementsAre(HasSubstr("$.detail.size: expected integer")));
  v["detail"] = Json{{"className", "small"}, {"x", 1}};
  EXPECT_THAT(Check(v), ElementsAre(HasSubstr("unknown discriminator value \"small\"")));
}

TEST_F(OpenApiValidatorTest, OverridesReplaceComponentSchemas) {
  spec_.OverrideSchema("Id", Json{{"type", "integer"}});
  EXPECT_THAT(Check(ValidThing()), ElementsAre(HasSubstr("$.id: expected integer")));
}

}  // namespace
}  // namespace trimtab::testing
