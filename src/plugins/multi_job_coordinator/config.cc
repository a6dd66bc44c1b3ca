// Registration of multi-job-coordinator: JSON config -> options -> plugin.
#include <nlohmann/json.hpp>

#include "plugins/multi_job_coordinator/multi_job_coordinator.h"

namespace trimtab::plugins {

StatusOr<MultiJobCoordinatorOptions> ParseMultiJobCoordinatorOptions(const Json& config,
                                                                     const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  MultiJobCoordinatorOptions o;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredInt("totalSlots", &o.total_slots));
  std::string scope = "all";
  TRIMTAB_RETURN_IF_ERROR(r.OptionalEnum("scope", {"all", "namespace"}, &scope));
  o.namespace_scope = scope == "namespace";
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("weightKey", &o.weight_key));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("slotSharing", &o.slot_sharing));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (o.total_slots < 1) return InvalidArgumentError(r.FieldPath("totalSlots") + ": must be >= 1");
  if (o.weight_key.empty()) {
    return InvalidArgumentError(r.FieldPath("weightKey") + ": must not be empty");
  }
  return o;
}

Status RegisterMultiJobCoordinator(core::ExecutorPluginRegistry& registry) {
  return registry.Register(
      kMultiJobCoordinatorType,
      [](const core::PluginIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<core::ExecutorPlugin>> {
        TRIMTAB_ASSIGN_OR_RETURN(MultiJobCoordinatorOptions options,
                                 ParseMultiJobCoordinatorOptions(config, path));
        return std::unique_ptr<core::ExecutorPlugin>(
            std::make_unique<MultiJobCoordinator>(identity, std::move(options)));
      });
}

}  // namespace trimtab::plugins
