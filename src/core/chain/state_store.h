// AutoscalerStateStore: the autoscaler's persistent memory per job (upstream AutoScalerStateStore,
// notes §C.11). Each job key holds a few JSON documents, one per StateType; the stages read them
// at the start of a cycle and write them back at the end, so rate limits, stabilization windows,
// scaling history and plugin-private state hold across restarts of trimtab.
//
// Write-back semantics, as upstream: Put/Remove/ClearAll change a per-job view; only Flush(job)
// makes the view durable. A store reopened over the same storage sees exactly what was flushed.
// Implementations: InMemoryStateStore and SqliteStateStore (src/adapters/state); both pass the
// contract suite in src/adapters/state/state_store_contract_test.cc.
//
// Usage:
//   Json history;
//   Status s = store.Get(job, StateType::kScalingHistory, &history);
//   if (s.code() == StatusCode::kNotFound) history = Json::object();
//   ...
//   TRIMTAB_RETURN_IF_ERROR(store.Put(job, StateType::kScalingHistory, history));
//   TRIMTAB_RETURN_IF_ERROR(store.Flush(job));
//
// Thread-safety: implementations are safe for concurrent use.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::core {

// The documents kept per job. Names (StateTypeName) are the persisted identifiers; never rename.
enum class StateType {
  kCollectedMetrics,      // "collectedMetrics": the metric window
  kScalingHistory,        // "scalingHistory": per vertex, time -> summary
  kScalingTracking,       // "scalingTracking": rescale start times and restart durations
  kParallelismOverrides,  // "parallelismOverrides": vertex -> parallelism
  kConfigOverrides,       // "configOverrides": {overrides, removals}
  kDelayedScaleDown,      // "delayedScaleDown"
  kRecommendations,       // "recommendations": past recommendations (stabilization windows)
  kScaleEvents,           // "scaleEvents": past scale events (rate policies)
  kPluginState,           // "pluginState": executor plugin name -> private state
  kDecisionLog,           // "decisionLog": the latest decision records
  kDecisionHistory,       // "decisionHistory": bounded chart points and past decision logs
};

inline constexpr StateType kAllStateTypes[] = {
    StateType::kCollectedMetrics,  StateType::kScalingHistory,   StateType::kScalingTracking,
    StateType::kParallelismOverrides, StateType::kConfigOverrides, StateType::kDelayedScaleDown,
    StateType::kRecommendations,   StateType::kScaleEvents,      StateType::kPluginState,
    StateType::kDecisionLog,       StateType::kDecisionHistory};

std::string_view StateTypeName(StateType t);
std::optional<StateType> ParseStateType(std::string_view name);

class AutoscalerStateStore {
 public:
  virtual ~AutoscalerStateStore() = default;

  // Sets the document (in the job's view; durable after Flush).
  virtual Status Put(const std::string& job_key, StateType type, const Json& value) = 0;
  // OK and *out set when present; NotFound when absent; other codes for storage failures.
  virtual Status Get(const std::string& job_key, StateType type, Json* out) = 0;
  // Removes one document (absent is fine).
  virtual Status Remove(const std::string& job_key, StateType type) = 0;
  // Removes every document of the job (autoscaler disabled, resource deleted).
  virtual Status ClearAll(const std::string& job_key) = 0;
  // Makes the job's view durable.
  virtual Status Flush(const std::string& job_key) = 0;
  // Job keys that have durable state, sorted.
  virtual StatusOr<std::vector<std::string>> ListJobKeys() = 0;
};

}  // namespace trimtab::core
