// budget-cap: caps the task slots (or their cost) a job may grow to, per job and per namespace.
// A scale-up that would cross a limit is cut down to fit (modify); if nothing of it fits, it is
// vetoed. Scale-downs always pass. Which vertex is cut is deterministic (core/chain/slot_math.h).
//
// Limits, any combination, at least one:
//   maxSlotsPerJob                 slots of this job
//   maxCostPerJob                  costPerSlot x slots of this job
//   maxSlotsPerNamespace           slots of every job in the job's namespace; the other jobs' slots
//                                  come from ExecutorContext::fleet
//   maxCostPerNamespace            same, in cost
// Cost limits need costPerSlot (> 0, any currency per slot and period). With slotSharing (the
// default, Flink's default) a job needs as many slots as its largest vertex parallelism, without
// it the sum of all parallelisms.
//
// Example: {"maxSlotsPerJob": 32, "maxCostPerNamespace": 500, "costPerSlot": 4.5}
//
// Thread-safety: immutable after construction.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_plugin.h"
#include "core/chain/plugin_registry.h"

namespace trimtab::plugins {

inline constexpr const char kBudgetCapType[] = "budget-cap";

struct BudgetCapOptions {
  std::optional<int64_t> max_slots_per_job;
  std::optional<int64_t> max_slots_per_namespace;
  std::optional<double> max_cost_per_job;
  std::optional<double> max_cost_per_namespace;
  double cost_per_slot = 0;  // required (> 0) when a cost limit is set
  bool slot_sharing = true;  // slots = max parallelism (true) or sum of parallelisms (false)
};

class BudgetCap final : public core::ExecutorPlugin {
 public:
  BudgetCap(core::PluginIdentity identity, BudgetCapOptions options)
      : ExecutorPlugin(std::move(identity)), options_(options) {}

  StatusOr<core::ExecutorResult> Execute(const core::ExecutorContext& context,
                                         const core::ScalingSummaries& summaries,
                                         core::CycleState& cycle, Json& plugin_state) override;

 private:
  BudgetCapOptions options_;
};

StatusOr<BudgetCapOptions> ParseBudgetCapOptions(const Json& config, const std::string& path);
Status RegisterBudgetCap(core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
