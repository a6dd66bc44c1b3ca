// Evaluation rules (reference notes §C.2/§C.3). Expected values are those of upstream
// ScalingMetricEvaluatorTest / ScalingMetricsTest (values only; tests written here).
#include "core/flink/evaluator.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/flink/autoscaler.h"
#include "core/flink/metric_window.h"

namespace trimtab::core::flink {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

CollectedSample Sample(int64_t ms, std::map<VertexId, SampleValues> vertices,
                       SampleValues global = {}) {
  return {FromUnixMillis(ms), std::move(vertices), std::move(global)};
}

JobTopology SourceSink() {
  JobTopology t;
  t.vertices = {{.id = "source", .parallelism = 1, .max_parallelism = 1},
                {.id = "sink", .parallelism = 1, .max_parallelism = 1}};
  t.edges = {{"source", "sink", "REBALANCE"}};
  return t;
}

Window LagWindow() {
  // Lag 950 -> 1000, input 0 -> 100 over one second: source data rate 150, output ratio 2.
  return {Sample(1000, {{"source", {{kMetricLag, 950}, {kMetricNumRecordsIn, 0},
                                    {kMetricNumRecordsOut, 0}, {kMetricLoad, .8}}},
                        {"sink", {{kMetricNumRecordsIn, 0}, {kMetricLoad, .4}}}}),
          Sample(2000, {{"source", {{kMetricLag, 1000}, {kMetricNumRecordsIn, 100},
                                    {kMetricNumRecordsOut, 200}, {kMetricLoad, .6}}},
                        {"sink", {{kMetricNumRecordsIn, 200}, {kMetricLoad, .3}}}})};
}

TEST(EvaluatorTest, LagBasedSourceScaling) {
  AutoscalerOptions o;
  o.catch_up_duration = std::chrono::seconds(2);
  auto e = EvaluateMetrics(SourceSink(), LagWindow(), o, Millis(0));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const MetricMap& src = e->vertices.at("source");
  const MetricMap& sink = e->vertices.at("sink");
  EXPECT_DOUBLE_EQ(Average(src, kMetricLoad), .7);
  EXPECT_DOUBLE_EQ(Average(sink, kMetricLoad), .35);
  EXPECT_FALSE(src.at(kMetricLoad).current.has_value());
  EXPECT_DOUBLE_EQ(Average(src, kMetricTargetDataRate), 150);
  EXPECT_DOUBLE_EQ(Current(src, kMetricCatchUpDataRate), 500);
  EXPECT_DOUBLE_EQ(Average(sink, kMetricTargetDataRate), 300);
  EXPECT_DOUBLE_EQ(Current(sink, kMetricCatchUpDataRate), 1000);
  EXPECT_DOUBLE_EQ(Current(src, kMetricLag), 1000);
  EXPECT_EQ(sink.count(kMetricLag), 0u);

  o.catch_up_duration = std::chrono::seconds(1);
  e = EvaluateMetrics(SourceSink(), LagWindow(), o, Millis(0));
  EXPECT_DOUBLE_EQ(Average(e->vertices.at("source"), kMetricTargetDataRate), 150);
  EXPECT_DOUBLE_EQ(Current(e->vertices.at("source"), kMetricCatchUpDataRate), 1000);
  EXPECT_DOUBLE_EQ(Average(e->vertices.at("sink"), kMetricTargetDataRate), 300);
  EXPECT_DOUBLE_EQ(Current(e->vertices.at("sink"), kMetricCatchUpDataRate), 2000);

  // Restart time does not affect evaluated rates.
  e = EvaluateMetrics(SourceSink(), LagWindow(), o, std::chrono::seconds(2));
  EXPECT_DOUBLE_EQ(Current(e->vertices.at("sink"), kMetricCatchUpDataRate), 2000);

  o.catch_up_duration = Millis(0);  // lag-based scaling off
  e = EvaluateMetrics(SourceSink(), LagWindow(), o, Millis(0));
  EXPECT_DOUBLE_EQ(Average(e->vertices.at("source"), kMetricTargetDataRate), 150);
  EXPECT_DOUBLE_EQ(Current(e->vertices.at("source"), kMetricCatchUpDataRate), 0);
  EXPECT_DOUBLE_EQ(Current(e->vertices.at("sink"), kMetricCatchUpDataRate), 0);

  // Zero lag.
  Window zero = {Sample(3000, {{"source", {{kMetricLag, 0}, {kMetricNumRecordsIn, 100},
                                           {kMetricNumRecordsOut, 200}, {kMetricLoad, .6}}},
                               {"sink", {{kMetricNumRecordsIn, 200}, {kMetricLoad, .3}}}}),
                 Sample(4000, {{"source", {{kMetricLag, 0}, {kMetricNumRecordsIn, 200},
                                           {kMetricNumRecordsOut, 400}, {kMetricLoad, .6}}},
                               {"sink", {{kMetricNumRecordsIn, 400}, {kMetricLoad, .3}}}})};
  o.catch_up_duration = std::chrono::minutes(1);
  e = EvaluateMetrics(SourceSink(), zero, o, Millis(0));
  EXPECT_DOUBLE_EQ(Average(e->vertices.at("source"), kMetricTargetDataRate), 100);
  EXPECT_DOUBLE_EQ(Average(e->vertices.at("sink"), kMetricTargetDataRate), 200);
}

TEST(EvaluatorTest, MissingIngestionRateIsAnError) {
  Window one = {Sample(1000, {{"source", {{kMetricLoad, .5}}}, {"sink", {{kMetricLoad, .5}}}}),
                Sample(2000, {{"source", {{kMetricLoad, .5}}}, {"sink", {{kMetricLoad, .5}}}})};
  auto e = EvaluateMetrics(SourceSink(), one, AutoscalerOptions{}, Millis(0));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("without ingestion rate"), std::string::npos);
}

std::pair<double, double> Thresholds(double target, double catch_up, const AutoscalerOptions& o,
                                     Millis restart, bool backlog = false) {
  MetricMap m;
  SetAverage(&m, kMetricTargetDataRate, target);
  SetCurrent(&m, kMetricCatchUpDataRate, catch_up);
  ComputeProcessingRateThresholds(&m, o, backlog, restart);
  return {Current(m, kMetricScaleUpRateThreshold), Current(m, kMetricScaleDownRateThreshold)};
}

// Target utilization 0.8 within the band [0.7, 0.9], as the utilization tests below use.
AutoscalerOptions BandOptions() {
  AutoscalerOptions o;
  o.target_utilization = 0.8;
  o.utilization_max = 0.9;
  o.utilization_min = 0.7;
  return o;
}

TEST(EvaluatorTest, UtilizationBoundaryComputation) {
  AutoscalerOptions o = BandOptions();
  o.restart_time = std::chrono::seconds(1);
  o.catch_up_duration = Millis(0);
  using P = std::pair<double, double>;
  EXPECT_EQ(Thresholds(700, 0, o, o.restart_time), (P{778, 1000}));
  o.catch_up_duration = std::chrono::seconds(2);
  EXPECT_EQ(Thresholds(700, 350, o, o.restart_time), (P{1128, 1700}));
  EXPECT_EQ(Thresholds(700, 0, o, o.restart_time), (P{778, 1350}));
  EXPECT_EQ(Thresholds(700, 350, o, o.restart_time, true), (P{1050, kInf}));
  EXPECT_EQ(Thresholds(700, 0, o, o.restart_time, true), (P{700, kInf}));
}

TEST(EvaluatorTest, UtilizationBoundaryWithTrackedRestartTime) {
  AutoscalerOptions o = BandOptions();
  o.restart_time = std::chrono::minutes(10);
  o.catch_up_duration = Millis(0);
  o.restart_time_tracking_enabled = true;
  AutoscalerState s;
  s.scaling_tracking = {{FromUnixMillis(1'700'000'000'000), {}, std::chrono::minutes(3)},
                        {FromUnixMillis(1'700'001'200'000), {}, std::chrono::minutes(5)}};
  const Millis restart = EffectiveRestartTime(s, o);
  EXPECT_EQ(restart, std::chrono::minutes(5));
  using P = std::pair<double, double>;
  EXPECT_EQ(Thresholds(700, 0, o, restart), (P{778, 1000}));
  o.catch_up_duration = std::chrono::minutes(1);
  EXPECT_EQ(Thresholds(700, 350, o, restart), (P{1128, 4850}));
  EXPECT_EQ(Thresholds(700, 0, o, restart), (P{778, 4500}));
  EXPECT_EQ(Thresholds(700, 350, o, restart, true), (P{1050, kInf}));
  // Tracked restart capped by restart.time-tracking.limit; tracking off -> restart.time.
  o.restart_time_tracking_limit = std::chrono::minutes(4);
  EXPECT_EQ(EffectiveRestartTime(s, o), std::chrono::minutes(4));
  o.restart_time_tracking_enabled = false;
  EXPECT_EQ(EffectiveRestartTime(s, o), std::chrono::minutes(10));
}

// catch-up.restart-from-headroom: the restart catch-up rate counts only what the headroom below
// the utilization does not already give. Target rate 700, restart 5 min, catch-up 1 min:
// upstream adds 700 x 300 / 60 = 3500 on top of 700 / u.
TEST(EvaluatorTest, RestartCatchUpFromHeadroom) {
  AutoscalerOptions o = BandOptions();
  o.catch_up_duration = std::chrono::minutes(1);
  const Millis restart = std::chrono::minutes(5);
  using P = std::pair<double, double>;
  ASSERT_EQ(Thresholds(700, 0, o, restart), (P{778, 4500}));  // upstream: 3500 + 1000
  o.restart_catch_up_from_headroom = true;
  // Scale-down bound: 700 / 0.7 = 1000 leaves 300 to spare, so 3500 - 300 = 3200 is added.
  // The scale-up bound has no restart term and does not change.
  EXPECT_EQ(Thresholds(700, 0, o, restart), (P{778, 4200}));
  // The lag catch-up rate is never credited: 350 more on both bounds.
  EXPECT_EQ(Thresholds(700, 350, o, restart), (P{1128, 4550}));
  // The scale target at 0.8: 875 leaves 175 to spare; 3500 - 175 + 875 = 4200 (upstream 4375).
  MetricMap m;
  SetAverage(&m, kMetricTargetDataRate, 700);
  SetCurrent(&m, kMetricCatchUpDataRate, 0);
  EXPECT_EQ(TargetProcessingCapacity(m, o, 0.8, true, restart), 4200);
  // A short restart (10 s: 700 x 10 / 60 = 117) is covered by the headroom: nothing is added.
  EXPECT_EQ(TargetProcessingCapacity(m, o, 0.8, true, std::chrono::seconds(10)), 875);
  o.restart_catch_up_from_headroom = false;
  EXPECT_EQ(TargetProcessingCapacity(m, o, 0.8, true, std::chrono::seconds(10)), 992);
}

TEST(EvaluatorTest, BacklogProcessingDetection) {
  AutoscalerOptions o;  // backlog threshold 5 min = 300 s
  const JobTopology t = SourceSink();
  auto window = [](SampleValues second) {
    return Window{Sample(0, {{"source", {{kMetricLag, 0}, {kMetricNumRecordsIn, 0}}}, {"sink", {}}}),
                  Sample(1000, {{"source", second}, {"sink", {}}})};
  };
  EXPECT_FALSE(IsProcessingBacklog(t, window({{kMetricLag, 0}, {kMetricNumRecordsIn, 100}}), o));
  EXPECT_FALSE(IsProcessingBacklog(t, window({{kMetricNumRecordsIn, 100}}), o));
  EXPECT_TRUE(IsProcessingBacklog(t, window({{kMetricLag, 250. * 300}, {kMetricNumRecordsIn, 200}}), o));
  EXPECT_FALSE(IsProcessingBacklog(t, window({{kMetricLag, 180. * 300}, {kMetricNumRecordsIn, 200}}), o));
}

TEST(EvaluatorTest, ObservedTprSelection) {
  AutoscalerOptions o;
  Window w = {Sample(1000, {{"source", {{kMetricObservedTpr, 200}}}}),
              Sample(2000, {{"source", {{kMetricObservedTpr, 400}}}})};
  o.observed_tpr_switch_threshold = 0.2;  // busy-time 350 within 300 x 1.2
  EXPECT_DOUBLE_EQ(ComputeTrueProcessingRate(100, 35, w, "source", o), 350);
  o.observed_tpr_switch_threshold = 0.1;  // 350 > 330: observed
  EXPECT_DOUBLE_EQ(ComputeTrueProcessingRate(100, 35, w, "source", o), 300);
  o.observed_tpr_min_observations = 3;  // not enough observations
  EXPECT_DOUBLE_EQ(ComputeTrueProcessingRate(100, 35, w, "source", o), 350);
  // Busy time unknown -> observed.
  EXPECT_DOUBLE_EQ(ComputeTrueProcessingRate(kNaN, 1, w, "source", AutoscalerOptions{}), 300);
}

TEST(EvaluatorTest, MissingObservedTprAndZeroRates) {
  const AutoscalerOptions o;
  const Window empty;
  EXPECT_DOUBLE_EQ(ComputeTrueProcessingRate(100, 35, empty, "v", o), 350);
  EXPECT_EQ(ComputeTrueProcessingRate(0, 100, empty, "v", o), kInf);
  EXPECT_EQ(ComputeTrueProcessingRate(0, 0, empty, "v", o), kInf);
  EXPECT_EQ(ComputeTrueProcessingRate(1, 0, empty, "v", o), kInf);
  EXPECT_EQ(ComputeTrueProcessingRate(kNaN, 0, empty, "v", o), kInf);
  EXPECT_TRUE(std::isnan(ComputeTrueProcessingRate(kNaN, kNaN, empty, "v", o)));
}

TEST(EvaluatorTest, GlobalMetrics) {
  JobTopology t;  // no vertices: only job-wide metrics
  Window w = {Sample(1000, {}, {{kMetricHeapMaxUsageRatio, 0.5}, {kMetricGcPressure, 0.6},
                                {kMetricHeapMemoryUsed, 512}, {kMetricManagedMemoryUsed, 420},
                                {kMetricMetaspaceMemoryUsed, 110}})};
  auto e = EvaluateMetrics(t, w, AutoscalerOptions{}, Millis(0));
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(Current(e->global, kMetricGcPressure), 0.6);
  EXPECT_DOUBLE_EQ(Average(e->global, kMetricHeapMemoryUsed), 512);
  EXPECT_TRUE(std::isnan(Current(e->global, kMetricNumTaskSlotsUsed)));
  w.push_back(Sample(2000, {}, {{kMetricHeapMaxUsageRatio, 0.7}, {kMetricGcPressure, 0.8},
                                {kMetricHeapMemoryUsed, 1024}, {kMetricManagedMemoryUsed, 840},
                                {kMetricMetaspaceMemoryUsed, 220}, {kMetricNumTaskSlotsUsed, 42}}));
  e = EvaluateMetrics(t, w, AutoscalerOptions{}, Millis(0));
  EXPECT_DOUBLE_EQ(Current(e->global, kMetricHeapMaxUsageRatio), 0.7);
  EXPECT_DOUBLE_EQ(Average(e->global, kMetricHeapMaxUsageRatio), 0.6);
  EXPECT_DOUBLE_EQ(Current(e->global, kMetricGcPressure), 0.8);
  EXPECT_DOUBLE_EQ(Average(e->global, kMetricHeapMemoryUsed), 768);
  EXPECT_DOUBLE_EQ(Average(e->global, kMetricManagedMemoryUsed), 630);
  EXPECT_DOUBLE_EQ(Average(e->global, kMetricMetaspaceMemoryUsed), 165);
  EXPECT_DOUBLE_EQ(Current(e->global, kMetricNumTaskSlotsUsed), 42);
}

TEST(EvaluatorTest, BusyTimeAggregators) {
  Window w = {Sample(1000, {{"v", {{kMetricLoad, 0.2}, {kMetricAccumulatedBusyTime, 10000}}}}),
              Sample(2000, {{"v", {{kMetricLoad, 0.3}, {kMetricAccumulatedBusyTime, 10200}}}}),
              Sample(3000, {{"v", {{kMetricLoad, 0.4}, {kMetricAccumulatedBusyTime, 10400}}}})};
  AutoscalerOptions o;
  for (auto agg : {BusyTimeAggregator::kMax, BusyTimeAggregator::kMin}) {
    o.busy_time_aggregator = agg;
    EXPECT_DOUBLE_EQ(ComputeBusyTimeAvg(o, w, "v", 2), 300);
  }
  o.busy_time_aggregator = BusyTimeAggregator::kAvg;  // 400 ms over 2 s, per subtask
  EXPECT_DOUBLE_EQ(ComputeBusyTimeAvg(o, w, "v", 2), 100);
  EXPECT_DOUBLE_EQ(ComputeBusyTimeAvg(o, w, "v", 1), 200);
}

TEST(EvaluatorTest, TprInputRatePrefersPerSecondGaugeForMaxAggregator) {
  Window w = {Sample(1000, {{"v", {{kMetricNumRecordsIn, 0}, {kMetricNumRecordsInPerSecond, 90}}}}),
              Sample(3000, {{"v", {{kMetricNumRecordsIn, 200}, {kMetricNumRecordsInPerSecond, 110}}}})};
  AutoscalerOptions o;
  EXPECT_DOUBLE_EQ(ComputeTprInputRate(o, w, "v"), 100);  // average of 90 and 110
  o.busy_time_aggregator = BusyTimeAggregator::kAvg;
  EXPECT_DOUBLE_EQ(ComputeTprInputRate(o, w, "v"), 100);  // 200 records / 2 s
  Window no_gauge = {Sample(1000, {{"v", {{kMetricNumRecordsIn, 0}}}}),
                     Sample(2000, {{"v", {{kMetricNumRecordsIn, 50}}}})};
  o.busy_time_aggregator = BusyTimeAggregator::kMax;
  EXPECT_DOUBLE_EQ(ComputeTprInputRate(o, no_gauge, "v"), 50);  // fallback to the counter rate
}

TEST(EvaluatorTest, OutputRatiosWithTwoInputs) {
  // source1, source2 -> op (two inputs, each source has one output) -> sink.
  JobTopology t;
  t.vertices = {{.id = "s1"}, {.id = "s2"}, {.id = "op"}, {.id = "sink"}};
  t.edges = {{"s1", "op", "REBALANCE"}, {"s2", "op", "REBALANCE"}, {"op", "sink", "REBALANCE"}};
  Window w = {Sample(1000, {{"s1", {{kMetricNumRecordsIn, 100}, {kMetricNumRecordsOut, 100}}},
                            {"s2", {{kMetricNumRecordsIn, 100}, {kMetricNumRecordsOut, 100}}},
                            {"op", {{kMetricNumRecordsIn, 100}, {kMetricNumRecordsOut, 100}}},
                            {"sink", {{kMetricNumRecordsIn, 100}}}}),
              Sample(2000, {{"s1", {{kMetricNumRecordsIn, 200}, {kMetricNumRecordsOut, 300}}},
                            {"s2", {{kMetricNumRecordsIn, 200}, {kMetricNumRecordsOut, 100}}},
                            {"op", {{kMetricNumRecordsIn, 300}, {kMetricNumRecordsOut, 200}}},
                            {"sink", {{kMetricNumRecordsIn, 200}}}})};
  // Edge s1 -> op = rate(in of op) 200 - rate(out of s2) 0 = 200 over s1's input 100 -> 2.
  EXPECT_DOUBLE_EQ(ComputeEdgeOutputRatio(t, w, "s1", "op"), 2);
  EXPECT_DOUBLE_EQ(ComputeEdgeOutputRatio(t, w, "s2", "op"), 0);  // 200 - 200 = 0
  EXPECT_DOUBLE_EQ(ComputeEdgeOutputRatio(t, w, "op", "sink"), 0.5);
}

// Samples a minute apart: the source reads rates[i] records/s in minute i (no lag unless given).
// Samples `gap` seconds apart (a minute by default), the source reading rates[i] between them.
Window RateWindow(const std::vector<double>& rates, double lag_growth_last_minute = 0,
                  int64_t gap = 60) {
  auto sample = [](int64_t ms, double in, double lag) {
    return Sample(ms, {{"source", {{kMetricNumRecordsIn, in}, {kMetricNumRecordsOut, in},
                                   {kMetricLag, lag}, {kMetricLoad, .5}}},
                       {"sink", {{kMetricNumRecordsIn, in}, {kMetricLoad, .5}}}});
  };
  Window w = {sample(0, 0, 0)};
  double in = 0;
  for (size_t i = 0; i < rates.size(); ++i) {
    in += static_cast<double>(gap) * rates[i];
    const bool last = i + 1 == rates.size();
    w.push_back(sample(static_cast<int64_t>(i + 1) * gap * 1000, in,
                       last ? 60 * lag_growth_last_minute : 0));
  }
  return w;
}

TEST(EvaluatorTest, ArrivalSpansCountReadsAndLagGrowth) {
  // The last minute: 300/s read while the lag grew by 100/s -> 400/s arrived.
  const Window w = RateWindow({100, 100, 300}, 100);
  auto spans = RecentArrivalSpans(w, "source", std::chrono::minutes(1), 2);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_DOUBLE_EQ(spans[0].rate, 400);
  EXPECT_DOUBLE_EQ(spans[0].seconds, 60);
  EXPECT_EQ(spans[0].begin, 2u);
  EXPECT_DOUBLE_EQ(spans[1].rate, 100);
  EXPECT_EQ(spans[1].begin, 1u);
  // Spans of two minutes: only one fits in three.
  spans = RecentArrivalSpans(w, "source", std::chrono::minutes(2), 2);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_DOUBLE_EQ(spans[0].rate, (6000 + 18000 + 6000) / 120.0);
  EXPECT_TRUE(RecentArrivalSpans(w, "source", std::chrono::minutes(4), 1).empty());
  EXPECT_TRUE(RecentArrivalSpans(w, "nope", std::chrono::minutes(1), 1).empty());
  // Between two samples; the same sample twice, or reversed, is no span.
  EXPECT_DOUBLE_EQ(ArrivalBetween(w, "source", 0, 2)->rate, 100);
  EXPECT_FALSE(ArrivalBetween(w, "source", 2, 2).has_value());
  EXPECT_FALSE(ArrivalBetween(w, "source", 3, 1).has_value());
}

TEST(EvaluatorTest, StepDetection) {
  JobTopology t = SourceSink();
  AutoscalerOptions o;
  o.catch_up_duration = Millis(0);
  auto evaluate = [&](const Window& w, std::vector<std::string>* notes, bool* pending) {
    notes->clear();
    *pending = false;
    auto e = EvaluateMetrics(t, w, o, Millis(0), nullptr, notes, pending);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return Average(e->vertices.at("source"), kMetricTargetDataRate);
  };
  std::vector<std::string> notes;
  bool pending = false;

  // Off (upstream): the window rate, whatever the last minutes did.
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({100, 100, 100, 300}), &notes, &pending), 150);
  EXPECT_TRUE(notes.empty());
  EXPECT_FALSE(pending);

  o.step_detection_threshold = 0.4;  // beyond 1.4x: confirm; beyond 1.96x: at once
  // 3x the minutes before it: taken at once, for the source and downstream.
  auto e = EvaluateMetrics(t, RateWindow({100, 100, 100, 300}), o, Millis(0), nullptr, &notes,
                           &pending);
  ASSERT_TRUE(e.ok());
  EXPECT_DOUBLE_EQ(Average(e->vertices.at("source"), kMetricTargetDataRate), 300);
  EXPECT_DOUBLE_EQ(Average(e->vertices.at("sink"), kMetricTargetDataRate), 300);
  EXPECT_FALSE(pending);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "source: step detected: arrival rate 300/s over the last 1 min vs 100/s before; "
            "target rate 300/s");

  // 1.7x in the last minute only: pending, the window rate stays.
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({100, 100, 100, 170}), &notes, &pending), 117.5);
  EXPECT_TRUE(pending);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "source: possible step: arrival rate 170/s over the last 1 min vs 100/s before; one "
            "more interval to confirm it");

  // 1.7x for two minutes: confirmed against the minutes before both; the target is their rate.
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({100, 100, 170, 170}), &notes, &pending), 170);
  EXPECT_FALSE(pending);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "source: step detected: arrival rate 170/s then 170/s over the last two 1 min vs "
            "100/s before; target rate 170/s");

  // Down for two minutes: confirmed too.
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({300, 300, 180, 160}), &notes, &pending), 170);
  EXPECT_FALSE(pending);

  // Noise within the threshold: nothing.
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({100, 100, 120, 90}), &notes, &pending), 102.5);
  EXPECT_FALSE(pending);
  EXPECT_TRUE(notes.empty());
  // Up then down beyond the threshold both times: opposite sides, pending on the last one.
  evaluate(RateWindow({100, 100, 150, 60}), &notes, &pending);
  EXPECT_TRUE(pending);

  // Decisions every 30 s, a 1-minute interval: 30 s after a step to 500/s the interval holds
  // half of the rate before it (300/s). The newest gap, further beyond, is the target.
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({100, 100, 100, 100, 100, 500}, 0, 30), &notes, &pending),
                   500);
  EXPECT_FALSE(pending);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "source: step detected: arrival rate 300/s over the last 1 min, 500/s over the newest "
            "30 s vs 100/s before; target rate 500/s");
  // ... and down the same way, when the interval is beyond the threshold twice over: an off
  // phase (a drop to 100/s gives 300/s over the minute, only pending).
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({500, 500, 500, 500, 500, 0}, 0, 30), &notes, &pending),
                   0);
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({500, 500, 500, 500, 500, 100}, 0, 30), &notes, &pending),
                   RoundMetric((5 * 500 + 100) / 6.0));  // the window rate, 3 decimals
  EXPECT_TRUE(pending);
  // A newest gap less far out than the interval (the step came a minute ago) leaves the
  // interval's rate.
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({100, 100, 100, 100, 500, 450}, 0, 30), &notes, &pending),
                   475);
  EXPECT_EQ(notes.at(0),
            "source: step detected: arrival rate 475/s over the last 1 min vs 100/s before; "
            "target rate 475/s");

  // A window shorter than the interval plus something before it: nothing to compare.
  o.step_detection_interval = std::chrono::minutes(4);
  EXPECT_DOUBLE_EQ(evaluate(RateWindow({100, 100, 100, 300}), &notes, &pending), 150);
  EXPECT_TRUE(notes.empty());
  EXPECT_FALSE(pending);
}

TEST(CollectSampleTest, LoadRoundingLagAndObservedTpr) {
  JobTopology t = SourceSink();
  AutoscalerOptions o;  // observed TPR lag threshold 30 s
  RawSample raw;
  raw.time = FromUnixMillis(5000);
  raw.vertices["source"] = {.busy_time_max = 512.3456, .busy_time_min = 100, .busy_time_avg = 300,
                            .num_records_in = 1000, .num_records_in_per_second = 100,
                            .pending_records = 3000, .back_pressured_time_ms_per_second = 500};
  raw.vertices["sink"] = {.busy_time_max = 0.0004, .num_records_in = 500,
                          .num_records_in_per_second = 50};
  raw.job = {.gc_time_ms_per_second = 250, .heap_used = 300, .heap_max = 1200,
             .task_slots_total = 8, .task_slots_available = 3,
             .last_checkpoint_duration_ms = 1500};
  auto s = CollectSample(raw, t, o, {}, "samples[0]");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_DOUBLE_EQ(s->global.at(kMetricLastCheckpointDuration), 1.5);  // seconds
  EXPECT_DOUBLE_EQ(s->vertices.at("source").at(kMetricLoad), 0.512);
  EXPECT_DOUBLE_EQ(s->vertices.at("sink").at(kMetricLoad), 0.0000004);  // would round to 0
  EXPECT_DOUBLE_EQ(s->vertices.at("source").at(kMetricLag), 3000);
  // lag 3000 >= 30 s x 100/s: observed = 100 / (1 - 0.5).
  EXPECT_DOUBLE_EQ(s->vertices.at("source").at(kMetricObservedTpr), 200);
  EXPECT_DOUBLE_EQ(s->vertices.at("sink").at(kMetricNumRecordsInPerSecond), 50);
  EXPECT_EQ(s->vertices.at("source").count(kMetricNumRecordsInPerSecond), 0u);
  EXPECT_DOUBLE_EQ(s->global.at(kMetricGcPressure), 0.25);
  EXPECT_DOUBLE_EQ(s->global.at(kMetricHeapMaxUsageRatio), 0.25);
  EXPECT_DOUBLE_EQ(s->global.at(kMetricNumTaskSlotsUsed), 5);

  // Below the lag threshold the observed TPR is the average of the stored ones (needs 2).
  raw.vertices["source"].pending_records = 100;
  auto s2 = CollectSample(raw, t, o, {*s}, "samples[1]");
  EXPECT_EQ(s2->vertices.at("source").count(kMetricObservedTpr), 0u);
  CollectedSample other = *s;
  other.vertices["source"].Set(kMetricObservedTpr, 300);
  s2 = CollectSample(raw, t, o, {*s, other}, "samples[1]");
  EXPECT_DOUBLE_EQ(s2->vertices.at("source").at(kMetricObservedTpr), 250);
  // Nothing flowing: infinite observed TPR.
  raw.vertices["source"].num_records_in_per_second = 0;
  s2 = CollectSample(raw, t, o, {}, "samples[1]");
  EXPECT_EQ(s2->vertices.at("source").at(kMetricObservedTpr), kInf);

  raw.vertices["sink"].busy_time_max.reset();
  auto bad = CollectSample(raw, t, o, {}, "samples[3]");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "samples[3].vertices.sink.busyTimeMsPerSecond: required metric is missing");
}

TEST(EvaluatorTest, EarlyScaleUpNeedsABacklogThatDoesNotDrainInTime) {
  AutoscalerOptions o;
  o.early_scale_up_window = Millis(60'000);
  o.catch_up_duration = Millis(300'000);
  // Reads 100/s from t = 10 s (the stable time) to 70 s; lag at 10 s and at 70 s.
  const auto window = [](double lag_begin, double lag_end) {
    return Window{Sample(0, {{"source", {{kMetricLag, 0}, {kMetricNumRecordsIn, 0}}}}),
                  Sample(10'000, {{"source", {{kMetricLag, lag_begin}, {kMetricNumRecordsIn, 0}}}}),
                  Sample(70'000, {{"source", {{kMetricLag, lag_end}, {kMetricNumRecordsIn, 6000}}}})};
  };
  const TimePoint stable = FromUnixMillis(10'000);
  const JobTopology t = SourceSink();
  // Growing: behind.
  std::optional<std::string> why = EarlyScaleUpReason(t, window(500, 2000), stable, o);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("source lag went from 500 to 2000 records in the 60 s"), std::string::npos)
      << *why;
  // Shrinking 10/s with 2000 left: 200 s, within catch-up.duration (300 s).
  EXPECT_FALSE(EarlyScaleUpReason(t, window(2600, 2000), stable, o));
  // Shrinking 5/s with 2000 left: 400 s, too slow.
  EXPECT_TRUE(EarlyScaleUpReason(t, window(2300, 2000), stable, o));
  // Under one second of input (100 records) waiting is no backlog, even if it grew.
  EXPECT_FALSE(EarlyScaleUpReason(t, window(0, 90), stable, o));
  // The span since the stable time must reach the early window; the sample at 0 does not count.
  EXPECT_FALSE(EarlyScaleUpReason(t, window(500, 2000), FromUnixMillis(10'001), o));
  o.early_scale_up_window = Millis(0);  // off
  EXPECT_FALSE(EarlyScaleUpReason(t, window(500, 2000), stable, o));
}

TEST(EvaluatorTest, LoadImbalanceIsMeasuredForCapacityAlignment) {
  JobTopology t;
  t.vertices = {{.id = "source", .parallelism = 4, .max_parallelism = 128}};
  // The busiest of 4 subtasks is 800 ms/s busy (LOAD, MAX aggregator); all 4 together 1600 ms/s:
  // 400 on average, half the busiest.
  const Window w = {
      Sample(0, {{"source", {{kMetricLag, 0}, {kMetricNumRecordsIn, 0}, {kMetricLoad, 0.8},
                             {kMetricAccumulatedBusyTime, 0}}}}),
      Sample(1'000'000, {{"source", {{kMetricLag, 0}, {kMetricNumRecordsIn, 1'000'000},
                                     {kMetricLoad, 0.8}, {kMetricAccumulatedBusyTime, 1'600'000}}}})};
  AutoscalerOptions o;
  o.alignment_mode = AlignmentMode::kCapacity;
  auto e = EvaluateMetrics(t, w, o, Millis(0));
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_DOUBLE_EQ(Average(e->vertices.at("source"), kMetricLoadImbalance), 2.0);
  // Only CAPACITY alignment uses it; other modes leave it out.
  o.alignment_mode = AlignmentMode::kBalanced;
  e = EvaluateMetrics(t, w, o, Millis(0));
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->vertices.at("source").count(kMetricLoadImbalance));
}

}  // namespace
}  // namespace trimtab::core::flink
