#include "plugins/source_aligned/source_aligned.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::plugins {
namespace {

using core::ChainVerdict;
using core::testing::LinearTopology;
using core::testing::Summary;

core::ExecutorContext Context(double source_lag) {
  core::ExecutorContext c{.job_key = "ns/job"};
  c.topology = LinearTopology({2, 3, 2}, /*max_parallelism=*/6);
  c.metrics.vertices["v0"][core::kMetricLag] = core::EvaluatedMetric{.current = source_lag};
  return c;
}

StatusOr<core::ExecutorResult> Align(const core::ExecutorContext& c, const core::ScalingSummaries& s,
                                   SourceAlignedOptions options = {}) {
  SourceAligned plugin({"aligned", 0}, options);
  core::CycleState cycle;
  Json state;
  return plugin.Execute(c, s, cycle, state);
}

TEST(SourceAlignedTest, LagDrivenSourceScaleUpAlignsDownstream) {
  // v1 asked for a scale-down to 1; alignment replaces it with the source's 5.
  auto r = Align(Context(5000), {{"v0", Summary(2, 5)}, {"v1", Summary(3, 1)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->reason, "downstream vertices aligned to source parallelism 5");
  ASSERT_EQ(r->summaries.size(), 3u);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 5);
  EXPECT_EQ(r->summaries.at("v1").current_parallelism, 3);
  EXPECT_EQ(r->summaries.at("v1").new_parallelism, 5);
  EXPECT_EQ(r->summaries.at("v2").new_parallelism, 5);
}

TEST(SourceAlignedTest, AlignmentIsClampedToMaxParallelism) {
  auto r = Align(Context(10), {{"v0", Summary(2, 9)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 9);
  EXPECT_EQ(r->summaries.at("v1").new_parallelism, 6);
  EXPECT_EQ(r->summaries.at("v2").new_parallelism, 6);

  auto unclamped = Align(Context(10), {{"v0", Summary(2, 9)}}, {.clamp_to_max_parallelism = false});
  EXPECT_EQ(unclamped->summaries.at("v2").new_parallelism, 9);
}

TEST(SourceAlignedTest, SourceNotScaledUpIsVetoed) {
  auto only_downstream = Align(Context(5000), {{"v1", Summary(3, 6)}});
  ASSERT_TRUE(only_downstream.ok());
  EXPECT_EQ(only_downstream->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(only_downstream->reason, "no source is scaled up");

  auto source_down = Align(Context(5000), {{"v0", Summary(2, 1)}});
  EXPECT_EQ(source_down->verdict, ChainVerdict::kVeto);
}

TEST(SourceAlignedTest, ScaleUpWithoutLagIsVetoed) {
  auto r = Align(Context(0), {{"v0", Summary(2, 4)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason, "scale-up of source v0 is not lag-driven (lag 0 <= threshold 0)");

  auto below = Align(Context(900), {{"v0", Summary(2, 4)}}, {.lag_threshold = 1000});
  EXPECT_EQ(below->verdict, ChainVerdict::kVeto);

  core::ExecutorContext no_metric = Context(0);
  no_metric.metrics.vertices.clear();
  auto unknown = Align(no_metric, {{"v0", Summary(2, 4)}});
  EXPECT_EQ(unknown->reason, "scale-up of source v0 is not lag-driven (lag unknown <= threshold 0)");
}

TEST(SourceAlignedTest, LagFromSummaryMetricsCounts) {
  core::ExecutorContext c = Context(0);
  c.metrics.vertices.clear();
  core::ScalingSummary s = Summary(2, 3);
  s.metrics[core::kMetricLag] = core::EvaluatedMetric{.current = std::nullopt, .average = 40};
  auto r = Align(c, {{"v0", s}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v2").new_parallelism, 3);
}

TEST(SourceAlignedTest, TwoSourcesJoinFollowsTheLarger) {
  core::ExecutorContext c{.job_key = "ns/join"};
  c.topology.vertices = {{.id = "a", .parallelism = 2}, {.id = "b", .parallelism = 4},
                         {.id = "join", .parallelism = 4}};
  c.topology.edges = {{.from = "a", .to = "join"}, {.from = "b", .to = "join"}};
  c.metrics.vertices["a"][core::kMetricLag] = core::EvaluatedMetric{.current = 100};
  auto r = Align(c, {{"a", Summary(2, 3)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summaries.size(), 1u);  // join stays at max(3, 4) = 4, its current parallelism
  auto r2 = Align(c, {{"a", Summary(2, 6)}});
  EXPECT_EQ(r2->summaries.at("join").new_parallelism, 6);
}

TEST(SourceAlignedTest, UnknownTopologyIsAnError) {
  core::ExecutorContext c{.job_key = "ns/job"};
  auto r = Align(c, {{"v0", Summary(2, 4)}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace trimtab::plugins
