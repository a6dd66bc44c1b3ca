// AutoscalerState: everything the Flink autoscaler remembers between cycles, as one explicit
// value passed in and returned by RunAutoscalerCycle (autoscaler.h). The operator persists it in
// a ConfigMap, the standalone autoscaler in SQL, the simulator in memory; the JSON codec is in
// autoscaler_state_json.h and the format is documented in docs/eval-flink.md.
//
// Invariants:
//   1. `metric_window` is sorted by time, strictly increasing.
//   2. Per vertex, `scaling_history` is sorted by time and holds at most history.max.count
//      entries younger than history.max.age (trimmed on commit).
//   3. Per vertex, delayed scale-down recommendations are sorted by time with strictly
//      decreasing parallelism.
//
// Thread-safety: plain values.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "core/flink/sample_values.h"
#include "core/hpa/state.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {

// One collected sample (upstream CollectedMetrics): ScalingMetric name -> value, per vertex and
// job-wide (sample_values.h). A missing name means "not available" (upstream NaN). Values may be
// +inf (OBSERVED_TPR when nothing flows).
struct CollectedSample {
  TimePoint time;
  std::map<VertexId, SampleValues> vertices;
  SampleValues global;
};

struct ScalingHistoryEntry {
  TimePoint time;
  ScalingSummary summary;  // metrics include TRUE_PROCESSING_RATE and EXPECTED_PROCESSING_RATE
};

// One executed scaling, for restart-time tracking (upstream ScalingTracking).
struct ScalingRecord {
  TimePoint time;
  std::map<VertexId, int> target_parallelism;  // vertices that were scaled
  std::optional<Millis> restart_duration;      // set once the job ran with the new parallelism
  // trimtab (restart.time-tracking.backlog.enabled): set with restart_duration, the input the
  // restart left waiting beyond the lag before it (downtime plus records replayed from the last
  // checkpoint), in time at the sources' arrival rate before the restart.
  std::optional<Millis> restart_backlog;
};

struct DelayedScaleDownRecommendation {
  TimePoint time;
  int parallelism = 0;
  bool outside_utilization_bound = false;
};

struct VertexDelayedScaleDown {
  TimePoint first_trigger_time;
  std::vector<DelayedScaleDownRecommendation> recommendations;
};

// Flink configuration overrides and keys to remove (upstream ConfigChanges): the TaskManager
// memory that memory tuning (memory_tuning.h) chose.
struct ConfigChanges {
  std::map<std::string, std::string> overrides;
  std::set<std::string> removals;
  bool empty() const { return overrides.empty() && removals.empty(); }
  bool operator==(const ConfigChanges&) const = default;
};

struct AutoscalerState {
  std::vector<CollectedSample> metric_window;
  std::map<VertexId, std::vector<ScalingHistoryEntry>> scaling_history;
  std::vector<ScalingRecord> scaling_tracking;
  std::map<VertexId, VertexDelayedScaleDown> delayed_scale_down;
  // trimtab behavior rules (BehaviorOptions), per vertex: the HPA engine's history of
  // recommendations (stabilization windows) and scale events (rate policies), in its own format.
  std::map<VertexId, hpa::HpaState> behavior;
  // Parallelism the autoscaler wants for every vertex (written after an executed scaling; the
  // realizer merges them into pipeline.jobvertex-parallelism-overrides).
  std::map<VertexId, int> parallelism_overrides;
  // The memory tuning of the last executed scaling (empty unless memory.tuning.enabled); the
  // realizer applies it to the Flink configuration while memory tuning stays enabled.
  ConfigChanges config_overrides;

  bool empty() const {
    return metric_window.empty() && scaling_history.empty() && scaling_tracking.empty() &&
           delayed_scale_down.empty() && behavior.empty() && parallelism_overrides.empty() &&
           config_overrides.empty();
  }
};

}  // namespace trimtab::core::flink
