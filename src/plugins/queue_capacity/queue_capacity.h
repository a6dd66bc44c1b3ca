// queue-capacity: keeps a scale-up within what the job's Volcano queue and the nodes can admit,
// before anything is restarted (docs/plugins.md "queue-capacity"). Reads
// ExecutorContext::queue, which the operator fills when the job's TaskManagers are in a Volcano
// queue (docs/gang-scheduling.md).
//
//   no scale-up                  -> approve (scale-downs are never touched)
//   no queue facts               -> approve (the job is not in a Volcano queue)
//   queue facts unreadable,
//   queue missing / not Open     -> veto, naming the queue
//   TaskManager requests unknown,
//   free node room unknown       -> veto (when in doubt, do nothing)
//   otherwise                    -> extra TaskManagers = min(what the queue admits, what fits
//                                   on the nodes); the job may grow to (its TaskManager pods +
//                                   extra) x slots per TaskManager: approve when the decision
//                                   fits, trim the scale-ups to fit (modify, slot_math.h
//                                   CapScaleUps), veto when no scale-up is left; the reason
//                                   carries the numbers
//
// What the queue admits, per dimension the TaskManager requests (cpu, memory):
//   limit = capability (absent or <= 0: unlimited), lowered to
//           (cluster total - every queue's guarantee)+ + own guarantee (Volcano's
//           realCapability), and, unless allowBorrowing, to max(deserved, guarantee) when
//           deserved is set (room above deserved can be reclaimed by other queues: a whole-job
//           restart for a streaming job)
//   room  = limit - allocated; TaskManagers = floor(room / request), the smallest dimension wins
// What fits on the nodes: the sum over nodes of floor(free / request), smallest dimension per
// node.
//
// Config (all optional):
//   {"slotSharing": true,        // slots = largest parallelism (true) or the sum (false)
//    "allowBorrowing": false}    // let the job grow above the queue's deserved share
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

inline constexpr const char kQueueCapacityType[] = "queue-capacity";
// The priority of the instance the operator adds to every chain that has none: last.
inline constexpr int kQueueCapacityDefaultPriority = 1000000;

struct QueueCapacityOptions {
  bool slot_sharing = true;
  bool allow_borrowing = false;
};

class QueueCapacity final : public core::ExecutorPlugin {
 public:
  QueueCapacity(core::PluginIdentity identity, QueueCapacityOptions options)
      : ExecutorPlugin(std::move(identity)), options_(options) {}

  StatusOr<core::ExecutorResult> Execute(const core::ExecutorContext& context,
                                         const core::ScalingSummaries& summaries,
                                         core::CycleState& cycle, Json& plugin_state) override;

 private:
  QueueCapacityOptions options_;
};

StatusOr<QueueCapacityOptions> ParseQueueCapacityOptions(const Json& config,
                                                         const std::string& path);
Status RegisterQueueCapacity(core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
