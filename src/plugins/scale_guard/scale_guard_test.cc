#include "plugins/scale_guard/scale_guard.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::plugins {
namespace {

using core::ChainVerdict;
using core::testing::LinearTopology;
using core::testing::Summary;

core::ExecutorContext Context(std::vector<int> parallelism) {
  core::ExecutorContext c{.job_key = "team/orders", .namespace_name = "team"};
  c.topology = LinearTopology(parallelism);
  return c;
}

// Nodes with `free_cpu` cores free each; TaskManagers of 1 cpu with 2 slots.
core::QueueHeadroom Nodes(std::vector<double> free_cpu, int task_managers) {
  core::QueueHeadroom h;
  h.task_manager = {.cpu = 1.0, .memory_bytes = 1024.0 * 1024 * 1024};
  h.slots_per_task_manager = 2;
  h.task_managers = task_managers;
  std::vector<core::ResourceAmounts> free;
  for (double cpu : free_cpu) free.push_back({.cpu = cpu, .memory_bytes = 64.0 * 1024 * 1024 * 1024});
  h.node_free = free;
  return h;
}

StatusOr<core::ExecutorResult> Guard(const core::ExecutorContext& c,
                                     const core::ScalingSummaries& s, Json* state,
                                     ScaleGuardOptions options = {}) {
  ScaleGuard plugin({"scale-guard", 0}, options);
  core::CycleState cycle;
  return plugin.Execute(c, s, cycle, *state);
}

// Issue 28: one decision asked for 2 -> 128 on one minute of implausible metrics.
TEST(ScaleGuardTest, Issue28JumpFrom2To128IsLimitedTo4x) {
  Json state;
  auto r = Guard(Context({2, 2}), {{"v0", Summary(2, 128)}, {"v1", Summary(2, 128)}}, &state);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 8);
  EXPECT_EQ(r->summaries.at("v1").new_parallelism, 8);
  EXPECT_EQ(r->reason,
            "v0 2 -> 128 limited to 8 (4.0x the running parallelism); "
            "v1 2 -> 128 limited to 8 (4.0x the running parallelism)");
  EXPECT_EQ(state["highestRunning"]["v0"], 2);
}

TEST(ScaleGuardTest, ScaleUpsWithinTheFactorAndScaleDownsPass) {
  Json state;
  auto r = Guard(Context({4, 8}), {{"v0", Summary(4, 16)}, {"v1", Summary(8, 2)}}, &state);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  auto down = Guard(Context({4, 8}), {{"v1", Summary(8, 1)}}, &state);
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(down->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(down->reason, "no scale-up");
}

TEST(ScaleGuardTest, HistoryAllowsGoingBackToAParallelismThatRan) {
  Json state;
  // The job ran at 32 once, then came down to 2.
  ASSERT_TRUE(Guard(Context({32}), {{"v0", Summary(32, 2)}}, &state).ok());
  auto r = Guard(Context({2}), {{"v0", Summary(2, 40)}}, &state);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 32);
  EXPECT_EQ(r->reason, "v0 2 -> 40 limited to 32 (highest parallelism seen running)");
}

TEST(ScaleGuardTest, FactorOffLeavesOnlyTheClusterRoom) {
  Json state;
  auto r = Guard(Context({2}), {{"v0", Summary(2, 128)}}, &state, {.max_factor = 0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
}

TEST(ScaleGuardTest, ClusterRoomTrimsToWhatTheNodesHold) {
  Json state;
  core::ExecutorContext c = Context({2});
  c.cluster = Nodes({1.5, 2.0}, 1);  // 1 + 2 TaskManagers fit: 1 + 3 = 4 TMs x 2 = 8 slots
  auto r = Guard(c, {{"v0", Summary(2, 16)}}, &state, {.max_factor = 10});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 8);
  EXPECT_EQ(r->reason,
            "trimmed from 16 to 8 slots: the nodes fit 3 more TaskManagers; 1 TaskManagers x 2 "
            "slots now, at most 8 slots");
}

TEST(ScaleGuardTest, NoRoomAtAllVetoesWithTheNumbers) {
  Json state;
  core::ExecutorContext c = Context({2});
  c.cluster = Nodes({0.5}, 1);
  auto r = Guard(c, {{"v0", Summary(2, 128)}}, &state);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason,
            "v0 2 -> 128 limited to 8 (4.0x the running parallelism); scale-up to 8 slots cannot "
            "be scheduled: the nodes fit 0 more TaskManagers; 1 TaskManagers x 2 slots now, at "
            "most 2 slots");
}

TEST(ScaleGuardTest, UnknownRoomOrQueueJobsKeepOnlyTheFactor) {
  Json state;
  core::ExecutorContext c = Context({2});
  c.cluster = Nodes({0.5}, 1);
  c.cluster->node_free.reset();
  auto r = Guard(c, {{"v0", Summary(2, 6)}}, &state);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  c.cluster = Nodes({0.5}, 1);
  c.queue = core::QueueHeadroom{.queue = "q"};  // queue-capacity decides for these
  r = Guard(c, {{"v0", Summary(2, 6)}}, &state);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
}

// deploy/overlays/single-namespace: the operator may not list pods in all namespaces, so the room
// is unknown; the decision says so rather than claiming the room was checked.
TEST(ScaleGuardTest, RoomUnknownForAReasonIsSaidInTheDecision) {
  Json state;
  core::ExecutorContext c = Context({2});
  c.cluster = Nodes({0.5}, 1);
  c.cluster->node_free.reset();
  c.cluster->node_free_unknown = "list pods in all namespaces: pods is forbidden";
  auto r = Guard(c, {{"v0", Summary(2, 6)}}, &state);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason,
            "every scale-up within 4.0x its running parallelism; the nodes' free room is unknown "
            "(list pods in all namespaces: pods is forbidden)");
  r = Guard(c, {{"v0", Summary(2, 16)}}, &state);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_NE(r->reason.find("limited to 8"), std::string::npos) << r->reason;
  EXPECT_NE(r->reason.find("free room is unknown"), std::string::npos) << r->reason;
}

TEST(ScaleGuardTest, ImplausibleMetricsVetoEvenAScaleDown) {
  Json state;
  core::ExecutorContext c = Context({4});
  core::MetricMap m;
  m[core::kMetricLoad] = core::EvaluatedMetric{.current = 1e9, .average = 0.5};
  c.metrics.vertices["v0"] = m;
  auto r = Guard(c, {{"v0", Summary(4, 2)}}, &state);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason, "implausible metrics, nothing is scaled: vertex v0 LOAD 1000000000.00");
  auto off = Guard(c, {{"v0", Summary(4, 2)}}, &state, {.plausibility = false});
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->verdict, ChainVerdict::kApprove);
}

TEST(ScaleGuardConfigTest, ParsesAndRejects) {
  auto o = ParseScaleGuardOptions(Json{{"maxFactor", 2.5}, {"clusterRoom", false}}, "config");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->max_factor, 2.5);
  EXPECT_FALSE(o->cluster_room);
  auto bad = ParseScaleGuardOptions(Json{{"maxFactor", 0.5}}, "config");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "config.maxFactor: must be 0 (off) or at least 1");
  auto unknown = ParseScaleGuardOptions(Json{{"maxfactor", 2}}, "config");
  EXPECT_FALSE(unknown.ok());
}

}  // namespace
}  // namespace trimtab::plugins
