// Scaling policies that run trimtab's Flink decision core (src/core/flink) on the simulated job,
// through the same code path the operator uses every loop:
//
//   snapshot -> ToAutoscalerSample -> RunAutoscalerCycle(commit = false)
//            -> executor chain (src/core/chain, built-in plugins) -> CommitScaling(approved)
//            -> rescale to the approved parallelism
//
// The autoscaler state, the plugins' private state and the TaskManager CPU window live in the
// policy object (the operator persists the same values per job).
//
//   flink-compat  the upstream Flink autoscaler with upstream defaults and no plugin chain:
//                 only `job.autoscaler.enabled: true` is set.
//   trimtab       the default trimtab policy: the upstream algorithm with trimtab's defaults
//                 (TrimtabDefaultConfiguration: utilization band, behavior window, restart-time
//                 tracking, ...) and its executor chain (TrimtabDefaultPlugins: the
//                 restart-cost-gate, with the reasons for its settings).
//
// Scenario config of both (every field optional):
//   config:
//     configuration: {job.autoscaler.utilization.target: 0.8, ...}  # merged over the defaults
//     plugins: [{type: restart-cost-gate, config: {periodSeconds: 1800}}]  # replaces the chain
//
// Both always take the operator's path: commit = false, the chain (an empty chain passes the
// summaries through), then CommitScaling with what the chain approved.
//
// Every rescale's reasons carry the decision log: the evaluate line of each changed vertex, each
// vertex's reasons in stage order, and every plugin's verdict.
//
// Thread-safety: a policy object serves one simulation run.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "sim/policy.h"

namespace trimtab::sim {

inline constexpr const char kTrimtabPolicy[] = "trimtab";
inline constexpr const char kFlinkCompatPolicy[] = "flink-compat";

// The Flink configuration the `trimtab` policy starts from (job.autoscaler.* keys).
std::map<std::string, std::string> TrimtabDefaultConfiguration();
// The executor chain of the `trimtab` policy (a JSON array of plugin specs).
Json TrimtabDefaultPlugins();

// A policy running the Flink decision core. `base_configuration` and `base_plugins` are the
// policy's defaults; `config` is the scenario's config object for it (may be null).
StatusOr<std::unique_ptr<ScalingPolicy>> MakeFlinkAutoscalerPolicy(
    std::string name, std::map<std::string, std::string> base_configuration, Json base_plugins,
    const Json& config);

StatusOr<std::unique_ptr<ScalingPolicy>> MakeTrimtabPolicy(const Json& config);
StatusOr<std::unique_ptr<ScalingPolicy>> MakeFlinkCompatPolicy(const Json& config);

}  // namespace trimtab::sim
