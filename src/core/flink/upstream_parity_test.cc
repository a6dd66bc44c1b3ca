// Issue 23: default-mode differences from the upstream Flink autoscaler (flink-autoscaler on
// apache/flink-kubernetes-operator main), each checked against upstream's source. Every test
// here failed before its fix. The alignment-mode fallback and the Java number format are in
// autoscaler_options_test, the IneffectiveScaling message in vertex_scaler_test.
#include <chrono>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/flink/autoscaler.h"
#include "core/flink/cluster_resource_check.h"
#include "core/flink/evaluator.h"
#include "core/flink/java_number_format.h"
#include "core/flink/metric_window.h"

namespace trimtab::core::flink {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr double kInf = std::numeric_limits<double>::infinity();
const TimePoint kT0 = FromUnixMillis(1'714'554'000'000);  // 2024-05-01T09:00:00Z

JobTopology SourceSink() {
  JobTopology t;
  t.vertices = {{.id = "source", .parallelism = 2, .max_parallelism = 720},
                {.id = "sink", .parallelism = 2, .max_parallelism = 720}};
  t.edges = {{"source", "sink", "REBALANCE"}};
  return t;
}

RawSample Raw(TimePoint time, double records_in, double pending = 0) {
  RawSample s;
  s.time = time;
  s.vertices["source"] = {.busy_time_max = 500, .num_records_in = records_in,
                          .num_records_in_per_second = 100, .pending_records = pending,
                          .back_pressured_time_ms_per_second = 0};
  s.vertices["sink"] = {.busy_time_max = 250, .num_records_in = records_in,
                        .num_records_in_per_second = 100};
  return s;
}

// ScalingMetrics.computeGlobalMetrics stores heap used only together with heap max.
TEST(UpstreamParityTest, HeapUsedIsNotStoredWithoutHeapMax) {
  RawSample raw = Raw(kT0, 0);
  raw.job = {.heap_used = 300};
  auto s = CollectSample(raw, SourceSink(), AutoscalerOptions{}, {}, "samples[0]");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->global.count(kMetricHeapMemoryUsed), 0u);
  EXPECT_EQ(s->global.count(kMetricHeapMaxUsageRatio), 0u);
  raw.job.heap_max = 1200;
  s = CollectSample(raw, SourceSink(), AutoscalerOptions{}, {}, "samples[0]");
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s->global.at(kMetricHeapMemoryUsed), 300);
  EXPECT_DOUBLE_EQ(s->global.at(kMetricHeapMaxUsageRatio), 0.25);
  // Job-wide values are not rounded when collected (only per-vertex ones are).
  raw.job.gc_time_ms_per_second = 123.4567;
  s = CollectSample(raw, SourceSink(), AutoscalerOptions{}, {}, "samples[0]");
  EXPECT_DOUBLE_EQ(s->global.at(kMetricGcPressure), 0.1234567);
}

// FlinkMetric.FINISHED_METRICS reads 0 records/s for a finished source: observed TPR +inf.
TEST(UpstreamParityTest, FinishedSourceObservesAnInfiniteProcessingRate) {
  JobTopology t = SourceSink();
  t.vertices[0].finished = true;
  RawSample raw = Raw(kT0, 0);
  raw.vertices.erase("source");
  auto s = CollectSample(raw, t, AutoscalerOptions{}, {}, "samples[0]");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->vertices.at("source").Get(CollectedMetric::kObservedTpr), kInf);
  EXPECT_EQ(s->vertices.at("source").Get(CollectedMetric::kLoad), 0);
}

// ScalingMetrics.getObservedTpr: at 1,000 ms/s backpressure no rate is observed and the average
// of the earlier observations stands in (Optional.empty() -> observedTprAvg).
TEST(UpstreamParityTest, FullBackpressureTakesTheEarlierObservedAverage) {
  const JobTopology t = SourceSink();
  const AutoscalerOptions o;  // lag threshold 30 s, 2 observations
  RawSample raw = Raw(kT0, 0, /*pending=*/10'000);  // lag 10,000 >= 30 s x 100/s: catching up
  raw.vertices["source"].back_pressured_time_ms_per_second = 1000;
  CollectedSample a, b;
  a.vertices["source"].Set(CollectedMetric::kObservedTpr, 200);
  b.vertices["source"].Set(CollectedMetric::kObservedTpr, 300);
  auto s = CollectSample(raw, t, o, {a, b}, "samples[2]");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_DOUBLE_EQ(s->vertices.at("source").Get(CollectedMetric::kObservedTpr), 250);
  // Fewer earlier observations than min-observations: still none.
  s = CollectSample(raw, t, o, {a}, "samples[1]");
  EXPECT_TRUE(std::isnan(s->vertices.at("source").Get(CollectedMetric::kObservedTpr)));
}

// ScalingMetricCollector stores every sample, also one timestamped before the job's RUNNING
// timestamp (a skewed clock); restart detection wipes it on the next collection.
TEST(UpstreamParityTest, SampleBeforeTheRunningTimestampIsKept) {
  AutoscalerState state;
  AutoscalerOptions o;
  o.stabilization_interval = Millis(0);
  auto ws = UpdateMetricWindow({Raw(kT0 - seconds(5), 0), Raw(kT0 + seconds(10), 1000)},
                               SourceSink(), o, kT0, kT0 + seconds(10), &state);
  ASSERT_TRUE(ws.ok()) << ws.status().ToString();
  EXPECT_EQ(ws->added, 2u);
  EXPECT_EQ(ws->ignored, 0u);
  EXPECT_EQ(state.metric_window.size(), 2u);
  ws = UpdateMetricWindow({Raw(kT0 + seconds(20), 2000)}, SourceSink(), o, kT0,
                          kT0 + seconds(20), &state);
  ASSERT_TRUE(ws.ok());
  EXPECT_TRUE(ws->restarted);
  EXPECT_EQ(state.metric_window.size(), 1u);
}

// EvaluatedScalingMetric rounds current and average to 3 decimals, and the thresholds are
// computed from the rounded values.
TEST(UpstreamParityTest, EvaluatedMetricsAreRoundedToThreeDecimals) {
  JobTopology t = SourceSink();
  Window w(2);
  w[0].time = kT0;
  w[1].time = kT0 + seconds(3);
  for (int i = 0; i < 2; ++i) {
    auto& src = w[i].vertices["source"];
    src.Set(CollectedMetric::kNumRecordsIn, i * 1000.0);  // 333.333.../s
    src.Set(CollectedMetric::kNumRecordsOut, i * 1000.0);
    src.Set(CollectedMetric::kLag, 0);
    src.Set(CollectedMetric::kLoad, 0.7);
    auto& sink = w[i].vertices["sink"];
    sink.Set(CollectedMetric::kNumRecordsIn, i * 1000.0);
    sink.Set(CollectedMetric::kLoad, 0.3);
  }
  AutoscalerOptions o;
  auto e = EvaluateMetrics(t, w, o, Millis(0));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const MetricMap& src = e->vertices.at("source");
  EXPECT_EQ(Average(src, kMetricTargetDataRate), 333.333);
  // Busy 700 ms/s: TPR = 333.333... / 0.7 = 476.190476...
  EXPECT_EQ(Average(src, kMetricTrueProcessingRate), 476.19);
  // Thresholds from the rounded target rate: round(333.333 / 1.0) and round(333.333 / 0.4).
  EXPECT_EQ(Current(src, kMetricScaleUpRateThreshold), 333);
  EXPECT_EQ(Current(src, kMetricScaleDownRateThreshold), 833);
  EXPECT_EQ(Average(e->vertices.at("sink"), kMetricTargetDataRate), 333.333);
}

AutoscalerInput CycleInput(TimePoint now, int parallelism) {
  AutoscalerInput in;
  in.topology = SourceSink();
  for (VertexInfo& v : in.topology.vertices) v.parallelism = parallelism;
  in.configuration = {{"job.autoscaler.enabled", "true"},
                      {"job.autoscaler.stabilization.interval", "0 s"},
                      {"job.autoscaler.metrics.window", "1 min"},
                      {"job.autoscaler.restart.time", "5 min"},
                      {"job.autoscaler.restart.time-tracking.enabled", "true"}};
  in.samples = {Raw(now - seconds(30), 0), Raw(now, 3000)};
  in.now = now;
  in.job_running_since = now - minutes(10);
  return in;
}

// ScalingTracking.recordRestartDurationIfTrackedAndParallelismMatches records
// Duration.between(scaling, jobRunningTs) even when it is negative; getMaxRestartTimeOrDefault
// then ignores it (whole seconds below 0) and the record takes no later duration.
TEST(UpstreamParityTest, NegativeRestartDurationIsRecordedAndIgnored) {
  const TimePoint now = kT0 + hours(1);
  AutoscalerInput in = CycleInput(now, 4);
  in.job_running_since = now - minutes(10);
  AutoscalerState state;
  state.scaling_tracking.push_back({now - minutes(10) + seconds(5), {{"source", 4}}, {}, {}});
  auto r = RunAutoscalerCycle(in, state);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->state.scaling_tracking.size(), 1u);
  EXPECT_EQ(r->state.scaling_tracking[0].restart_duration, seconds(-5));
  EXPECT_EQ(Current(r->evaluated.global, kMetricRestartTime), 300);  // restart.time

  // Later the job restarts again: the record keeps its (negative) duration.
  AutoscalerInput later = CycleInput(now + minutes(5), 4);
  later.job_running_since = now + minutes(4);
  auto r2 = RunAutoscalerCycle(later, r->state);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_EQ(r2->state.scaling_tracking[0].restart_duration, seconds(-5));
}

// ScalingMetricCollector trims the tracking records on every collection
// (getTrimmedScalingTracking), so an expired record cannot set the restart time.
TEST(UpstreamParityTest, ExpiredTrackingRecordsAreTrimmedEveryCycle) {
  const TimePoint now = kT0 + hours(30);
  AutoscalerState state;
  state.scaling_tracking.push_back({kT0, {{"source", 2}}, seconds(840), {}});       // 30 h old
  state.scaling_tracking.push_back({now - hours(1), {{"source", 4}}, seconds(120), {}});
  auto r = RunAutoscalerCycle(CycleInput(now, 4), state);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->state.scaling_tracking.size(), 1u);
  EXPECT_EQ(r->state.scaling_tracking[0].restart_duration, seconds(120));
  EXPECT_EQ(Current(r->evaluated.global, kMetricRestartTime), 120);  // not 840
}

// A custom alignment mode is a warning in the decision log, not an error that stops the job.
TEST(UpstreamParityTest, CustomAlignmentModeIsAWarningInTheLog) {
  AutoscalerInput in = CycleInput(kT0 + hours(1), 4);
  in.configuration["job.autoscaler.scaling.parallelism-alignment.mode"] = "mine";
  auto r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<std::string>& collect = r->log.stages.at("collect");
  ASSERT_FALSE(collect.empty());
  EXPECT_EQ(collect[0].rfind("warning: job.autoscaler.scaling.parallelism-alignment.mode: "
                             "alignment mode \"mine\" is not a built-in",
                             0),
            0u)
      << collect[0];
}


// ScalingExecutor.scalingWouldExceedResourceQuota counts slots per slot-sharing group: the
// largest current / new parallelism of each group's scaled vertices, summed over the groups.
TEST(UpstreamParityTest, ResourceQuotaCountsSlotSharingGroups) {
  // Two vertices in two groups, both scaled 2 -> 4: 4 -> 8 slots, 2 -> 4 TaskManagers of 2
  // slots and 1 core, over a 2.5-core quota. As one group (all trimtab knew before issue 23) it
  // is 2 -> 4 slots, 1 -> 2 TaskManagers, and fits.
  const TimePoint now = kT0 + hours(1);
  AutoscalerInput in;
  in.topology = SourceSink();
  in.topology.vertices[0].slot_sharing_group = "g1";
  in.topology.vertices[1].slot_sharing_group = "g2";
  in.configuration = {{"job.autoscaler.enabled", "true"},
                      {"job.autoscaler.stabilization.interval", "0 s"},
                      {"job.autoscaler.metrics.window", "30 s"},
                      {"job.autoscaler.utilization.target", "1.0"},
                      {"job.autoscaler.quota.cpu", "2.5"}};
  // 100/s read while the lag grows by 200/s, both vertices 500 ms/s busy: target 300/s (plus
  // catch-up and restart headroom, 353/s) against a TPR of 200/s: 2 -> 4 each.
  in.samples = {Raw(now - seconds(30), 0, 0), Raw(now, 3000, 6000)};
  for (RawSample& sample : in.samples) sample.vertices["sink"].busy_time_max = 500;
  in.resources = {.cpu = 1.0, .memory_bytes = int64_t{1} << 30, .slots_per_task_manager = 2};
  in.now = now;
  in.job_running_since = now - minutes(10);
  auto r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->log.vertices.at("source").proposed_parallelism.value_or(0), 4);
  EXPECT_EQ(r->log.vertices.at("sink").proposed_parallelism.value_or(0), 4);
  EXPECT_EQ(r->log.outcome, CycleOutcome::kBlocked);
  ASSERT_FALSE(r->log.events.empty());
  EXPECT_EQ(r->log.events.back().reason, "ResourceQuotaReached");
  // In one group the same change fits.
  in.topology.vertices[1].slot_sharing_group = "g1";
  r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->log.outcome, CycleOutcome::kScale);
}


// ClusterResourceManager.trySchedule: release the job's current TaskManagers, then place the new
// ones first-fit on the nodes.
TEST(UpstreamParityTest, ClusterResourceCheckPlacesTaskManagersOnNodes) {
  constexpr double kGi = 1024.0 * 1024 * 1024;
  // Two nodes; the job's 2 TaskManagers (1 core, 1 GiB each) run on the first.
  ClusterResourceView view{{{"a", 4, 3, 8 * kGi, 4 * kGi}, {"b", 2, 1.5, 4 * kGi, 1 * kGi}}};
  const int64_t gib = int64_t{1} << 30;
  EXPECT_TRUE(TrySchedule(view, 2, 3, 1, gib));   // a: 3 - 2 + 3 = 4 cores
  EXPECT_FALSE(TrySchedule(view, 2, 4, 1, gib));  // a holds 3, b has 0.5 core free
  EXPECT_TRUE(TrySchedule(view, 2, 4, 0.5, gib));
  EXPECT_FALSE(TrySchedule(view, 0, 2, 1, gib));  // nothing released: a has 1 core free

  // Slots after the rescale: the max with slot sharing (largest vertex = slots used), else the
  // sum.
  JobTopology t = SourceSink();  // parallelism 2 and 2
  ScalingSummaries s{{"source", {2, 5, {}}}};
  EXPECT_EQ(EstimateTaskSlotsAfterRescale(t, s, 2), 5);
  EXPECT_EQ(EstimateTaskSlotsAfterRescale(t, s, 4), 7);

  // TaskManager size unknown: no judgement. Slot metric missing: blocked.
  EXPECT_FALSE(ClusterResourceBlock(view, t, s, 2, 1, std::nullopt, gib));
  EXPECT_TRUE(ClusterResourceBlock(view, t, s, std::nullopt, 1, 1.0, gib));
  // 2 -> 5 TaskManagers of one slot: 3 more cores than the nodes have.
  const std::optional<std::string> full = ClusterResourceBlock(view, t, s, 2, 1, 1.0, gib);
  ASSERT_TRUE(full);
  EXPECT_NE(full->find("5 TaskManagers"), std::string::npos) << *full;
  EXPECT_FALSE(ClusterResourceBlock(view, t, s, 2, 4, 1.0, gib));  // 1 -> 2 TaskManagers
}


// The cycle runs the cluster check when it has a view of the nodes: the scale-up 2 -> 4 of both
// vertices (slot sharing: 2 -> 4 slots, one per TaskManager) needs 2 more cores.
TEST(UpstreamParityTest, CycleBlocksAScaleUpThatDoesNotFitTheCluster) {
  const TimePoint now = kT0 + hours(1);
  AutoscalerInput in;
  in.topology = SourceSink();
  in.configuration = {{"job.autoscaler.enabled", "true"},
                      {"job.autoscaler.stabilization.interval", "0 s"},
                      {"job.autoscaler.metrics.window", "30 s"},
                      {"job.autoscaler.utilization.target", "1.0"}};
  in.samples = {Raw(now - seconds(30), 0, 0), Raw(now, 3000, 6000)};
  for (RawSample& sample : in.samples) {
    sample.vertices["sink"].busy_time_max = 500;
    sample.job.task_slots_total = 2;
    sample.job.task_slots_available = 0;
  }
  in.resources = {.cpu = 1.0, .memory_bytes = int64_t{1} << 30, .slots_per_task_manager = 1};
  in.now = now;
  in.job_running_since = now - minutes(10);
  in.cluster_resources = ClusterResourceView{{{"a", 3, 2, 1e10, 4e9}}};  // 1 core free
  auto r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->log.outcome, CycleOutcome::kBlocked);
  EXPECT_NE(r->log.vertices.at("source").reasons.back().find("cluster resources"),
            std::string::npos);
  EXPECT_TRUE(r->log.events.empty() || r->log.events.back().reason != "ResourceQuotaReached");
  in.cluster_resources->nodes[0].cpu_allocatable = 4;  // 2 free: fits
  r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->log.outcome, CycleOutcome::kScale);
  in.cluster_resources = ClusterResourceView{{{"a", 3, 3, 1e10, 4e9}}};  // 1 core once released
  EXPECT_EQ(RunAutoscalerCycle(in, {})->log.outcome, CycleOutcome::kBlocked);
  in.cluster_resources.reset();  // no view: not checked, as upstream by default
  r = RunAutoscalerCycle(in, {});
  EXPECT_EQ(r->log.outcome, CycleOutcome::kScale);
}

// Double.toString, as upstream's event messages print doubles (expected strings from Java 25).
TEST(UpstreamParityTest, JavaDoubleToString) {
  const std::vector<std::pair<double, std::string>> cases = {
      {90, "90.0"},        {5, "5.0"},           {-4.5, "-4.5"},       {0, "0.0"},
      {-0.0, "-0.0"},      {0.001, "0.001"},     {0.1 + 0.2, "0.30000000000000004"},
      {1e7, "1.0E7"},      {12345678.9, "1.23456789E7"},              {9999999, "9999999.0"},
      {0.0001, "1.0E-4"},  {1.5e-10, "1.5E-10"}, {123.456, "123.456"},
      {std::numeric_limits<double>::infinity(), "Infinity"},
      {-std::numeric_limits<double>::infinity(), "-Infinity"},
      {std::numeric_limits<double>::quiet_NaN(), "NaN"},
  };
  for (const auto& [v, want] : cases) EXPECT_EQ(FormatJavaDouble(v), want) << want;
}

}  // namespace
}  // namespace trimtab::core::flink
