// The per-metric replica calculation of the Kubernetes HPA (pkg/controller/podautoscaler/
// replica_calculator.go), reproduced operation for operation, including float64 order of
// evaluation, integer truncation of utilization percentages, pod grouping (ignored / unready /
// missing), the "rebalance" recompute with the two direction-flip guards, and overflow caps.
//
// Every function is pure: the pods and metric samples are passed in (observation.h). An error
// Status carries upstream's message text ("did not receive metrics for targeted pods (pods might
// be unready)", ...) with code kUnavailable; metric_evaluator.h turns it into a condition.
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "core/hpa/observation.h"

namespace trimtab::core::hpa {

// Metric usage ratio tolerances: within [1 - scale_down, 1 + scale_up] (inclusive) nothing moves.
struct Tolerances {
  double scale_down = 0.1;
  double scale_up = 0.1;
  bool IsWithin(double usage_ratio) const {
    return (1.0 - scale_down) <= usage_ratio && usage_ratio <= (1.0 + scale_up);
  }
};

struct ReplicaCalculatorOptions {
  // --horizontal-pod-autoscaler-cpu-initialization-period.
  std::chrono::seconds cpu_initialization_period{300};
  // --horizontal-pod-autoscaler-initial-readiness-delay.
  std::chrono::seconds initial_readiness_delay{30};
};

// One pod's metric value in milli-units with the sample's time and window.
struct PodMetric {
  int64_t value = 0;
  TimePoint timestamp{};
  std::chrono::seconds window{60};
};
using PodMetricsInfo = std::map<std::string, PodMetric>;

// How groupPods classified the target's pods for one metric.
struct PodGroups {
  int ready_count = 0;
  std::set<std::string> unready;  // Pending, or (cpu only) not yet ready / sample too early
  std::set<std::string> missing;  // no sample
  std::set<std::string> ignored;  // being deleted or Failed
};

PodGroups GroupPods(const std::vector<PodInfo>& pods, const PodMetricsInfo& metrics,
                    const std::string& resource, TimePoint now,
                    const ReplicaCalculatorOptions& options);

// The outcome of one metric's calculation, with what an operator needs to see why.
struct ReplicaCalcResult {
  int32_t replicas = 0;
  int32_t utilization = 0;  // Resource/ContainerResource Utilization targets: percent
  int64_t usage = 0;        // milli-units: average per pod, object value, external sum...
  std::optional<TimePoint> timestamp;      // unset where upstream reports the zero time
  double usage_ratio = 0;                  // the first-pass ratio to target
  std::optional<double> rebalanced_ratio;  // the recompute after filling missing/unready pods
  PodGroups groups;
  int samples_used = 0;  // metrics counted after grouping (and after filling)
};

// Resource metric samples for `resource`, summed per pod (container "" ) or for one container,
// as upstream's metrics client builds PodMetricsInfo. Errors as upstream when nothing returned.
StatusOr<PodMetricsInfo> ResourceMetricsInfo(const std::optional<PodSamples>& samples,
                                             const std::string& container);
// Pods (custom) metric samples.
StatusOr<PodMetricsInfo> CustomMetricsInfo(const std::optional<PodSamples>& samples);

// Resource / ContainerResource with an averageUtilization target (GetResourceReplicas).
StatusOr<ReplicaCalcResult> GetResourceReplicas(
    int32_t current_replicas, int32_t target_utilization, const std::string& resource,
    const std::string& container, const Tolerances& tolerances, const std::vector<PodInfo>& pods,
    const std::optional<PodSamples>& samples, TimePoint now,
    const ReplicaCalculatorOptions& options);

// Resource / ContainerResource with an averageValue target (GetRawResourceReplicas).
StatusOr<ReplicaCalcResult> GetRawResourceReplicas(
    int32_t current_replicas, int64_t target_usage, const std::string& resource,
    const std::string& container, const Tolerances& tolerances, const std::vector<PodInfo>& pods,
    const std::optional<PodSamples>& samples, TimePoint now,
    const ReplicaCalculatorOptions& options);

// Pods metric with an averageValue target (GetMetricReplicas).
StatusOr<ReplicaCalcResult> GetMetricReplicas(int32_t current_replicas, int64_t target_usage,
                                              const std::string& metric_name,
                                              const Tolerances& tolerances,
                                              const std::vector<PodInfo>& pods,
                                              const std::optional<PodSamples>& samples,
                                              TimePoint now,
                                              const ReplicaCalculatorOptions& options);

// Object metric, Value target; called with the scale's spec replicas (GetObjectMetricReplicas).
StatusOr<ReplicaCalcResult> GetObjectMetricReplicas(int32_t current_replicas, int64_t target_usage,
                                                    const Tolerances& tolerances,
                                                    const std::vector<PodInfo>& pods,
                                                    int64_t usage);

// Object metric, AverageValue target; called with the scale's status replicas.
ReplicaCalcResult GetObjectPerPodMetricReplicas(int32_t status_replicas, int64_t target_average,
                                                const Tolerances& tolerances, int64_t usage,
                                                TimePoint timestamp);

// External metric, Value target: every series summed (positive overflow saturates).
StatusOr<ReplicaCalcResult> GetExternalMetricReplicas(int32_t current_replicas,
                                                      int64_t target_usage,
                                                      const Tolerances& tolerances,
                                                      const std::vector<PodInfo>& pods,
                                                      const std::vector<int64_t>& values);

// External metric, AverageValue target; called with the scale's status replicas.
ReplicaCalcResult GetExternalPerPodMetricReplicas(int32_t status_replicas, int64_t target_average,
                                                  const Tolerances& tolerances,
                                                  const std::vector<int64_t>& values,
                                                  TimePoint timestamp);

// Go's float64 -> int32 / int64 conversions on amd64 (out of range and NaN give the minimum).
int32_t GoFloatToInt32(double v);
int64_t GoFloatToInt64(double v);

}  // namespace trimtab::core::hpa
