// Custom metric providers, the fetching and evaluating side (the FLIP's "future work").
// src/core/chain/metric_requirements.h is the declaring side: chain plugins and evaluator plugins
// declare extra TaskManager, vertex or job (external) metrics, and MetricRequirementRegistry
// deduplicates them across consumers. This file turns those declarations into values:
//
//   1. collect   CollectCustomMetrics asks a MetricSource for every declared metric exactly once
//                per cycle and stores the values in the cycle's newest RawSample (vertex scope in
//                vertices[id].custom, TaskManager and job scope in job.custom). A failed fetch
//                stores no value (never 0) and records the error in RawSample::custom_errors,
//                which RunAutoscalerCycle writes into the decision log.
//   2. window    CollectSample copies the custom values into the collected sample under their
//                declared names, unrounded; the metric window keeps them like built-in metrics.
//   3. evaluate  EvaluateCustomMetrics gives every declared metric EvaluatedMetric{current =
//                value of the newest sample, average = mean over the window} in
//                EvaluatedMetrics (vertex scope per vertex, TaskManager / job scope in global),
//                so plugins (ExecutorContext::metrics), scaling summaries, the decision log and
//                `trimtab eval flink` all see the same numbers.
//
// Usage (operator loop, once per job and cycle):
//   MetricRequirementRegistry registry;                       // at start-up
//   TRIMTAB_RETURN_IF_ERROR(chain.DeclareMetrics(registry));
//   TRIMTAB_RETURN_IF_ERROR(registry.DeclareAll("my-evaluator", evaluator.RequiredMetrics()));
//   ...
//   RawSample& newest = input.samples.back();                 // built-in metrics already in
//   TRIMTAB_RETURN_IF_ERROR(CollectCustomMetrics(registry.Metrics(), job, source, &newest));
//   input.custom_metrics = registry.Metrics();
//   TRIMTAB_ASSIGN_OR_RETURN(AutoscalerResult r, RunAutoscalerCycle(input, std::move(state)));
//
// Thread-safety: the functions are pure apart from the calls on `source`; MetricSource
// implementations say whether they may be shared between threads.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "core/chain/metric_requirements.h"
#include "core/flink/autoscaler_state.h"
#include "core/flink/metric_window.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {

// The job a MetricSource fetches for.
struct MetricFetchJob {
  std::string job_key;             // "<namespace>/<name>" (ExecutorContext::job_key)
  std::string namespace_name;      // Kubernetes namespace ("" standalone)
  std::vector<VertexId> vertices;  // the job's vertices, for vertex-scope metrics
};

// Fetches one declared metric of one job; the adapters implement it over the Flink REST API,
// Prometheus and external.metrics.k8s.io (MetricRequirement::source says which, `query` what).
// Each call is one fetch; an error Status means "no value this cycle".
class MetricSource {
 public:
  virtual ~MetricSource() = default;

  // MetricScope::kTaskManager: one value per TaskManager of the job, combined into one with
  // `metric.aggregation`.
  virtual StatusOr<double> FetchTaskManagerMetric(const MetricFetchJob& job,
                                                  const MetricRequirement& metric) = 0;
  // MetricScope::kVertex: per vertex id of `job.vertices`, the subtask values combined with
  // `metric.aggregation`. A vertex missing from the answer has no value this cycle.
  virtual StatusOr<std::map<VertexId, double>> FetchVertexMetric(
      const MetricFetchJob& job, const MetricRequirement& metric) = 0;
  // MetricScope::kJob: one job-wide value, typically external (a PromQL instant query or an
  // external metric name) or a Flink job-level metric.
  virtual StatusOr<double> FetchJobMetric(const MetricFetchJob& job,
                                          const MetricRequirement& metric) = 0;
};

// True for the names of the built-in collected and evaluated metrics (LOAD, LAG, GC_PRESSURE,
// NUM_RECORDS_IN, ...), which custom metrics may not use.
bool IsBuiltInMetricName(std::string_view name);

// OK iff every declaration is valid (MetricRequirement::Validate), names are unique and none is
// a built-in metric name. Errors start with "customMetrics".
Status ValidateCustomMetrics(const std::vector<DeclaredMetric>& declared);

// Fetches every declared metric once through `source` (in declaration order, i.e. by name) and
// stores the values in `sample`; replaces what `sample` held for those names. A fetch error, a
// non-finite value or vertices without a value are recorded in sample->custom_errors[name] (the
// message names the consumers) and leave the value absent. Values for vertices not in
// `job.vertices` are dropped. Fails, without fetching, only for invalid declarations.
// REQUIRES: sample != nullptr.
Status CollectCustomMetrics(const std::vector<DeclaredMetric>& declared, const MetricFetchJob& job,
                            MetricSource& source, RawSample* sample);

// OK iff every custom value of `samples` belongs to a declared metric of a matching scope
// (vertices.<id>.custom: vertex scope; job.custom: TaskManager or job scope) and every
// custom_errors entry names a declared metric. Errors name the field ("samples[1].job.custom.X").
Status ValidateCustomSamples(const std::vector<DeclaredMetric>& declared,
                             const std::vector<RawSample>& samples);

// Adds EvaluatedMetric{current, average} for every declared metric to `out`: vertex scope into
// out->vertices[id] for each vertex of `topology`, TaskManager and job scope into out->global.
// current = the newest window sample's value (absent when that sample has none); average = the
// mean of the window's values (absent when no sample has one). Metrics with neither are not
// added. REQUIRES: out != nullptr.
void EvaluateCustomMetrics(const std::vector<DeclaredMetric>& declared, const JobTopology& topology,
                           const std::vector<CollectedSample>& window, EvaluatedMetrics* out);

}  // namespace trimtab::core::flink
