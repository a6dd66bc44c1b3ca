#include "plugins/budget_cap/budget_cap.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/chain/slot_math.h"

namespace trimtab::plugins {
namespace {

struct Limit {
  int64_t slots = std::numeric_limits<int64_t>::max();
  std::string what;  // the binding limit, for the reason

  void Consider(int64_t candidate, std::string description) {
    if (candidate < slots) {
      slots = candidate;
      what = std::move(description);
    }
  }
};

int64_t SlotsForCost(double cost, double cost_per_slot) {
  return static_cast<int64_t>(std::floor(cost / cost_per_slot + 1e-9));
}

}  // namespace

StatusOr<core::ExecutorResult> BudgetCap::Execute(const core::ExecutorContext& context,
                                                  const core::ScalingSummaries& summaries,
                                                  core::CycleState& cycle, Json& plugin_state) {
  if (!core::HasScaleUp(summaries)) return core::ExecutorResult::Approve("no scale-up");
  int64_t others_in_namespace = 0;
  for (const core::JobFootprint& f : context.fleet) {
    if (f.job_key != context.job_key && f.namespace_name == context.namespace_name) {
      others_in_namespace += f.slots;
    }
  }
  const std::string others = std::to_string(others_in_namespace);
  Limit limit;
  if (options_.max_slots_per_job) {
    limit.Consider(*options_.max_slots_per_job,
                   "per-job limit of " + std::to_string(*options_.max_slots_per_job) + " slots");
  }
  if (options_.max_cost_per_job) {
    int64_t slots = SlotsForCost(*options_.max_cost_per_job, options_.cost_per_slot);
    limit.Consider(slots, "per-job cost limit (" + std::to_string(slots) + " slots)");
  }
  if (options_.max_slots_per_namespace) {
    limit.Consider(*options_.max_slots_per_namespace - others_in_namespace,
                   "namespace limit of " + std::to_string(*options_.max_slots_per_namespace) +
                       " slots, " + others + " used by other jobs");
  }
  if (options_.max_cost_per_namespace) {
    int64_t slots = SlotsForCost(*options_.max_cost_per_namespace, options_.cost_per_slot);
    limit.Consider(slots - others_in_namespace, "namespace cost limit (" + std::to_string(slots) +
                                                    " slots), " + others +
                                                    " used by other jobs");
  }
  const int allowed = static_cast<int>(std::clamp<int64_t>(limit.slots, 0, 1 << 30));
  const int before = core::SlotsNeeded(context.topology, summaries, options_.slot_sharing, false);
  const int after = core::SlotsNeeded(context.topology, summaries, options_.slot_sharing, true);
  if (after <= allowed) {
    return core::ExecutorResult::Approve(std::to_string(after) + " slots within " + limit.what);
  }
  core::ScalingSummaries capped =
      core::CapScaleUps(context.topology, summaries, allowed, options_.slot_sharing);
  if (capped.empty()) {
    return core::ExecutorResult::Veto("budget exhausted: job uses " + std::to_string(before) +
                                      " slots, " + std::to_string(allowed) + " allowed by " +
                                      limit.what);
  }
  int capped_slots = core::SlotsNeeded(context.topology, capped, options_.slot_sharing, true);
  return core::ExecutorResult::Modify(
      std::move(capped), "capped from " + std::to_string(after) + " to " +
                             std::to_string(capped_slots) + " slots by " + limit.what);
}

}  // namespace trimtab::plugins
