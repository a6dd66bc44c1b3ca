// RunAutoscalerCycle / CommitScaling rules not covered by the scenario files: enable/disable,
// job status, stabilization and restarts, excluded vertices, commit bookkeeping and the
// behavior rules built on the HPA engine.
#include "core/flink/autoscaler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/flink/autoscaler_json.h"
#include "core/flink/evaluator.h"

namespace trimtab::core::flink {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const TimePoint kT0 = FromUnixMillis(1'714'554'000'000);  // 2024-05-01T09:00:00Z

// One source at `p` that reads `rate`/s at 50% busy time (TPR = 2 x rate) while its lag grows by
// `lag_growth`/s; two samples 1 s apart ending at `now`.
std::vector<RawSample> Samples(TimePoint now, double rate, double lag_growth, double base = 0) {
  RawSample a, b;
  a.time = now - seconds(1);
  b.time = now;
  a.vertices["src"] = {.busy_time_max = 500, .num_records_in = base, .pending_records = 0};
  b.vertices["src"] = {.busy_time_max = 500, .num_records_in = base + rate,
                       .pending_records = lag_growth};
  return {a, b};
}

AutoscalerInput Input(int p, TimePoint now, std::vector<RawSample> samples) {
  AutoscalerInput in;
  in.topology.vertices = {{.id = "src", .parallelism = p, .max_parallelism = 720}};
  in.configuration = {{"job.autoscaler.enabled", "true"},
                      {"job.autoscaler.stabilization.interval", "0 s"},
                      {"job.autoscaler.metrics.window", "1 s"},
                      {"job.autoscaler.catch-up.duration", "0 s"},
                      {"job.autoscaler.utilization.target", "1.0"},
                      {"job.autoscaler.scale-down.interval", "0 s"}};
  in.samples = std::move(samples);
  in.now = now;
  return in;
}

TEST(AutoscalerCycleTest, DisabledClearsStateAndOverrides) {
  AutoscalerState s;
  s.parallelism_overrides["src"] = 4;
  AutoscalerInput in = Input(2, kT0, Samples(kT0, 50, 0));
  in.configuration["job.autoscaler.enabled"] = "false";
  auto r = RunAutoscalerCycle(in, s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->log.outcome, CycleOutcome::kDisabled);
  EXPECT_TRUE(r->state.empty());
}

TEST(AutoscalerCycleTest, ParsedOptionsAreUsedInsteadOfParsingAgain) {
  // A caller that parsed the configuration once hands the result in; the cycle uses it (here it
  // disagrees with the map on purpose, to show which one counts) and skips the parse, so a bad
  // map is not even looked at.
  AutoscalerInput in = Input(2, kT0, Samples(kT0, 50, 0));
  auto parsed = ParseAutoscalerOptions(in.configuration);
  ASSERT_TRUE(parsed.ok());
  parsed->enabled = false;
  in.parsed_options = std::make_shared<const AutoscalerOptions>(*parsed);
  in.configuration["job.autoscaler.metrics.window"] = "not a duration";
  auto r = RunAutoscalerCycle(in, AutoscalerState{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->log.outcome, CycleOutcome::kDisabled);

  // Without them, the map is parsed and its error names the key.
  in.parsed_options.reset();
  auto bad = RunAutoscalerCycle(in, AutoscalerState{});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("job.autoscaler.metrics.window"), std::string::npos)
      << bad.status().ToString();
}

TEST(AutoscalerCycleTest, PossibleStepHoldsTheDecisionUntilConfirmed) {
  // Five minutes at 100/s (90 % busy), then 170/s: 1.7x, beyond step-detection's 1.4 but not
  // 1.96. The first cycle after it only waits; the next, with a second minute at 170/s, scales
  // for 170/s.
  auto at = [](int minute, double records_in) {
    RawSample s;
    s.time = kT0 + minutes(minute);
    s.vertices["src"] = {.busy_time_max = 900, .num_records_in = records_in, .pending_records = 0};
    return s;
  };
  std::vector<RawSample> first;
  double in = 0;
  for (int m = 0; m <= 5; ++m) {
    first.push_back(at(m, in));
    in += 60 * (m < 4 ? 100 : 170);
  }
  AutoscalerInput a = Input(2, kT0 + minutes(5), first);
  a.configuration["job.autoscaler.metrics.window"] = "5 min";
  a.configuration["job.autoscaler.utilization.target"] = "0.9";
  a.configuration["job.autoscaler.step-detection.threshold"] = "0.4";
  auto held = RunAutoscalerCycle(a, AutoscalerState{});
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ(held->log.outcome, CycleOutcome::kNoChange);
  EXPECT_TRUE(held->summaries.empty());
  const std::vector<std::string>& notes = held->log.stages["evaluate"];
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "src: possible step: arrival rate 170/s over the last 1 min vs 100/s before; "
                      "one more interval to confirm it"),
            notes.end());

  AutoscalerInput b = a;
  b.now = kT0 + minutes(6);
  b.samples = {at(6, in)};
  auto scaled = RunAutoscalerCycle(b, held->state);
  ASSERT_TRUE(scaled.ok()) << scaled.status().ToString();
  ASSERT_EQ(scaled->log.outcome, CycleOutcome::kScale);
  // Target 170/s at 90 % against TPR = window rate / 0.9 busy -> about 1.3x the parallelism.
  EXPECT_DOUBLE_EQ(Average(scaled->evaluated.vertices.at("src"), kMetricTargetDataRate), 170);
  EXPECT_GT(scaled->summaries.at("src").new_parallelism, 2);
}

TEST(AutoscalerCycleTest, MemoryPressureEventsAreKeyedOnTheKindNotTheNumber) {
  // The operator dedupes events by key: a GC pressure of 0.4 one minute and 0.5 the next is the
  // same MemoryPressure event counted twice, not two events.
  for (const double gc_ms : {400.0, 500.0}) {
    std::vector<RawSample> samples = Samples(kT0, 50, 0);
    for (RawSample& s : samples) s.job.gc_time_ms_per_second = gc_ms;
    AutoscalerInput in = Input(2, kT0, std::move(samples));
    in.configuration["job.autoscaler.memory.gc-pressure.threshold"] = "0.3";
    auto r = RunAutoscalerCycle(in, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->log.outcome, CycleOutcome::kBlocked);
    ASSERT_EQ(r->log.events.size(), 1u);
    EXPECT_EQ(r->log.events[0].reason, "MemoryPressure");
    EXPECT_EQ(r->log.events[0].message_key, "gcPressure");
  }
}

TEST(AutoscalerCycleTest, JobNotRunningKeepsStateUntouched) {
  AutoscalerInput in = Input(2, kT0, Samples(kT0, 50, 0));
  in.job_status = "RESTARTING";
  AutoscalerState s;
  s.parallelism_overrides["src"] = 4;
  auto r = RunAutoscalerCycle(in, s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->log.outcome, CycleOutcome::kJobNotRunning);
  EXPECT_TRUE(r->state.metric_window.empty());
  EXPECT_EQ(r->state.parallelism_overrides.at("src"), 4);
}

TEST(AutoscalerCycleTest, StabilizationStoresSamplesWithoutEvaluating) {
  AutoscalerInput in = Input(2, kT0, Samples(kT0, 50, 0));
  in.configuration["job.autoscaler.stabilization.interval"] = "5 min";
  in.job_running_since = kT0 - minutes(1);
  auto r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->log.outcome, CycleOutcome::kStabilizing);
  EXPECT_EQ(r->state.metric_window.size(), 2u);
  EXPECT_TRUE(r->evaluated.vertices.empty());
  EXPECT_EQ(r->log.stages.at("collect").back(),
            "stabilizing until 2024-05-01T09:04:00Z (stabilization.interval 5 min)");
}

TEST(AutoscalerCycleTest, RestartWipesTheWindow) {
  auto first = RunAutoscalerCycle(Input(2, kT0, Samples(kT0, 50, 0)), {});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->state.metric_window.size(), 2u);
  AutoscalerInput in = Input(2, kT0 + minutes(2), {Samples(kT0 + minutes(2), 50, 0)[1]});
  in.job_running_since = kT0 + minutes(1);
  auto second = RunAutoscalerCycle(in, first->state);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->state.metric_window.size(), 1u);
  EXPECT_EQ(second->log.outcome, CycleOutcome::kNotEnoughSamples);
  EXPECT_EQ(second->log.stages.at("collect")[0],
            "job restarted after the oldest sample: window wiped");
}

TEST(AutoscalerCycleTest, ScaleUpCommitsHistoryTrackingAndOverrides) {
  // rate 50/s at 50% busy: TPR 100; lag +100/s: target 150 -> 1.5 x 4 = 6.
  auto r = RunAutoscalerCycle(Input(4, kT0, Samples(kT0, 50, 100)), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->log.outcome, CycleOutcome::kScale);
  EXPECT_EQ(r->summaries.at("src").new_parallelism, 6);
  EXPECT_EQ(r->recommended_parallelism.at("src"), 6);
  EXPECT_EQ(r->state.parallelism_overrides.at("src"), 6);
  ASSERT_EQ(r->state.scaling_history.at("src").size(), 1u);
  EXPECT_DOUBLE_EQ(Current(r->state.scaling_history.at("src")[0].summary.metrics,
                           kMetricExpectedProcessingRate),
                   150);
  ASSERT_EQ(r->state.scaling_tracking.size(), 1u);
  EXPECT_EQ(r->state.scaling_tracking[0].target_parallelism.at("src"), 6);
  EXPECT_FALSE(r->state.scaling_tracking[0].restart_duration.has_value());

  // Next cycle: the job restarted 40 s later at parallelism 6: restart duration recorded.
  AutoscalerInput next = Input(6, kT0 + minutes(1), Samples(kT0 + minutes(1), 75, 0));
  next.job_running_since = kT0 + seconds(40);
  auto r2 = RunAutoscalerCycle(next, r->state);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->state.scaling_tracking[0].restart_duration, seconds(40));
}

TEST(AutoscalerCycleTest, RestartTimeIsAJobWideMetricForTheChain) {
  // The restart time the catch-up headroom was sized with, in seconds (restart-cost-gate's
  // observedRestartTime reads it): restart.time's upstream default first, then as configured.
  auto r = RunAutoscalerCycle(Input(4, kT0, Samples(kT0, 50, 100)), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Current(r->evaluated.global, kMetricRestartTime), 300);
  AutoscalerInput in = Input(4, kT0, Samples(kT0, 50, 100));
  in.configuration["job.autoscaler.restart.time"] = "20 s";
  r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Current(r->evaluated.global, kMetricRestartTime), 20);
}

TEST(AutoscalerCycleTest, RestartTimeFromTheLastCheckpointUntilARestartIsTracked) {
  // A job whose last checkpoint took 250 s, with restart.time 20 s.
  std::vector<RawSample> samples = Samples(kT0, 50, 100);
  for (RawSample& s : samples) s.job.last_checkpoint_duration_ms = 250000;
  AutoscalerInput in = Input(4, kT0, samples);
  in.configuration["job.autoscaler.restart.time"] = "20 s";
  in.configuration["job.autoscaler.restart.time-tracking.enabled"] = "true";
  auto r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Current(r->evaluated.global, kMetricRestartTime), 20);  // off: as upstream
  in.configuration["job.autoscaler.restart.time-from-checkpoint.enabled"] = "true";
  r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Current(r->evaluated.global, kMetricRestartTime), 250);
  EXPECT_EQ(r->log.stages.at("evaluate").front(),
            "restart time 250 s (the last checkpoint's duration)");

  // Capped by restart.time-tracking.limit; a shorter checkpoint leaves restart.time.
  AutoscalerOptions o = *ParseAutoscalerOptions(in.configuration);
  AutoscalerState state = r->state;
  std::string source;
  o.restart_time_tracking_limit = std::chrono::minutes(2);
  EXPECT_EQ(EffectiveRestartTime(state, o, &source), std::chrono::minutes(2));
  for (CollectedSample& s : state.metric_window) s.global.Set(kMetricLastCheckpointDuration, 5);
  EXPECT_EQ(EffectiveRestartTime(state, o, &source), std::chrono::seconds(20));
  EXPECT_EQ(source, "restart.time");
  // A tracked restart takes over.
  state.scaling_tracking.push_back({kT0, {{"v", 2}}, std::chrono::seconds(90), std::nullopt});
  for (CollectedSample& s : state.metric_window) s.global.Set(kMetricLastCheckpointDuration, 250);
  EXPECT_EQ(EffectiveRestartTime(state, o, &source), std::chrono::seconds(90));
  EXPECT_EQ(source, "the longest tracked restart");
}

TEST(AutoscalerCycleTest, CommitFalseLeavesBookkeepingToTheCaller) {
  AutoscalerInput in = Input(4, kT0, Samples(kT0, 50, 100));
  in.commit = false;
  auto r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->log.outcome, CycleOutcome::kScale);
  EXPECT_TRUE(r->state.scaling_history.empty());
  EXPECT_TRUE(r->state.parallelism_overrides.empty());
  // The chain vetoed nothing: commit what was approved.
  const AutoscalerOptions o = *ParseAutoscalerOptions(in.configuration);
  AutoscalerState s = CommitScaling(r->state, r->summaries, in.topology, in.now, o);
  EXPECT_EQ(s.parallelism_overrides.at("src"), 6);
  // An empty (vetoed) result changes nothing.
  EXPECT_TRUE(CommitScaling(r->state, {}, in.topology, in.now, o).scaling_history.empty());
}

TEST(AutoscalerCycleTest, HistoryTrimmedToMaxCountAndAge) {
  AutoscalerOptions o;
  o.history_max_count = 2;
  JobTopology t;
  t.vertices = {{.id = "src", .parallelism = 1}};
  AutoscalerState s;
  for (int i = 0; i < 4; ++i) {
    s = CommitScaling(s, {{"src", {i + 1, i + 2, {}}}}, t, kT0 + minutes(i), o);
  }
  ASSERT_EQ(s.scaling_history.at("src").size(), 2u);
  EXPECT_EQ(s.scaling_history.at("src")[0].summary.current_parallelism, 3);
  EXPECT_EQ(s.scaling_tracking.size(), 2u);
  // A day later only the newest entry survives the age limit (and tracking keeps its latest).
  s = CommitScaling(s, {{"src", {5, 6, {}}}}, t, kT0 + std::chrono::hours(25), o);
  ASSERT_EQ(s.scaling_history.at("src").size(), 1u);
  EXPECT_EQ(s.scaling_tracking.size(), 1u);
  // Vertices that left the job are dropped.
  JobTopology other;
  other.vertices = {{.id = "other", .parallelism = 1}};
  s = CommitScaling(s, {{"other", {1, 2, {}}}}, other, kT0 + std::chrono::hours(26), o);
  EXPECT_FALSE(s.scaling_history.count("src"));
}

TEST(AutoscalerCycleTest, ExcludedVertexIsNotScaled) {
  AutoscalerInput in = Input(4, kT0, Samples(kT0, 50, 100));
  in.configuration["job.autoscaler.vertex.exclude.ids"] = "src";
  auto r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->log.outcome, CycleOutcome::kNoChange);
  EXPECT_EQ(r->log.vertices.at("src").reasons[0],
            "excluded by job.autoscaler.vertex.exclude.ids");
}

TEST(AutoscalerCycleTest, BehaviorScaleUpRateLimitAcrossCycles) {
  // Wants 4 -> 6 every cycle (target 150, TPR 100 at parallelism 4); the policy allows +1 per
  // minute.
  AutoscalerInput in = Input(4, kT0, Samples(kT0, 50, 100));
  in.configuration["job.autoscaler.behavior.scale-up.policies"] = "Pods:1/1 min";
  auto r = RunAutoscalerCycle(in, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->log.outcome, CycleOutcome::kScale);
  EXPECT_EQ(r->log.vertices.at("src").proposed_parallelism, 6);
  EXPECT_EQ(r->summaries.at("src").new_parallelism, 5);
  ASSERT_EQ(r->state.behavior.at("src").scale_up_events.size(), 1u);
  EXPECT_EQ(r->state.behavior.at("src").scale_up_events[0].replica_change, 1);

  // 30 s later at 5 (TPR 125 with the same per-subtask rate; target 187.5 -> 7.5 -> 8): the
  // minute has not passed, no further scale-up allowed.
  AutoscalerInput in2 = Input(5, kT0 + seconds(30), Samples(kT0 + seconds(30), 62.5, 125, 100));
  in2.configuration = in.configuration;
  auto r2 = RunAutoscalerCycle(in2, r->state);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->log.outcome, CycleOutcome::kNoChange);
  EXPECT_EQ(r2->log.vertices.at("src").final_parallelism, 5);
  EXPECT_EQ(r2->log.stages.at("shape").back(),
            "behavior rules hold every vertex at its current parallelism");

  // 61 s after the first scale-up one more step is allowed.
  AutoscalerInput in3 = Input(5, kT0 + seconds(61), Samples(kT0 + seconds(61), 62.5, 125, 200));
  in3.configuration = in.configuration;
  auto r3 = RunAutoscalerCycle(in3, r2->state);
  ASSERT_TRUE(r3.ok());
  ASSERT_EQ(r3->log.outcome, CycleOutcome::kScale);
  EXPECT_EQ(r3->summaries.at("src").new_parallelism, 6);
}

TEST(AutoscalerCycleTest, BehaviorScaleDownStabilizationWindow) {
  // Wants 10 -> 5 (target 50, TPR 100); a 2 min scale-down window remembers the earlier
  // recommendation of 10 (no change) and holds.
  AutoscalerInput in = Input(10, kT0, Samples(kT0, 50, 0));
  in.configuration["job.autoscaler.behavior.scale-down.stabilization-window"] = "2 min";
  AutoscalerState s;
  s.behavior["src"].recommendations.push_back({10, kT0 - minutes(1)});
  auto r = RunAutoscalerCycle(in, s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->log.outcome, CycleOutcome::kNoChange);
  EXPECT_EQ(r->log.vertices.at("src").proposed_parallelism, 5);
  EXPECT_EQ(r->log.vertices.at("src").final_parallelism, 10);
  // Without behavior keys the same cycle scales down at once (upstream behaviour).
  in.configuration.erase("job.autoscaler.behavior.scale-down.stabilization-window");
  auto plain = RunAutoscalerCycle(in, s);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->summaries.at("src").new_parallelism, 5);
}

TEST(AutoscalerStateJsonTest, RoundTripKeepsEveryField) {
  AutoscalerState s;
  s.metric_window.push_back({kT0 + Millis(250),
                             {{"src", {{kMetricLoad, 0.5}, {kMetricObservedTpr, INFINITY}}}},
                             {{kMetricGcPressure, 0.1}}});
  ScalingSummary sum{2, 4, {}};
  SetAverage(&sum.metrics, kMetricTrueProcessingRate, 10);
  SetCurrent(&sum.metrics, kMetricScaleDownRateThreshold, INFINITY);
  s.scaling_history["src"].push_back({kT0, sum});
  s.scaling_tracking.push_back({kT0, {{"src", 4}}, seconds(42), seconds(95)});
  s.delayed_scale_down["src"] = {kT0, {{kT0, 3, true}}};
  s.behavior["src"].recommendations.push_back({4, kT0});
  s.parallelism_overrides["src"] = 4;
  const Json j = ToJson(s);
  EXPECT_EQ(j["metricWindow"][0]["time"], "2024-05-01T09:00:00.250Z");
  EXPECT_EQ(j["metricWindow"][0]["vertices"]["src"]["OBSERVED_TPR"], "Infinity");
  auto back = AutoscalerStateFromJson(j, "state");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ToJson(*back), j);
  EXPECT_EQ(back->metric_window[0].vertices.at("src").at(kMetricObservedTpr), INFINITY);
  EXPECT_EQ(back->scaling_tracking[0].restart_duration, seconds(42));
  EXPECT_EQ(j["scalingTracking"][0]["restartBacklogMs"], 95000);
  EXPECT_EQ(back->scaling_tracking[0].restart_backlog, seconds(95));
  EXPECT_TRUE(back->delayed_scale_down.at("src").recommendations[0].outside_utilization_bound);

  Json bad = j;
  bad["delayedScaleDown"]["src"]["recommendations"][0]["parallelism"] = 0;
  auto err = AutoscalerStateFromJson(bad, "state");
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.status().message(),
            "state.delayedScaleDown.src.recommendations[0].parallelism: must be >= 1");
}

}  // namespace
}  // namespace trimtab::core::flink

namespace trimtab::core::flink {
namespace {

// Issue 23: as Java's String.format("%.2f") (upstream's ScalingReport), not printf: half up on
// the shortest digits. Expected strings are what Java 25 prints.
TEST(ScalingReportLinesTest, NumbersReadAsJavaTwoDecimals) {
  const std::pair<double, const char*> values[] = {
      {0.125, "0.13"},          {0.375, "0.38"},
      {2.675, "2.68"},          {9.995, "10.00"},
      {1e15 + 0.5, "1000000000000000.50"},
      {1e-9, "0.00"},           {-0.004, "-0.00"},
      {-1.005, "-1.01"},        {123456.789, "123456.79"},
      {714.285, "714.29"},      {12345678.9, "12345678.90"},
      {std::numeric_limits<double>::infinity(), "Infinity"},
      {std::numeric_limits<double>::quiet_NaN(), "NaN"}};
  for (const auto& [v, want] : values) {
    ScalingSummaries s;
    s["v"] = {.current_parallelism = 1, .new_parallelism = 2,
              .metrics = {{kMetricTrueProcessingRate, {.average = v}},
                          {kMetricExpectedProcessingRate, {.current = v}},
                          {kMetricTargetDataRate, {.average = v}}}};
    EXPECT_EQ(ScalingReportLines(s), std::string("\n{ Vertex ID v | Parallelism 1 -> 2 | ") +
                                         "Processing capacity " + want + " -> " + want +
                                         " | Target data rate " + want + "}")
        << v;
  }
}

}  // namespace
}  // namespace trimtab::core::flink
