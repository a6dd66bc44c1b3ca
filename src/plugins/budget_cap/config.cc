// Registration of budget-cap: JSON config -> BudgetCapOptions -> plugin.
#include <nlohmann/json.hpp>

#include "plugins/budget_cap/budget_cap.h"

namespace trimtab::plugins {

StatusOr<BudgetCapOptions> ParseBudgetCapOptions(const Json& config, const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  BudgetCapOptions o;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("maxSlotsPerJob", &o.max_slots_per_job));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("maxSlotsPerNamespace", &o.max_slots_per_namespace));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("maxCostPerJob", &o.max_cost_per_job));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("maxCostPerNamespace", &o.max_cost_per_namespace));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("costPerSlot", &o.cost_per_slot));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("slotSharing", &o.slot_sharing));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (!o.max_slots_per_job && !o.max_slots_per_namespace && !o.max_cost_per_job &&
      !o.max_cost_per_namespace) {
    return InvalidArgumentError(path + ": set at least one of maxSlotsPerJob, maxSlotsPerNamespace, "
                                       "maxCostPerJob, maxCostPerNamespace");
  }
  for (auto [field, value] : {std::pair{"maxSlotsPerJob", o.max_slots_per_job},
                              std::pair{"maxSlotsPerNamespace", o.max_slots_per_namespace}}) {
    if (value && *value < 1) return InvalidArgumentError(r.FieldPath(field) + ": must be >= 1");
  }
  for (auto [field, value] : {std::pair{"maxCostPerJob", o.max_cost_per_job},
                              std::pair{"maxCostPerNamespace", o.max_cost_per_namespace}}) {
    if (value && *value <= 0) return InvalidArgumentError(r.FieldPath(field) + ": must be > 0");
  }
  if ((o.max_cost_per_job || o.max_cost_per_namespace) && !(o.cost_per_slot > 0)) {
    return InvalidArgumentError(r.FieldPath("costPerSlot") +
                                ": must be > 0 when a cost limit is set");
  }
  return o;
}

Status RegisterBudgetCap(core::ExecutorPluginRegistry& registry) {
  return registry.Register(
      kBudgetCapType,
      [](const core::PluginIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<core::ExecutorPlugin>> {
        TRIMTAB_ASSIGN_OR_RETURN(BudgetCapOptions options, ParseBudgetCapOptions(config, path));
        return std::unique_ptr<core::ExecutorPlugin>(
            std::make_unique<BudgetCap>(identity, options));
      });
}

}  // namespace trimtab::plugins
