// The collect stage of the Flink autoscaler (reference notes §C.2): raw Flink metrics of one
// collection (what the REST collector fetched) -> one CollectedSample, and the metric window
// with its stabilization and "window full" rules.
//
// Raw metrics per vertex are already aggregated over subtasks by Flink's REST API (busy time as
// min/max/avg, counters summed); sources' numRecordsIn is the resolved count (the collector's
// read-records / Source__*.numRecordsIn / numRecordsOut fallbacks happen before this stage).
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "core/flink/autoscaler_options.h"
#include "core/flink/autoscaler_state.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {

struct RawVertexMetrics {
  // busyTimeMsPerSecond aggregated over subtasks; required unless the vertex is finished.
  std::optional<double> busy_time_max;
  std::optional<double> busy_time_min;
  std::optional<double> busy_time_avg;
  std::optional<double> accumulated_busy_time;  // ms, cumulative (sum over subtasks)
  std::optional<double> num_records_in;         // cumulative
  std::optional<double> num_records_out;        // cumulative
  std::optional<double> num_records_in_per_second;   // sum over subtasks
  std::optional<double> num_records_out_per_second;  // sources: fallback for observed TPR
  std::optional<double> pending_records;             // sources: Σ pendingRecords (lag)
  std::optional<double> back_pressured_time_ms_per_second;  // avg over subtasks
  // Declared vertex-scope custom metrics (custom_metrics.h): name -> value, already combined over
  // subtasks. A declared name that is absent has no value in this sample.
  std::map<std::string, double> custom;
};

struct RawJobMetrics {
  std::optional<double> gc_time_ms_per_second;  // max over TaskManagers
  std::optional<double> heap_used;              // bytes, max over TaskManagers
  std::optional<double> heap_max;               // bytes, max over TaskManagers
  std::optional<double> managed_memory_used;
  std::optional<double> metaspace_used;
  std::optional<double> task_slots_total;
  std::optional<double> task_slots_available;
  // End-to-end duration of the latest completed checkpoint, ms (GET /jobs/:jid/checkpoints,
  // latest.completed.end_to_end_duration); absent before the first one.
  std::optional<double> last_checkpoint_duration_ms;
  // Declared TaskManager- and job-scope custom metrics (custom_metrics.h): name -> value.
  std::map<std::string, double> custom;
};

struct RawSample {
  TimePoint time;
  std::map<VertexId, RawVertexMetrics> vertices;
  RawJobMetrics job;
  // Declared custom metrics whose fetch failed for this sample: name -> error. Their values are
  // absent; RunAutoscalerCycle notes each one in the decision log.
  std::map<std::string, std::string> custom_errors;
};

// Rounds to 3 decimals (half away from zero); a value that would round to 0 keeps its raw value.
double RoundMetric(double v);

// Converts one raw sample into collected ScalingMetrics. `window` holds the earlier samples (for
// the OBSERVED_TPR fallback average). `path` names the sample in errors ("samples[2]").
// Custom metric values are copied unrounded under their names (vertex ones only for vertices of
// the topology). Fails when a running vertex of the topology lacks busyTimeMsPerSecond, or when a
// custom value uses a built-in metric name or is not finite. With `observe_tpr` false a source's
// OBSERVED_TPR is the average of the window's earlier observations, whatever its lag (no new
// observation).
StatusOr<CollectedSample> CollectSample(const RawSample& raw, const JobTopology& topology,
                                        const AutoscalerOptions& options,
                                        const std::vector<CollectedSample>& window,
                                        const std::string& path, bool observe_tpr = true);

struct WindowStatus {
  bool restarted = false;       // the job restarted after the oldest sample: window wiped
  bool stabilizing = false;     // now < stable_time: no evaluation
  bool fully_collected = false; // now >= window_full_time: decisions allowed, window trimmed
  TimePoint stable_time;
  TimePoint window_full_time;
  size_t added = 0;             // new samples stored
  size_t ignored = 0;           // samples not newer than the newest stored one
  size_t trimmed = 0;           // samples dropped because they left the window
};

// Adds `raw` samples (any order; each collected against the window before it) to
// `state->metric_window` and applies the window rules at `now` (reference notes §C.2).
// `job_running_since` is the time the job last became RUNNING (absent = unknown: never wipes,
// stable from the start).
StatusOr<WindowStatus> UpdateMetricWindow(const std::vector<RawSample>& raw,
                                          const JobTopology& topology,
                                          const AutoscalerOptions& options,
                                          std::optional<TimePoint> job_running_since,
                                          TimePoint now, AutoscalerState* state);

}  // namespace trimtab::core::flink
