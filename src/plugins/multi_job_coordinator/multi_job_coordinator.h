// multi-job-coordinator: several jobs draw on one shared slot budget, and one job's scale-up must
// not starve the others. Every job has a fair share of the budget in proportion to its weight.
// A job may always grow up to its own fair share; beyond that it may only take what the other jobs
// leave unreserved, where another job reserves what it uses now or, if more, what it is asking
// for up to its own fair share:
//
//   share(j)     = totalSlots * weight(j) / sum of weights (this job and the others in scope)
//   reserved(i)  = max(slots(i), min(demand(i), share(i)))       demand = desiredSlots or slots
//   allowed(j)   = max(floor(share(j)), totalSlots - sum over others of reserved(i))
//
// A scale-up beyond allowed(j) is cut down to fit (modify), or vetoed if nothing fits; scale-downs
// always pass. The other jobs come from ExecutorContext::fleet; `scope` picks which of them share
// the budget ("all", or only those in the job's "namespace"). This job's weight is read from its
// configuration key `weightKey` (default 1).
//
// Example: {"totalSlots": 64, "scope": "namespace"}
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

inline constexpr const char kMultiJobCoordinatorType[] = "multi-job-coordinator";

struct MultiJobCoordinatorOptions {
  int64_t total_slots = 0;                 // the shared budget (required, >= 1)
  bool namespace_scope = false;            // share only with jobs of the same namespace
  std::string weight_key = "trimtab.coordinator.weight";  // configuration key of the job weight
  bool slot_sharing = true;                // slots = max parallelism (true) or sum (false)
};

class MultiJobCoordinator final : public core::ExecutorPlugin {
 public:
  MultiJobCoordinator(core::PluginIdentity identity, MultiJobCoordinatorOptions options)
      : ExecutorPlugin(std::move(identity)), options_(std::move(options)) {}

  StatusOr<core::ExecutorResult> Execute(const core::ExecutorContext& context,
                                         const core::ScalingSummaries& summaries,
                                         core::CycleState& cycle, Json& plugin_state) override;

 private:
  MultiJobCoordinatorOptions options_;
};

StatusOr<MultiJobCoordinatorOptions> ParseMultiJobCoordinatorOptions(const Json& config,
                                                                     const std::string& path);
Status RegisterMultiJobCoordinator(core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
