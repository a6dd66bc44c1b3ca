// Registration of restart-cost-gate: JSON config -> options -> plugin.
#include <nlohmann/json.hpp>

#include "plugins/restart_cost_gate/restart_cost_gate.h"

namespace trimtab::plugins {

StatusOr<RestartCostGateOptions> ParseRestartCostGateOptions(const Json& config,
                                                             const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  RestartCostGateOptions o;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("periodSeconds", &o.period_seconds));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("restartSeconds", &o.restart_seconds));
  TRIMTAB_RETURN_IF_ERROR(
      r.OptionalDouble("scaleDownRecordsPerSlotSecond", &o.scale_down_records_per_slot_second));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("approveAboveLagSeconds", &o.approve_above_lag_seconds));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("slotSharing", &o.slot_sharing));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("observedRestartTime", &o.observed_restart_time));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("scaleDownBreakEven", &o.scale_down_break_even));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("breakEvenGapSeconds", &o.break_even_gap_seconds));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (!(o.period_seconds > 0)) {
    return InvalidArgumentError(r.FieldPath("periodSeconds") + ": must be > 0");
  }
  if (!(o.restart_seconds >= 0)) {
    return InvalidArgumentError(r.FieldPath("restartSeconds") + ": must be >= 0");
  }
  if (!(o.scale_down_records_per_slot_second >= 0)) {
    return InvalidArgumentError(r.FieldPath("scaleDownRecordsPerSlotSecond") + ": must be >= 0");
  }
  if (!(o.approve_above_lag_seconds >= 0)) {
    return InvalidArgumentError(r.FieldPath("approveAboveLagSeconds") + ": must be >= 0 (0 = off)");
  }
  if (!(o.break_even_gap_seconds > 0)) {
    return InvalidArgumentError(r.FieldPath("breakEvenGapSeconds") + ": must be > 0");
  }
  if (o.scale_down_break_even && !(o.scale_down_records_per_slot_second > 0)) {
    return InvalidArgumentError(r.FieldPath("scaleDownBreakEven") +
                                ": needs scaleDownRecordsPerSlotSecond > 0 (scale-downs are not "
                                "gated without it, so there is no veto to break even on)");
  }
  return o;
}

Status RegisterRestartCostGate(core::ExecutorPluginRegistry& registry) {
  return registry.Register(
      kRestartCostGateType,
      [](const core::PluginIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<core::ExecutorPlugin>> {
        TRIMTAB_ASSIGN_OR_RETURN(RestartCostGateOptions options,
                                 ParseRestartCostGateOptions(config, path));
        return std::unique_ptr<core::ExecutorPlugin>(
            std::make_unique<RestartCostGate>(identity, options));
      });
}

}  // namespace trimtab::plugins
