#include "core/flink/behavior_shaping.h"

#include "core/hpa/behavior.h"
#include "core/hpa/decision.h"

namespace trimtab::core::flink {
namespace {

// Far above Flink's largest max parallelism (32768) and safe from int32 overflow in the
// engine's period-start arithmetic: a policy that never limits.
constexpr int32_t kUnlimitedPods = 1 << 20;

hpa::ScalingRules ToRules(const BehaviorRules& r, bool scale_up) {
  hpa::ScalingRules out;
  out.stabilization_window_seconds =
      static_cast<int32_t>(r.stabilization_window.value_or(Millis(0)).count() / 1000);
  switch (r.select_policy) {
    case SelectPolicy::kMax: out.select_policy = hpa::SelectPolicy::kMax; break;
    case SelectPolicy::kMin: out.select_policy = hpa::SelectPolicy::kMin; break;
    case SelectPolicy::kDisabled: out.select_policy = hpa::SelectPolicy::kDisabled; break;
  }
  std::vector<hpa::ScalingPolicy> policies;
  for (const RatePolicy& p : r.policies) {
    policies.push_back({p.type == RatePolicy::Type::kPods ? hpa::ScalingPolicyType::kPods
                                                          : hpa::ScalingPolicyType::kPercent,
                        p.value, static_cast<int32_t>(std::max<int64_t>(1, p.period.count() / 1000))});
  }
  if (policies.empty()) {
    // No rate limit in this direction: one policy that allows any change.
    policies.push_back(scale_up ? hpa::ScalingPolicy{hpa::ScalingPolicyType::kPods, kUnlimitedPods, 1}
                                : hpa::ScalingPolicy{hpa::ScalingPolicyType::kPercent, 100, 1});
  }
  out.policies = std::move(policies);
  return out;
}

std::string Describe(const hpa::NormalizationTrace& t) {
  std::string s = "behavior: recommendation " + std::to_string(t.recommendation) +
                  " stabilized to " + std::to_string(t.stabilized);
  if (!t.stabilization_reason.empty()) s += " (" + t.stabilization_reason + ")";
  if (t.selected_limit) s += ", rate limit " + std::to_string(*t.rate_limit);
  if (!t.limit_reason.empty()) s += " (" + t.limit_reason + ")";
  return s + " -> " + std::to_string(t.desired);
}

}  // namespace

hpa::Behavior ToHpaBehavior(const BehaviorOptions& b) {
  return {ToRules(b.scale_up, true), ToRules(b.scale_down, false)};
}

BehaviorShapeResult ShapeWithBehavior(const BehaviorOptions& behavior, hpa::HpaState* state,
                                      int current, int desired, TimePoint now) {
  hpa::NormalizationTrace trace;
  hpa::NormalizationOptions options;
  options.downscale_stabilization_window = std::chrono::seconds(0);
  const int32_t allowed = hpa::NormalizeWithBehaviors(
      ToHpaBehavior(behavior),
      {.current_replicas = current, .desired_replicas = desired, .min_replicas = 1,
       .max_replicas = kUnlimitedPods, .now = now},
      options, state, &trace);
  BehaviorShapeResult out{allowed, {}};
  if (allowed != desired) out.reasons.push_back(Describe(trace));
  return out;
}

void RecordBehaviorScaleEvent(const BehaviorOptions& behavior, hpa::HpaState* state,
                              TimePoint now, int previous, int next) {
  hpa::StoreScaleEvent(ToHpaBehavior(behavior), previous, next, now, state);
}

}  // namespace trimtab::core::flink
