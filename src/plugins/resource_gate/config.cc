// Registration of resource-gate: JSON config -> ResourceGateOptions -> plugin.
#include <nlohmann/json.hpp>

#include "plugins/resource_gate/resource_gate.h"

namespace trimtab::plugins {

StatusOr<ResourceGateOptions> ParseResourceGateOptions(const Json& config,
                                                       const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  ResourceGateOptions options;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("cpuThreshold", &options.cpu_threshold));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("useCurrent", &options.use_current));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("gateScaleDowns", &options.gate_scale_downs));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (!(options.cpu_threshold > 0 && options.cpu_threshold <= 1)) {
    return InvalidArgumentError(r.FieldPath("cpuThreshold") + ": must be in (0, 1]");
  }
  return options;
}

Status RegisterResourceGate(core::ExecutorPluginRegistry& registry) {
  return registry.Register(
      kResourceGateType,
      [](const core::PluginIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<core::ExecutorPlugin>> {
        TRIMTAB_ASSIGN_OR_RETURN(ResourceGateOptions options,
                                 ParseResourceGateOptions(config, path));
        return std::unique_ptr<core::ExecutorPlugin>(
            std::make_unique<ResourceGate>(identity, options));
      });
}

}  // namespace trimtab::plugins
