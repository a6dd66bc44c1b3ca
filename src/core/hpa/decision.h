// The result of one HPA sync, with every stage's reasons: each metric's proposal (or error),
// the status.currentMetrics entries, what stabilization and rate policies did, the conditions
// upstream would set (AbleToScale / ScalingActive / ScalingLimited / ScaledToZero) and the
// updated HpaState. decision_json.h renders it as JSON and as a short text summary.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/quantity.h"
#include "core/hpa/replica_calculator.h"
#include "core/hpa/spec.h"
#include "core/hpa/state.h"

namespace trimtab::core::hpa {

// An HPA status condition (lastTransitionTime is the caller's business).
struct Condition {
  std::string type;    // AbleToScale, ScalingActive, ScalingLimited, ScaledToZero
  std::string status;  // "True" / "False"
  std::string reason;
  std::string message;
};

// One status.currentMetrics entry (autoscaling/v2 MetricStatus).
struct MetricStatus {
  MetricSourceType type = MetricSourceType::kResource;
  std::string resource_name;                                    // Resource, ContainerResource
  std::string container;                                        // ContainerResource
  MetricIdentifier metric;                                      // Pods, Object, External
  std::optional<CrossVersionObjectReference> described_object;  // Object, Value target only
  std::optional<Quantity> value;
  std::optional<Quantity> average_value;
  std::optional<int32_t> average_utilization;
};

// What one spec.metrics entry proposed.
struct MetricProposal {
  size_t index = 0;
  MetricSpec spec;
  std::string description;  // MetricDescription(spec)
  bool ok = false;
  int32_t replicas = 0;
  std::optional<TimePoint> timestamp;  // unset where upstream reports the zero time
  ReplicaCalcResult calc;              // details (ratios, pod groups) when ok
  std::optional<MetricStatus> status;  // unset for a failed metric (upstream: empty slot)
  std::string error;                   // the metric's error, when !ok
  std::string condition_reason;        // FailedGetResourceMetric, ... when !ok
  std::string condition_message;
};

// One rate policy's limit (behavior path).
struct PolicyLimit {
  ScalingPolicy policy;
  int32_t replicas_added = 0;    // scale-up events within the policy period
  int32_t replicas_deleted = 0;  // scale-down events within the policy period
  int32_t period_start = 0;      // current - added + deleted
  int32_t limit = 0;             // the replica count this policy allows
};

// What normalization (stabilization, rate limits, min/max) did to the metrics' proposal.
struct NormalizationTrace {
  // "behavior" (KEP-853 rules), "legacy" (no spec.behavior), "aboveMax" / "belowMin" (current
  // replicas outside [min, max]: jump to the bound, nothing else), "disabled" (target at zero),
  // "metricsFailed" (no usable proposal: keep current).
  std::string mode;
  int32_t recommendation = 0;  // the metrics' proposal before normalization
  int32_t stabilized = 0;
  std::optional<int32_t> up_window_seconds;
  std::optional<int32_t> down_window_seconds;
  std::optional<int32_t> up_recommendation;    // min over the scale-up window
  std::optional<int32_t> down_recommendation;  // max over the scale-down window
  std::string stabilization_reason;  // ReadyForNewScale, ScaleUpStabilized, ScaleDownStabilized
  std::string stabilization_message;
  std::string direction;  // "up", "down" or "none": stabilized vs current
  std::optional<SelectPolicy> select_policy;
  std::vector<PolicyLimit> policies;
  std::optional<int32_t> selected_limit;  // the policy limit selectPolicy picked
  std::optional<int32_t> rate_limit;      // after "never beyond current" clamping (legacy: 2x/4)
  std::string limit_reason;               // DesiredWithinRange, ScaleUpLimit, TooManyReplicas, ...
  std::string limit_message;
  int32_t desired = 0;
};

struct HpaDecision {
  int32_t current_replicas = 0;
  int32_t desired_replicas = 0;
  bool rescale = false;
  std::string rescale_reason;  // "cpu resource utilization (percentage of request) above target"
  std::vector<MetricProposal> metrics;
  std::string winning_metric;                 // description of the metric that set the proposal
  std::vector<MetricStatus> current_metrics;  // successful metrics, in spec order
  NormalizationTrace normalization;
  std::vector<Condition> conditions;
  // The aggregated metrics error, also when a partial failure still allowed a decision:
  // "invalid metrics (1 invalid out of 2), first error is: ...".
  std::string error;
  HpaState state;  // assumes the rescale (if any) is applied
};

}  // namespace trimtab::core::hpa
