#include "plugins/multi_job_coordinator/multi_job_coordinator.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "common/number_format.h"
#include "core/chain/slot_math.h"

namespace trimtab::plugins {
namespace {

StatusOr<double> JobWeight(const core::ExecutorContext& context, const std::string& key) {
  auto it = context.configuration.find(key);
  if (it == context.configuration.end()) return 1.0;
  const char* begin = it->second.c_str();
  char* end = nullptr;
  double w = std::strtod(begin, &end);
  if (end == begin || *end != '\0' || !(w > 0) || !std::isfinite(w)) {
    return InvalidArgumentError("configuration " + key + ": weight \"" + it->second +
                                "\" must be a number > 0");
  }
  return w;
}

}  // namespace

StatusOr<core::ExecutorResult> MultiJobCoordinator::Execute(
    const core::ExecutorContext& context, const core::ScalingSummaries& summaries,
    core::CycleState& cycle, Json& plugin_state) {
  if (!core::HasScaleUp(summaries)) return core::ExecutorResult::Approve("no scale-up");
  TRIMTAB_ASSIGN_OR_RETURN(double weight, JobWeight(context, options_.weight_key));
  std::vector<const core::JobFootprint*> others;
  double total_weight = weight;
  for (const core::JobFootprint& f : context.fleet) {
    if (f.job_key == context.job_key) continue;
    if (options_.namespace_scope && f.namespace_name != context.namespace_name) continue;
    if (!(f.weight > 0)) {
      return InvalidArgumentError("fleet job " + f.job_key + ": weight must be > 0");
    }
    others.push_back(&f);
    total_weight += f.weight;
  }
  const double total = static_cast<double>(options_.total_slots);
  const double share = total * weight / total_weight;
  double reserved = 0;
  for (const core::JobFootprint* f : others) {
    double their_share = total * f->weight / total_weight;
    double demand = f->desired_slots > 0 ? f->desired_slots : f->slots;
    reserved += std::max<double>(f->slots, std::min(demand, their_share));
  }
  const int allowed = static_cast<int>(
      std::max(std::floor(share + 1e-9), std::max(0.0, std::floor(total - reserved + 1e-9))));
  const std::string basis = "fair share " + FormatFixed(share, 1) + " of " +
                            std::to_string(options_.total_slots) + " slots, others reserve " +
                            FormatFixed(reserved, 1) + ", allowed " + std::to_string(allowed);
  const int after = core::SlotsNeeded(context.topology, summaries, options_.slot_sharing, true);
  if (after <= allowed) {
    return core::ExecutorResult::Approve(std::to_string(after) + " slots within " + basis);
  }
  core::ScalingSummaries capped =
      core::CapScaleUps(context.topology, summaries, allowed, options_.slot_sharing);
  if (capped.empty()) {
    return core::ExecutorResult::Veto("no room for a scale-up: " + basis);
  }
  int capped_slots = core::SlotsNeeded(context.topology, capped, options_.slot_sharing, true);
  return core::ExecutorResult::Modify(std::move(capped),
                                      "capped from " + std::to_string(after) + " to " +
                                          std::to_string(capped_slots) + " slots: " + basis);
}

}  // namespace trimtab::plugins
