// The dashboard's bounded history (decision_history.h): points per pass, decision logs for
// Scaled / Vetoed / Blocked only, both lists cut to their limits, malformed input dropped.
#include "operator/autoscaler/decision_history.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/flink/autoscaler_json.h"

namespace trimtab::op {
namespace {

core::JobTopology Topology(int source_parallelism) {
  core::JobTopology t;
  t.vertices.push_back({.id = "a1", .name = "Source: <b>kafka</b>", .parallelism = source_parallelism});
  t.vertices.push_back({.id = "b2", .name = "Sink", .parallelism = 1});
  return t;
}

TimePoint At(int minute) { return FromUnixMillis(1'700'000'000'000LL + minute * 60'000LL); }

TEST(DecisionHistoryTest, AppendsAPointWithNamesAndEvaluatedValues) {
  const core::JobTopology topology = Topology(2);
  core::EvaluatedMetrics evaluated;
  evaluated.vertices["a1"][core::kMetricTargetDataRate] = {.current = 9, .average = 10};
  evaluated.vertices["a1"][core::kMetricTrueProcessingRate] = {.current = 7, .average = 8};
  evaluated.vertices["a1"][core::kMetricLag] = {.current = 500, .average = std::nullopt};
  evaluated.vertices["b2"][core::kMetricTrueProcessingRate] = {.current = 1,
                                                               .average = std::nan("")};
  const Json log = {{"outcome", "NoChange"}};
  Json h = AppendToHistory(Json(), {.time = At(0),
                                    .outcome = "NoChange",
                                    .topology = &topology,
                                    .evaluated = &evaluated,
                                    .decision_log = &log});
  EXPECT_EQ(h["vertexNames"]["a1"], "Source: <b>kafka</b>");
  ASSERT_EQ(h["points"].size(), 1u);
  const Json& p = h["points"][0];
  EXPECT_EQ(p["outcome"], "NoChange");
  EXPECT_EQ(p["vertices"]["a1"]["parallelism"], 2);
  EXPECT_EQ(p["vertices"]["a1"]["inputRate"], 10.0);
  EXPECT_EQ(p["vertices"]["a1"]["capacity"], 8.0);
  EXPECT_EQ(p["vertices"]["a1"]["lag"], 500.0);
  EXPECT_FALSE(p["vertices"]["b2"].contains("capacity"));  // NaN is left out
  EXPECT_TRUE(h["decisions"].empty());                       // NoChange keeps no log
}

TEST(DecisionHistoryTest, KeepsLogsOfScaledVetoedAndBlockedOnly) {
  const core::JobTopology topology = Topology(1);
  Json h;
  int minute = 0;
  for (const char* outcome : {"Scaled", "WindowNotFull", "Vetoed", "Blocked", "NoChange"}) {
    const Json log = {{"outcome", outcome}, {"stages", Json::object()}};
    h = AppendToHistory(h, {.time = At(minute++), .outcome = outcome, .topology = &topology,
                            .decision_log = &log});
  }
  EXPECT_EQ(h["points"].size(), 5u);
  ASSERT_EQ(h["decisions"].size(), 3u);
  EXPECT_EQ(h["decisions"][0]["decision"], "Scaled");
  EXPECT_EQ(h["decisions"][1]["decision"], "Vetoed");
  EXPECT_EQ(h["decisions"][2]["decision"], "Blocked");
  EXPECT_FALSE(h["points"][0]["vertices"]["a1"].contains("inputRate"));  // no evaluation
}

TEST(DecisionHistoryTest, StaysBounded) {
  const core::JobTopology topology = Topology(1);
  Json h;
  const Json log = {{"outcome", "Scale"}};
  for (int i = 0; i < 1000; ++i) {
    h = AppendToHistory(h, {.time = At(i), .outcome = "Scaled", .topology = &topology,
                            .decision_log = &log});
  }
  EXPECT_EQ(h["points"].size(), kMaxHistoryPoints);
  EXPECT_EQ(h["decisions"].size(), kMaxHistoryDecisions);
  EXPECT_EQ(h["points"].back()["time"], core::flink::FormatTime(At(999)));
  EXPECT_EQ(h["decisions"].back()["time"], core::flink::FormatTime(At(999)));
}

TEST(DecisionHistoryTest, LongVertexNamesAreCut) {
  core::JobTopology topology;
  topology.vertices.push_back({.id = "a1", .name = std::string(5000, 'x'), .parallelism = 1});
  Json h = AppendToHistory(Json(), {.time = At(0), .outcome = "NoChange", .topology = &topology});
  EXPECT_EQ(h["vertexNames"]["a1"].get<std::string>().size(), kMaxHistoryVertexName);
}

TEST(DecisionHistoryTest, MalformedStoredHistoryIsReplaced) {
  const core::JobTopology topology = Topology(1);
  const std::vector<Json> stored_values = {
      Json("text"), Json::array({1, 2}),
      Json{{"points", "x"}, {"decisions", Json::array({1, Json::object()})}}};
  for (const Json& stored : stored_values) {
    Json h = AppendToHistory(stored, {.time = At(0), .outcome = "NoChange", .topology = &topology});
    EXPECT_EQ(h["points"].size(), 1u) << stored.dump();
    EXPECT_LE(h["decisions"].size(), 1u) << stored.dump();  // the one object entry survives
  }
}

}  // namespace
}  // namespace trimtab::op
