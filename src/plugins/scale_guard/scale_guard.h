// scale-guard: keeps one autoscaler decision from jumping far beyond what the job has shown it
// can use and what the cluster can hold (issue 28: one minute of implausible metrics took a
// vertex from 2 to 128 in one decision; the job could not be scheduled and stayed CREATED). The
// operator puts it in every chain that has none (docs/plugins.md "scale-guard").
//
//   implausible metrics       -> veto, naming the vertex and the metric: a LOAD outside
//                                [0, 1.5] (busy time beyond 1000 ms/s), a negative or NaN
//                                rate or lag (a broken reporter or proxy, not the job)
//   no scale-up               -> approve (scale-downs are never touched)
//   per vertex that scales up -> new parallelism at most
//                                  max(ceil(current x maxFactor), highest parallelism the vertex
//                                      was seen running at by an earlier decision)
//                                a larger proposal is lowered to that bound (modify); the reason
//                                names the vertex, the proposal, the bound and where it came from
//   cluster room              -> when ExecutorContext::cluster is set (a job outside a Volcano
//                                queue; queue-capacity covers the others), the job may grow to
//                                (its TaskManager pods + the TaskManagers that fit in the nodes'
//                                free room) x slots per TaskManager; scale-ups are trimmed to fit
//                                (slot_math.h CapScaleUps), vetoed when none fits; unknown
//                                TaskManager requests or free room: only the factor bound applies
//
// Plugin state (per job): {"highestRunning": {"<vertex>": n}}, the largest parallelism each
// vertex ran at when a decision was taken (decisions are taken only for RUNNING jobs).
//
// Config (all optional):
//   {"maxFactor": 4,        // >= 1; 0 turns the factor bound off
//    "clusterRoom": true,   // cap scale-ups to the free room on the nodes
//    "plausibility": true,  // veto decisions taken on implausible metrics
//    "slotSharing": true}   // slots = largest parallelism (true) or the sum (false)
//
// Thread-safety: immutable after construction.
#pragma once

#include <memory>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_plugin.h"
#include "core/chain/plugin_registry.h"

namespace trimtab::plugins {

inline constexpr const char kScaleGuardType[] = "scale-guard";
// The priority of the instance the operator adds to every chain that has none: after the
// user's plugins, before queue-capacity.
inline constexpr int kScaleGuardDefaultPriority = 999000;

struct ScaleGuardOptions {
  double max_factor = 4.0;   // bound on new / current per decision; 0 = no bound
  bool cluster_room = true;  // cap to what fits in the free room of the nodes
  bool plausibility = true;  // veto on implausible evaluated metrics
  bool slot_sharing = true;  // slots = largest parallelism (true) or the sum (false)
};

class ScaleGuard final : public core::ExecutorPlugin {
 public:
  ScaleGuard(core::PluginIdentity identity, ScaleGuardOptions options)
      : ExecutorPlugin(std::move(identity)), options_(options) {}

  StatusOr<core::ExecutorResult> Execute(const core::ExecutorContext& context,
                                         const core::ScalingSummaries& summaries,
                                         core::CycleState& cycle, Json& plugin_state) override;

 private:
  ScaleGuardOptions options_;
};

// How many TaskManagers of `headroom.task_manager`'s size fit in `headroom.node_free`; nullopt
// when the requests or the free room are unknown.
std::optional<int64_t> TaskManagersThatFit(const core::QueueHeadroom& headroom);

// config.cc: typed options from JSON (unknown fields rejected) and registration.
StatusOr<ScaleGuardOptions> ParseScaleGuardOptions(const Json& config, const std::string& path);
Status RegisterScaleGuard(core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
