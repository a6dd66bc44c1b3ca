#include "core/hpa/metric_evaluator.h"

namespace trimtab::core::hpa {
namespace {

constexpr char kUnableToCompute[] = "the HPA was unable to compute the replica count: ";

// The outcome of one metric before combination.
struct Evaluated {
  bool ok = false;
  ReplicaCalcResult calc;
  std::optional<TimePoint> timestamp;
  MetricStatus status;
  std::string error;  // what computeReplicasForMetric returns
  std::string condition_reason;
  std::string condition_error;  // what the condition message embeds
};

Evaluated Fail(std::string reason, std::string condition_error, std::string error) {
  Evaluated e;
  e.condition_reason = std::move(reason);
  e.condition_error = std::move(condition_error);
  e.error = std::move(error);
  return e;
}

template <typename T>
const T* FindIn(const std::map<std::string, T>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

Evaluated EvaluateResource(const MetricSpec& spec, int32_t spec_replicas, const Observations& obs,
                           const Tolerances& tol, TimePoint now,
                           const ReplicaCalculatorOptions& options) {
  const bool container_metric = spec.type == MetricSourceType::kContainerResource;
  const std::string reason =
      container_metric ? "FailedGetContainerResourceMetric" : "FailedGetResourceMetric";
  const std::string container = container_metric ? spec.container : "";
  std::optional<PodSamples> samples;
  if (const PodSamples* s = FindIn(obs.resource, spec.resource_name)) samples = *s;
  const Quantity::Format format =
      spec.resource_name == "memory" ? Quantity::Format::kBinarySI : Quantity::Format::kDecimalSI;

  Evaluated e;
  e.status.type = spec.type;
  e.status.resource_name = spec.resource_name;
  e.status.container = container;
  if (spec.target.average_value) {
    auto r =
        GetRawResourceReplicas(spec_replicas, spec.target.average_value->MilliValue(),
                               spec.resource_name, container, tol, obs.pods, samples, now, options);
    if (!r.ok()) {
      std::string err = "failed to get " + spec.resource_name + " usage: " + r.status().message();
      return Fail(reason, err, err);
    }
    e.calc = *r;
    e.status.average_value = Quantity::FromMilli(r->usage, format);
  } else if (spec.target.average_utilization) {
    auto r =
        GetResourceReplicas(spec_replicas, *spec.target.average_utilization, spec.resource_name,
                            container, tol, obs.pods, samples, now, options);
    if (!r.ok()) {
      std::string err =
          "failed to get " + spec.resource_name + " utilization: " + r.status().message();
      return Fail(reason, err, err);
    }
    e.calc = *r;
    e.status.average_utilization = r->utilization;
    e.status.average_value = Quantity::FromMilli(r->usage, format);
  } else {
    std::string err =
        "invalid resource metric source: neither an average utilization target nor an average "
        "value (usage) target was set";
    return Fail(reason, err, err);
  }
  e.ok = true;
  e.timestamp = e.calc.timestamp;
  return e;
}

Evaluated EvaluatePods(const MetricSpec& spec, int32_t spec_replicas, const Observations& obs,
                       const Tolerances& tol, TimePoint now,
                       const ReplicaCalculatorOptions& options) {
  std::optional<PodSamples> samples;
  if (const PodSamples* s = FindIn(obs.pods_metrics, spec.metric.name)) samples = *s;
  const int64_t target = spec.target.average_value ? spec.target.average_value->MilliValue() : 0;
  auto r = GetMetricReplicas(spec_replicas, target, spec.metric.name, tol, obs.pods, samples, now,
                             options);
  if (!r.ok()) {
    return Fail("FailedGetPodsMetric", r.status().message(),
                "failed to get pods metric value: " + r.status().message());
  }
  Evaluated e;
  e.ok = true;
  e.calc = *r;
  e.timestamp = r->timestamp;
  e.status.type = MetricSourceType::kPods;
  e.status.metric = spec.metric;
  e.status.average_value = Quantity::FromMilli(r->usage);
  return e;
}

Evaluated EvaluateObject(const MetricSpec& spec, int32_t spec_replicas, int32_t status_replicas,
                         const Observations& obs, const Tolerances& tol) {
  const ObjectValue* observed = FindIn(obs.objects, spec.metric.name);
  // Upstream's wording (including its argument order) for a failed custom metrics lookup.
  const std::string fetch_error = "unable to get metric " + spec.metric.name + ": " +
                                  spec.described_object.kind + " on " + obs.namespace_name + " " +
                                  spec.described_object.name + "/no metric value observed for " +
                                  spec.described_object.kind + " " + spec.described_object.name;
  Evaluated e;
  e.status.type = MetricSourceType::kObject;
  e.status.metric = spec.metric;
  if (spec.target.type == MetricTargetType::kValue && spec.target.value) {
    if (!observed) {
      return Fail("FailedGetObjectMetric", fetch_error,
                  "failed to get object metric value: " + fetch_error);
    }
    auto r = GetObjectMetricReplicas(spec_replicas, spec.target.value->MilliValue(), tol, obs.pods,
                                     observed->value.MilliValue());
    if (!r.ok()) {
      return Fail("FailedGetObjectMetric", r.status().message(),
                  "failed to get object metric value: " + r.status().message());
    }
    e.calc = *r;
    e.status.described_object = spec.described_object;
    e.status.value = Quantity::FromMilli(r->usage);
  } else if (spec.target.type == MetricTargetType::kAverageValue && spec.target.average_value) {
    if (!observed) {
      return Fail("FailedGetObjectMetric", fetch_error,
                  "failed to get object metric value: failed to get " + spec.metric.name +
                      " object metric: " + fetch_error);
    }
    e.calc = GetObjectPerPodMetricReplicas(status_replicas, spec.target.average_value->MilliValue(),
                                           tol, observed->value.MilliValue(), observed->timestamp);
    e.status.average_value = Quantity::FromMilli(e.calc.usage);
  } else {
    std::string err =
        "invalid object metric source: neither a value target nor an average value target was set";
    return Fail("FailedGetObjectMetric", err, "failed to get object metric value: " + err);
  }
  e.ok = true;
  e.timestamp = e.calc.timestamp;
  return e;
}

Evaluated EvaluateExternal(const MetricSpec& spec, int32_t spec_replicas, int32_t status_replicas,
                           const Observations& obs, const Tolerances& tol) {
  std::vector<int64_t> values;
  std::optional<TimePoint> first_timestamp;
  if (const auto* series = FindIn(obs.external, spec.metric.name)) {
    for (const ExternalSample& s : *series) {
      if (spec.metric.selector && !spec.metric.selector->Matches(s.labels)) continue;
      if (!first_timestamp) first_timestamp = s.timestamp;
      values.push_back(s.value.MilliValue());
    }
  }
  const auto api_error = obs.external_errors.find(spec.metric.name);
  const std::string fetch_error =
      "unable to get external metric " + obs.namespace_name + "/" + spec.metric.name + "/" +
      FormatSelectorLikeGo(spec.metric.selector) + ": " +
      (api_error != obs.external_errors.end()
           ? "unable to fetch metrics from external metrics API: " + api_error->second
           : std::string("no metrics returned from external metrics API"));
  if (api_error != obs.external_errors.end()) values.clear();
  Evaluated e;
  e.status.type = MetricSourceType::kExternal;
  e.status.metric = spec.metric;
  if (spec.target.average_value) {
    if (values.empty()) {
      return Fail("FailedGetExternalMetric", fetch_error,
                  "failed to get " + spec.metric.name + " external metric: " + fetch_error);
    }
    e.calc = GetExternalPerPodMetricReplicas(
        status_replicas, spec.target.average_value->MilliValue(), tol, values, *first_timestamp);
    e.status.average_value = Quantity::FromMilli(e.calc.usage);
  } else if (spec.target.value) {
    if (values.empty()) {
      return Fail("FailedGetExternalMetric", fetch_error,
                  "failed to get external metric " + spec.metric.name + ": " + fetch_error);
    }
    auto r = GetExternalMetricReplicas(spec_replicas, spec.target.value->MilliValue(), tol,
                                       obs.pods, values);
    if (!r.ok()) {
      return Fail(
          "FailedGetExternalMetric", r.status().message(),
          "failed to get external metric " + spec.metric.name + ": " + r.status().message());
    }
    e.calc = *r;
    e.status.value = Quantity::FromMilli(r->usage);
  } else {
    std::string err =
        "invalid external metric source: neither a value target nor an average value target was "
        "set";
    return Fail("FailedGetExternalMetric", err, err);
  }
  e.ok = true;
  e.timestamp = e.calc.timestamp;
  return e;
}

}  // namespace

MetricsEvaluation ComputeReplicasForMetrics(const HpaSpec& spec, int32_t spec_replicas,
                                            int32_t status_replicas, const Observations& observed,
                                            const Tolerances& tolerances, TimePoint now,
                                            const ReplicaCalculatorOptions& options) {
  MetricsEvaluation out;
  int32_t replicas = 0;
  int invalid = 0;
  std::string first_error;
  Condition first_condition;
  for (size_t i = 0; i < spec.metrics.size(); ++i) {
    const MetricSpec& m = spec.metrics[i];
    Evaluated e;
    switch (m.type) {
      case MetricSourceType::kResource:
      case MetricSourceType::kContainerResource:
        e = EvaluateResource(m, spec_replicas, observed, tolerances, now, options);
        break;
      case MetricSourceType::kPods:
        e = EvaluatePods(m, spec_replicas, observed, tolerances, now, options);
        break;
      case MetricSourceType::kObject:
        e = EvaluateObject(m, spec_replicas, status_replicas, observed, tolerances);
        break;
      case MetricSourceType::kExternal:
        e = EvaluateExternal(m, spec_replicas, status_replicas, observed, tolerances);
        break;
    }
    MetricProposal p;
    p.index = i;
    p.spec = m;
    p.description = MetricDescription(m);
    p.ok = e.ok;
    p.calc = e.calc;
    if (e.ok) {
      p.replicas = e.calc.replicas;
      p.timestamp = e.timestamp;
      p.status = e.status;
      if (replicas == 0 || p.replicas > replicas) {
        replicas = p.replicas;
        out.metric = p.description;
        out.timestamp = p.timestamp;
      }
    } else {
      p.error = e.error;
      p.condition_reason = e.condition_reason;
      p.condition_message = kUnableToCompute + e.condition_error;
      if (invalid == 0) {
        first_error = e.error;
        first_condition = {"ScalingActive", "False", p.condition_reason, p.condition_message};
      }
      ++invalid;
    }
    out.proposals.push_back(std::move(p));
  }
  const int total = static_cast<int>(spec.metrics.size());
  if (invalid > 0) {
    out.error = "invalid metrics (" + std::to_string(invalid) + " invalid out of " +
                std::to_string(total) + "), first error is: " + first_error;
  }
  if (invalid >= total || (invalid > 0 && replicas < spec_replicas)) {
    // Never scale down on partial data; with no usable metric, do nothing.
    out.replicas = -1;
    out.metric.clear();
    out.timestamp.reset();
    out.scaling_active = first_condition;
    return out;
  }
  out.replicas = replicas;
  out.scaling_active = {
      "ScalingActive", "True", "ValidMetricFound",
      "the HPA was able to successfully calculate a replica count from " + out.metric};
  return out;
}

}  // namespace trimtab::core::hpa
