// One HPA sync (reconcileAutoscaler without the API calls): given the spec, the target's scale,
// what the metrics APIs return and the persisted history, decide the desired replica count and
// report every reason. Faithful to kube-controller-manager's horizontal pod autoscaler,
// including the zero / above-max / below-min branches and the KEP-2021 scale-from-zero rules
// (HPAScaleToZero: HpaControllerOptions::scale_to_zero, on for `trimtab eval hpa`).
//
// Usage:
//   HpaInput in{.spec = spec, .spec_replicas = 3, .status_replicas = 3, .observed = obs,
//               .now = now};
//   HpaDecision d = Reconcile(in, state, HpaControllerOptions{});
//   if (d.rescale) scale_to(d.desired_replicas);   // and persist d.state
//
// The returned state assumes the rescale succeeds (the scale event is recorded, as upstream
// records it only after a successful update); a caller whose update fails should keep the
// previous scale-event lists.
//
// Thread-safety: pure function.
#pragma once

#include <chrono>
#include <cstdint>

#include "core/hpa/behavior.h"
#include "core/hpa/decision.h"
#include "core/hpa/observation.h"
#include "core/hpa/replica_calculator.h"
#include "core/hpa/spec.h"
#include "core/hpa/state.h"

namespace trimtab::core::hpa {

// kube-controller-manager flags that shape decisions (defaults as upstream).
struct HpaControllerOptions {
  double tolerance = 0.1;  // --horizontal-pod-autoscaler-tolerance
  ReplicaCalculatorOptions replica_calculator;
  NormalizationOptions normalization;
  // The HPAScaleToZero feature gate. Off: a target at zero replicas always pauses the HPA and no
  // ScaledToZero condition is reported (a real cluster's default).
  bool scale_to_zero = true;
};

struct HpaInput {
  HpaSpec spec;
  int32_t spec_replicas = 0;    // the target's scale spec.replicas ("current replicas")
  int32_t status_replicas = 0;  // the target's scale status.replicas
  // The HPA carries ScaledToZero=True (it scaled the target to zero itself); required to scale
  // back up from zero.
  bool scaled_to_zero = false;
  Observations observed;
  TimePoint now{};
};

// The tolerances for this HPA: the global one, overridden per direction by
// behavior.scale{Up,Down}.tolerance when behavior is set.
Tolerances TolerancesFor(const HpaSpec& spec, double global_tolerance);

HpaDecision Reconcile(const HpaInput& input, const HpaState& state,
                      const HpaControllerOptions& options);

}  // namespace trimtab::core::hpa
