#include "core/hpa/behavior.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace trimtab::core::hpa {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const TimePoint kNow = FromUnixMillis(1714564800000);  // 2024-05-01T12:00:00Z

// upstream generateScalingRules(pods, podsPeriod, percent, percentPeriod, window).
ScalingRules Rules(int32_t pods, int32_t pods_period, int32_t percent, int32_t percent_period,
                   int32_t window) {
  ScalingRules r;
  r.stabilization_window_seconds = window;
  r.select_policy = SelectPolicy::kMax;
  r.policies.emplace();
  if (pods != 0) r.policies->push_back({ScalingPolicyType::kPods, pods, pods_period});
  if (percent != 0) r.policies->push_back({ScalingPolicyType::kPercent, percent, percent_period});
  return r;
}

// upstream generateEventsUniformDistribution: events spread over the last `period` seconds,
// each in the middle of its segment (whole seconds, as Go's Duration conversion truncates).
std::vector<TimestampedScaleEvent> Uniform(const std::vector<int32_t>& changes, int period) {
  std::vector<TimestampedScaleEvent> events;
  const double segment = static_cast<double>(period) / static_cast<double>(changes.size());
  for (size_t i = 0; i < changes.size(); ++i) {
    const auto boundary =
        static_cast<int64_t>(period - segment * static_cast<double>(i + 1) + segment / 2);
    events.push_back({changes[i], kNow - seconds(boundary), false});
  }
  return events;
}

struct RateCase {
  std::string name;
  std::vector<TimestampedScaleEvent> up_events;
  std::vector<TimestampedScaleEvent> down_events;
  int32_t min;
  int32_t max;
  std::optional<ScalingRules> up;
  std::optional<ScalingRules> down;
  int32_t current;
  int32_t desired;
  int32_t expected;
  std::string condition;
};

// Values from upstream TestScalingWithRules (convertDesiredReplicasWithBehaviorRate).
TEST(ConvertWithBehaviorRateTest, UpstreamScalingWithRules) {
  const std::vector<RateCase> cases = {
      {"within range", {}, {}, 3, 8, {}, {}, 5, 7, 7, "DesiredWithinRange"},
      {"below minReplicas", {}, {}, 2, 8, {}, {}, 3, 1, 2, "TooFewReplicas"},
      {"within range with minReplicas 0", {}, {}, 0, 10, {}, {}, 1, 0, 0, "DesiredWithinRange"},
      {"maxReplicas below scaleUpLimit", {}, {}, 1, 10, {}, {}, 20, 1000, 10, "TooManyReplicas"},
      {"more than maxReplicas", {}, {}, 100, 150, {}, {}, 100, 1000, 150, "TooManyReplicas"},
      {"user scaleUpLimit below maxReplicas",
       {},
       {},
       1,
       2000,
       Rules(0, 0, 1, 60, 0),
       {},
       3,
       1000,
       4,
       "ScaleUpLimit"},
      {"user scaleDownLimit above minReplicas",
       {},
       {},
       3,
       2000,
       {},
       Rules(20, 60, 0, 0, 0),
       1000,
       3,
       980,
       "ScaleDownLimit"},
      {"scaleUp with default behavior", {}, {}, 1, 1000, {}, {}, 10, 50, 20, "ScaleUpLimit"},
      {"pods policy larger than percent",
       {},
       {},
       1,
       1000,
       Rules(100, 60, 100, 60, 0),
       {},
       10,
       500,
       110,
       "ScaleUpLimit"},
      {"percent policy larger than pods",
       {},
       {},
       1,
       1000,
       Rules(2, 60, 100, 60, 0),
       {},
       10,
       500,
       20,
       "ScaleUpLimit"},
      {"large pod policy",
       {},
       {},
       1,
       1000,
       Rules(100, 60, 0, 0, 0),
       {},
       10,
       50,
       50,
       "DesiredWithinRange"},
      {"large percent policy",
       {},
       {},
       1,
       1000,
       Rules(10000, 60, 0, 0, 0),
       {},
       10,
       50,
       50,
       "DesiredWithinRange"},
      {"pod policy limitation",
       {},
       {},
       1,
       1000,
       Rules(30, 60, 0, 0, 0),
       {},
       10,
       50,
       40,
       "ScaleUpLimit"},
      {"percent policy limitation",
       {},
       {},
       1,
       1000,
       Rules(0, 0, 200, 60, 0),
       {},
       10,
       50,
       30,
       "ScaleUpLimit"},
      {"scaleDown percent larger than pods",
       {},
       {},
       1,
       1000,
       {},
       Rules(20, 60, 1, 60, 300),
       100,
       2,
       80,
       "ScaleDownLimit"},
      {"scaleDown pods larger than percent",
       {},
       {},
       1,
       1000,
       {},
       Rules(2, 60, 1, 60, 300),
       100,
       2,
       98,
       "ScaleDownLimit"},
      {"scaleDown minReplicas with large pod policy",
       {},
       {},
       1,
       1000,
       {},
       Rules(100, 60, 0, 0, 300),
       10,
       0,
       1,
       "TooFewReplicas"},
      {"scaleDown minReplicas with large percent policy",
       {},
       {},
       5,
       1000,
       {},
       Rules(0, 0, 100, 60, 300),
       10,
       2,
       5,
       "TooFewReplicas"},
      {"scaleDown pod policy limitation",
       {},
       {},
       1,
       1000,
       {},
       Rules(5, 60, 0, 0, 300),
       10,
       2,
       5,
       "ScaleDownLimit"},
      {"scaleDown percent policy limitation",
       {},
       {},
       1,
       1000,
       {},
       Rules(0, 0, 50, 60, 300),
       10,
       5,
       5,
       "DesiredWithinRange"},
      {"maxReplicas with large pod policy and events",
       Uniform({1, 5, 9}, 120),
       {},
       1,
       200,
       Rules(300, 60, 0, 0, 0),
       {},
       100,
       500,
       200,
       "TooManyReplicas"},
      {"maxReplicas with large percent policy and events",
       Uniform({1, 5, 9}, 120),
       {},
       1,
       200,
       Rules(0, 0, 10000, 60, 0),
       {},
       100,
       500,
       200,
       "TooManyReplicas"},
      {"recent scale-up events block scale-up",
       Uniform({1, 5, 9}, 120),
       {},
       1,
       1000,
       Rules(5, 120, 0, 0, 0),
       {},
       100,
       500,
       100,
       "ScaleUpLimit"},
      {"pod policy and previous scale-up events",
       Uniform({1, 5, 9}, 120),
       {},
       1,
       1000,
       Rules(150, 120, 0, 0, 0),
       {},
       100,
       500,
       235,
       "ScaleUpLimit"},
      {"percent policy and previous scale-up events",
       Uniform({1, 5, 9}, 120),
       {},
       1,
       1000,
       Rules(0, 0, 200, 120, 0),
       {},
       100,
       500,
       255,
       "ScaleUpLimit"},
      {"percent policy and previous up and down events",
       Uniform({4}, 120),
       Uniform({2}, 120),
       1,
       1000,
       Rules(0, 0, 300, 300, 0),
       {},
       6,
       24,
       16,
       "ScaleUpLimit"},
      {"scaleDown default policy and previous events",
       {},
       Uniform({1, 5, 9}, 120),
       1,
       1000,
       {},
       {},
       10,
       5,
       5,
       "DesiredWithinRange"},
      {"scaleDown minReplicas default with large pod policy and events",
       {},
       Uniform({1, 5, 9}, 120),
       1,
       1000,
       {},
       Rules(115, 120, 0, 0, 300),
       100,
       0,
       1,
       "TooFewReplicas"},
      {"scaleDown minReplicas with large pod policy and events",
       {},
       Uniform({1, 5, 9}, 120),
       5,
       1000,
       {},
       Rules(130, 120, 0, 0, 300),
       100,
       0,
       5,
       "TooFewReplicas"},
      {"scaleDown minReplicas with large percent policy and events",
       {},
       Uniform({1, 5, 9}, 120),
       5,
       1000,
       {},
       Rules(0, 0, 100, 120, 300),
       100,
       2,
       5,
       "TooFewReplicas"},
      {"scaleDown pod policy limitation and events",
       {},
       Uniform({1, 5, 9}, 120),
       1,
       1000,
       {},
       Rules(5, 120, 0, 0, 300),
       100,
       2,
       100,
       "ScaleDownLimit"},
      {"scaleDown percent policy limitation and events",
       {},
       Uniform({2, 4, 6}, 120),
       1,
       1000,
       {},
       Rules(0, 0, 50, 120, 300),
       100,
       0,
       56,
       "ScaleDownLimit"},
      {"scaleDown percent policy and up and down events",
       Uniform({2}, 120),
       Uniform({4}, 120),
       1,
       1000,
       {},
       Rules(0, 0, 50, 180, 0),
       10,
       1,
       6,
       "ScaleDownLimit"},
      {"previous events prevent further scale-down",
       {},
       Uniform({10, 10, 10}, 120),
       1,
       1000,
       {},
       Rules(0, 0, 10, 120, 300),
       100,
       0,
       100,
       "ScaleDownLimit"},
      {"previous events still allow scale-down",
       {},
       Uniform({10, 10, 10}, 120),
       1,
       1000,
       {},
       Rules(0, 0, 1000, 120, 300),
       10,
       5,
       5,
       "DesiredWithinRange"},
      {"outdated events one policy up",
       Uniform({8, 12, 9, 11}, 120),
       {},
       1,
       1000,
       Rules(1000, 60, 0, 0, 0),
       {},
       100,
       200,
       200,
       "DesiredWithinRange"},
      {"events not outdated for two policies up",
       Uniform({8, 12, 9, 11}, 120),
       {},
       1,
       1000,
       Rules(1000, 120, 100, 60, 0),
       {},
       100,
       200,
       200,
       "DesiredWithinRange"},
      {"events outdated for two policies up",
       Uniform({8, 12, 9, 11}, 120),
       {},
       1,
       1000,
       Rules(1000, 30, 100, 60, 0),
       {},
       100,
       200,
       200,
       "DesiredWithinRange"},
      {"outdated events one policy down",
       {},
       Uniform({8, 12, 9, 11}, 120),
       1,
       1000,
       {},
       Rules(1000, 60, 0, 0, 300),
       100,
       5,
       5,
       "DesiredWithinRange"},
      {"events not outdated for two policies down",
       {},
       Uniform({8, 12, 9, 11}, 120),
       1,
       1000,
       {},
       Rules(1000, 120, 100, 60, 300),
       100,
       5,
       5,
       "DesiredWithinRange"},
      {"events outdated for two policies down",
       {},
       Uniform({8, 12, 9, 11}, 120),
       1,
       1000,
       {},
       Rules(1000, 30, 100, 60, 300),
       100,
       5,
       5,
       "DesiredWithinRange"},
  };
  for (const RateCase& c : cases) {
    SCOPED_TRACE(c.name);
    HpaState state;
    state.scale_up_events = c.up_events;
    state.scale_down_events = c.down_events;
    NormalizationTrace trace;
    const int32_t got = ConvertWithBehaviorRate(
        DefaultedScaleUpRules(c.up), DefaultedScaleDownRules(c.down),
        NormalizationArgs{c.current, c.desired, c.min, c.max, kNow}, state, &trace);
    EXPECT_EQ(got, c.expected);
    EXPECT_EQ(trace.limit_reason, c.condition);
    EXPECT_EQ(trace.desired, c.expected);
  }
}

// Values from upstream TestCalculateScaleUpLimitWithScalingRules / ...DownLimitWithBehaviors.
TEST(ScaleLimitTest, MinChangeSelectPolicy) {
  ResolvedRules rules;
  rules.select_policy = SelectPolicy::kMin;
  rules.policies = {{ScalingPolicyType::kPods, 2, 60}, {ScalingPolicyType::kPercent, 50, 60}};
  EXPECT_EQ(ScaleUpLimit(1, {}, {}, rules, kNow), 2);
  EXPECT_EQ(ScaleDownLimit(5, {}, {}, rules, kNow), 3);
}

TEST(ScaleLimitTest, DisabledSelectPolicyHoldsCurrent) {
  ResolvedRules rules;
  rules.select_policy = SelectPolicy::kDisabled;
  rules.policies = {{ScalingPolicyType::kPods, 4, 15}};
  EXPECT_EQ(ScaleUpLimit(7, {}, {}, rules, kNow), 7);
  EXPECT_EQ(ScaleDownLimit(7, {}, {}, rules, kNow), 7);
  NormalizationTrace trace;
  EXPECT_EQ(ConvertWithBehaviorRate(rules, rules, {7, 20, 1, 100, kNow}, HpaState{}, &trace), 7);
  EXPECT_EQ(trace.limit_reason, "ScaleUpLimit");
}

TEST(ScaleLimitTest, PercentUsesFloat64ExactlyLikeGo) {
  // 100 * (1 + 10/100) = 110.00000000000001 in float64, so ceil gives 111.
  ResolvedRules up;
  up.policies = {{ScalingPolicyType::kPercent, 10, 60}};
  EXPECT_EQ(ScaleUpLimit(100, {}, {}, up, kNow), 111);
  // 7 * (1 - 30/100) = 4.8999999999999995 truncates to 4.
  ResolvedRules down;
  down.policies = {{ScalingPolicyType::kPercent, 30, 60}};
  EXPECT_EQ(ScaleDownLimit(7, {}, {}, down, kNow), 4);
}

TEST(ScaleLimitTest, EventsExactlyAtThePeriodBoundaryDoNotCount) {
  const std::vector<TimestampedScaleEvent> events = {{3, kNow - seconds(60), false},
                                                     {2, kNow - seconds(59), false}};
  EXPECT_EQ(ReplicasChangePerPeriod(60, events, kNow), 2);
}

struct StabilizeCase {
  std::string name;
  std::vector<TimestampedRecommendation> recommendations;
  int32_t current;
  int32_t desired;
  int32_t expected;
  std::vector<int32_t> expected_recommendations;  // empty: not checked
  int32_t up_window;
  int32_t down_window;
};

// Values from upstream TestNormalizeDesiredReplicasWithBehavior
// (stabilizeRecommendationWithBehaviors).
TEST(StabilizeWithBehaviorsTest, UpstreamTable) {
  auto at = [](int32_t r, std::chrono::seconds ago) {
    return TimestampedRecommendation{r, kNow - ago};
  };
  const std::vector<StabilizeCase> cases = {
      {"empty recommendations for scaling down", {}, 100, 5, 5, {5}, 0, 0},
      {"simple scale down stabilization",
       {at(4, minutes(2)), at(5, minutes(1))},
       100,
       3,
       5,
       {4, 5, 3},
       0,
       180},
      {"simple scale up stabilization",
       {at(4, minutes(2)), at(5, minutes(1))},
       1,
       7,
       4,
       {4, 5, 7},
       300,
       0},
      {"no scale down stabilization",
       {at(1, minutes(2)), at(2, minutes(1))},
       100,
       3,
       3,
       {1, 2, 3},
       300,
       0},
      {"no scale up stabilization",
       {at(4, minutes(2)), at(5, minutes(1))},
       1,
       3,
       3,
       {4, 5, 3},
       0,
       300},
      {"no scale down stabilization, reuse recommendation element",
       {at(10, minutes(10)), at(9, minutes(9))},
       100,
       3,
       3,
       {10, 3},
       0,
       0},
      {"no scale up stabilization, reuse recommendation element",
       {at(10, minutes(10)), at(9, minutes(9))},
       1,
       100,
       100,
       {10, 100},
       0,
       0},
      {"scale down stabilization, reuse one of obsolete recommendation element",
       {at(10, minutes(10)), at(4, minutes(1)), at(5, minutes(2)), at(9, minutes(9))},
       100,
       3,
       5,
       {10, 4, 5, 3},
       0,
       180},
      {"scale up stabilization, reuse one of obsolete recommendation element",
       {at(10, minutes(100)), at(6, minutes(1)), at(5, minutes(2)), at(9, minutes(3))},
       1,
       100,
       5,
       {100, 6, 5, 9},
       300,
       0},
      {"do not scale up when prenormalized rec goes down",
       {at(2, minutes(100)), at(3, minutes(3))},
       2,
       1,
       2,
       {},
       300,
       300},
      {"do not scale down when prenormalized rec goes up",
       {at(2, minutes(100)), at(1, minutes(3))},
       2,
       3,
       2,
       {},
       300,
       300},
  };
  for (const StabilizeCase& c : cases) {
    SCOPED_TRACE(c.name);
    HpaState state;
    state.recommendations = c.recommendations;
    ResolvedRules up;
    up.stabilization_window_seconds = c.up_window;
    ResolvedRules down;
    down.stabilization_window_seconds = c.down_window;
    NormalizationTrace trace;
    EXPECT_EQ(
        StabilizeWithBehaviors(up, down, {c.current, c.desired, 1, 1000, kNow}, &state, &trace),
        c.expected);
    if (!c.expected_recommendations.empty()) {
      std::vector<int32_t> got;
      for (const auto& r : state.recommendations) got.push_back(r.replicas);
      EXPECT_EQ(got, c.expected_recommendations);
    }
  }
}

TEST(StabilizeWithBehaviorsTest, ReasonFollowsTheDesiredDirection) {
  HpaState state;
  state.recommendations = {{10, kNow - minutes(1)}};
  ResolvedRules up;
  up.stabilization_window_seconds = 0;
  ResolvedRules down;
  down.stabilization_window_seconds = 300;
  NormalizationTrace trace;
  EXPECT_EQ(StabilizeWithBehaviors(up, down, {10, 6, 1, 20, kNow}, &state, &trace), 10);
  EXPECT_EQ(trace.stabilization_reason, "ScaleDownStabilized");
  EXPECT_EQ(trace.stabilization_message,
            "recent recommendations were higher than current one, applying the highest recent "
            "recommendation");
  NormalizationTrace same;
  EXPECT_EQ(StabilizeWithBehaviors(up, down, {10, 12, 1, 20, kNow}, &state, &same), 12);
  EXPECT_EQ(same.stabilization_reason, "ReadyForNewScale");
}

struct LegacyCase {
  std::string name;
  std::vector<TimestampedRecommendation> recommendations;
  int32_t desired;
  int32_t expected;
  size_t expected_log_length;
};

// Values from upstream TestNormalizeDesiredReplicas (stabilizeRecommendation, 5 min window).
TEST(NormalizeLegacyTest, UpstreamStabilizeRecommendation) {
  auto at = [](int32_t r, std::chrono::minutes ago) {
    return TimestampedRecommendation{r, kNow - ago};
  };
  const std::vector<LegacyCase> cases = {
      {"empty log", {}, 5, 5, 1},
      {"stabilize", {at(4, minutes(2)), at(5, minutes(1))}, 3, 5, 3},
      {"no stabilize", {at(1, minutes(2)), at(2, minutes(1))}, 3, 3, 3},
      {"no stabilize - old recommendations", {at(10, minutes(10)), at(9, minutes(9))}, 3, 3, 2},
      {"stabilize - old recommendations",
       {at(10, minutes(10)), at(4, minutes(1)), at(5, minutes(2)), at(9, minutes(9))},
       3,
       5,
       4},
  };
  for (const LegacyCase& c : cases) {
    SCOPED_TRACE(c.name);
    HpaState state;
    state.recommendations = c.recommendations;
    NormalizationTrace trace;
    NormalizeLegacy({10, c.desired, 1, 100, kNow}, NormalizationOptions{}, &state, &trace);
    EXPECT_EQ(trace.stabilized, c.expected);
    EXPECT_EQ(state.recommendations.size(), c.expected_log_length);
  }
}

struct ConvertRulesCase {
  int32_t current;
  int32_t desired;
  int32_t min;
  int32_t max;
  int32_t expected;
  std::string condition;
};

// Values from upstream TestConvertDesiredReplicasWithRules (scaleUpLimit = max(2 * current, 4)).
TEST(NormalizeLegacyTest, UpstreamConvertDesiredReplicasWithRules) {
  const std::vector<ConvertRulesCase> cases = {
      {5, 7, 3, 8, 7, "DesiredWithinRange"},  {3, 1, 2, 8, 2, "TooFewReplicas"},
      {1, 0, 0, 10, 0, "DesiredWithinRange"}, {20, 1000, 1, 10, 10, "TooManyReplicas"},
      {3, 1000, 1, 2000, 6, "ScaleUpLimit"},  {1, 1000, 1, 2000, 4, "ScaleUpLimit"},
  };
  for (const ConvertRulesCase& c : cases) {
    HpaState state;  // empty history: stabilization returns the desired count
    NormalizationTrace trace;
    EXPECT_EQ(NormalizeLegacy({c.current, c.desired, c.min, c.max, kNow}, NormalizationOptions{},
                              &state, &trace),
              c.expected)
        << c.current << " -> " << c.desired;
    EXPECT_EQ(trace.limit_reason, c.condition);
  }
}

struct StoreCase {
  std::string name;
  std::vector<TimestampedScaleEvent> previous;
  std::vector<TimestampedScaleEvent> expected;  // timestamps: kNow for the new entry
  std::optional<ScalingRules> rules;            // unset: no behavior
  int32_t expected_change_in_60s;
};

// Values from upstream TestStoreScaleEvents (both directions).
TEST(StoreScaleEventTest, UpstreamTable) {
  auto ago = [](int32_t change, int s, bool outdated = false) {
    return TimestampedScaleEvent{change, kNow - seconds(s), outdated};
  };
  const std::vector<StoreCase> cases = {
      {"empty entries with default behavior", {}, {}, std::nullopt, 0},
      {"empty entries with two-policy-behavior", {}, {ago(5, 0)}, Rules(10, 60, 100, 60, 0), 0},
      {"one outdated entry to be kept untouched without behavior",
       {ago(7, 61)},
       {ago(7, 61)},
       std::nullopt,
       0},
      {"one outdated entry to be replaced with behavior",
       {ago(7, 61)},
       {ago(5, 0)},
       Rules(10, 60, 100, 60, 0),
       0},
      {"one actual entry to be not touched with behavior",
       {ago(7, 58)},
       {ago(7, 58), ago(5, 0)},
       Rules(10, 60, 100, 60, 0),
       7},
      {"two entries, one of them to be replaced",
       {ago(7, 61), ago(6, 59)},
       {ago(5, 0), ago(6, 59)},
       Rules(10, 60, 0, 0, 0),
       6},
      {"replace one entry, use policies with different periods",
       {ago(8, 29), ago(6, 59), ago(7, 61), ago(9, 61)},
       {ago(8, 29), ago(6, 59), ago(7, 61, true), ago(5, 0)},
       Rules(10, 60, 100, 30, 0),
       14},
      {"two entries, both actual",
       {ago(7, 58), ago(6, 59)},
       {ago(7, 58), ago(6, 59), ago(5, 0)},
       Rules(10, 120, 100, 30, 0),
       13},
  };
  for (const StoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    for (bool up : {true, false}) {
      HpaState state;
      (up ? state.scale_up_events : state.scale_down_events) = c.previous;
      EXPECT_EQ(ReplicasChangePerPeriod(60, c.previous, kNow), c.expected_change_in_60s);
      std::optional<Behavior> behavior;
      if (c.rules) {
        behavior.emplace();
        (up ? behavior->scale_up : behavior->scale_down) = c.rules;
      }
      StoreScaleEvent(behavior, 10, up ? 15 : 5, kNow, &state);
      EXPECT_EQ(up ? state.scale_up_events : state.scale_down_events, c.expected)
          << (up ? "up" : "down");
      EXPECT_TRUE((up ? state.scale_down_events : state.scale_up_events).empty());
    }
  }
}

TEST(NormalizeWithBehaviorsTest, ScaleDownWindowDefaultsToControllerFlag) {
  // behavior set without scaleDown: window = --horizontal-pod-autoscaler-downscale-stabilization.
  HpaState state;
  state.recommendations = {{8, kNow - seconds(100)}};
  NormalizationOptions options;
  options.downscale_stabilization_window = seconds(120);
  NormalizationTrace trace;
  EXPECT_EQ(NormalizeWithBehaviors(Behavior{}, {8, 2, 1, 10, kNow}, options, &state, &trace), 8);
  EXPECT_EQ(trace.down_window_seconds, 120);
  EXPECT_EQ(trace.stabilization_reason, "ScaleDownStabilized");
  HpaState later;
  later.recommendations = {{8, kNow - seconds(121)}};
  NormalizationTrace trace2;
  // Outside the window: the default scale-down policy (100% per 15 s) allows going straight to 2.
  EXPECT_EQ(NormalizeWithBehaviors(Behavior{}, {8, 2, 1, 10, kNow}, options, &later, &trace2), 2);
  EXPECT_EQ(later.recommendations.size(), 1u);  // the obsolete slot was reused
  EXPECT_EQ(later.recommendations[0].replicas, 2);
}

}  // namespace
}  // namespace trimtab::core::hpa
