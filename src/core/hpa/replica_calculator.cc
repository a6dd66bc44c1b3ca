#include "core/hpa/replica_calculator.h"

#include <cmath>
#include <limits>

namespace trimtab::core::hpa {
namespace {

constexpr int32_t kMaxInt32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

Status CalcError(std::string message) { return UnavailableError(std::move(message)); }

// calculateRequests: the milli request of `resource` per pod (that container's, the pod-level
// request, or the sum over regular and restartable init containers).
StatusOr<std::map<std::string, int64_t>> CalculateRequests(const std::vector<PodInfo>& pods,
                                                           const std::string& container,
                                                           const std::string& resource) {
  std::map<std::string, int64_t> requests;
  for (const PodInfo& pod : pods) {
    int64_t request = 0;
    const bool pod_level = container.empty() && (pod.pod_requests.count("cpu") > 0 ||
                                                 pod.pod_requests.count("memory") > 0);
    if (pod_level) {
      auto it = pod.pod_requests.find(resource);
      if (it == pod.pod_requests.end()) {
        return CalcError("missing pod-level request for " + resource + " in Pod " + pod.name);
      }
      request = it->second.MilliValue();
    } else {
      // Regular containers first, then restartable init containers, as upstream appends them.
      std::vector<const ContainerInfo*> ordered;
      for (const ContainerInfo& c : pod.containers) {
        if (!c.restartable_init) ordered.push_back(&c);
      }
      for (const ContainerInfo& c : pod.containers) {
        if (c.restartable_init) ordered.push_back(&c);
      }
      bool found = false;
      for (const ContainerInfo* c : ordered) {
        if (container.empty() || container == c->name) {
          auto it = c->requests.find(resource);
          if (it == c->requests.end()) {
            return CalcError("missing request for " + resource + " in container " + c->name +
                             " of Pod " + pod.name);
          }
          request += it->second.MilliValue();
        }
        if (container == c->name) {
          found = true;
          break;
        }
      }
      if (!container.empty() && !found) {
        return CalcError("container " + container + " not found in Pod " + pod.name);
      }
    }
    requests[pod.name] = request;
  }
  return requests;
}

struct UtilizationRatio {
  double ratio = 0;
  int32_t utilization = 0;
  int64_t raw_average = 0;
};

// GetResourceUtilizationRatio: floor(sum usage * 100 / sum request) as int32 (clamped), then
// the ratio to the target; samples of pods without a request are extraneous and skipped.
StatusOr<UtilizationRatio> ResourceUtilizationRatio(const PodMetricsInfo& metrics,
                                                    const std::map<std::string, int64_t>& requests,
                                                    int32_t target_utilization) {
  __int128 metrics_total = 0;
  __int128 requests_total = 0;
  int64_t entries = 0;
  for (const auto& [pod, metric] : metrics) {
    auto it = requests.find(pod);
    if (it == requests.end()) continue;
    metrics_total += metric.value;
    requests_total += it->second;
    ++entries;
  }
  if (requests_total == 0) return CalcError("no metrics returned matched known pods");
  __int128 percentage = metrics_total * 100 / requests_total;
  UtilizationRatio out;
  if (percentage > std::numeric_limits<int32_t>::max()) {
    out.utilization = std::numeric_limits<int32_t>::max();
  } else if (percentage < std::numeric_limits<int32_t>::min()) {
    out.utilization = std::numeric_limits<int32_t>::min();
  } else {
    out.utilization = static_cast<int32_t>(percentage);
  }
  out.raw_average = static_cast<int64_t>(metrics_total / entries);
  out.ratio = static_cast<double>(out.utilization) / static_cast<double>(target_utilization);
  return out;
}

// GetMetricUsageRatio: floor(sum / n) and its ratio to the target.
void MetricUsageRatio(const PodMetricsInfo& metrics, int64_t target_usage, double* ratio,
                      int64_t* usage) {
  __int128 total = 0;
  for (const auto& [pod, metric] : metrics) total += metric.value;
  *usage = static_cast<int64_t>(total / static_cast<__int128>(metrics.size()));
  *ratio = static_cast<double>(*usage) / static_cast<double>(target_usage);
}

void RemovePods(PodMetricsInfo* metrics, const std::set<std::string>& pods) {
  for (const std::string& p : pods) metrics->erase(p);
}

// The slow path shared by utilization and plain metrics: fill missing pods (scale-down: with
// `missing_fill`, scale-up: 0) and unready pods on scale-up (0), recompute, and guard against a
// change of direction.
template <typename RatioFn>
int32_t Rebalance(int32_t current_replicas, double usage_ratio, bool scale_up_with_unready,
                  int64_t missing_fill_down, const std::map<std::string, int64_t>* per_pod_fill,
                  const Tolerances& tolerances, PodMetricsInfo* metrics, const PodGroups& groups,
                  RatioFn ratio_fn, ReplicaCalcResult* result) {
  if (!groups.missing.empty()) {
    if (usage_ratio < 1.0) {
      for (const std::string& pod : groups.missing) {
        int64_t fill = missing_fill_down;
        if (per_pod_fill) {
          auto it = per_pod_fill->find(pod);
          const int64_t request = it == per_pod_fill->end() ? 0 : it->second;
          fill = request * missing_fill_down / 100;
        }
        (*metrics)[pod] = PodMetric{fill};
      }
    } else if (usage_ratio > 1.0) {
      for (const std::string& pod : groups.missing) (*metrics)[pod] = PodMetric{0};
    }
  }
  if (scale_up_with_unready) {
    for (const std::string& pod : groups.unready) (*metrics)[pod] = PodMetric{0};
  }
  const double new_ratio = ratio_fn(*metrics);
  result->rebalanced_ratio = new_ratio;
  result->samples_used = static_cast<int>(metrics->size());
  if (tolerances.IsWithin(new_ratio) || (usage_ratio < 1.0 && new_ratio > 1.0) ||
      (usage_ratio > 1.0 && new_ratio < 1.0)) {
    return current_replicas;
  }
  const int32_t new_replicas =
      GoFloatToInt32(std::ceil(new_ratio * static_cast<double>(metrics->size())));
  if ((new_ratio < 1.0 && new_replicas > current_replicas) ||
      (new_ratio > 1.0 && new_replicas < current_replicas)) {
    return current_replicas;
  }
  return new_replicas;
}

StatusOr<ReplicaCalcResult> CalcPlainMetricReplicas(PodMetricsInfo metrics,
                                                    int32_t current_replicas, int64_t target_usage,
                                                    const Tolerances& tolerances,
                                                    const std::vector<PodInfo>& pods,
                                                    const std::string& resource, TimePoint now,
                                                    const ReplicaCalculatorOptions& options) {
  if (pods.empty())
    return CalcError("no pods returned by selector while calculating replica count");
  ReplicaCalcResult result;
  result.groups = GroupPods(pods, metrics, resource, now, options);
  RemovePods(&metrics, result.groups.ignored);
  RemovePods(&metrics, result.groups.unready);
  if (metrics.empty()) {
    return CalcError("did not receive metrics for targeted pods (pods might be unready)");
  }
  MetricUsageRatio(metrics, target_usage, &result.usage_ratio, &result.usage);
  result.samples_used = static_cast<int>(metrics.size());
  const bool scale_up_with_unready = !result.groups.unready.empty() && result.usage_ratio > 1.0;
  if (!scale_up_with_unready && result.groups.missing.empty()) {
    if (tolerances.IsWithin(result.usage_ratio)) {
      result.replicas = current_replicas;
    } else {
      result.replicas = GoFloatToInt32(
          std::ceil(result.usage_ratio * static_cast<double>(result.groups.ready_count)));
    }
    return result;
  }
  auto ratio_fn = [target_usage](const PodMetricsInfo& m) {
    double ratio = 0;
    int64_t usage = 0;
    MetricUsageRatio(m, target_usage, &ratio, &usage);
    return ratio;
  };
  result.replicas =
      Rebalance(current_replicas, result.usage_ratio, scale_up_with_unready, target_usage, nullptr,
                tolerances, &metrics, result.groups, ratio_fn, &result);
  return result;
}

std::optional<TimePoint> FirstTimestamp(const std::optional<PodSamples>& samples) {
  if (!samples || samples->samples.empty()) return std::nullopt;
  return samples->timestamp;
}

// getUsageRatioReplicaCount: tolerance and ready pods for current > 0, ceil(ratio) from zero.
StatusOr<int32_t> UsageRatioReplicaCount(int32_t current_replicas, double usage_ratio,
                                         const Tolerances& tolerances,
                                         const std::vector<PodInfo>& pods) {
  if (current_replicas == 0) return GoFloatToInt32(std::ceil(usage_ratio));
  if (tolerances.IsWithin(usage_ratio)) return current_replicas;
  if (pods.empty()) {
    return CalcError(
        "unable to calculate ready pods: no pods returned by selector while calculating replica "
        "count");
  }
  int64_t ready = 0;
  for (const PodInfo& pod : pods) {
    if (pod.phase == PodPhase::kRunning && pod.ready.value_or(false)) ++ready;
  }
  const double replicas = usage_ratio * static_cast<double>(ready);
  if (replicas > static_cast<double>(kMaxInt32)) return kMaxInt32;
  return GoFloatToInt32(std::ceil(replicas));
}

}  // namespace

int32_t GoFloatToInt32(double v) {
  if (std::isnan(v) || v >= 2147483648.0 || v < -2147483648.0) {
    return std::numeric_limits<int32_t>::min();
  }
  return static_cast<int32_t>(v);
}

int64_t GoFloatToInt64(double v) {
  if (std::isnan(v) || v >= 9223372036854775808.0 || v < -9223372036854775808.0) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(v);
}

PodGroups GroupPods(const std::vector<PodInfo>& pods, const PodMetricsInfo& metrics,
                    const std::string& resource, TimePoint now,
                    const ReplicaCalculatorOptions& options) {
  PodGroups groups;
  for (const PodInfo& pod : pods) {
    if (pod.deleted || pod.phase == PodPhase::kFailed) {
      groups.ignored.insert(pod.name);
      continue;
    }
    if (pod.phase == PodPhase::kPending) {
      groups.unready.insert(pod.name);
      continue;
    }
    auto it = metrics.find(pod.name);
    if (it == metrics.end()) {
      groups.missing.insert(pod.name);
      continue;
    }
    if (resource == "cpu") {
      bool unready = false;
      if (!pod.ready.has_value() || !pod.start_time.has_value()) {
        unready = true;
      } else {
        const TimePoint transition = pod.ready_transition_time.value_or(TimePoint{});
        if (*pod.start_time + options.cpu_initialization_period > now) {
          // Still initializing: ignore the sample unless the pod is ready and one full metric
          // window has passed since the last readiness change.
          unready = !*pod.ready || it->second.timestamp < transition + it->second.window;
        } else {
          // Ignore only pods that are unready and have never been ready since they started.
          unready = !*pod.ready && *pod.start_time + options.initial_readiness_delay > transition;
        }
      }
      if (unready) {
        groups.unready.insert(pod.name);
        continue;
      }
    }
    ++groups.ready_count;
  }
  return groups;
}

StatusOr<PodMetricsInfo> ResourceMetricsInfo(const std::optional<PodSamples>& samples,
                                             const std::string& container) {
  if (!samples || samples->samples.empty()) {
    return CalcError("no metrics returned from resource metrics API");
  }
  PodMetricsInfo info;
  for (const PodSample& s : samples->samples) {
    int64_t value = 0;
    if (container.empty()) {
      if (s.value) {
        value = s.value->MilliValue();
      } else if (s.containers.empty()) {
        continue;  // a pod without containers is missing
      } else {
        for (const auto& [name, q] : s.containers) value += q.MilliValue();
      }
    } else {
      auto it = s.containers.find(container);
      if (it == s.containers.end()) continue;
      value = it->second.MilliValue();
    }
    info[s.pod] = PodMetric{value, samples->timestamp, samples->window};
  }
  return info;
}

StatusOr<PodMetricsInfo> CustomMetricsInfo(const std::optional<PodSamples>& samples) {
  if (!samples || samples->samples.empty()) {
    return CalcError("no metrics returned from custom metrics API");
  }
  PodMetricsInfo info;
  for (const PodSample& s : samples->samples) {
    const int64_t value = s.value ? s.value->MilliValue() : 0;
    info[s.pod] = PodMetric{value, samples->timestamp, samples->window};
  }
  return info;
}

StatusOr<ReplicaCalcResult> GetResourceReplicas(
    int32_t current_replicas, int32_t target_utilization, const std::string& resource,
    const std::string& container, const Tolerances& tolerances, const std::vector<PodInfo>& pods,
    const std::optional<PodSamples>& samples, TimePoint now,
    const ReplicaCalculatorOptions& options) {
  auto info = ResourceMetricsInfo(samples, container);
  if (!info.ok()) {
    return CalcError("unable to get metrics for resource " + resource + ": " +
                     info.status().message());
  }
  PodMetricsInfo metrics = std::move(info).value();
  if (pods.empty())
    return CalcError("no pods returned by selector while calculating replica count");
  ReplicaCalcResult result;
  result.timestamp = FirstTimestamp(samples);
  result.groups = GroupPods(pods, metrics, resource, now, options);
  RemovePods(&metrics, result.groups.ignored);
  RemovePods(&metrics, result.groups.unready);
  if (metrics.empty()) {
    return CalcError("did not receive metrics for targeted pods (pods might be unready)");
  }
  TRIMTAB_ASSIGN_OR_RETURN(auto requests, CalculateRequests(pods, container, resource));
  TRIMTAB_ASSIGN_OR_RETURN(UtilizationRatio first,
                           ResourceUtilizationRatio(metrics, requests, target_utilization));
  result.usage_ratio = first.ratio;
  result.utilization = first.utilization;
  result.usage = first.raw_average;
  result.samples_used = static_cast<int>(metrics.size());

  const bool scale_up_with_unready = !result.groups.unready.empty() && first.ratio > 1.0;
  if (!scale_up_with_unready && result.groups.missing.empty()) {
    if (tolerances.IsWithin(first.ratio)) {
      result.replicas = current_replicas;
    } else {
      result.replicas =
          GoFloatToInt32(std::ceil(first.ratio * static_cast<double>(result.groups.ready_count)));
    }
    return result;
  }
  // On scale-down a missing pod counts as using max(100%, target) of its request.
  const int64_t fallback_utilization = std::max<int64_t>(100, target_utilization);
  Status ratio_error;
  auto ratio_fn = [&](const PodMetricsInfo& m) {
    auto r = ResourceUtilizationRatio(m, requests, target_utilization);
    if (!r.ok()) {
      ratio_error = r.status();
      return 0.0;
    }
    return r->ratio;
  };
  result.replicas =
      Rebalance(current_replicas, first.ratio, scale_up_with_unready, fallback_utilization,
                &requests, tolerances, &metrics, result.groups, ratio_fn, &result);
  if (!ratio_error.ok()) return ratio_error;
  return result;
}

StatusOr<ReplicaCalcResult> GetRawResourceReplicas(
    int32_t current_replicas, int64_t target_usage, const std::string& resource,
    const std::string& container, const Tolerances& tolerances, const std::vector<PodInfo>& pods,
    const std::optional<PodSamples>& samples, TimePoint now,
    const ReplicaCalculatorOptions& options) {
  auto info = ResourceMetricsInfo(samples, container);
  if (!info.ok()) {
    return CalcError("unable to get metrics for resource " + resource + ": " +
                     info.status().message());
  }
  TRIMTAB_ASSIGN_OR_RETURN(
      ReplicaCalcResult result,
      CalcPlainMetricReplicas(std::move(info).value(), current_replicas, target_usage, tolerances,
                              pods, resource, now, options));
  result.timestamp = FirstTimestamp(samples);
  return result;
}

StatusOr<ReplicaCalcResult> GetMetricReplicas(int32_t current_replicas, int64_t target_usage,
                                              const std::string& metric_name,
                                              const Tolerances& tolerances,
                                              const std::vector<PodInfo>& pods,
                                              const std::optional<PodSamples>& samples,
                                              TimePoint now,
                                              const ReplicaCalculatorOptions& options) {
  auto info = CustomMetricsInfo(samples);
  if (!info.ok()) {
    return CalcError("unable to get metric " + metric_name + ": " + info.status().message());
  }
  TRIMTAB_ASSIGN_OR_RETURN(
      ReplicaCalcResult result,
      CalcPlainMetricReplicas(std::move(info).value(), current_replicas, target_usage, tolerances,
                              pods, "", now, options));
  result.timestamp = FirstTimestamp(samples);
  return result;
}

StatusOr<ReplicaCalcResult> GetObjectMetricReplicas(int32_t current_replicas, int64_t target_usage,
                                                    const Tolerances& tolerances,
                                                    const std::vector<PodInfo>& pods,
                                                    int64_t usage) {
  ReplicaCalcResult result;
  result.usage = usage;
  result.usage_ratio = static_cast<double>(usage) / static_cast<double>(target_usage);
  TRIMTAB_ASSIGN_OR_RETURN(
      result.replicas,
      UsageRatioReplicaCount(current_replicas, result.usage_ratio, tolerances, pods));
  return result;  // upstream reports the zero time for Value targets
}

ReplicaCalcResult GetObjectPerPodMetricReplicas(int32_t status_replicas, int64_t target_average,
                                                const Tolerances& tolerances, int64_t usage,
                                                TimePoint timestamp) {
  ReplicaCalcResult result;
  result.timestamp = timestamp;
  result.replicas = status_replicas;
  result.usage_ratio = static_cast<double>(usage) /
                       (static_cast<double>(target_average) * static_cast<double>(status_replicas));
  if (!tolerances.IsWithin(result.usage_ratio)) {
    result.replicas =
        GoFloatToInt32(std::ceil(static_cast<double>(usage) / static_cast<double>(target_average)));
  }
  result.usage =
      GoFloatToInt64(std::ceil(static_cast<double>(usage) / static_cast<double>(status_replicas)));
  return result;
}

StatusOr<ReplicaCalcResult> GetExternalMetricReplicas(int32_t current_replicas,
                                                      int64_t target_usage,
                                                      const Tolerances& tolerances,
                                                      const std::vector<PodInfo>& pods,
                                                      const std::vector<int64_t>& values) {
  int64_t usage = 0;
  for (int64_t v : values) {
    if (v > 0 && usage > kMaxInt64 - v) {
      usage = kMaxInt64;
      break;
    }
    usage += v;
  }
  ReplicaCalcResult result;
  result.usage = usage;
  result.usage_ratio = static_cast<double>(usage) / static_cast<double>(target_usage);
  TRIMTAB_ASSIGN_OR_RETURN(
      result.replicas,
      UsageRatioReplicaCount(current_replicas, result.usage_ratio, tolerances, pods));
  return result;  // upstream reports the zero time for Value targets
}

ReplicaCalcResult GetExternalPerPodMetricReplicas(int32_t status_replicas, int64_t target_average,
                                                  const Tolerances& tolerances,
                                                  const std::vector<int64_t>& values,
                                                  TimePoint timestamp) {
  int64_t usage = 0;
  for (int64_t v : values) {
    // Wrapping add, then saturate once it turns negative (the only way is int64 overflow).
    usage = static_cast<int64_t>(static_cast<uint64_t>(usage) + static_cast<uint64_t>(v));
    if (usage < 0) {
      usage = kMaxInt64;
      break;
    }
  }
  ReplicaCalcResult result;
  result.timestamp = timestamp;
  result.replicas = status_replicas;
  result.usage_ratio = static_cast<double>(usage) /
                       (static_cast<double>(target_average) * static_cast<double>(status_replicas));
  if (!tolerances.IsWithin(result.usage_ratio)) {
    const double replicas =
        std::ceil(static_cast<double>(usage) / static_cast<double>(target_average));
    result.replicas =
        replicas > static_cast<double>(kMaxInt32) ? kMaxInt32 : GoFloatToInt32(replicas);
  }
  if (static_cast<double>(usage) >= static_cast<double>(kMaxInt64)) {
    result.usage = kMaxInt64;
  } else {
    result.usage = GoFloatToInt64(
        std::ceil(static_cast<double>(usage) / static_cast<double>(status_replicas)));
  }
  return result;
}

}  // namespace trimtab::core::hpa
