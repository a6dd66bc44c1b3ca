#include "core/chain/chain_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"
#include "core/scaling_types_json.h"

namespace trimtab::core {
namespace {

using ::testing::HasSubstr;

TEST(ChainJsonTest, ContextRoundTrips) {
  ExecutorContext c{.job_key = "ns/job", .namespace_name = "ns", .now = FromUnixMillis(1700000000123)};
  c.configuration["a"] = "1";
  c.metrics.global["TM_CPU_AVG"] = EvaluatedMetric{.current = 0.7, .average = std::nullopt};
  c.metrics.vertices["v0"]["LAG"] = EvaluatedMetric{.current = 10, .average = 8};
  c.topology = testing::LinearTopology({1, 2});
  c.fleet.push_back(JobFootprint{.job_key = "ns/b", .namespace_name = "ns", .slots = 3,
                                 .desired_slots = 5, .weight = 2});
  Json j = ToJson(c);
  EXPECT_EQ(j["timeMillis"], 1700000000123);
  auto back = ExecutorContextFromJson(j, "context");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ToJson(*back), j);
  EXPECT_EQ(back->fleet.at(0).desired_slots, 5);
  EXPECT_EQ(back->fleet.at(0).weight, 2);
}

TEST(ChainJsonTest, ContextRejectsNonStringConfiguration) {
  Json j = {{"jobKey", "x"}, {"configuration", {{"k", 1}}}};
  auto c = ExecutorContextFromJson(j, "context");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("context.configuration.k: must be a string"));
}

TEST(ChainJsonTest, RequestCarriesEverything) {
  ScalingSummaries s{{"v0", testing::Summary(1, 3)}};
  Json req = MakePluginRequest("gate", ExecutorContext{.job_key = "j"}, s, Json{{"n", 1}});
  EXPECT_EQ(req["plugin"], "gate");
  EXPECT_EQ(req["context"]["jobKey"], "j");
  EXPECT_EQ(req["summaries"]["v0"]["newParallelism"], 3);
  EXPECT_EQ(req["pluginState"]["n"], 1);
}

TEST(ChainJsonTest, ParsesResponses) {
  auto approve = PluginResponseFromJson(Json::parse(R"({"verdict": "approve"})"), "response");
  ASSERT_TRUE(approve.ok());
  EXPECT_EQ(approve->result.verdict, ChainVerdict::kApprove);
  EXPECT_FALSE(approve->plugin_state_json.has_value());

  auto modify = PluginResponseFromJson(
      Json::parse(R"({"verdict": "modify", "reason": "cap", "pluginState": {"x": 1},
                      "summaries": {"v0": {"currentParallelism": 1, "newParallelism": 2,
                                           "metrics": {}}}})"),
      "response");
  ASSERT_TRUE(modify.ok()) << modify.status().ToString();
  EXPECT_EQ(modify->result.verdict, ChainVerdict::kModify);
  EXPECT_EQ(modify->result.reason, "cap");
  EXPECT_EQ(modify->result.summaries.at("v0").new_parallelism, 2);
  EXPECT_EQ(*modify->plugin_state_json, R"({"x":1})");

  Json encoded = ToJson(modify->result);
  EXPECT_EQ(encoded["verdict"], "modify");
  EXPECT_EQ(encoded["summaries"]["v0"]["newParallelism"], 2);
}

struct BadResponse {
  const char* name;
  const char* json;
  const char* message;
};

class ChainJsonBadResponseTest : public ::testing::TestWithParam<BadResponse> {};

TEST_P(ChainJsonBadResponseTest, NamesTheField) {
  auto r = PluginResponseFromJson(Json::parse(GetParam().json), "response");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ChainJsonBadResponseTest,
    ::testing::Values(
        BadResponse{"NotObject", R"([1, 2])", "response"},
        BadResponse{"NoVerdict", R"({"reason": "x"})", "response.verdict"},
        BadResponse{"UnknownVerdict", R"({"verdict": "maybe"})",
                    "response.verdict: unknown verdict \"maybe\""},
        BadResponse{"ModifyWithoutSummaries", R"({"verdict": "modify"})",
                    "response.summaries: required when verdict is modify"},
        BadResponse{"UnknownField", R"({"verdict": "approve", "extra": 1})", "response.extra"},
        BadResponse{"BadSummary", R"({"verdict": "modify", "summaries": {"v": {"newParallelism": "x"}}})",
                    "response.summaries.v"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace trimtab::core
