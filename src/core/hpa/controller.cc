#include "core/hpa/controller.h"

#include "core/hpa/metric_evaluator.h"

namespace trimtab::core::hpa {
namespace {

// setCondition: replaces the condition of the same type in place, or appends.
void SetCondition(std::vector<Condition>* conditions, Condition c) {
  for (Condition& existing : *conditions) {
    if (existing.type == c.type) {
      existing = std::move(c);
      return;
    }
  }
  conditions->push_back(std::move(c));
}

}  // namespace

Tolerances TolerancesFor(const HpaSpec& spec, double global_tolerance) {
  Tolerances t{global_tolerance, global_tolerance};
  if (!spec.behavior) return t;
  if (spec.behavior->scale_down && spec.behavior->scale_down->tolerance) {
    t.scale_down = spec.behavior->scale_down->tolerance->AsApproximateFloat64();
  }
  if (spec.behavior->scale_up && spec.behavior->scale_up->tolerance) {
    t.scale_up = spec.behavior->scale_up->tolerance->AsApproximateFloat64();
  }
  return t;
}

HpaDecision Reconcile(const HpaInput& input, const HpaState& state,
                      const HpaControllerOptions& options) {
  const HpaSpec& spec = input.spec;
  HpaDecision d;
  d.state = state;
  d.current_replicas = input.spec_replicas;
  const int32_t current = input.spec_replicas;
  SetCondition(&d.conditions, {"AbleToScale", "True", "SucceededGetScale",
                               "the HPA controller was able to get the target's current scale"});
  // recordInitialRecommendation: a fresh history starts with the current count, so a new (or
  // restarted) controller does not scale down before one stabilization window has passed.
  if (d.state.recommendations.empty()) d.state.recommendations.push_back({current, input.now});

  const int32_t min_replicas = spec.MinReplicasOrDefault();
  const bool object_or_external = spec.HasObjectOrExternalMetric();
  int32_t desired = 0;
  bool rescale = true;
  d.normalization.recommendation = current;

  const bool from_zero = options.scale_to_zero && input.scaled_to_zero;
  if (current == 0 && !(from_zero && (min_replicas != 0 || object_or_external))) {
    // A target scaled to zero by someone else pauses the HPA.
    desired = 0;
    rescale = false;
    d.normalization.mode = "disabled";
    SetCondition(&d.conditions, {"ScalingActive", "False", "ScalingDisabled",
                                 "scaling is disabled since the replica count of the target is "
                                 "zero"});
  } else if (current > spec.max_replicas) {
    d.rescale_reason = "Current number of replicas above Spec.MaxReplicas";
    desired = spec.max_replicas;
    d.normalization.mode = "aboveMax";
  } else if (current != 0 && current < min_replicas) {
    d.rescale_reason = "Current number of replicas below Spec.MinReplicas";
    desired = min_replicas;
    d.normalization.mode = "belowMin";
  } else {
    MetricsEvaluation eval = ComputeReplicasForMetrics(
        spec, current, input.status_replicas, input.observed,
        TolerancesFor(spec, options.tolerance), input.now, options.replica_calculator);
    d.metrics = eval.proposals;
    for (const MetricProposal& p : d.metrics) {
      if (p.status) d.current_metrics.push_back(*p.status);
    }
    d.error = eval.error;
    SetCondition(&d.conditions, eval.scaling_active);
    if (eval.replicas == -1) {
      // No usable proposal: status keeps the current count, nothing is normalized or recorded.
      d.normalization.mode = "metricsFailed";
      d.normalization.stabilized = current;
      d.normalization.desired = current;
      d.desired_replicas = current;
      return d;
    }
    d.winning_metric = eval.metric;
    if (eval.replicas > desired) desired = eval.replicas;
    if (desired > current) d.rescale_reason = eval.metric + " above target";
    if (desired < current) d.rescale_reason = "All metrics below target";
    NormalizationArgs args{current, desired, min_replicas, spec.max_replicas, input.now};
    if (spec.behavior) {
      desired = NormalizeWithBehaviors(*spec.behavior, args, options.normalization, &d.state,
                                       &d.normalization);
    } else {
      desired = NormalizeLegacy(args, options.normalization, &d.state, &d.normalization);
    }
    SetCondition(&d.conditions, {"AbleToScale", "True", d.normalization.stabilization_reason,
                                 d.normalization.stabilization_message});
    SetCondition(&d.conditions,
                 {"ScalingLimited", desired == d.normalization.stabilized ? "False" : "True",
                  d.normalization.limit_reason, d.normalization.limit_message});
    // Scaling from zero never lands below minReplicas.
    if (current == 0 && min_replicas != 0 && from_zero && desired < min_replicas) {
      desired = min_replicas;
      d.normalization.desired = desired;
    }
    rescale = desired != current;
  }
  if (d.normalization.mode != "behavior" && d.normalization.mode != "legacy") {
    d.normalization.stabilized = desired;
    d.normalization.desired = desired;
  }

  if (rescale) {
    SetCondition(&d.conditions, {"AbleToScale", "True", "SucceededRescale",
                                 "the HPA controller was able to update the target scale to " +
                                     std::to_string(desired)});
    StoreScaleEvent(spec.behavior, current, desired, input.now, &d.state);
    if (!options.scale_to_zero) {
      // The gate is off: upstream removes the condition (none is reported).
    } else if (current > 0 && desired == 0 && min_replicas == 0 && object_or_external) {
      SetCondition(&d.conditions, {"ScaledToZero", "True", "ScaledToZero",
                                   "the HPA controller scaled the target to zero replicas"});
    } else {
      SetCondition(&d.conditions, {"ScaledToZero", "False", "NotScaledToZero",
                                   "the target was not scaled to zero by the HPA controller"});
    }
  } else {
    desired = current;
  }
  d.rescale = rescale;
  d.desired_replicas = desired;
  return d;
}

}  // namespace trimtab::core::hpa
