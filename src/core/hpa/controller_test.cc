#include "core/hpa/controller.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace trimtab::core::hpa {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const TimePoint kNow = FromUnixMillis(1714564800000);  // 2024-05-01T12:00:00Z

Quantity Q(const std::string& s) { return *Quantity::Parse(s); }

MetricSpec CpuUtilization(int32_t target) {
  MetricSpec m;
  m.type = MetricSourceType::kResource;
  m.resource_name = "cpu";
  m.target.type = MetricTargetType::kUtilization;
  m.target.average_utilization = target;
  return m;
}

MetricSpec ExternalValue(const std::string& name, const std::string& value) {
  MetricSpec m;
  m.type = MetricSourceType::kExternal;
  m.metric.name = name;
  m.target.type = MetricTargetType::kValue;
  m.target.value = Q(value);
  return m;
}

MetricSpec ExternalAverage(const std::string& name, const std::string& value) {
  MetricSpec m;
  m.type = MetricSourceType::kExternal;
  m.metric.name = name;
  m.target.type = MetricTargetType::kAverageValue;
  m.target.average_value = Q(value);
  return m;
}

// `levels` are pod CPU usages in milli-cores; every pod requests 1 CPU and has been ready for
// a long time.
HpaInput CpuInput(int32_t min, int32_t max, int32_t replicas, const std::vector<int64_t>& levels,
                  int32_t target) {
  HpaInput in;
  in.spec.min_replicas = min;
  in.spec.max_replicas = max;
  in.spec.metrics = {CpuUtilization(target)};
  in.spec_replicas = replicas;
  in.status_replicas = replicas;
  in.now = kNow;
  PodSamples samples;
  samples.timestamp = kNow;
  for (size_t i = 0; i < levels.size(); ++i) {
    PodInfo p;
    p.name = "pod-" + std::to_string(i);
    p.ready = true;
    p.start_time = kNow - minutes(30);
    p.ready_transition_time = kNow - minutes(29);
    p.containers = {{"app", {{"cpu", Q("1")}}, false}};
    in.observed.pods.push_back(p);
    samples.samples.push_back({p.name, Quantity::FromMilli(levels[i]), {}});
  }
  in.observed.resource["cpu"] = samples;
  return in;
}

const Condition* Find(const HpaDecision& d, const std::string& type) {
  for (const Condition& c : d.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

std::string Reason(const HpaDecision& d, const std::string& type) {
  const Condition* c = Find(d, type);
  return c ? c->status + "/" + c->reason : "absent";
}

// Upstream TestScaleUp shape: 3 pods at 300/500/700m of 1 CPU against 30% -> 5.
TEST(ReconcileTest, ScaleUpOnCpu) {
  HpaInput in = CpuInput(2, 6, 3, {300, 500, 700}, 30);
  HpaDecision d = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(d.desired_replicas, 5);
  EXPECT_TRUE(d.rescale);
  EXPECT_EQ(d.rescale_reason, "cpu resource utilization (percentage of request) above target");
  EXPECT_EQ(Reason(d, "AbleToScale"), "True/SucceededRescale");
  EXPECT_EQ(Find(d, "AbleToScale")->message,
            "the HPA controller was able to update the target scale to 5");
  EXPECT_EQ(Reason(d, "ScalingActive"), "True/ValidMetricFound");
  EXPECT_EQ(Find(d, "ScalingActive")->message,
            "the HPA was able to successfully calculate a replica count from cpu resource "
            "utilization (percentage of request)");
  EXPECT_EQ(Reason(d, "ScalingLimited"), "False/DesiredWithinRange");
  ASSERT_EQ(d.current_metrics.size(), 1u);
  EXPECT_EQ(d.current_metrics[0].average_utilization, 50);
  EXPECT_EQ(d.current_metrics[0].average_value->String(), "500m");
  // Legacy path: the seed (current count) plus this recommendation; no scale events.
  ASSERT_EQ(d.state.recommendations.size(), 2u);
  EXPECT_EQ(d.state.recommendations[0].replicas, 3);
  EXPECT_EQ(d.state.recommendations[1].replicas, 5);
  EXPECT_TRUE(d.state.scale_up_events.empty());
  EXPECT_EQ(d.normalization.mode, "legacy");
}

TEST(ReconcileTest, LegacyScaleDownWaitsForTheDownscaleWindow) {
  // Upstream TestScaleDown shape: 28% of a 50% target -> 3, but a fresh controller seeds its
  // history with the current count, so the first sync holds 5.
  HpaInput in = CpuInput(2, 6, 5, {100, 300, 500, 250, 250}, 50);
  HpaDecision first = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(first.normalization.recommendation, 3);
  EXPECT_EQ(first.desired_replicas, 5);
  EXPECT_FALSE(first.rescale);
  EXPECT_EQ(Reason(first, "AbleToScale"), "True/ScaleDownStabilized");
  // Five minutes and one second later the seed is obsolete.
  in.now = kNow + minutes(5) + seconds(1);
  HpaState state;
  state.recommendations = {{5, kNow - seconds(1)}};
  HpaDecision later = Reconcile(in, state, HpaControllerOptions{});
  EXPECT_EQ(later.desired_replicas, 3);
  EXPECT_EQ(later.rescale_reason, "All metrics below target");
}

TEST(ReconcileTest, InvalidMetricBlocksScaleDown) {
  // Upstream TestNoScaleDownOneMetricEmpty: cpu wants 3, the external metric fails -> keep 5.
  HpaInput in = CpuInput(2, 6, 5, {100, 300, 500, 250, 250}, 50);
  in.spec.metrics.push_back(ExternalValue("qps", "1"));
  HpaDecision d = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(d.desired_replicas, 5);
  EXPECT_FALSE(d.rescale);
  EXPECT_EQ(d.normalization.mode, "metricsFailed");
  EXPECT_EQ(Reason(d, "ScalingActive"), "False/FailedGetExternalMetric");
  EXPECT_EQ(Find(d, "ScalingActive")->message,
            "the HPA was unable to compute the replica count: unable to get external metric "
            "default/qps/nil: no metrics returned from external metrics API");
  EXPECT_EQ(d.error,
            "invalid metrics (1 invalid out of 2), first error is: failed to get external metric "
            "qps: unable to get external metric default/qps/nil: no metrics returned from "
            "external metrics API");
  ASSERT_EQ(d.metrics.size(), 2u);
  EXPECT_TRUE(d.metrics[0].ok);
  EXPECT_EQ(d.metrics[0].replicas, 3);
  EXPECT_FALSE(d.metrics[1].ok);
  EXPECT_EQ(d.current_metrics.size(), 1u);
  // Nothing was recorded beyond the initial seed.
  ASSERT_EQ(d.state.recommendations.size(), 1u);
  EXPECT_EQ(d.state.recommendations[0].replicas, 5);
}

TEST(ReconcileTest, ExternalMetricsApiErrorIsReportedAsUpstreamsClientDoes) {
  HpaInput in = CpuInput(2, 6, 5, {100, 300, 500, 250, 250}, 50);
  in.spec.metrics.push_back(ExternalValue("qps", "1"));
  in.observed.external_errors["qps"] = "connection refused";
  HpaDecision d = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_FALSE(d.rescale);
  EXPECT_EQ(Find(d, "ScalingActive")->message,
            "the HPA was unable to compute the replica count: unable to get external metric "
            "default/qps/nil: unable to fetch metrics from external metrics API: connection "
            "refused");
}

TEST(ReconcileTest, InvalidMetricStillAllowsScaleUp) {
  // Upstream TestScaleUpOneMetricEmpty: cpu 40% of 30% -> 4 while the external metric fails.
  HpaInput in = CpuInput(2, 6, 3, {300, 400, 500}, 30);
  in.spec.metrics.insert(in.spec.metrics.begin(), ExternalValue("qps", "100m"));
  HpaDecision d = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(d.desired_replicas, 4);
  EXPECT_EQ(Reason(d, "ScalingActive"), "True/ValidMetricFound");
  EXPECT_NE(d.error.find("invalid metrics (1 invalid out of 2)"), std::string::npos);
}

TEST(ReconcileTest, LargestProposalWinsAndTiesKeepTheEarlierMetric) {
  HpaInput in = CpuInput(1, 20, 4, {500, 500, 500, 500}, 50);  // cpu holds 4
  in.spec.metrics.push_back(ExternalAverage("queue", "30"));
  in.spec.metrics.push_back(ExternalAverage("backlog", "10"));
  in.observed.external["queue"] = {{{}, Q("240"), kNow}};   // 240 / 30 = 8
  in.observed.external["backlog"] = {{{}, Q("80"), kNow}};  // 80 / 10 = 8 (tie)
  HpaDecision d = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(d.metrics[0].replicas, 4);
  EXPECT_EQ(d.metrics[1].replicas, 8);
  EXPECT_EQ(d.metrics[2].replicas, 8);
  EXPECT_EQ(d.winning_metric, "external metric queue(nil)");
  EXPECT_EQ(d.desired_replicas, 8);  // legacy cap max(2*4, 4) = 8
  EXPECT_EQ(d.current_metrics[1].average_value->String(), "60");
}

TEST(ReconcileTest, OutOfRangeReplicasJumpToTheBound) {
  // Upstream TestScaleUpRCImmediately / TestScaleDownRCImmediately.
  HpaInput below = CpuInput(2, 6, 1, {0}, 50);
  HpaDecision up = Reconcile(below, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(up.desired_replicas, 2);
  EXPECT_EQ(up.rescale_reason, "Current number of replicas below Spec.MinReplicas");
  EXPECT_EQ(Reason(up, "AbleToScale"), "True/SucceededRescale");
  EXPECT_EQ(Find(up, "ScalingActive"), nullptr);
  EXPECT_EQ(Find(up, "ScalingLimited"), nullptr);
  EXPECT_TRUE(up.metrics.empty());

  HpaInput above = CpuInput(2, 5, 6, {8000, 9500, 1000}, 50);
  above.spec.behavior = Behavior{};
  HpaDecision down = Reconcile(above, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(down.desired_replicas, 5);
  EXPECT_EQ(down.rescale_reason, "Current number of replicas above Spec.MaxReplicas");
  // With behavior set the bypass still records a scale event.
  ASSERT_EQ(down.state.scale_down_events.size(), 1u);
  EXPECT_EQ(down.state.scale_down_events[0].replica_change, 1);
}

TEST(ReconcileTest, TargetAtZeroPausesTheHpa) {
  HpaInput in = CpuInput(1, 5, 0, {}, 50);
  HpaDecision d = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(d.desired_replicas, 0);
  EXPECT_FALSE(d.rescale);
  EXPECT_EQ(Reason(d, "ScalingActive"), "False/ScalingDisabled");
  EXPECT_EQ(Find(d, "ScalingActive")->message,
            "scaling is disabled since the replica count of the target is zero");
}

TEST(ReconcileTest, ScaleToZeroAndBackWithObjectMetric) {
  HpaInput in;
  in.spec.min_replicas = 0;
  in.spec.max_replicas = 10;
  MetricSpec obj;
  obj.type = MetricSourceType::kObject;
  obj.metric.name = "queue_depth";
  obj.described_object = {"Queue", "jobs", ""};
  obj.target.type = MetricTargetType::kValue;
  obj.target.value = Q("10");
  in.spec.metrics = {obj};
  in.spec.behavior = Behavior{};
  in.spec_replicas = 2;
  in.status_replicas = 2;
  in.now = kNow;
  for (int i = 0; i < 2; ++i) {
    PodInfo p;
    p.name = "worker-" + std::to_string(i);
    p.ready = true;
    in.observed.pods.push_back(p);
  }
  in.observed.objects["queue_depth"] = {Q("0"), kNow};
  HpaState state;
  state.recommendations = {{2, kNow - minutes(10)}};
  HpaDecision to_zero = Reconcile(in, state, HpaControllerOptions{});
  EXPECT_EQ(to_zero.metrics[0].replicas, 0);  // ceil(0 * 2 ready pods)
  EXPECT_FALSE(to_zero.metrics[0].timestamp.has_value());
  EXPECT_EQ(to_zero.desired_replicas, 0);
  EXPECT_EQ(Reason(to_zero, "ScaledToZero"), "True/ScaledToZero");

  // From zero: ceil(ratio) without pods or tolerance, only because the HPA scaled to zero itself.
  HpaInput from_zero = in;
  from_zero.spec_replicas = 0;
  from_zero.status_replicas = 0;
  from_zero.observed.pods.clear();
  from_zero.observed.objects["queue_depth"] = {Q("25"), kNow + minutes(1)};
  from_zero.now = kNow + minutes(1);
  from_zero.scaled_to_zero = true;
  HpaDecision up = Reconcile(from_zero, to_zero.state, HpaControllerOptions{});
  EXPECT_EQ(up.metrics[0].replicas, 3);  // ceil(2.5)
  EXPECT_EQ(up.desired_replicas, 3);
  EXPECT_EQ(Reason(up, "ScaledToZero"), "False/NotScaledToZero");
  from_zero.scaled_to_zero = false;
  EXPECT_EQ(Reason(Reconcile(from_zero, to_zero.state, HpaControllerOptions{}), "ScalingActive"),
            "False/ScalingDisabled");

  // HPAScaleToZero off: no ScaledToZero condition, and zero always pauses the HPA.
  HpaControllerOptions gate_off;
  gate_off.scale_to_zero = false;
  EXPECT_EQ(Reason(Reconcile(in, state, gate_off), "ScaledToZero"), "absent");
  from_zero.scaled_to_zero = true;
  HpaDecision paused = Reconcile(from_zero, to_zero.state, gate_off);
  EXPECT_FALSE(paused.rescale);
  EXPECT_EQ(Reason(paused, "ScalingActive"), "False/ScalingDisabled");
}

TEST(ReconcileTest, BehaviorToleranceOverridesPerDirection) {
  // 10 pods at 105% of a 100% target: inside the default 10% band, outside a 1% scale-up band.
  HpaInput in = CpuInput(1, 20, 10, std::vector<int64_t>(10, 1050), 100);
  HpaDecision held = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(held.desired_replicas, 10);
  in.spec.behavior = Behavior{};
  in.spec.behavior->scale_up = ScalingRules{};
  in.spec.behavior->scale_up->tolerance = Q("10m");
  EXPECT_EQ(TolerancesFor(in.spec, 0.1).scale_up, 0.01);
  EXPECT_EQ(TolerancesFor(in.spec, 0.1).scale_down, 0.1);
  HpaDecision moved = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(moved.desired_replicas, 11);  // ceil(1.05 * 10)
  ASSERT_EQ(moved.state.scale_up_events.size(), 1u);
  EXPECT_EQ(moved.state.scale_up_events[0].replica_change, 1);
}

TEST(ReconcileTest, MemoryAverageValueIsReportedInBinarySI) {
  HpaInput in = CpuInput(1, 10, 2, {}, 50);
  MetricSpec mem;
  mem.type = MetricSourceType::kResource;
  mem.resource_name = "memory";
  mem.target.type = MetricTargetType::kAverageValue;
  mem.target.average_value = Q("500Mi");
  in.spec.metrics = {mem};
  PodSamples samples;
  samples.timestamp = kNow;
  for (int i = 0; i < 2; ++i) {
    PodInfo p;
    p.name = "pod-" + std::to_string(i);
    p.ready = false;  // readiness does not matter for memory
    in.observed.pods.push_back(p);
    samples.samples.push_back({p.name, Q("1000Mi"), {}});
  }
  in.observed.resource["memory"] = samples;
  HpaDecision d = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(d.metrics[0].replicas, 4);
  EXPECT_EQ(d.current_metrics[0].average_value->String(), "1000Mi");
  EXPECT_EQ(d.winning_metric, "memory resource");
}

TEST(ReconcileTest, BehaviorRateLimitsAndRecordsEvents) {
  // KEP-853: scale up by at most 900% per minute: 1 -> 10.
  HpaInput in = CpuInput(1, 1000, 1, {10000}, 10);  // 1000% of target -> 100
  in.spec.behavior = Behavior{};
  in.spec.behavior->scale_up = ScalingRules{};
  in.spec.behavior->scale_up->policies = {{ScalingPolicyType::kPercent, 900, 60}};
  HpaDecision d = Reconcile(in, HpaState{}, HpaControllerOptions{});
  EXPECT_EQ(d.normalization.recommendation, 100);
  EXPECT_EQ(d.desired_replicas, 10);
  EXPECT_EQ(Reason(d, "ScalingLimited"), "True/ScaleUpLimit");
  ASSERT_EQ(d.normalization.policies.size(), 1u);
  EXPECT_EQ(d.normalization.policies[0].period_start, 1);
  EXPECT_EQ(d.normalization.policies[0].limit, 10);
  ASSERT_EQ(d.state.scale_up_events.size(), 1u);
  EXPECT_EQ(d.state.scale_up_events[0].replica_change, 9);
  EXPECT_EQ(d.state.scale_up_events[0].timestamp, kNow);
}

}  // namespace
}  // namespace trimtab::core::hpa
