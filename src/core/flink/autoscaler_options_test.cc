#include "core/flink/autoscaler_options.h"

#include <gtest/gtest.h>

#include "common/flink_values.h"
#include "core/flink/excluded_periods.h"
#include "core/flink/trimtab_defaults.h"

namespace trimtab::core::flink {
namespace {

using Conf = std::map<std::string, std::string>;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(AutoscalerOptionsTest, UpstreamDefaults) {
  AutoscalerOptions o = ParseAutoscalerOptions({}).value();
  EXPECT_FALSE(o.enabled);
  EXPECT_TRUE(o.scaling_enabled);
  EXPECT_EQ(o.metrics_window, minutes(15));
  EXPECT_EQ(o.stabilization_interval, minutes(5));
  EXPECT_DOUBLE_EQ(o.target_utilization, 0.7);
  EXPECT_DOUBLE_EQ(o.target_utilization_boundary, 0.3);
  EXPECT_FALSE(o.utilization_max.has_value());
  EXPECT_EQ(o.scale_down_interval, hours(1));
  EXPECT_EQ(o.vertex_min_parallelism, 1);
  EXPECT_EQ(o.vertex_max_parallelism, 200);
  EXPECT_DOUBLE_EQ(o.max_scale_down_factor, 0.6);
  EXPECT_DOUBLE_EQ(o.max_scale_up_factor, 100000.0);
  EXPECT_EQ(o.catch_up_duration, minutes(30));
  EXPECT_EQ(o.restart_time, minutes(5));
  EXPECT_EQ(o.restart_time_tracking_limit, minutes(15));
  EXPECT_EQ(o.backlog_processing_lag_threshold, minutes(5));
  EXPECT_EQ(o.observed_tpr_lag_threshold, seconds(30));
  EXPECT_DOUBLE_EQ(o.observed_tpr_switch_threshold, 0.15);
  EXPECT_EQ(o.observed_tpr_min_observations, 2);
  EXPECT_DOUBLE_EQ(o.scaling_effectiveness_threshold, 0.1);
  EXPECT_DOUBLE_EQ(o.gc_pressure_threshold, 1.0);
  EXPECT_DOUBLE_EQ(o.heap_usage_threshold, 1.0);
  EXPECT_EQ(o.history_max_count, 3);
  EXPECT_EQ(o.history_max_age, hours(24));
  EXPECT_EQ(o.busy_time_aggregator, BusyTimeAggregator::kMax);
  EXPECT_EQ(o.scaling_event_interval, minutes(30));
  EXPECT_EQ(o.alignment_mode, AlignmentMode::kBalanced);
  EXPECT_EQ(o.observed_scalability_min_observations, 3);
  EXPECT_DOUBLE_EQ(o.observed_scalability_coefficient_min, 0.5);
  EXPECT_FALSE(o.behavior.enabled);
}

TEST(AutoscalerOptionsTest, PrefixesAliasesAndPrecedence) {
  AutoscalerOptions o =
      ParseAutoscalerOptions({{"kubernetes.operator.job.autoscaler.enabled", "true"},
                              {"kubernetes.operator.job.autoscaler.metrics.window", "5 min"},
                              {"job.autoscaler.metrics.window", "10 min"},
                              {"job.autoscaler.target.utilization", "0.6"},
                              {"job.autoscaler.scale-up.grace-period", "2 min"},
                              {"job.autoscaler.vertex.exclude.ids", "a;b"},
                              {"job.autoscaler.quota.memory", "8g"},
                              {"job.autoscaler.metrics.busy-time.aggregator", "avg"},
                              {"job.autoscaler.some.future.option", "x"},
                              {"pipeline.max-parallelism", "720"}})
          .value();
  EXPECT_TRUE(o.enabled);                            // legacy prefix
  EXPECT_EQ(o.metrics_window, minutes(10));          // new prefix wins
  EXPECT_DOUBLE_EQ(o.target_utilization, 0.6);       // deprecated alias
  EXPECT_EQ(o.scale_down_interval, minutes(2));      // deprecated alias
  EXPECT_EQ(o.vertex_exclude_ids, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(o.quota_memory_bytes, int64_t{8} << 30);
  EXPECT_EQ(o.busy_time_aggregator, BusyTimeAggregator::kAvg);
  EXPECT_EQ(o.ignored_keys, (std::vector<std::string>{"job.autoscaler.some.future.option"}));
}

TEST(AutoscalerOptionsTest, AlignmentModeResolution) {
  EXPECT_EQ(ParseAutoscalerOptions({{"job.autoscaler.scaling.parallelism-alignment.mode",
                                     "EVENLY_SPREAD"}})->alignment_mode,
            AlignmentMode::kEvenlySpread);
  EXPECT_EQ(ParseAutoscalerOptions({{"job.autoscaler.scaling.key-group.partitions.adjust.mode",
                                     "MAXIMIZE_UTILISATION"}})->alignment_mode,
            AlignmentMode::kLegacyMaximizeUtilisation);
  // The new key wins over the legacy one.
  EXPECT_EQ(ParseAutoscalerOptions({{"job.autoscaler.scaling.parallelism-alignment.mode", "OFF"},
                                    {"job.autoscaler.scaling.key-group.partitions.adjust.mode",
                                     "EVENLY_SPREAD"}})->alignment_mode,
            AlignmentMode::kOff);
  EXPECT_EQ(ParseAutoscalerOptions({{"job.autoscaler.scaling.parallelism-alignment.mode",
                                     "capacity"}})
                ->alignment_mode,
            AlignmentMode::kCapacity);
}

// Issue 23: a custom alignment mode is not a configuration error. Upstream
// (ParallelismAligner.resolve) warns and falls back to BALANCED when the mode's class is not
// configured or not among its plugins; trimtab has no Java plugins, so it always falls back.
TEST(AutoscalerOptionsTest, Issue23CustomAlignmentModeFallsBackToBalanced) {
  auto custom = ParseAutoscalerOptions(
      {{"job.autoscaler.scaling.parallelism-alignment.mode", "my-mode"},
       {"job.autoscaler.scaling.parallelism-alignment.mode.my-mode.class", "com.example.MyMode"}});
  ASSERT_TRUE(custom.ok()) << custom.status().message();
  EXPECT_EQ(custom->alignment_mode, AlignmentMode::kBalanced);
  ASSERT_EQ(custom->warnings.size(), 1u);
  EXPECT_NE(custom->warnings[0].find("com.example.MyMode"), std::string::npos);
  EXPECT_NE(custom->warnings[0].find("falling back to BALANCED"), std::string::npos);
  EXPECT_TRUE(custom->ignored_keys.empty());  // the class key is understood
  // No class configured: the same fallback, and the warning names the missing key.
  auto no_class = ParseAutoscalerOptions(
      {{"job.autoscaler.scaling.parallelism-alignment.mode", "evenly_spread"}});
  ASSERT_TRUE(no_class.ok());
  EXPECT_EQ(no_class->alignment_mode, AlignmentMode::kBalanced);  // built-in names are exact
  ASSERT_EQ(no_class->warnings.size(), 1u);
  EXPECT_NE(no_class->warnings[0].find(
                "job.autoscaler.scaling.parallelism-alignment.mode.evenly_spread.class"),
            std::string::npos);
  EXPECT_TRUE(ParseAutoscalerOptions({})->warnings.empty());
}

TEST(AutoscalerOptionsTest, ErrorsNameTheKey) {
  struct Case {
    Conf conf;
    std::string prefix;
  };
  const std::vector<Case> cases = {
      {{{"job.autoscaler.stabilization.interval", "soon"}},
       "job.autoscaler.stabilization.interval: invalid duration"},
      {{{"kubernetes.operator.job.autoscaler.enabled", "maybe"}},
       "kubernetes.operator.job.autoscaler.enabled: invalid boolean"},
      {{{"job.autoscaler.utilization.target", "1.5"}}, "job.autoscaler.utilization.target: 1.5"},
      {{{"job.autoscaler.utilization.max", "0.5"}}, "job.autoscaler.utilization.max: 0.5"},
      {{{"job.autoscaler.vertex.min-parallelism", "abc"}},
       "job.autoscaler.vertex.min-parallelism: invalid integer"},
      {{{"job.autoscaler.memory.gc-pressure.threshold", "2"}},
       "job.autoscaler.memory.gc-pressure.threshold: 2"},
      {{{"job.autoscaler.scale-down.max-factor", "-1"}},
       "job.autoscaler.scale-down.max-factor: must not be negative"},
      {{{"job.autoscaler.excluded.periods", "10:00:00-09:00:00"}},
       "job.autoscaler.excluded.periods: invalid daily period"},
      {{{"job.autoscaler.behavior.scale-up.policies", "Pods:0/1 min"}},
       "job.autoscaler.behavior.scale-up.policies: invalid policy"},
      {{{"job.autoscaler.behavior.scale-down.select-policy", "Largest"}},
       "job.autoscaler.behavior.scale-down.select-policy: invalid value"},
      {{{"job.autoscaler.step-detection.threshold", "-0.1"}},
       "job.autoscaler.step-detection.threshold: must not be negative"},
      {{{"job.autoscaler.step-detection.interval", "0 s"}},
       "job.autoscaler.step-detection.interval: must be positive"},
      {{{"job.autoscaler.catch-up.restart-from-headroom", "yes"}},
       "job.autoscaler.catch-up.restart-from-headroom: invalid boolean"},
  };
  for (const Case& c : cases) {
    auto o = ParseAutoscalerOptions(c.conf);
    ASSERT_FALSE(o.ok()) << c.prefix;
    EXPECT_EQ(o.status().message().rfind(c.prefix, 0), 0u) << o.status().message();
  }
}

TEST(AutoscalerOptionsTest, StepDetectionKeys) {
  auto off = ParseAutoscalerOptions({});
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->step_detection_threshold, 0);  // upstream behaviour unless asked for
  EXPECT_EQ(off->step_detection_interval, minutes(1));
  auto on = ParseAutoscalerOptions({{"job.autoscaler.step-detection.threshold", "0.5"},
                                    {"job.autoscaler.step-detection.interval", "2 min"}});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_EQ(on->step_detection_threshold, 0.5);
  EXPECT_EQ(on->step_detection_interval, minutes(2));
  EXPECT_TRUE(on->ignored_keys.empty());
}

TEST(AutoscalerOptionsTest, RestartCatchUpFromHeadroomKey) {
  EXPECT_FALSE(ParseAutoscalerOptions({})->restart_catch_up_from_headroom);  // upstream
  auto on = ParseAutoscalerOptions({{"job.autoscaler.catch-up.restart-from-headroom", "true"}});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_TRUE(on->restart_catch_up_from_headroom);
  EXPECT_TRUE(on->ignored_keys.empty());
}

TEST(AutoscalerOptionsTest, ScaleDownFollowThroughKey) {
  EXPECT_EQ(ParseAutoscalerOptions({})->scale_down_follow_through_window, Millis(0));  // upstream
  auto on = ParseAutoscalerOptions({{"job.autoscaler.scale-down.follow-through.window", "2 h"}});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_EQ(on->scale_down_follow_through_window, std::chrono::hours(2));
  EXPECT_TRUE(on->ignored_keys.empty());
  auto bad = ParseAutoscalerOptions({{"job.autoscaler.scale-down.follow-through.window", "soon"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("job.autoscaler.scale-down.follow-through.window: ", 0),
            0u)
      << bad.status().message();
}

TEST(AutoscalerOptionsTest, RestartTimeFromCheckpointKey) {
  EXPECT_FALSE(ParseAutoscalerOptions({})->restart_time_from_checkpoint);  // upstream
  auto on = ParseAutoscalerOptions(
      {{"job.autoscaler.restart.time-from-checkpoint.enabled", "true"}});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_TRUE(on->restart_time_from_checkpoint);
  EXPECT_TRUE(on->ignored_keys.empty());
  const std::string key = "job.autoscaler.restart.time-from-checkpoint.enabled";
  auto bad = ParseAutoscalerOptions({{key, "yes!"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind(key + ": ", 0), 0u) << bad.status().message();
}

TEST(AutoscalerOptionsTest, ScaleDownHotKeyKey) {
  EXPECT_EQ(ParseAutoscalerOptions({})->scale_down_hot_key_marginal_capacity, 0);  // off
  auto on =
      ParseAutoscalerOptions({{"job.autoscaler.scale-down.hot-key.marginal-capacity", "0.1"}});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_EQ(on->scale_down_hot_key_marginal_capacity, 0.1);
  EXPECT_TRUE(on->ignored_keys.empty());
  auto bad = ParseAutoscalerOptions({{"job.autoscaler.scale-down.hot-key.marginal-capacity", "2"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind(
                "job.autoscaler.scale-down.hot-key.marginal-capacity: 2.000000 is outside [0", 0),
            0u)
      << bad.status().message();
}

TEST(AutoscalerOptionsTest, BehaviorKeys) {
  AutoscalerOptions o =
      ParseAutoscalerOptions({{"job.autoscaler.behavior.scale-up.policies",
                               "Pods:4/1 min; Percent:100/5 min"},
                              {"job.autoscaler.behavior.scale-up.select-policy", "Min"},
                              {"job.autoscaler.behavior.scale-down.stabilization-window", "10 min"}})
          .value();
  ASSERT_TRUE(o.behavior.enabled);
  ASSERT_EQ(o.behavior.scale_up.policies.size(), 2u);
  EXPECT_EQ(o.behavior.scale_up.policies[0].type, RatePolicy::Type::kPods);
  EXPECT_EQ(o.behavior.scale_up.policies[0].value, 4);
  EXPECT_EQ(o.behavior.scale_up.policies[0].period, minutes(1));
  EXPECT_EQ(o.behavior.scale_up.policies[1].type, RatePolicy::Type::kPercent);
  EXPECT_EQ(o.behavior.scale_up.select_policy, SelectPolicy::kMin);
  EXPECT_FALSE(o.behavior.scale_up.stabilization_window.has_value());
  EXPECT_EQ(o.behavior.scale_down.stabilization_window, minutes(10));
  EXPECT_TRUE(o.behavior.scale_down.policies.empty());
}

// job.autoscaler.defaults: trimtab fills every option the configuration leaves unset with
// trimtab's value; what the user wrote wins under either prefix or a deprecated alias.
TEST(AutoscalerOptionsTest, TrimtabDefaults) {
  const AutoscalerOptions flink = ParseAutoscalerOptions({{"job.autoscaler.enabled", "true"}}).value();
  EXPECT_EQ(flink.defaults, AutoscalerDefaults::kFlink);
  EXPECT_FALSE(flink.scale_down_lasting_evidence);
  EXPECT_EQ(flink.metrics_window, minutes(15));

  const AutoscalerOptions o = ParseAutoscalerOptions({{"job.autoscaler.enabled", "true"},
                                                      {"job.autoscaler.defaults", "trimtab"}})
                                  .value();
  EXPECT_EQ(o.defaults, AutoscalerDefaults::kTrimtab);
  EXPECT_TRUE(o.enabled);
  EXPECT_EQ(o.metrics_window, minutes(10));
  EXPECT_DOUBLE_EQ(o.target_utilization, 0.85);
  EXPECT_EQ(o.scale_down_interval, Millis(0));
  EXPECT_TRUE(o.scale_down_lasting_evidence);
  EXPECT_TRUE(o.step_burst_hold);
  EXPECT_EQ(o.scale_down_learned_hold, minutes(30));
  EXPECT_EQ(o.behavior.scale_down.stabilization_window, minutes(15));
  EXPECT_EQ(o.alignment_mode, AlignmentMode::kCapacity);
  EXPECT_TRUE(o.ignored_keys.empty()) << o.ignored_keys.front();
  // Every default parses, and what the simulator's trimtab policy runs is this map.
  for (const auto& [key, value] : TrimtabAutoscalerDefaults()) {
    EXPECT_EQ(key.rfind(kAutoscalerPrefix, 0), 0u) << key;
  }

  const AutoscalerOptions user =
      ParseAutoscalerOptions({{"kubernetes.operator.job.autoscaler.defaults", "TRIMTAB"},
                              {"kubernetes.operator.job.autoscaler.metrics.window", "3 min"},
                              {"job.autoscaler.target.utilization", "0.4"},
                              {"job.autoscaler.scale-up.grace-period", "1 h"},
                              {"job.autoscaler.scaling.key-group.partitions.adjust.mode",
                               "EVENLY_SPREAD"},
                              {"job.autoscaler.scale-down.learned-hold.min-duration", "0"}})
          .value();
  EXPECT_EQ(user.defaults, AutoscalerDefaults::kTrimtab);
  EXPECT_EQ(user.metrics_window, minutes(3));
  EXPECT_DOUBLE_EQ(user.target_utilization, 0.4);
  EXPECT_FALSE(user.utilization_min.has_value());  // the band is the user's, whole
  EXPECT_FALSE(user.utilization_max.has_value());
  EXPECT_EQ(user.scale_down_interval, hours(1));
  EXPECT_EQ(user.alignment_mode, AlignmentMode::kLegacyEvenlySpread);
  EXPECT_EQ(user.scale_down_learned_hold, Millis(0));
  EXPECT_TRUE(user.scale_down_lasting_evidence);

  auto bad = ParseAutoscalerOptions({{"job.autoscaler.defaults", "upstream"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "job.autoscaler.defaults: invalid value \"upstream\": expected flink or trimtab");
  EXPECT_EQ(ParseAutoscalerOptions({{"job.autoscaler.defaults", "flink"}}).value().defaults,
            AutoscalerDefaults::kFlink);
}

TEST(ExcludedPeriodsTest, DailyAndCron) {
  auto p = ParseExcludedPeriods("k", "09:00:00-10:30:00; * * 20-21 ? * SAT,SUN").value();
  ASSERT_EQ(p.size(), 2u);
  // 2024-05-01 is a Wednesday. 1714554000000 = 2024-05-01T09:00:00Z.
  const int64_t wed_0900 = 1714554000000;
  EXPECT_NE(FindExcludedPeriod(p, wed_0900), nullptr);
  EXPECT_NE(FindExcludedPeriod(p, wed_0900 + 90 * 60 * 1000), nullptr);   // 10:30:00 inclusive
  EXPECT_EQ(FindExcludedPeriod(p, wed_0900 + 91 * 60 * 1000), nullptr);   // 10:31
  EXPECT_EQ(FindExcludedPeriod(p, wed_0900 + 11 * 3600 * 1000), nullptr); // Wed 20:00: not weekend
  const int64_t sat_2015 = wed_0900 + (3 * 24 + 11) * 3600 * 1000LL + 15 * 60 * 1000;
  EXPECT_EQ(FindExcludedPeriod(p, sat_2015)->text, "* * 20-21 ? * SAT,SUN");
  // "A && B": both must match.
  auto both = ParseExcludedPeriods("k", "20:00:00-20:30:00 && * * * ? * SAT").value();
  EXPECT_NE(FindExcludedPeriod(both, sat_2015), nullptr);
  EXPECT_EQ(FindExcludedPeriod(both, sat_2015 + 20 * 60 * 1000), nullptr);  // 20:35
  EXPECT_FALSE(ParseExcludedPeriods("k", "* * * ? * MON && * * * ? * TUE").ok());
  EXPECT_FALSE(ParseExcludedPeriods("k", "a && b && c").ok());
  EXPECT_FALSE(ParseExcludedPeriods("k", "0 0 12 L * ?").ok());
  EXPECT_FALSE(ParseExcludedPeriods("k", "0 0 25 * * ?").ok());
}

}  // namespace
}  // namespace trimtab::core::flink
