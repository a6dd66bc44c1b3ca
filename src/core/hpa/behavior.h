// Normalization of the metrics' replica proposal, as the HPA controller does it:
//
//   * with spec.behavior (KEP-853): stabilize over past recommendations (scale-up window: min,
//     scale-down window: max, current clamped between them), then limit the rate with the
//     direction's policies over past scale events (period start = current - added + deleted),
//     selectPolicy Max / Min / Disabled, then min/max;
//   * without spec.behavior (legacy): max over the downscale window, then the per-sync cap
//     max(2 * current, 4) and min/max.
//
// The history lives in HpaState, which these functions update exactly as upstream updates its
// in-memory maps (obsolete slots are overwritten, last matching index wins). Conditions follow
// from the returned trace (controller.h builds them).
//
// Thread-safety: pure functions of their arguments (state is passed explicitly).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/clock.h"
#include "core/hpa/decision.h"
#include "core/hpa/spec.h"
#include "core/hpa/state.h"

namespace trimtab::core::hpa {

struct NormalizationOptions {
  // --horizontal-pod-autoscaler-downscale-stabilization; also the default scaleDown window.
  std::chrono::seconds downscale_stabilization_window{300};
  // Legacy per-sync scale-up cap: max(factor * current, minimum).
  double scale_up_limit_factor = 2.0;
  double scale_up_limit_minimum = 4.0;
};

struct NormalizationArgs {
  int32_t current_replicas = 0;
  int32_t desired_replicas = 0;  // the metrics' proposal
  int32_t min_replicas = 1;
  int32_t max_replicas = 0;
  TimePoint now{};
};

// KEP-853 path (normalizeDesiredReplicasWithBehaviors). Records the recommendation in `state`.
int32_t NormalizeWithBehaviors(const Behavior& behavior, const NormalizationArgs& args,
                               const NormalizationOptions& options, HpaState* state,
                               NormalizationTrace* trace);

// The two halves of NormalizeWithBehaviors, exposed for tests and tools:
// stabilizeRecommendationWithBehaviors (records args.desired_replicas in `state`) ...
int32_t StabilizeWithBehaviors(const ResolvedRules& up, const ResolvedRules& down,
                               const NormalizationArgs& args, HpaState* state,
                               NormalizationTrace* trace);
// ... and convertDesiredReplicasWithBehaviorRate, applied to args.desired_replicas (the
// stabilized count); sets trace->limit_reason / limit_message.
int32_t ConvertWithBehaviorRate(const ResolvedRules& up, const ResolvedRules& down,
                                const NormalizationArgs& args, const HpaState& state,
                                NormalizationTrace* trace);

// Legacy path (normalizeDesiredReplicas). Records the recommendation in `state`.
int32_t NormalizeLegacy(const NormalizationArgs& args, const NormalizationOptions& options,
                        HpaState* state, NormalizationTrace* trace);

// storeScaleEvent: after a successful rescale with spec.behavior set, marks events older than
// the direction's longest policy period outdated and stores |next - prev| in the last outdated
// slot, or appends. Does nothing without behavior.
void StoreScaleEvent(const std::optional<Behavior>& behavior, int32_t prev_replicas,
                     int32_t new_replicas, TimePoint now, HpaState* state);

// Sum of the changes of `events` strictly newer than now - period.
int32_t ReplicasChangePerPeriod(int32_t period_seconds,
                                const std::vector<TimestampedScaleEvent>& events, TimePoint now);

// The largest replica count the scale-up rules allow now (calculateScaleUpLimitWithScalingRules).
// `limits`, when given, receives each policy's computation.
int32_t ScaleUpLimit(int32_t current_replicas, const std::vector<TimestampedScaleEvent>& up_events,
                     const std::vector<TimestampedScaleEvent>& down_events,
                     const ResolvedRules& rules, TimePoint now,
                     std::vector<PolicyLimit>* limits = nullptr);

// The smallest replica count the scale-down rules allow now (calculateScaleDownLimitWithBehaviors).
int32_t ScaleDownLimit(int32_t current_replicas,
                       const std::vector<TimestampedScaleEvent>& up_events,
                       const std::vector<TimestampedScaleEvent>& down_events,
                       const ResolvedRules& rules, TimePoint now,
                       std::vector<PolicyLimit>* limits = nullptr);

}  // namespace trimtab::core::hpa
