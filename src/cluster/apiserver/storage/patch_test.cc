#include "cluster/apiserver/storage/patch.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

Json J(const char* text) { return Json::parse(text); }

TEST(JsonPatchTest, AppliesEveryOperation) {
  Json doc = J(R"({"a":{"b":1,"c":[1,2,3]},"x/y":"s","t~":true})");
  Json patch = J(R"([
    {"op":"add","path":"/a/d","value":{"e":5}},
    {"op":"add","path":"/a/c/1","value":9},
    {"op":"add","path":"/a/c/-","value":10},
    {"op":"remove","path":"/a/b"},
    {"op":"replace","path":"/x~1y","value":"r"},
    {"op":"move","from":"/t~0","path":"/moved"},
    {"op":"copy","from":"/a/d","path":"/copied"},
    {"op":"test","path":"/a/c","value":[1,9,2,3,10]}
  ])");
  auto out = ApplyJsonPatch(doc, patch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, J(R"({"a":{"c":[1,9,2,3,10],"d":{"e":5}},"x/y":"r","moved":true,
                         "copied":{"e":5}})"));
}

TEST(JsonPatchTest, ReplacesWholeDocument) {
  auto out = ApplyJsonPatch(J(R"({"a":1})"), J(R"([{"op":"replace","path":"","value":[1]}])"));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, J("[1]"));
}

struct BadPatchCase {
  const char* name;
  const char* patch;
  StatusCode code;
  const char* message_part;
};

class JsonPatchErrorTest : public ::testing::TestWithParam<BadPatchCase> {};

TEST_P(JsonPatchErrorTest, Rejects) {
  const auto& c = GetParam();
  Json doc = J(R"({"a":{"b":[1]},"s":"v"})");
  auto out = ApplyJsonPatch(doc, J(c.patch));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), c.code);
  EXPECT_NE(out.status().message().find(c.message_part), std::string::npos)
      << out.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, JsonPatchErrorTest,
    ::testing::Values(
        BadPatchCase{"NotArray", R"({"op":"add"})", StatusCode::kInvalidArgument, "array"},
        BadPatchCase{"UnknownOp", R"([{"op":"frob","path":"/a"}])", StatusCode::kInvalidArgument,
                     "unexpected kind"},
        BadPatchCase{"MissingValue", R"([{"op":"add","path":"/a"}])",
                     StatusCode::kInvalidArgument, "missing \"value\""},
        BadPatchCase{"BadPointer", R"([{"op":"remove","path":"a"}])",
                     StatusCode::kInvalidArgument, "must start with /"},
        BadPatchCase{"MissingParent", R"([{"op":"add","path":"/x/y","value":1}])",
                     StatusCode::kFailedPrecondition, "missing path"},
        BadPatchCase{"RemoveMissing", R"([{"op":"remove","path":"/nope"}])",
                     StatusCode::kFailedPrecondition, "nonexistent"},
        BadPatchCase{"IndexOutOfRange", R"([{"op":"add","path":"/a/b/5","value":1}])",
                     StatusCode::kFailedPrecondition, "out of bounds"},
        BadPatchCase{"TestFails", R"([{"op":"test","path":"/s","value":"w"}])",
                     StatusCode::kFailedPrecondition, "test failed"},
        BadPatchCase{"ReplaceMissing", R"([{"op":"replace","path":"/q","value":1}])",
                     StatusCode::kFailedPrecondition, "missing key"},
        BadPatchCase{"MoveIntoChild", R"([{"op":"move","from":"/a","path":"/a/b/0"}])",
                     StatusCode::kFailedPrecondition, "own child"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(JsonPatchTest, FailedPatchLeavesDocumentUntouched) {
  Json doc = J(R"({"a":1})");
  auto out = ApplyJsonPatch(doc, J(R"([{"op":"add","path":"/b","value":2},
                                       {"op":"test","path":"/a","value":5}])"));
  EXPECT_FALSE(out.ok());
  EXPECT_EQ(doc, J(R"({"a":1})"));
}

TEST(MergePatchTest, FollowsRfc7386Examples) {
  // The RFC 7386 appendix A test cases.
  struct Case {
    const char* target;
    const char* patch;
    const char* result;
  };
  const Case cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", "null", "null"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ApplyMergePatch(J(c.target), J(c.patch)), J(c.result)) << c.target << " + " << c.patch;
  }
}

}  // namespace
}  // namespace trimtab::cluster
