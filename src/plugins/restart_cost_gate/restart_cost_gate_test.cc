#include "plugins/restart_cost_gate/restart_cost_gate.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::plugins {
namespace {

using core::ChainVerdict;
using core::EvaluatedMetric;
using core::testing::LinearTopology;
using core::testing::Summary;

// Source v0 -> v1. Input 1000 records/s; the source could read 5000/s.
core::ExecutorContext Context(double v1_rate, double lag, std::vector<int> parallelism = {2, 2}) {
  core::ExecutorContext c{.job_key = "ns/job"};
  c.topology = LinearTopology(parallelism);
  c.metrics.vertices["v0"][core::kMetricTargetDataRate] = EvaluatedMetric{.current = 1200, .average = 1000};
  c.metrics.vertices["v0"][core::kMetricLag] = EvaluatedMetric{.current = lag};
  c.metrics.vertices["v0"][core::kMetricTrueProcessingRate] = EvaluatedMetric{.average = 5000};
  c.metrics.vertices["v1"][core::kMetricTrueProcessingRate] = EvaluatedMetric{.average = v1_rate};
  // v1 sees the whole stream (selectivity 1): its capacity in source records/s is its own rate.
  c.metrics.vertices["v1"][core::kMetricTargetDataRate] = EvaluatedMetric{.average = 1000};
  return c;
}

// Source v0 (10,000 records/s in) -> filter v1 (passes 2 %) -> window v2 (200 records/s in).
// Per-vertex capacity in records/s into the vertex: v0 8,000 (the real bottleneck), v1 50,000,
// v2 1,000 -- the smallest raw rate, but 1,000 / 2 % = 50,000 source records/s.
core::ExecutorContext SelectiveChain() {
  core::ExecutorContext c{.job_key = "ns/job"};
  c.topology = LinearTopology({2, 2, 1});
  auto& m = c.metrics.vertices;
  m["v0"][core::kMetricTargetDataRate] = EvaluatedMetric{.average = 10000};
  m["v0"][core::kMetricLag] = EvaluatedMetric{.current = 0};
  m["v0"][core::kMetricTrueProcessingRate] = EvaluatedMetric{.average = 8000};
  m["v1"][core::kMetricTargetDataRate] = EvaluatedMetric{.average = 10000};
  m["v1"][core::kMetricTrueProcessingRate] = EvaluatedMetric{.average = 50000};
  m["v2"][core::kMetricTargetDataRate] = EvaluatedMetric{.average = 200};
  m["v2"][core::kMetricTrueProcessingRate] = EvaluatedMetric{.average = 1000};
  return c;
}

StatusOr<core::ExecutorResult> Gate(const core::ExecutorContext& c, const core::ScalingSummaries& s,
                                    RestartCostGateOptions options = {}) {
  RestartCostGate plugin({"restart", 0}, options);
  core::CycleState cycle;
  Json state;
  return plugin.Execute(c, s, cycle, state);
}

TEST(RestartCostGateTest, ScalingTheBottleneckWithBacklogPaysOff) {
  // Before 800/s, after 1600/s; demand 600000 + 1000*3600 = 4.2M; benefit 4.2M - 2.88M.
  auto r = Gate(Context(800, 600000), {{"v1", Summary(2, 4)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason,
            "expected benefit 1320000 records over 3600s covers the restart cost 60000 records "
            "(60s downtime at 1000 records/s)");
}

TEST(RestartCostGateTest, NoDeficitNoBenefit) {
  auto r = Gate(Context(1200, 0), {{"v1", Summary(2, 4)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason,
            "expected benefit 0 records over 3600s is below the restart cost 60000 records "
            "(60s downtime at 1000 records/s)");
}

TEST(RestartCostGateTest, BacklogAboveApproveAboveLagSecondsPassesUnweighed) {
  // A saturated bottleneck reports about the input rate as its capacity: the model sees no
  // benefit (veto above), but 45 s of input waiting says otherwise.
  RestartCostGateOptions o;
  o.approve_above_lag_seconds = 30;
  auto r = Gate(Context(1200, 45000), {{"v1", Summary(2, 4)}}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason,
            "backlog of 45s of input is above approveAboveLagSeconds 30s: the scale-up is not "
            "weighed against its restart");
  // At or below the threshold the comparison decides (and vetoes).
  EXPECT_EQ(Gate(Context(1200, 30000), {{"v1", Summary(2, 4)}}, o)->verdict, ChainVerdict::kVeto);
  // Off (the default): the same backlog does not bypass the comparison.
  EXPECT_EQ(Gate(Context(1200, 45000), {{"v1", Summary(2, 4)}})->verdict, ChainVerdict::kVeto);
  // Scale-downs are never waved through by a backlog.
  o.scale_down_records_per_slot_second = 0.001;
  EXPECT_EQ(Gate(Context(1200, 45000), {{"v1", Summary(4, 2)}}, o)->verdict, ChainVerdict::kVeto);
}

TEST(RestartCostGateTest, ADeficitThatWouldPassApproveAboveLagSecondsPassesUnweighed) {
  // The bottleneck carries 990 of 1000 records/s: 10/s short, so an hour adds 36000 records,
  // 36 s of input. By benefit (36000 records) the restart (60000) does not pay, but the backlog
  // would break a 30-s threshold within the hour anyway.
  RestartCostGateOptions o;
  o.approve_above_lag_seconds = 30;
  auto r = Gate(Context(990, 0), {{"v1", Summary(2, 4)}}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason,
            "the bottleneck carries 990 of 1000 records/s: within 3600s the backlog would reach "
            "36s of input, above approveAboveLagSeconds 30s: the scale-up is not weighed against "
            "its restart");
  // 995/s: 18 s within the hour, plus 5 s waiting now: 23 s, the comparison decides (veto).
  EXPECT_EQ(Gate(Context(995, 5000), {{"v1", Summary(2, 4)}}, o)->verdict, ChainVerdict::kVeto);
  // ... and with 15 s already waiting, 33 s: approved.
  EXPECT_EQ(Gate(Context(995, 15000), {{"v1", Summary(2, 4)}}, o)->verdict,
            ChainVerdict::kApprove);
  // Without approveAboveLagSeconds the deficit is only weighed.
  EXPECT_EQ(Gate(Context(990, 0), {{"v1", Summary(2, 4)}})->verdict, ChainVerdict::kVeto);
}

TEST(RestartCostGateTest, ADrainingBacklogPassesOnlyIfTheRestartDrainsItSooner) {
  // v1 carries 1500 of 1000 records/s: the 45 s of input waiting drain in 45000 / 500 = 90 s.
  // 2 -> 3 (2250/s): the restart adds 60 s of input, 60 + 105000 / 1250 = 144 s: later, veto.
  RestartCostGateOptions o;
  o.approve_above_lag_seconds = 30;
  auto r = Gate(Context(1500, 45000), {{"v1", Summary(2, 3)}}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason,
            "backlog of 45s of input drains in 90s at the bottleneck's 1500 records/s, in 144s "
            "after a 60s restart at the expected 2250 records/s");
  // 2 -> 8 (6000/s): 60 + 105000 / 5000 = 81 s: sooner, approved without the weighing.
  r = Gate(Context(1500, 45000), {{"v1", Summary(2, 8)}}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason,
            "backlog of 45s of input is above approveAboveLagSeconds 30s: the scale-up is not "
            "weighed against its restart");
  // A bottleneck at the input rate (1000/s) does not drain: no drain check, approved.
  EXPECT_EQ(Gate(Context(1000, 45000), {{"v1", Summary(2, 3)}}, o)->verdict,
            ChainVerdict::kApprove);
}

TEST(RestartCostGateTest, ObservedRestartTimeIsTheDowntimeWhenLonger) {
  RestartCostGateOptions o;
  o.approve_above_lag_seconds = 30;
  o.observed_restart_time = true;
  core::ExecutorContext c = Context(1200, 45000);
  // 60 s: 60 + 105000 / 1400 = 135 s < 225 s at 1200/s: approved (as without the option).
  c.metrics.global[core::kMetricRestartTime] = EvaluatedMetric{.current = 20};  // below the floor
  EXPECT_EQ(Gate(c, {{"v1", Summary(2, 4)}}, o)->verdict, ChainVerdict::kApprove);
  // The autoscaler saw restarts leave 300 s of input waiting: 300 + 345000 / 1400 = 546 s.
  c.metrics.global[core::kMetricRestartTime] = EvaluatedMetric{.current = 300};
  auto r = Gate(c, {{"v1", Summary(2, 4)}}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason,
            "backlog of 45s of input drains in 225s at the bottleneck's 1200 records/s, in 546s "
            "after a 300s restart at the expected 2400 records/s");
  // Without the option RESTART_TIME is not read.
  o.observed_restart_time = false;
  EXPECT_EQ(Gate(c, {{"v1", Summary(2, 4)}}, o)->verdict, ChainVerdict::kApprove);
  // It prices the weighed restart too: 1500 s at 1000/s outweighs the 1.32M benefit.
  o.observed_restart_time = true;
  o.approve_above_lag_seconds = 0;
  core::ExecutorContext weighed = Context(800, 600000);
  weighed.metrics.global[core::kMetricRestartTime] = EvaluatedMetric{.current = 1500};
  r = Gate(weighed, {{"v1", Summary(2, 4)}}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason,
            "expected benefit 1320000 records over 3600s is below the restart cost 1500000 "
            "records (1500s downtime at 1000 records/s)");
}

TEST(RestartCostGateTest, SmallBacklogBelowCostIsVetoedLargerPasses) {
  // Capacity equals input; the only gain is clearing the backlog.
  auto small = Gate(Context(1000, 30000), {{"v1", Summary(2, 4)}});
  EXPECT_EQ(small->verdict, ChainVerdict::kVeto);
  auto large = Gate(Context(1000, 90000), {{"v1", Summary(2, 4)}});
  EXPECT_EQ(large->verdict, ChainVerdict::kApprove);
  // A longer downtime makes the same rescale too expensive: 120s * 1000/s > 90000.
  auto slow = Gate(Context(1000, 90000), {{"v1", Summary(2, 4)}}, {.restart_seconds = 120});
  EXPECT_EQ(slow->verdict, ChainVerdict::kVeto);
}

TEST(RestartCostGateTest, ScalingANonBottleneckVertexHasNoBenefit) {
  auto r = Gate(Context(800, 600000), {{"v0", Summary(2, 4)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
}

TEST(RestartCostGateTest, ExpectedProcessingRateIsPreferred) {
  core::ScalingSummary s = Summary(2, 4);
  s.metrics[core::kMetricExpectedProcessingRate] = EvaluatedMetric{.current = 1100};
  // Before 900*3600 = 3.24M, after min(1100*3600, 3.6M) = 3.6M.
  auto r = Gate(Context(900, 0), {{"v1", s}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason.substr(0, 33), "expected benefit 360000 records o");
}

TEST(RestartCostGateTest, MissingMetricsVeto) {
  core::ExecutorContext no_rate = Context(800, 1000);
  no_rate.metrics.vertices["v0"].erase(core::kMetricTargetDataRate);
  auto r = Gate(no_rate, {{"v1", Summary(2, 4)}});
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason, "metric TARGET_DATA_RATE of source v0 is unavailable");

  core::ExecutorContext no_tpr = Context(800, 1000);
  no_tpr.metrics.vertices["v1"].erase(core::kMetricTrueProcessingRate);
  auto t = Gate(no_tpr, {{"v1", Summary(2, 4)}});
  EXPECT_EQ(t->reason, "metric TRUE_PROCESSING_RATE of vertex v1 is unavailable");
}

TEST(RestartCostGateTest, SelectiveDownstreamVertexIsNotTheBottleneck) {
  // Bug: the raw minimum took v2 (1,000/s) as the bottleneck, so doubling the source showed no
  // benefit and was vetoed. In source records/s: before min(8000, 50000, 50000) = 8000, after
  // 16000; demand 10000*3600 = 36M; benefit 36M - 28.8M.
  auto r = Gate(SelectiveChain(), {{"v0", Summary(2, 4)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason,
            "expected benefit 7200000 records over 3600s covers the restart cost 600000 records "
            "(60s downtime at 10000 records/s)");
  // Scaling the selective vertex instead does not move the bottleneck: no benefit.
  auto window = Gate(SelectiveChain(), {{"v2", Summary(1, 2)}});
  ASSERT_TRUE(window.ok());
  EXPECT_EQ(window->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(window->reason.substr(0, 27), "expected benefit 0 records ");
}

TEST(RestartCostGateTest, VertexWithoutTargetDataRate) {
  // An unchanged vertex without TARGET_DATA_RATE is left out of the minimum.
  core::ExecutorContext no_window_rate = SelectiveChain();
  no_window_rate.metrics.vertices["v2"].erase(core::kMetricTargetDataRate);
  auto r = Gate(no_window_rate, {{"v0", Summary(2, 4)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  // A scaled-up one without it (or with zero) is a veto: its benefit is unknown.
  auto scaled = Gate(no_window_rate, {{"v2", Summary(1, 2)}});
  ASSERT_TRUE(scaled.ok());
  EXPECT_EQ(scaled->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(scaled->reason,
            "metric TARGET_DATA_RATE of vertex v2 is unavailable or zero (its capacity in source "
            "records/s is unknown)");
  core::ExecutorContext zero = SelectiveChain();
  zero.metrics.vertices["v1"][core::kMetricTargetDataRate] = EvaluatedMetric{.average = 0};
  auto z = Gate(zero, {{"v1", Summary(2, 4)}});
  EXPECT_EQ(z->verdict, ChainVerdict::kVeto);
  // No input at the sources: nothing can be normalised, not an approval.
  core::ExecutorContext idle = SelectiveChain();
  idle.metrics.vertices["v0"][core::kMetricTargetDataRate] = EvaluatedMetric{.average = 0};
  auto i = Gate(idle, {{"v0", Summary(2, 4)}});
  EXPECT_EQ(i->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(i->reason,
            "the sources' TARGET_DATA_RATE is zero: capacities in source records/s are unknown");
}

TEST(RestartCostGateTest, ScaleDownsGatedOnlyWhenValued) {
  core::ScalingSummaries down{{"v1", Summary(4, 2)}};
  core::ExecutorContext c = Context(800, 0, {2, 4});
  auto free_pass = Gate(c, down);
  EXPECT_EQ(free_pass->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(free_pass->reason, "scale-down not gated");
  // Two freed slots over an hour: 7200 slot-seconds.
  auto cheap = Gate(c, down, {.scale_down_records_per_slot_second = 1});
  EXPECT_EQ(cheap->verdict, ChainVerdict::kVeto);
  auto valuable = Gate(c, down, {.scale_down_records_per_slot_second = 10});
  EXPECT_EQ(valuable->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(valuable->reason.substr(0, 38), "expected benefit 72000 records over 36");
}

// One gate and its plugin state across cycles, as the autoscaler keeps them for a job.
class BreakEvenTest : public ::testing::Test {
 protected:
  // Value 5 per slot-second: freeing 2 slots forecasts 2 x 3600 x 5 = 36000 records over the
  // hour, below the 60000 of a 60-s restart at 1000 records/s; kept, they are worth 10 records a
  // second, so the wait breaks even after 6000 s.
  RestartCostGateOptions options_{.scale_down_records_per_slot_second = 5,
                                  .scale_down_break_even = true,
                                  .break_even_gap_seconds = 4000};
  RestartCostGate gate_{{"restart", 0}, options_};
  Json state_;
  core::ScalingSummaries down_{{"v1", Summary(4, 2)}};  // 4 -> 2 slots

  // One cycle of `gate` (default: gate_) at `seconds` after the first.
  core::ExecutorResult At(double seconds, const core::ScalingSummaries& s,
                          RestartCostGate* gate = nullptr) {
    core::ExecutorContext c = Context(800, 0, {2, 4});
    c.now = FromUnixMillis(1'700'000'000'000 + static_cast<int64_t>(seconds * 1000));
    core::CycleState cycle;
    auto r = (gate ? *gate : gate_).Execute(c, s, cycle, state_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : core::ExecutorResult{};
  }
};

TEST_F(BreakEvenTest, ApprovesOnceTheKeptSlotsPayForTheRestart) {
  core::ExecutorResult first = At(0, down_);
  EXPECT_EQ(first.verdict, ChainVerdict::kVeto);
  EXPECT_EQ(first.reason,
            "expected benefit 36000 records over 3600s is below the restart cost 60000 records "
            "(60s downtime at 1000 records/s); the slots this scale-down would have freed were "
            "kept for 0s (0 slot-seconds, worth 0 records) so far (scaleDownBreakEven)");
  core::ExecutorResult mid = At(3000, down_);
  EXPECT_EQ(mid.verdict, ChainVerdict::kVeto);
  EXPECT_NE(mid.reason.find("kept for 3000s (6000 slot-seconds, worth 30000 records) so far"),
            std::string::npos)
      << mid.reason;
  EXPECT_EQ(state_["scaleDownWait"]["sinceMillis"], 1'700'000'000'000);
  core::ExecutorResult paid = At(6000, down_);
  EXPECT_EQ(paid.verdict, ChainVerdict::kApprove);
  EXPECT_EQ(paid.reason,
            "the slots this scale-down would have freed were kept for 6000s (12000 slot-seconds, "
            "worth 60000 records): they have paid for the restart cost 60000 records (60s "
            "downtime at 1000 records/s) (scaleDownBreakEven)");
  EXPECT_TRUE(state_.is_null()) << state_.dump();  // the wait is over
}

TEST_F(BreakEvenTest, AGapLongerThanTheLimitStartsTheWaitAnew) {
  At(0, down_);
  At(3000, down_);
  // 4001 s later: the autoscaler stopped asking in between.
  core::ExecutorResult r = At(7001, down_);
  EXPECT_EQ(r.verdict, ChainVerdict::kVeto);
  EXPECT_NE(r.reason.find("kept for 0s"), std::string::npos) << r.reason;
  EXPECT_EQ(state_["scaleDownWait"]["sinceMillis"], 1'700'007'001'000);
}

TEST_F(BreakEvenTest, ARescaleThatFreesNoSlotEndsTheWait) {
  At(0, down_);
  At(3000, down_);
  // A scale-up of the bottleneck in between (approved: v1 carries 800 of 1000 records/s) ends it.
  EXPECT_EQ(At(3060, {{"v1", Summary(4, 8)}}).verdict, ChainVerdict::kApprove);
  EXPECT_TRUE(state_.is_null()) << state_.dump();
  core::ExecutorResult r = At(6000, down_);
  EXPECT_EQ(r.verdict, ChainVerdict::kVeto);
  EXPECT_NE(r.reason.find("kept for 0s"), std::string::npos) << r.reason;
}

TEST_F(BreakEvenTest, AMalformedStateIsNoWait) {
  state_ = Json::parse(R"({"scaleDownWait": {"sinceMillis": "yesterday"}})");
  core::ExecutorResult r = At(0, down_);
  EXPECT_EQ(r.verdict, ChainVerdict::kVeto);
  EXPECT_NE(r.reason.find("kept for 0s"), std::string::npos) << r.reason;
  EXPECT_EQ(state_["scaleDownWait"]["keptSlotSeconds"], 0);
}

TEST_F(BreakEvenTest, OffByDefault) {
  RestartCostGate plain({"restart", 0}, {.scale_down_records_per_slot_second = 5});
  for (double t : {0.0, 3000.0, 6000.0, 9000.0}) {
    core::ExecutorResult r = At(t, down_, &plain);
    EXPECT_EQ(r.verdict, ChainVerdict::kVeto);
    EXPECT_EQ(r.reason.find("scaleDownBreakEven"), std::string::npos);
  }
  EXPECT_TRUE(state_.is_null());
}

}  // namespace
}  // namespace trimtab::plugins
