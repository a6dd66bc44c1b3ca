#include "core/flink/custom_metrics.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <set>

#include "core/flink/evaluator.h"

namespace trimtab::core::flink {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// "taskmanager metric flink \"Status.JVM.CPU.Load\" (avg) for resource-gate, cpu-evaluator"
std::string Describe(const DeclaredMetric& d) {
  const MetricRequirement& r = d.requirement;
  std::string out = std::string(MetricScopeName(r.scope)) + " metric " +
                    std::string(MetricSourceKindName(r.source)) + " \"" + r.query + "\" (" +
                    std::string(MetricAggregationName(r.aggregation)) + ")";
  if (!d.consumers.empty()) {
    out += " for ";
    bool first = true;
    for (const std::string& c : d.consumers) {
      if (!first) out += ", ";
      out += c;
      first = false;
    }
  }
  return out;
}

std::string NonFinite(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "Infinity" : "-Infinity";
}

// The declared metric of each name.
std::map<std::string, const MetricRequirement*> ByName(const std::vector<DeclaredMetric>& d) {
  std::map<std::string, const MetricRequirement*> out;
  for (const DeclaredMetric& m : d) out[m.requirement.name] = &m.requirement;
  return out;
}

// The value of `name` in one collected sample (NaN when absent). `vertex` empty = job-wide.
double ValueIn(const CollectedSample& s, const std::string& name, const VertexId& vertex) {
  if (vertex.empty()) return s.global.Get(name);
  auto vit = s.vertices.find(vertex);
  return vit == s.vertices.end() ? kNaN : vit->second.Get(name);
}

// Adds {current, average} of `name` to `out` when at least one of them is known.
void AddEvaluated(const std::vector<CollectedSample>& window, const std::string& name,
                  const VertexId& vertex, MetricMap* out) {
  const double current = ValueIn(window.back(), name, vertex);
  const double average = GetAverage(window, name, vertex);
  if (std::isnan(current) && std::isnan(average)) return;
  // Custom metrics keep their exact values (unlike the built-in evaluated metrics, which are
  // rounded to 3 decimals as upstream rounds them).
  EvaluatedMetric& e = (*out)[name];
  e.current = std::isnan(current) ? std::nullopt : std::optional<double>(current);
  e.average = std::isnan(average) ? std::nullopt : std::optional<double>(average);
}

}  // namespace

bool IsBuiltInMetricName(std::string_view name) {
  static constexpr std::string_view kBuiltIn[] = {
      kMetricLoad,
      kMetricTrueProcessingRate,
      kMetricTargetDataRate,
      kMetricCatchUpDataRate,
      kMetricLag,
      kMetricParallelism,
      kMetricMaxParallelism,
      kMetricNumSourcePartitions,
      kMetricScaleUpRateThreshold,
      kMetricScaleDownRateThreshold,
      kMetricExpectedProcessingRate,
      kMetricGcPressure,
      kMetricHeapMaxUsageRatio,
      kMetricNumTaskSlotsUsed,
      kMetricAccumulatedBusyTime,
      kMetricNumRecordsIn,
      kMetricNumRecordsOut,
      kMetricNumRecordsInPerSecond,
      kMetricObservedTpr,
      kMetricHeapMemoryUsed,
      kMetricManagedMemoryUsed,
      kMetricMetaspaceMemoryUsed,
      kMetricRecommendedParallelism,
  };
  return std::find(std::begin(kBuiltIn), std::end(kBuiltIn), name) != std::end(kBuiltIn);
}

Status ValidateCustomMetrics(const std::vector<DeclaredMetric>& declared) {
  std::set<std::string> seen;
  for (size_t i = 0; i < declared.size(); ++i) {
    const MetricRequirement& r = declared[i].requirement;
    const std::string path = "customMetrics[" + std::to_string(i) + "]";
    TRIMTAB_RETURN_IF_ERROR(r.Validate().WithContext(path));
    if (IsBuiltInMetricName(r.name)) {
      return InvalidArgumentError(path + ": metric \"" + r.name +
                                  "\" is a built-in metric name and cannot be a custom metric");
    }
    if (!seen.insert(r.name).second) {
      return InvalidArgumentError(path + ": metric \"" + r.name + "\" is declared twice");
    }
  }
  return Status::Ok();
}

Status CollectCustomMetrics(const std::vector<DeclaredMetric>& declared, const MetricFetchJob& job,
                            MetricSource& source, RawSample* sample) {
  TRIMTAB_RETURN_IF_ERROR(ValidateCustomMetrics(declared));
  for (const DeclaredMetric& d : declared) {
    const MetricRequirement& r = d.requirement;
    sample->custom_errors.erase(r.name);
    sample->job.custom.erase(r.name);
    for (auto& [id, v] : sample->vertices) v.custom.erase(r.name);
    if (r.scope == MetricScope::kVertex) {
      StatusOr<std::map<VertexId, double>> values = source.FetchVertexMetric(job, r);
      if (!values.ok()) {
        sample->custom_errors[r.name] =
            Describe(d) + ": fetch failed: " + values.status().ToString();
        continue;
      }
      std::string missing;
      for (const VertexId& id : job.vertices) {
        auto it = values->find(id);
        if (it == values->end() || !std::isfinite(it->second)) {
          missing += (missing.empty() ? "" : ", ") + id +
                     (it == values->end() ? "" : " (" + NonFinite(it->second) + ")");
          continue;
        }
        sample->vertices[id].custom[r.name] = it->second;
      }
      if (!missing.empty()) {
        sample->custom_errors[r.name] = Describe(d) + ": no value for vertex " + missing;
      }
      continue;
    }
    StatusOr<double> value = r.scope == MetricScope::kTaskManager
                                 ? source.FetchTaskManagerMetric(job, r)
                                 : source.FetchJobMetric(job, r);
    if (!value.ok()) {
      sample->custom_errors[r.name] = Describe(d) + ": fetch failed: " + value.status().ToString();
    } else if (!std::isfinite(*value)) {
      sample->custom_errors[r.name] = Describe(d) + ": fetched value is " + NonFinite(*value);
    } else {
      sample->job.custom[r.name] = *value;
    }
  }
  return Status::Ok();
}

Status ValidateCustomSamples(const std::vector<DeclaredMetric>& declared,
                             const std::vector<RawSample>& samples) {
  const auto by_name = ByName(declared);
  for (size_t i = 0; i < samples.size(); ++i) {
    const RawSample& s = samples[i];
    const std::string path = "samples[" + std::to_string(i) + "]";
    for (const auto& [id, v] : s.vertices) {
      for (const auto& [name, value] : v.custom) {
        const std::string field = path + ".vertices." + id + ".custom." + name;
        auto it = by_name.find(name);
        if (it == by_name.end()) {
          return InvalidArgumentError(field + ": custom metric is not declared");
        }
        if (it->second->scope != MetricScope::kVertex) {
          return InvalidArgumentError(field + ": custom metric is declared with scope " +
                                      std::string(MetricScopeName(it->second->scope)) +
                                      "; its values belong in job.custom");
        }
      }
    }
    for (const auto& [name, value] : s.job.custom) {
      const std::string field = path + ".job.custom." + name;
      auto it = by_name.find(name);
      if (it == by_name.end()) {
        return InvalidArgumentError(field + ": custom metric is not declared");
      }
      if (it->second->scope == MetricScope::kVertex) {
        return InvalidArgumentError(field + ": custom metric is declared with scope vertex; its "
                                            "values belong in vertices.<id>.custom");
      }
    }
    for (const auto& [name, error] : s.custom_errors) {
      if (!by_name.count(name)) {
        return InvalidArgumentError(path + ".customErrors." + name +
                                    ": custom metric is not declared");
      }
    }
  }
  return Status::Ok();
}

void EvaluateCustomMetrics(const std::vector<DeclaredMetric>& declared, const JobTopology& topology,
                           const std::vector<CollectedSample>& window, EvaluatedMetrics* out) {
  if (window.empty()) return;
  for (const DeclaredMetric& d : declared) {
    const std::string& name = d.requirement.name;
    if (d.requirement.scope != MetricScope::kVertex) {
      AddEvaluated(window, name, "", &out->global);
      continue;
    }
    for (const VertexInfo& v : topology.vertices) {
      MetricMap m;
      AddEvaluated(window, name, v.id, &m);
      if (!m.empty()) out->vertices[v.id][name] = m[name];
    }
  }
}

}  // namespace trimtab::core::flink
