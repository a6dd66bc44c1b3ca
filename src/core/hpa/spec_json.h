// Strict JSON decoding of an autoscaling/v2 HorizontalPodAutoscaler spec, with the apiserver's
// defaulting (empty metrics -> cpu Utilization 80%) and validation (pkg/apis/autoscaling/
// validation, HPAScaleToZero enabled). Errors use the apiserver's field-error wording and name
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

// Decodes `json` (the spec object) found at `path` (usually "spec").
StatusOr<HpaSpec> HpaSpecFromJson(const Json& json, const std::string& path);

Json MetricSelectorToJson(const MetricSelector& selector);

}  // namespace trimtab::core::hpa
