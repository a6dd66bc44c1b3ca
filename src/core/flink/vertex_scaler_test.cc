// Target parallelism, alignment, delayed scale-down and ineffective-scaling rules. Expected
// values are those of upstream JobVertexScalerTest (values only; the tests are written here).
#include "core/flink/vertex_scaler.h"

#include <climits>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/flink/evaluator.h"
#include "core/flink/metric_window.h"
#include "core/flink/parallelism_alignment.h"

namespace trimtab::core::flink {
namespace {

constexpr int kMax = INT_MAX;

class VertexScalerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    o_.max_scale_down_factor = 1.0;
    o_.max_scale_up_factor = static_cast<double>(INT_MAX);
    o_.catch_up_duration = Millis(0);
  }

  // Upstream test helper `evaluated(parallelism, target, tpr)`: max parallelism 720, no
  // partitions, thresholds from the current options.
  MetricMap Evaluated(int parallelism, double target, double tpr, double catch_up = 0) {
    MetricMap m;
    SetCurrent(&m, kMetricParallelism, parallelism);
    SetCurrent(&m, kMetricMaxParallelism, 720);
    SetCurrent(&m, kMetricNumSourcePartitions, 0);
    SetAverage(&m, kMetricTargetDataRate, target);
    SetCurrent(&m, kMetricCatchUpDataRate, catch_up);
    SetAverage(&m, kMetricTrueProcessingRate, tpr);
    ComputeProcessingRateThresholds(&m, o_, false, o_.restart_time);
    return m;
  }

  ParallelismChange Compute(MetricMap* m, bool hash = false,
                            const std::vector<ScalingHistoryEntry>* history = nullptr) {
    return ComputeScaleTargetParallelism(o_, {"v", hash, history, o_.restart_time, now_}, m,
                                         &delayed_, &events_);
  }
  ParallelismChange Compute(int p, double target, double tpr, bool hash = false) {
    MetricMap m = Evaluated(p, target, tpr);
    return Compute(&m, hash);
  }

  // trimtab's simulator band: target 0.85 within [0.5, 0.95], scale-downs at once.
  void UseTrimtabBand() {
    o_.target_utilization = 0.85;
    o_.utilization_min = 0.5;
    o_.utilization_max = 0.95;
    o_.scale_down_interval = Millis(0);
  }

  static void ExpectChange(const ParallelismChange& c, int p, bool outside) {
    EXPECT_TRUE(c.change) << c.reason;
    EXPECT_EQ(c.new_parallelism, p) << c.reason;
    EXPECT_EQ(c.outside_utilization_bound, outside) << c.reason;
  }

  AutoscalerOptions o_;
  TimePoint now_ = FromUnixMillis(1'700'000'000'000);
  std::map<VertexId, VertexDelayedScaleDown> delayed_;
  std::vector<AutoscalerEvent> events_;
};

TEST_F(VertexScalerTest, ParallelismScalingWithHashInputInBothModes) {
  for (AlignmentMode mode : {AlignmentMode::kBalanced, AlignmentMode::kEvenlySpread,
                             AlignmentMode::kLegacyEvenlySpread}) {
    SCOPED_TRACE(std::string(AlignmentModeName(mode)));
    o_ = AutoscalerOptions{};
    SetUp();
    o_.alignment_mode = mode;
    o_.scale_down_interval = Millis(0);
    o_.target_utilization = 1.0;
    ExpectChange(Compute(10, 50, 100, true), 5, true);
    o_.target_utilization = 0.8;
    ExpectChange(Compute(10, 50, 100, true), 8, false);
    EXPECT_FALSE(Compute(10, 80, 100, true).change);
    ExpectChange(Compute(10, 60, 100, true), 8, false);
    ExpectChange(Compute(10, 59, 100, true), 8, false);
    o_.target_utilization = 0.5;
    ExpectChange(Compute(2, 100, 40, true), 10, true);
    o_.target_utilization = 0.6;
    ExpectChange(Compute(2, 100, 100, true), 4, true);
    o_.target_utilization = 1.0;
    o_.max_scale_down_factor = 0.5;
    ExpectChange(Compute(10, 10, 100, true), 5, true);
    o_.max_scale_down_factor = 0.6;
    ExpectChange(Compute(10, 10, 100, true), 4, true);
    o_.max_scale_up_factor = 0.5;
    ExpectChange(Compute(10, 200, 10, true), 15, true);
    o_.max_scale_up_factor = 0.6;
    ExpectChange(Compute(10, 200, 10, true), 16, true);
  }
}

TEST_F(VertexScalerTest, WithoutHashInputNoAlignment) {
  o_.scale_down_interval = Millis(0);
  o_.target_utilization = 0.8;
  // 50 / 0.8 = 62.5 -> 63; 0.63 x 10 = 6.3 -> 7 (not aligned to 720 key groups).
  ExpectChange(Compute(10, 50, 100, false), 7, false);
}

TEST(ScaleParallelismTest, Computation) {
  const auto s = [](int cur, int maxp, double sf) {
    return ScaleParallelism(cur, false, 0, maxp, sf, 1, kMax, AlignmentMode::kBalanced);
  };
  EXPECT_EQ(s(1, 720, 0.0001), 1);
  EXPECT_EQ(s(2, 720, 0.1), 1);
  EXPECT_EQ(s(6, 720, 0.8), 5);
  EXPECT_EQ(s(16, 128, 1.5), 24);
  EXPECT_EQ(s(200, 720, 2), 400);
  EXPECT_EQ(s(200, 720, INT_MAX), 720);
}

TEST(ScaleParallelismTest, AdjustmentEvenlySpread) {
  for (AlignmentMode mode : {AlignmentMode::kEvenlySpread, AlignmentMode::kLegacyEvenlySpread}) {
    const auto s = [&](int cur, int maxp, double sf) {
      return ScaleParallelism(cur, true, 0, maxp, sf, 1, kMax, mode);
    };
    EXPECT_EQ(s(6, 36, 0.8), 6);
    EXPECT_EQ(s(16, 128, 1.5), 32);
    EXPECT_EQ(s(200, 720, 1.3), 360);
    EXPECT_EQ(s(200, 720, INT_MAX), 720);
    EXPECT_EQ(s(10, 128, 2.5), 32);
  }
  EXPECT_EQ(ScaleParallelism(10, true, 0, 128, 2.5, 1, 128,
                             AlignmentMode::kLegacyMaximizeUtilisation),
            26);
}

TEST(ScaleParallelismTest, AdjustmentBalancedAcceptsLoadReducingValues) {
  const auto s = [](int cur, int maxp, double sf) {
    return ScaleParallelism(cur, true, 0, maxp, sf, 1, kMax, AlignmentMode::kBalanced);
  };
  EXPECT_EQ(s(6, 36, 0.8), 6);       // 5 does not reduce 36/5 = 7; 6 divides 36
  EXPECT_EQ(s(16, 128, 1.5), 26);    // 128/26 = 4 < 128/24 = 5
  EXPECT_EQ(s(10, 128, 2.5), 26);    // as MAXIMIZE_UTILISATION
  EXPECT_EQ(s(200, 720, 1.3), 360);  // first value with 720/p < 2 is the divisor 360
}

TEST(ScaleParallelismTest, SourcePartitionsTakePrecedenceOverKeyGroups) {
  // 7 partitions, proposal 3 (scale-up from 2): 7 has no divisor in [3, 7) -> EVENLY_SPREAD
  // searches up to 7.
  EXPECT_EQ(ScaleParallelism(2, false, 7, 128, 1.5, 1, kMax, AlignmentMode::kEvenlySpread), 7);
  // BALANCED: 7/4 = 1 < 7/3 = 2 -> 4.
  EXPECT_EQ(ScaleParallelism(2, false, 7, 128, 1.5, 1, kMax, AlignmentMode::kBalanced), 4);
  EXPECT_EQ(ScaleParallelism(2, false, 7, 128, 1.5, 1, kMax, AlignmentMode::kOff), 3);
}

TEST(ScaleParallelismTest, WithLimitsLegacyRelaxedSearch) {
  const auto s = [](int cur, int maxp, double sf, int lo, int hi) {
    return ScaleParallelism(cur, true, 0, maxp, sf, lo, hi, AlignmentMode::kLegacyEvenlySpread);
  };
  EXPECT_EQ(s(6, 720, 0.8, 1, 700), 5);
  EXPECT_EQ(s(8, 720, 0.8, 8, 700), 8);
  EXPECT_EQ(s(16, 128, 1.5, 1, kMax), 32);
  EXPECT_EQ(s(16, 128, 1.5, 60, kMax), 64);
  EXPECT_EQ(s(200, 720, 2, 1, 300), 240);
  EXPECT_EQ(s(200, 720, INT_MAX, 1, 600), 360);
}

TEST(ScaleParallelismTest, WithLimitsMainModesKeepTheProposal) {
  for (AlignmentMode mode : {AlignmentMode::kBalanced, AlignmentMode::kEvenlySpread}) {
    EXPECT_EQ(ScaleParallelism(200, true, 0, 720, 2, 1, 300, mode), 300);
    EXPECT_EQ(ScaleParallelism(200, true, 0, 720, INT_MAX, 1, 600, mode), 600);
  }
}

TEST(AlignParallelismTest, LegacyBlocksWhenDirectionWouldInvert) {
  // Scale down 10 -> 9 with 11 partitions: no divisor in [9, 10]; relaxed search finds 6
  // (11/5 = 2 > 11/9 = 1, then 6 because 11 % 5 != 0) which keeps the direction.
  AlignmentResult r = AlignParallelism(
      {.proposed = 9, .current = 10, .num_partitions = 11, .max_parallelism = 128, .lower = 1,
       .upper = 200, .has_hash_input = false},
      AlignmentMode::kLegacyEvenlySpread);
  EXPECT_EQ(r.parallelism, 6);
  ASSERT_TRUE(r.limited.has_value());
  EXPECT_NE(r.limited->find("expected parallelism: 9, actual parallelism 6"), std::string::npos);
  // Scale up 5 -> 6 with 11 partitions capped at upper 10: nothing in [6, 10] divides 11; the
  // relaxed search returns 6 (11/5 = 2 > 11/6 = 1 -> 5, +1) which is still a scale-up.
  r = AlignParallelism({.proposed = 6, .current = 5, .num_partitions = 11,
                        .max_parallelism = 128, .lower = 1, .upper = 10},
                       AlignmentMode::kLegacyEvenlySpread);
  EXPECT_EQ(r.parallelism, 6);
  EXPECT_FALSE(r.limited.has_value());
  // Scale up 4 -> 5 with 12 partitions capped at upper 5: 5 does not divide 12 and the relaxed
  // search lands on 4 (12/4 = 3 > 12/5 = 2, 4 divides 12) which would not be a scale-up:
  // blocked, current parallelism kept.
  r = AlignParallelism({.proposed = 5, .current = 4, .num_partitions = 12,
                        .max_parallelism = 128, .lower = 1, .upper = 5},
                       AlignmentMode::kLegacyEvenlySpread);
  EXPECT_EQ(r.parallelism, 4);
  ASSERT_TRUE(r.limited.has_value());
  EXPECT_NE(r.limited->find("expected parallelism: 5, actual parallelism 4"), std::string::npos);
}

TEST(ScaleParallelismTest, EffectiveParallelismCountsTheBusiestSubtask) {
  EXPECT_DOUBLE_EQ(EffectiveParallelism(8, 128), 8);          // 16 key groups each
  EXPECT_DOUBLE_EQ(EffectiveParallelism(6, 128), 128.0 / 22);  // the busiest holds 22
  EXPECT_DOUBLE_EQ(EffectiveParallelism(5, 16), 4);            // 4 partitions on the busiest
  EXPECT_DOUBLE_EQ(EffectiveParallelism(20, 16), 16);          // 4 readers idle
  EXPECT_DOUBLE_EQ(EffectiveParallelism(5, 0), 5);             // neither keyed nor partitioned
}

TEST(ScaleParallelismTest, CapacityTakesTheSmallestParallelismThatCarriesTheLoad) {
  const auto s = [](int cur, bool hash, int partitions, double sf,
                    BusyTimeAggregator agg = BusyTimeAggregator::kMax) {
    return ScaleParallelism(cur, hash, partitions, 128, sf, 1, kMax, AlignmentMode::kCapacity,
                            {.aggregator = agg});
  };
  // 2 -> x3.02 over 128 key groups: 6 carries 128 / 22 = 5.8 subtasks' worth, 7 carries 6.7.
  // BALANCED takes ceil(6.04) = 7 up to the divisor 8.
  EXPECT_EQ(s(2, true, 0, 3.02), 7);
  EXPECT_EQ(ScaleParallelism(2, true, 0, 128, 3.02, 1, kMax, AlignmentMode::kBalanced), 8);
  // 16 partitions at 4 readers, x1.2: 5 readers still leave 4 partitions on one (no gain); 6.
  EXPECT_EQ(s(4, false, 16, 1.2), 6);
  EXPECT_EQ(ScaleParallelism(4, false, 16, 128, 1.2, 1, kMax, AlignmentMode::kOff), 5);
  // Down: 8 -> x0.6 needs 4.8 subtasks' worth: 5 gives 128 / 26 = 4.92 (BALANCED: 6).
  EXPECT_EQ(s(8, true, 0, 0.6), 5);
  EXPECT_EQ(ScaleParallelism(8, true, 0, 128, 0.6, 1, kMax, AlignmentMode::kBalanced), 6);
  // With AVG busy time the measured rate assumed 5 full readers of 16 partitions; the busiest
  // limits them to 4, so even x1 needs 6.
  EXPECT_EQ(s(5, false, 16, 1.0, BusyTimeAggregator::kAvg), 6);
  EXPECT_EQ(s(5, false, 16, 1.0), 4);  // MAX measured the busiest: 4 readers carry as much
  // Beyond the partitions nothing is gained; without keys or partitions it is linear.
  EXPECT_EQ(s(4, false, 16, 10.0), 16);
  EXPECT_EQ(s(2, false, 0, 3.02), 7);
}

TEST(ScaleParallelismTest, CapacityScaleDownsCountTheHotKeyMeasuredNow) {
  // 64 subtasks over 128 key groups, 2 each, but the busiest works 4.2x the mean: it carries
  // 4.2 / 64 = 6.6 % of the load where its 2 groups explain 1.6 %, so a hot key adds 5 %.
  EXPECT_NEAR(HotKeyExcess(128, 64, 4.2), 0.05, 1e-12);
  EXPECT_EQ(HotKeyExcess(128, 64, 1.0), 0);  // no busier than its key groups
  EXPECT_EQ(HotKeyExcess(128, 64, std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(HotKeyExcess(0, 64, 4.2), 0);    // neither keyed nor partitioned
  // x0.3: an even spread would need 19.2 subtasks' worth: 22 (128 / 6 = 21.3). With the hot key
  // on one subtask wherever it goes, the busiest may carry 6.5625 % / 0.3 = 21.9 % of the load,
  // 5 % of it the hot key: 16.9 % in key groups, 5.9 subtasks' worth: 7 (128 / 19 = 6.7).
  const auto down = [](double imbalance) {
    return ScaleParallelism(64, true, 0, 128, 0.3, 1, kMax, AlignmentMode::kCapacity,
                            {.load_imbalance = imbalance});
  };
  EXPECT_EQ(down(std::numeric_limits<double>::quiet_NaN()), 22);
  EXPECT_EQ(down(4.2), 7);
  EXPECT_NEAR(CapacityGain(128, 64, 7, BusyTimeAggregator::kMax, 0.05),
              (1.0 / 64 + 0.05) / (19.0 / 128 + 0.05), 1e-12);
  // A scale-up ignores it: at lower parallelism hot keys hide among many groups.
  EXPECT_EQ(ScaleParallelism(2, true, 0, 128, 3.02, 1, kMax, AlignmentMode::kCapacity,
                             {.load_imbalance = 1.5}),
            7);
}

TEST_F(VertexScalerTest, CapacityAlignmentExpectsTheBusiestSubtasksRate) {
  o_.alignment_mode = AlignmentMode::kCapacity;
  o_.target_utilization = 1.0;
  // Hash input, 720 key groups, 10 -> target 250 at TPR 100: 25 subtasks hold at most 29 groups
  // (720 / 29 = 24.8 < 25), 26 hold 28 (25.7).
  MetricMap m = Evaluated(10, 250, 100);
  ExpectChange(Compute(&m, /*hash=*/true), 26, true);
  EXPECT_NEAR(Current(m, kMetricExpectedProcessingRate), RoundMetric(100 * (720.0 / 28) / 10),
              1e-9);
}

TEST_F(VertexScalerTest, CapacityScaleUpIsSizedWithoutTheHotKeyButExpectsIt) {
  o_.alignment_mode = AlignmentMode::kCapacity;
  o_.target_utilization = 1.0;
  // As above, but the busiest of the 10 subtasks works twice the mean: it carries 2 / 10 = 20 %
  // of the load where its 72 of 720 key groups explain 10 %, so a hot key adds 10 %.
  MetricMap m = Evaluated(10, 250, 100);
  SetAverage(&m, kMetricLoadImbalance, 2.0);
  ExpectChange(Compute(&m, /*hash=*/true), 26, true);  // sized as if the key spread
  // ... but expected to carry what the busiest subtask allows: its share goes from 20 % to
  // 28 / 720 + 10 %, so 100 x 0.2 / 0.1389 = 144 instead of 257.
  EXPECT_NEAR(Current(m, kMetricExpectedProcessingRate), 100 * 0.2 / (28.0 / 720 + 0.1), 1e-9);
}

TEST_F(VertexScalerTest, MinParallelismLimitIsUsed) {
  o_.vertex_min_parallelism = 5;
  o_.scale_down_interval = Millis(0);
  ExpectChange(Compute(10, 100, 500), 5, true);
  EXPECT_FALSE(Compute(4, 100, 500).change);  // current below the minimum is respected
}

TEST_F(VertexScalerTest, MaxParallelismLimitIsUsed) {
  o_.vertex_max_parallelism = 10;
  o_.target_utilization = 1.0;
  EXPECT_FALSE(Compute(10, 500, 100).change);
  EXPECT_FALSE(Compute(12, 500, 100).change);  // current above the maximum is respected
}

TEST_F(VertexScalerTest, DisabledScaleDownIntervalScalesDownAtOnce) {
  o_.target_utilization = 1.0;
  o_.scale_down_interval = Millis(0);
  ExpectChange(Compute(10, 50, 100), 5, true);
  EXPECT_TRUE(delayed_.empty());
}

TEST_F(VertexScalerTest, ScaleDownAfterIntervalUsesHighestRecommendation) {
  o_.target_utilization = 1.0;
  o_.scale_down_interval = std::chrono::minutes(1);
  const TimePoint t0 = now_;
  EXPECT_FALSE(Compute(100, 800, 1000).change);
  now_ = t0 + std::chrono::seconds(10);
  EXPECT_FALSE(Compute(100, 900, 1000).change);
  now_ = t0 + std::chrono::seconds(40);
  EXPECT_FALSE(Compute(100, 720, 1000).change);
  now_ = t0 + std::chrono::seconds(59);
  ParallelismChange c = Compute(100, 640, 1000);
  EXPECT_FALSE(c.change);
  EXPECT_NE(c.reason.find("delayed until"), std::string::npos) << c.reason;
  now_ = t0 + std::chrono::seconds(60);
  ExpectChange(Compute(100, 700, 1000), 90, false);
}

TEST_F(VertexScalerTest, ImmediateScaleUpWithinScaleDownInterval) {
  o_.target_utilization = 1.0;
  o_.scale_down_interval = std::chrono::minutes(1);
  const TimePoint t0 = now_;
  EXPECT_FALSE(Compute(100, 800, 1000).change);
  EXPECT_FALSE(delayed_.empty());
  now_ = t0 + std::chrono::seconds(10);
  EXPECT_FALSE(Compute(100, 900, 1000).change);
  EXPECT_FALSE(delayed_.empty());
  now_ = t0 + std::chrono::seconds(12);
  ExpectChange(Compute(100, 1700, 1000), 170, true);
  EXPECT_TRUE(delayed_.empty());
}

TEST_F(VertexScalerTest, DelayedScaleDownCancelledWhenTargetEqualsCurrent) {
  o_.target_utilization = 1.0;
  o_.scale_down_interval = std::chrono::minutes(1);
  const TimePoint t0 = now_;
  EXPECT_FALSE(Compute(100, 800, 1000).change);
  now_ = t0 + std::chrono::seconds(10);
  EXPECT_FALSE(Compute(100, 900, 1000).change);
  EXPECT_FALSE(delayed_.empty());
  now_ = t0 + std::chrono::seconds(12);
  EXPECT_FALSE(Compute(100, 1000, 1000).change);
  EXPECT_TRUE(delayed_.empty());
}

TEST_F(VertexScalerTest, IneffectiveScalingDetection) {
  o_.scaling_effectiveness_detection_enabled = true;
  o_.target_utilization = 1.0;
  o_.scale_down_interval = Millis(0);
  std::vector<ScalingHistoryEntry> history;

  MetricMap m = Evaluated(5, 100, 50);
  ExpectChange(Compute(&m, false, &history), 10, true);
  EXPECT_EQ(Current(m, kMetricExpectedProcessingRate), 100);
  history.push_back({now_, {5, 10, m}});

  m = Evaluated(10, 180, 90);  // effective: 80% of the expected increase
  ExpectChange(Compute(&m, false, &history), 20, true);
  EXPECT_EQ(Current(m, kMetricExpectedProcessingRate), 180);
  history.push_back({now_, {10, 20, m}});

  m = Evaluated(20, 180, 94);  // 90 -> 94 instead of 90 -> 180: ineffective, blocked
  ParallelismChange c = Compute(&m, false, &history);
  EXPECT_FALSE(c.change);
  EXPECT_NE(c.reason.find("ineffective scaling"), std::string::npos);
  ASSERT_FALSE(events_.empty());
  EXPECT_EQ(events_.back().reason, "IneffectiveScaling");
  EXPECT_EQ(events_.back().message,
            "Ineffective scaling detected for v (expected increase: 90.0, actual increase 4.0). "
            "Blocking of ineffective scaling decisions is enabled");
  // Upstream's event key: "ineffective" + vertex + the expected increase as Java prints it.
  EXPECT_EQ(events_.back().message_key, "ineffective" + std::string("v") + "90.0");

  m = Evaluated(20, 180, 98);  // still < 10%
  EXPECT_FALSE(Compute(&m, false, &history).change);

  m = Evaluated(10, 180, 90);  // user rescaled manually: current != last new parallelism
  ExpectChange(Compute(&m, false, &history), 20, true);

  m = Evaluated(20, 180, 100);  // just over 10%: effective
  ExpectChange(Compute(&m, false, &history), 36, true);

  o_.scaling_effectiveness_detection_enabled = false;  // detected, not blocked
  m = Evaluated(20, 180, 90);
  ExpectChange(Compute(&m, false, &history), 40, true);
  EXPECT_NE(events_.back().message.find("is disabled"), std::string::npos);

  o_.scaling_effectiveness_detection_enabled = true;  // scale-downs are never blocked
  m = Evaluated(20, 45, 90);
  ExpectChange(Compute(&m, false, &history), 10, true);
}

TEST(ObservedScalingCoefficientTest, LeastSquaresClampedAndRoundedUp) {
  AutoscalerOptions o;
  o.observed_scalability_enabled = true;
  const auto entry = [](int p, double tpr) {
    ScalingHistoryEntry e;
    e.summary.current_parallelism = p;
    SetAverage(&e.summary.metrics, kMetricTrueProcessingRate, tpr);
    return e;
  };
  // Too few observations -> linear.
  EXPECT_EQ(ObservedScalingCoefficient({entry(1, 100), entry(2, 180)}, o), 1.0);
  // Baseline 100 (p = 1); alpha = (1*100 + 2*180 + 4*300) / ((1 + 4 + 16) * 100) = 0.7905 -> 0.80.
  EXPECT_DOUBLE_EQ(ObservedScalingCoefficient({entry(1, 100), entry(2, 180), entry(4, 300)}, o),
                   0.80);
  // Perfectly linear -> 1.0; very poor scaling clamps at coefficient-min.
  EXPECT_DOUBLE_EQ(ObservedScalingCoefficient({entry(1, 100), entry(2, 200), entry(4, 400)}, o),
                   1.0);
  EXPECT_DOUBLE_EQ(ObservedScalingCoefficient({entry(1, 100), entry(2, 100), entry(4, 100)}, o),
                   0.5);
}

TEST(ObservedCapacityTest, ScalesFromTheLargestShortObservationAtOrAboveTheProposal) {
  const auto entry = [](int p, double tpr, double load) {
    ScalingHistoryEntry e;
    e.summary.current_parallelism = p;
    SetAverage(&e.summary.metrics, kMetricTrueProcessingRate, tpr);
    SetAverage(&e.summary.metrics, kMetricLoad, load);
    return e;
  };
  // Linear from the observation: ceil(q x factor).
  const auto linear = [](int q, double factor) { return static_cast<int>(std::ceil(q * factor)); };
  const auto floor = [&](const std::vector<ScalingHistoryEntry>& h, int current, int proposed) {
    return ObservedCapacityScaleUp(h, current, proposed, /*target_capacity=*/100,
                                   /*min_load=*/0.85, linear);
  };

  EXPECT_FALSE(floor({}, 2, 10));
  // At 10, fully busy, 60/s: the proposal 10 falls short; 10 x 100 / 60 -> 17.
  auto f = floor({entry(10, 60, 1)}, 2, 10);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->parallelism, 17);
  EXPECT_EQ(f->observed_parallelism, 10);
  EXPECT_DOUBLE_EQ(f->observed_rate, 60);
  // The same from an observation above the proposal: 12 x 100 / 80 = 15.
  f = floor({entry(12, 80, 0.9)}, 2, 10);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->parallelism, 15);
  // Of several short observations the largest parallelism counts.
  f = floor({entry(16, 90, 1), entry(10, 60, 1), entry(12, 80, 1)}, 2, 10);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->observed_parallelism, 16);
  EXPECT_EQ(f->parallelism, 18);

  // What does not count: below the proposal (8 says nothing about 10), at or below the current
  // parallelism, an observation that carried the target, one at low load (its rate extrapolated
  // from little busy time), or an unknown rate.
  EXPECT_FALSE(floor({entry(8, 40, 1)}, 2, 10));
  EXPECT_FALSE(floor({entry(10, 60, 1)}, 10, 12));
  EXPECT_FALSE(floor({entry(10, 100, 1), entry(12, 130, 1)}, 2, 10));
  EXPECT_FALSE(floor({entry(10, 60, 0.5)}, 2, 10));
  ScalingHistoryEntry unknown = entry(10, 60, 1);
  unknown.summary.metrics.erase(kMetricTrueProcessingRate);
  EXPECT_FALSE(floor({unknown}, 2, 10));
  // A result not above the proposal is no floor (here the scaling is capped at the observation).
  EXPECT_FALSE(ObservedCapacityScaleUp({entry(11, 60, 1)}, 2, 11, 100, 0.85,
                                       [](int q, double) { return q; }));
  // Scaling from the observation never goes below it.
  f = ObservedCapacityScaleUp({entry(12, 90, 1)}, 2, 10, 100, 0.85,
                              [](int, double) { return 1; });
  ASSERT_TRUE(f);
  EXPECT_EQ(f->parallelism, 12);
}

// A history entry for a rescale `from` -> `to` at `t` whose algorithm recommended `recommended`
// (the behavior rules may have shaped `to`), measured at `tpr` and `load`.
ScalingHistoryEntry Rescale(TimePoint t, int from, int to, int recommended, double tpr = 1000,
                            double load = 0.3) {
  ScalingHistoryEntry e;
  e.time = t;
  e.summary.current_parallelism = from;
  e.summary.new_parallelism = to;
  SetCurrent(&e.summary.metrics, kMetricRecommendedParallelism, recommended);
  SetAverage(&e.summary.metrics, kMetricTrueProcessingRate, tpr);
  SetAverage(&e.summary.metrics, kMetricLoad, load);
  return e;
}

TEST(HeldScaleDownTest, OnlyTheLastRescaleWhenBehaviorHeldItShortAndItIsRecent) {
  const TimePoint t = FromUnixMillis(1'700'000'000'000);
  const TimePoint since = t - std::chrono::hours(1);
  // 8 -> 3 where 2 was recommended: held.
  std::vector<ScalingHistoryEntry> h = {Rescale(t, 8, 3, 2)};
  EXPECT_EQ(HeldScaleDown(h, 3, since), &h.back().summary);
  // Not held: the recommendation was reached, the rescale was a scale-up, the vertex has been
  // rescaled since (another parallelism), or the rescale is older than `since`.
  EXPECT_EQ(HeldScaleDown({Rescale(t, 8, 2, 2)}, 2, since), nullptr);
  EXPECT_EQ(HeldScaleDown({Rescale(t, 2, 3, 4)}, 3, since), nullptr);
  EXPECT_EQ(HeldScaleDown(h, 4, since), nullptr);
  EXPECT_EQ(HeldScaleDown(h, 3, t + std::chrono::seconds(1)), nullptr);
  EXPECT_EQ(HeldScaleDown({}, 3, since), nullptr);
  // Only the last entry counts.
  h = {Rescale(t - std::chrono::minutes(30), 8, 3, 2), Rescale(t, 3, 3, 3)};
  EXPECT_EQ(HeldScaleDown(h, 3, since), nullptr);
  // Without a recorded recommendation (a history written before it was recorded): not held.
  ScalingHistoryEntry unknown = Rescale(t, 8, 3, 2);
  unknown.summary.metrics.erase(kMetricRecommendedParallelism);
  EXPECT_EQ(HeldScaleDown({unknown}, 3, since), nullptr);
}

TEST_F(VertexScalerTest, FollowThroughFinishesAHeldScaleDownInsideTheBand) {
  // Band [0.5, 0.95] around the target 0.85; 3 subtasks carry 1000/s each.
  UseTrimtabBand();
  // 1510/s needs 1776/s of capacity at 0.85: 2 subtasks. At 3 the vertex is 50 % busy, inside
  // its band: upstream proposes 2 but does not act on it (no vertex is outside its band).
  const std::vector<ScalingHistoryEntry> held = {
      Rescale(now_ - std::chrono::minutes(20), 8, 3, 2)};
  MetricMap m = Evaluated(3, 1510, 3000);
  ExpectChange(Compute(&m, false, &held), 2, false);

  o_.scale_down_follow_through_window = std::chrono::hours(1);
  m = Evaluated(3, 1510, 3000);
  ParallelismChange c = Compute(&m, false, &held);
  ExpectChange(c, 2, true);
  EXPECT_NE(c.reason.find("follows through the scale-down 8 -> 3"), std::string::npos)
      << c.reason;
  EXPECT_NE(c.reason.find("recommended 2"), std::string::npos) << c.reason;

  // Follow-through goes no lower than the recommendation it finishes: 8 -> 5 held above 4, and
  // 2520/s at 5 subtasks (50.4 % busy, inside the band) would need only 3.
  const std::vector<ScalingHistoryEntry> held_at_5 = {
      Rescale(now_ - std::chrono::minutes(20), 8, 5, 4)};
  m = Evaluated(5, 2520, 5000);
  ExpectChange(Compute(&m, false, &held_at_5), 4, true);
  // An ordinary scale-down (outside the band, 40 % busy) is not limited by it.
  m = Evaluated(5, 2000, 5000);
  ExpectChange(Compute(&m, false, &held_at_5), 3, true);

  // Not after the window, nor for a scale-down that reached its recommendation: as upstream.
  const std::vector<ScalingHistoryEntry> old = {Rescale(now_ - std::chrono::hours(2), 8, 3, 2)};
  m = Evaluated(3, 1510, 3000);
  ExpectChange(Compute(&m, false, &old), 2, false);
  const std::vector<ScalingHistoryEntry> reached = {
      Rescale(now_ - std::chrono::minutes(20), 8, 3, 3)};
  m = Evaluated(3, 1510, 3000);
  ExpectChange(Compute(&m, false, &reached), 2, false);
}

TEST_F(VertexScalerTest, FollowThroughStopsAboveAParallelismTheHistoryShowedTooSmall) {
  UseTrimtabBand();
  o_.scale_down_follow_through_window = std::chrono::hours(1);
  // Earlier, at 2 subtasks, the vertex ran fully busy at 1600/s: short of the 1776/s of capacity
  // 1510/s needs now. The held 8 -> 3 is not followed through to 2.
  const std::vector<ScalingHistoryEntry> h = {
      Rescale(now_ - std::chrono::hours(3), 2, 8, 8, 1600, 1.0),
      Rescale(now_ - std::chrono::minutes(20), 8, 3, 2)};
  MetricMap m = Evaluated(3, 1510, 3000);
  ParallelismChange c = Compute(&m, false, &h);
  EXPECT_FALSE(c.change) << c.reason;
  EXPECT_NE(c.reason.find("parallelism 2 was too small"), std::string::npos) << c.reason;
}

// A q11-like session window behind a HASH edge, 128 key groups, 128 subtasks: the hottest key
// group carries 11.4 % of the load, so the busiest subtask is 14.6x as busy as the mean and the
// vertex carries 468,569/s; the load is 347,775/s.
class HotKeyTest : public VertexScalerTest {
 protected:
  void SetUp() override {
    VertexScalerTest::SetUp();
    UseTrimtabBand();
    o_.alignment_mode = AlignmentMode::kCapacity;
    // As the simulator's trimtab policy: the restart's backlog is sized into the target, so the
    // algorithm itself wants all 128 subtasks (scale factor 0.948).
    o_.catch_up_duration = std::chrono::minutes(10);
    o_.restart_time = std::chrono::seconds(60);
  }
  MetricMap HotKey(int p, double tpr, double imbalance, double target = 347775) {
    MetricMap m = Evaluated(p, target, tpr);
    SetCurrent(&m, kMetricMaxParallelism, 128);
    SetAverage(&m, kMetricLoadImbalance, imbalance);
    return m;
  }
  HotKeyInput Input(double imbalance = 14.6, double marginal = 0.1) {
    return {128, 128, 468569, imbalance, 347775 / 0.95, BusyTimeAggregator::kMax, marginal};
  }
};

TEST_F(HotKeyTest, ProposesTheSmallestParallelismThatStillCarriesTheLoad) {
  // The hot key excess is 14.6 / 128 - 1 / 128 = 10.6 %; at 64 subtasks (2 key groups each) the
  // busiest carries 1/64 + 10.6 % = 12.2 % instead of 11.4 %: 93.6 % of the capacity, 438,533/s,
  // above 1.15 x the scale-up threshold 366,079/s (420,991/s); 63 would take 3 key groups.
  std::optional<HotKeyScaleDown> d = ProposeHotKeyScaleDown(Input(), {}, 0.85);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->parallelism, 64);
  // The 64 subtasks above it add 469/s each, 6.85 % of an average subtask's 6,852/s.
  EXPECT_NE(d->reason.find("14.6x as busy as the mean; the last 64 subtasks add 469."),
            std::string::npos)
      << d->reason;
  EXPECT_NE(d->reason.find("6.849"), std::string::npos) << d->reason;
  // A stricter threshold (5 %) keeps them.
  EXPECT_FALSE(ProposeHotKeyScaleDown(Input(14.6, 0.05), {}, 0.85));
  // No hot key to speak of, or too few subtasks: nothing.
  EXPECT_FALSE(ProposeHotKeyScaleDown(Input(1.9), {}, 0.85));
  HotKeyInput few = Input();
  few.current = 3;
  EXPECT_FALSE(ProposeHotKeyScaleDown(few, {}, 0.85));
  // Nothing smaller carries 1.15 x the threshold: a load of 400,000/s needs 483,509/s.
  HotKeyInput heavy = Input();
  heavy.scale_up_threshold = 400000 / 0.95;
  EXPECT_FALSE(ProposeHotKeyScaleDown(heavy, {}, 0.85));
}

TEST_F(HotKeyTest, NotToAParallelismTheHistoryShowedTooSmall) {
  // At 64 the vertex once ran fully busy at 400,000/s, short of the 420,991/s needed: 65 is the
  // smallest it may go to (still 64 effective subtasks' capacity).
  const std::vector<ScalingHistoryEntry> h = {
      Rescale(now_ - std::chrono::hours(3), 64, 128, 128, 400000, 1.0)};
  std::optional<HotKeyScaleDown> d = ProposeHotKeyScaleDown(Input(), h, 0.85);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->parallelism, 65);
}

TEST_F(HotKeyTest, TheScalerActsOnItInsideTheBand) {
  // Inside its band (468,569/s against [366,079, 695,550]) and at its target by the algorithm:
  // upstream keeps 128 subtasks.
  MetricMap m = HotKey(128, 468569, 14.6);
  ParallelismChange c = Compute(&m, /*hash=*/true);
  EXPECT_FALSE(c.change) << c.reason;
  EXPECT_NE(c.reason.find("already at target parallelism 128"), std::string::npos) << c.reason;

  o_.scale_down_hot_key_marginal_capacity = 0.1;
  m = HotKey(128, 468569, 14.6);
  c = Compute(&m, /*hash=*/true);
  ExpectChange(c, 64, true);
  EXPECT_EQ(c.reason.rfind("scale down 128 -> 64 (hot key: the busiest subtask is 14.6x", 0), 0u)
      << c.reason;
  // Expected: what the busiest subtask allows, 14.6 / 128 of the load now, 1/64 + 13.6/128 then.
  EXPECT_NEAR(Current(m, kMetricExpectedProcessingRate),
              RoundMetric(468569 * (14.6 / 128) / (1.0 / 64 + 13.6 / 128)), 1e-6);
  // Not while it catches up on a backlog, nor outside its band (the algorithm decides there).
  m = HotKey(128, 468569, 14.6);
  SetCurrent(&m, kMetricCatchUpDataRate, 20000);
  EXPECT_FALSE(Compute(&m, /*hash=*/true).change);
  m = HotKey(128, 468569, 14.6, /*target=*/200000);
  c = Compute(&m, /*hash=*/true);
  EXPECT_NE(c.reason.find("(outside utilization band)"), std::string::npos) << c.reason;
}

TEST_F(HotKeyTest, NoLowerThanAScaleDownTheAlgorithmProposes) {
  // Without the restart's backlog in the target the algorithm proposes 43 inside the band (not
  // acted on); the hot-key rule takes 64, the more cautious of the two.
  o_.catch_up_duration = Millis(0);
  o_.scale_down_hot_key_marginal_capacity = 0.1;
  MetricMap m = HotKey(128, 468569, 14.6);
  ExpectChange(Compute(&m, /*hash=*/true), 64, true);
}

}  // namespace
}  // namespace trimtab::core::flink
