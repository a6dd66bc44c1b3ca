// autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler, as the kube-apiserver converts them
// (pkg/apis/autoscaling/v1/conversion.go). Objects are stored in v2; a v1 request reads and
// writes the same objects through these two functions.
//
//   v2 -> v1   spec.targetCPUUtilizationPercentage: the averageUtilization of the first cpu
//              Resource metric (unset when that metric has no utilization target);
//              status.currentCPUUtilizationPercentage: the current averageUtilization of the
//              cpu Resource metric; currentReplicas and desiredReplicas always present.
//              What v1 cannot hold travels in annotations (any old ones dropped first):
//                autoscaling.alpha.kubernetes.io/metrics          every metric but the cpu
//                                                                  utilization one, v1 form
//                autoscaling.alpha.kubernetes.io/current-metrics  status.currentMetrics, v1 form
//                autoscaling.alpha.kubernetes.io/conditions       status.conditions
//                autoscaling.alpha.kubernetes.io/behavior         spec.behavior as upstream
//                                                                  writes it: Go field names
//                                                                  ("ScaleUp", "Policies", ...)
//   v1 -> v2   the reverse: the metrics annotation's metrics first, then the cpu target; no
//              metric at all -> cpu Utilization 80 %; the current-metrics annotation replaces
//              the status' cpu entry; conditions and behavior (field names read case-
//              insensitively; malformed or empty: ignored, as upstream) restored; the four
//              annotations removed. minReplicas defaults to 1 first (the v1 defaulting).
//
// The v1 metric shapes are the old v2beta1 ones (metricName, targetAverageValue,
// metricSelector, ...), with Go's field order and "0" for unset non-pointer quantities.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster {

inline constexpr char kHpaMetricsAnnotation[] = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr char kHpaCurrentMetricsAnnotation[] =
    "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr char kHpaConditionsAnnotation[] = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr char kHpaBehaviorAnnotation[] = "autoscaling.alpha.kubernetes.io/behavior";

// The stored (v2) object as autoscaling/v1.
Json HpaV2ToV1(const Json& v2);

// A v1 object as autoscaling/v2. InvalidArgument names the annotation whose JSON is not a list
// of v1 metrics / conditions.
StatusOr<Json> HpaV1ToV2(const Json& v1);

}  // namespace trimtab::cluster
