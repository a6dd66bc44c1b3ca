// What the kube-apiserver does to an autoscaling/v2 HorizontalPodAutoscaler on write, besides the
// generic object rules of ObjectService:
//
//   defaulting  (pkg/apis/autoscaling/v2/defaults.go) spec.minReplicas 1; no metrics -> cpu
//               Utilization 80 %; with spec.behavior, each direction gets its defaults overlaid
//               by what is given: scaleUp {stabilizationWindowSeconds 0, selectPolicy Max,
//               policies [Pods 4 / 15 s, Percent 100 / 15 s]}, scaleDown {selectPolicy Max,
//               policies [Percent 100 / 15 s]} (the scale-down window stays unset: the
//               controller fills it from its flag)
//   validation  (pkg/apis/autoscaling/validation) through core::hpa::HpaSpecFromJson, the
//               engine's own decoder, with the HPAScaleToZero gate and update ratcheting: field
//               path and message as the real API server, e.g.
//               `spec.minReplicas: Invalid value: 0: must be greater than or equal to 1`
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/feature_gates.h"
#include "common/json.h"

namespace trimtab::cluster {

void DefaultHorizontalPodAutoscaler(Json* hpa);

struct HpaValidation {
  std::vector<Json> causes;                 // details.causes of a 422 (empty: valid)
  std::vector<std::string> unknown_fields;  // paths the decoder did not know ("spec.x.y")
};

// Validates `hpa` (already defaulted); `old` is the stored object on update (null on create).
// Unknown fields are removed from `hpa` and reported, so the caller treats them as the schema's
// unknown fields (fieldValidation Strict: 400, Warn: a warning).
HpaValidation ValidateHorizontalPodAutoscaler(Json* hpa, const Json* old,
                                              const FeatureGates& gates);

}  // namespace trimtab::cluster
