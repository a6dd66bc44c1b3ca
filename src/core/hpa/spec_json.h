// Strict JSON decoding of an autoscaling/v2 HorizontalPodAutoscaler spec, with the apiserver's
// defaulting (empty metrics -> cpu Utilization 80%) and validation (pkg/apis/autoscaling/
// validation). Errors use the apiserver's field-error wording and name
// the field:
//   spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be greater than zero
//   spec.metrics[1].type: Unsupported value: "Foo": supported values: "ContainerResource", ...
//   spec.metrics[0].resource.target.bogus: unknown field
// Only the first error is reported.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/hpa/spec.h"

namespace trimtab::core::hpa {

// Feature gates that change what the apiserver accepts.
struct HpaSpecOptions {
  // HPAScaleToZero: minReplicas 0 is allowed (with an Object or External metric). Off in a
  // real cluster by default (`trimtab local --feature-gates HPAScaleToZero=true`); `trimtab eval
  // hpa` and the scenarios evaluate with it on.
  bool scale_to_zero = true;
  // Update ratcheting: the stored object already has minReplicas 0, so 0 stays valid with the
  // gate off (validation.go's MinReplicasLowerBound).
  bool old_min_replicas_zero = false;
};

// Decodes `json` (the spec object) found at `path` (usually "spec").
StatusOr<HpaSpec> HpaSpecFromJson(const Json& json, const std::string& path,
                                  const HpaSpecOptions& options = {});

Json MetricSelectorToJson(const MetricSelector& selector);

}  // namespace trimtab::core::hpa
