#include "core/scaling_types.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/scaling_types_json.h"

namespace trimtab::core {
namespace {

TEST(JobTopologyTest, JsonRoundTripAndNavigation) {
  Json j = Json::parse(R"({
    "vertices": [{"id": "src", "parallelism": 2, "partitions": 8},
                 {"id": "agg", "parallelism": 4, "maxParallelism": 720}],
    "edges": [{"from": "src", "to": "agg", "shipStrategy": "HASH"}]})");
  auto t = JobTopologyFromJson(j, "topology");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->IsSource("src"));
  EXPECT_FALSE(t->IsSource("agg"));
  EXPECT_EQ(t->Outputs("src"), std::vector<VertexId>{"agg"});
  EXPECT_EQ(t->Find("agg")->max_parallelism, 720);
  auto back = JobTopologyFromJson(ToJson(*t), "topology");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ToJson(*back), ToJson(*t));
  EXPECT_EQ(back->edges[0].ship_strategy, "HASH");
}

TEST(JobTopologyTest, ErrorsNameTheField) {
  auto bad_edge = JobTopologyFromJson(
      Json::parse(R"({"vertices": [{"id": "a", "parallelism": 1}], "edges": [{"from": "a", "to": "b"}]})"),
      "topology");
  EXPECT_EQ(bad_edge.status().message(), "topology.edges[0].to: unknown vertex \"b\"");
  auto bad_p = JobTopologyFromJson(Json::parse(R"({"vertices": [{"id": "a", "parallelism": 0}]})"),
                                   "topology");
  EXPECT_EQ(bad_p.status().message(), "topology.vertices[0].parallelism: must be at least 1");
}

TEST(ScalingSummariesTest, RoundTrip) {
  ScalingSummaries s;
  s["v1"] = {.current_parallelism = 2, .new_parallelism = 6,
             .metrics = {{kMetricLoad, {.current = 0.9, .average = 0.85}}}};
  auto back = ScalingSummariesFromJson(ToJson(s), "summaries");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->at("v1").new_parallelism, 6);
  EXPECT_EQ(back->at("v1").metrics.at(kMetricLoad).average, 0.85);
  EXPECT_FALSE(back->at("v1").metrics.at(kMetricLoad).current == std::nullopt);
}

}  // namespace
}  // namespace trimtab::core
