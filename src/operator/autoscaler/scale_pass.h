// The four stages of OperatorAutoscaler::Scale (operator_autoscaler.h), each a file of its own,
// driven in order by Scale() over one ScalePass:
//
//   Prepare  (scale_prepare.cc)  options parsed once, disabled -> cleanup, the stored state, job
//                                status, metrics over Flink REST and the custom metrics
//   Run      (scale_run.cc)      the core's cycle with the executor chain (collect, evaluate,
//                                decide, shape, chain: core/flink/cycle_stages.h), the decision
//                                log as JSON and the decision history
//   Persist  (scale_persist.cc)  state, plugin state, decision log and history written back with
//                                optimistic locking
//   Report   (scale_report.cc)   the cache, counters, Prometheus series, Kubernetes Events and the
//                                outcome the reconciler realizes
//
// A stage returns ScaleStep::Continue() (the next stage runs) or ScaleStep::Stop(outcome): Scale()
// returns that outcome (the stored overrides, `skipped_reason` set). An error (StatusOr) is
// Scale()'s error. No stage reads another's messages: what a later stage needs is a typed field
// of the pass.
//
// Internal to src/operator/autoscaler. Thread-safety: a pass belongs to one Scale() call, which
// holds the resource's mutex throughout.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adapters/flink/metrics_collector.h"
#include "core/flink/autoscaler_options.h"
#include "core/flink/autoscaler_state.h"
#include "core/flink/cycle_with_chain.h"
#include "operator/autoscaler/autoscaler_metrics.h"
#include "operator/autoscaler/job_autoscaler.h"
#include "operator/autoscaler/operator_autoscaler.h"
#include "operator/autoscaler/vertex_labels.h"

namespace trimtab::op {

// What the autoscaler keeps per resource between calls.
struct OperatorAutoscaler::Resource {
  std::mutex mu;                             // held for a whole Scale / Cleanup of the resource
  bool loaded = false;                       // guarded by mu: `state` is the stored one
  bool ever_loaded = false;                  // guarded by mu: `state` is known (maybe stale)
  core::flink::AutoscalerState state;        // guarded by mu
  Json plugin_states = Json::object();       // guarded by mu
  Json history;                              // guarded by mu: decision_history.h
  std::vector<std::string> load_notes;       // guarded by mu: for the next decision log
  std::optional<adapters::FlinkJobRef> job;  // guarded by mu: the last job collected from
  std::optional<TimePoint> missing_since;    // guarded by mu: metrics missing since

  mutable std::mutex stats_mu;
  std::optional<core::EvaluatedMetrics> last_evaluation;  // guarded by stats_mu
  AutoscalerCounters counters;                            // guarded by stats_mu
};

struct OperatorAutoscaler::ScaleStep {
  // Set: the call ends and returns it.
  std::optional<AutoscalerOutcome> stop;

  static ScaleStep Continue() { return {}; }
  static ScaleStep Stop(AutoscalerOutcome outcome) { return {std::move(outcome)}; }
};

// One Scale() call. Each stage fills its section for the stages after it.
struct OperatorAutoscaler::ScalePass {
  const AutoscalerJobContext& context;
  std::string job_key;  // "<namespace>/<name>"
  Resource& resource;   // its mutex is held
  TimePoint now;
  AutoscalerMetricsJob labels;
  std::string decision = "Skipped";  // the outcome counted when Scale() returns

  // Prepare -> Run.
  // The job's options as configured (parsed once per call; also what the outcome reports).
  std::shared_ptr<const core::flink::AutoscalerOptions> options;
  // What the cycle runs with: `options` plus this cycle's legacy sources without busy time in
  // vertex_exclude_ids.
  std::shared_ptr<const core::flink::AutoscalerOptions> cycle_options;
  adapters::FlinkCollection collection;

  // Run -> Persist -> Report.
  std::optional<core::flink::ChainedCycleResult> result;
  Json plugin_states;
  Json log_json;               // the decision log as stored and returned
  Json history;                // decision_history.h, with this cycle
  std::string outcome;         // Scaled, Vetoed or the cycle's outcome name
  std::string skipped_reason;  // why the cycle decided nothing yet ("" when it decided)
  std::optional<VertexLabels> vertex_labels;

  // The outcome of a pass that decides nothing: the stored overrides (as last read or written)
  // stay in force; the decision log says why.
  AutoscalerOutcome Skipped(const std::string& reason, std::vector<std::string> notes = {}) const;
  // The stored overrides and what the options say about realizing them.
  void FillStored(AutoscalerOutcome* out) const;
};

// Scale() cannot say which overrides are stored (the state has never been read and cannot be):
// an error, so the caller keeps what it has.
Status UnknownOverrides(const std::string& job_key, const Status& cause);

}  // namespace trimtab::op
