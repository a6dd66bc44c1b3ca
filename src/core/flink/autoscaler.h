// The Flink job autoscaler as one pure function: collect -> evaluate -> decide -> shape
// (DESIGN.md §2 stages 1-4; reference notes §C). The plugin chain (src/core/chain) runs after
// it; the operator and the simulator call it once per job per loop.
//
// Usage (no plugin chain: the cycle commits its own summaries):
//   AutoscalerInput in{.topology = t, .configuration = conf, .samples = {sample}, .now = now};
//   TRIMTAB_ASSIGN_OR_RETURN(AutoscalerResult r, RunAutoscalerCycle(in, std::move(state)));
//   state = std::move(r.state);                    // persist
//   if (r.log.outcome == CycleOutcome::kScale) realize(r.summaries);
//
// With a plugin chain: set `commit = false`, run the chain on r.summaries, then
//   state = CommitScaling(std::move(r.state), approved_summaries, in.topology, in.now, options);
// so that history, overrides and rate-limit events record only what was really applied.
//
// Thread-safety: pure functions; inputs are not retained.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "core/chain/metric_requirements.h"
#include "core/flink/autoscaler_options.h"
#include "core/flink/autoscaler_state.h"
#include "core/flink/cluster_resource_check.h"
#include "core/flink/decision_log.h"
#include "core/flink/metric_window.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {

// TaskManager resources, for quota checks (quota.cpu / quota.memory). Unknown = quota skipped.
struct TaskManagerResources {
  std::optional<double> cpu;               // cores per TaskManager
  std::optional<int64_t> memory_bytes;     // process memory per TaskManager
  int slots_per_task_manager = 1;          // taskmanager.numberOfTaskSlots
};

// Explicit parallelism limits of one vertex, in place of vertex.min-parallelism /
// vertex.max-parallelism (unset = the option's value). The vertex's max parallelism (key groups)
// still caps the upper limit.
struct VertexParallelismLimits {
  std::optional<int> min;
  std::optional<int> max;
};

struct AutoscalerInput {
  JobTopology topology;                                // current parallelism per vertex
  std::map<std::string, std::string> configuration;    // Flink configuration (job.autoscaler.*)
  std::vector<RawSample> samples;                      // collected since the previous cycle
  TimePoint now;
  std::string job_status = "RUNNING";
  std::optional<TimePoint> job_running_since;          // job-details timestamps.RUNNING
  TaskManagerResources resources;
  // The cluster's nodes for upstream's cluster resource check (cluster_resource_check.h): a
  // scaling whose TaskManagers would not fit is blocked. Absent = the check is off, as upstream's
  // default (kubernetes.operator.cluster.resource-view.refresh-interval -1 min).
  std::optional<ClusterResourceView> cluster_resources;
  bool commit = true;  // record the returned summaries as executed (no plugin chain after)
  // Custom metrics declared by the chain and evaluator plugins (MetricRequirementRegistry::
  // Metrics()); `samples` carry their values (custom_metrics.h) and every one is evaluated.
  std::vector<DeclaredMetric> custom_metrics;
  // The configuration already parsed (ParseAutoscalerOptions), for a caller that runs many cycles
  // with one configuration (the simulator). When set, the cycle does not read `configuration`
  // (a caller with a plugin chain hands it to ChainedCycleInput::context instead).
  std::shared_ptr<const AutoscalerOptions> parsed_options;
  // Per-vertex limits (eval flink's `parallelismLimits`); vertices not listed use the options.
  std::map<VertexId, VertexParallelismLimits> parallelism_limits;
  // Evaluated metrics given by the caller (eval flink's `evaluatedMetrics`): the cycle does not
  // collect or evaluate; it starts at the decide stage with these (cycle::TakeEvaluated).
  // `samples` must then be empty.
  std::optional<EvaluatedMetrics> evaluated;
};

// `in.parsed_options`, or `in.configuration` parsed (errors name the key under "configuration").
StatusOr<std::shared_ptr<const AutoscalerOptions>> OptionsOf(const AutoscalerInput& in);

struct AutoscalerResult {
  EvaluatedMetrics evaluated;   // empty before the first evaluation; includes custom metrics
  ScalingSummaries summaries;   // changes to apply; empty unless outcome == kScale
  std::map<VertexId, int> recommended_parallelism;  // what the algorithm recommends, per vertex
  // Memory tuning's TaskManager configuration for this scaling (memory_tuning.h): set with
  // memory.tuning.enabled when the outcome is kScale; committed with the scaling.
  ConfigChanges config_overrides;
  // Some source's lag takes longer than backlog-processing.lag-threshold to drain at its input
  // rate: the utilization band is [0, 1] (set once the window was evaluated).
  bool processing_backlog = false;
  DecisionLog log;
  AutoscalerState state;        // the new state to persist
};

// Runs one cycle. Errors: invalid configuration (kInvalidArgument naming the key), invalid custom
// metric declarations or custom values that are undeclared or in the wrong scope (naming the
// field), samples that lack required metrics (naming the sample and field), missing ingestion
// rate information (kFailedPrecondition).
StatusOr<AutoscalerResult> RunAutoscalerCycle(const AutoscalerInput& input, AutoscalerState state);

// Records `applied` as executed at `now`: scaling history (trimmed to history.max.count /
// history.max.age), restart tracking, overrides for every vertex, behavior scale events;
// clears delayed scale-downs.
AutoscalerState CommitScaling(AutoscalerState state, const ScalingSummaries& applied,
                              const JobTopology& topology, TimePoint now,
                              const AutoscalerOptions& options);

// The per-vertex lines of a ScalingReport event, one per summary, each starting with "\n":
// "{ Vertex ID v | Parallelism 2 -> 4 | Processing capacity 1.00 -> 2.00 | Target data rate 3.00}".
std::string ScalingReportLines(const ScalingSummaries& summaries);

// restart.time, or with restart.time-tracking.enabled the longest tracked restart capped by
// restart.time-tracking.limit; without a tracked restart and with
// restart.time-from-checkpoint.enabled, the latest checkpoint's duration in the metric window
// where that is longer (capped by the limit too). `source`, when given, names where the value
// came from, for the decision log.
Millis EffectiveRestartTime(const AutoscalerState& state, const AutoscalerOptions& options,
                            std::string* source = nullptr);

}  // namespace trimtab::core::flink
