// Custom metric providers, the declaring side: plugins and evaluators state which extra metrics
// they read (beyond the built-in LOAD, TRUE_PROCESSING_RATE, ...), and the metric collector
// (DESIGN.md §2 stage 1) fetches each declared metric once per cycle and stores it in
// EvaluatedMetrics under `name` (TaskManager and job scope in `global`, vertex scope per vertex).
//
// MetricRequirementRegistry collects the declarations of all consumers and deduplicates them:
// two consumers declaring the same metric (same name and same definition) share one fetch; the
// same name with a different definition is a conflict and is rejected naming both consumers.
//
// Usage:
//   MetricRequirementRegistry registry;
//   TRIMTAB_RETURN_IF_ERROR(registry.DeclareAll("resource-gate", plugin.RequiredMetrics()));
//   for (const DeclaredMetric& m : registry.Metrics()) collector.Fetch(m.requirement);
//
// Thread-safety: the registry is filled at start-up by one thread, then only read.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::core {

// Where the evaluated value is stored and what it is aggregated over.
enum class MetricScope {
  kTaskManager,  // one value per TaskManager, aggregated into EvaluatedMetrics::global
  kVertex,       // one value per job vertex, in EvaluatedMetrics::vertices[id]
  kJob,          // one job-wide value, in EvaluatedMetrics::global
};

// How the collector fetches it.
enum class MetricSourceKind {
  kFlinkRest,         // `query` is a Flink metric id, e.g. "Status.JVM.CPU.Load"
  kPrometheus,        // `query` is a PromQL instant query
  kExternalMetrics,   // `query` is an external.metrics.k8s.io metric name
};

// How per-TaskManager / per-subtask values are combined into one.
enum class MetricAggregation { kAvg, kMax, kMin, kSum };

std::string_view MetricScopeName(MetricScope s);              // "taskmanager" | "vertex" | "job"
std::string_view MetricSourceKindName(MetricSourceKind k);    // "flink" | "prometheus" | "external"
std::string_view MetricAggregationName(MetricAggregation a);  // "avg" | "max" | "min" | "sum"

struct MetricRequirement {
  std::string name;  // evaluated metric name, e.g. "TM_CPU_AVG"; upper case, digits, '_'
  MetricScope scope = MetricScope::kJob;
  MetricSourceKind source = MetricSourceKind::kFlinkRest;
  std::string query;  // Flink metric id, PromQL or external metric name (see MetricSourceKind)
  MetricAggregation aggregation = MetricAggregation::kAvg;

  // OK iff the name and query are well-formed; the error names the metric.
  Status Validate() const;
  // Same name and same definition.
  friend bool operator==(const MetricRequirement&, const MetricRequirement&) = default;
};

// Reads the fields of a requirement from an object (`name`, `scope` required; `source` flink,
// `query` required; `aggregation` avg by default), as docs/eval-flink.md "Custom metrics" writes
// them; errors name the field. Leaves other fields to the caller (NoUnknownFields).
Status ReadMetricRequirement(JsonReader& r, MetricRequirement* m);

struct DeclaredMetric {
  MetricRequirement requirement;
  std::set<std::string> consumers;  // who declared it (plugin or evaluator names), sorted
};

class MetricRequirementRegistry {
 public:
  // Adds `requirement` for `consumer`. Declaring an identical metric again only adds the
  // consumer. Fails (InvalidArgument) for a malformed requirement and (AlreadyExists) when the
  // name is already declared with a different definition.
  Status Declare(std::string_view consumer, const MetricRequirement& requirement);
  Status DeclareAll(std::string_view consumer, const std::vector<MetricRequirement>& requirements);

  // Every declared metric once, ordered by name.
  const std::vector<DeclaredMetric>& Metrics() const { return metrics_; }
  // The declared metrics of one scope / one source kind, ordered by name.
  std::vector<MetricRequirement> ByScope(MetricScope scope) const;
  std::vector<MetricRequirement> BySource(MetricSourceKind source) const;
  const DeclaredMetric* Find(std::string_view name) const;

 private:
  std::vector<DeclaredMetric> metrics_;  // sorted by requirement.name
};

}  // namespace trimtab::core
