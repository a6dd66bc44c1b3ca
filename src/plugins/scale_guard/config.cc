// Registration of scale-guard: JSON config -> ScaleGuardOptions -> plugin.
#include <nlohmann/json.hpp>

#include "plugins/scale_guard/scale_guard.h"

namespace trimtab::plugins {

StatusOr<ScaleGuardOptions> ParseScaleGuardOptions(const Json& config, const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  ScaleGuardOptions options;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("maxFactor", &options.max_factor));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("clusterRoom", &options.cluster_room));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("slotSharing", &options.slot_sharing));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("plausibility", &options.plausibility));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (!(options.max_factor == 0 || options.max_factor >= 1)) {
    return InvalidArgumentError(r.FieldPath("maxFactor") + ": must be 0 (off) or at least 1");
  }
  return options;
}

Status RegisterScaleGuard(core::ExecutorPluginRegistry& registry) {
  return registry.Register(
      kScaleGuardType,
      [](const core::PluginIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<core::ExecutorPlugin>> {
        TRIMTAB_ASSIGN_OR_RETURN(ScaleGuardOptions options, ParseScaleGuardOptions(config, path));
        return std::unique_ptr<core::ExecutorPlugin>(
            std::make_unique<ScaleGuard>(identity, options));
      });
}

}  // namespace trimtab::plugins
