// Registration of source-aligned: JSON config -> SourceAlignedOptions -> plugin.
#include <nlohmann/json.hpp>

#include "plugins/source_aligned/source_aligned.h"

namespace trimtab::plugins {

StatusOr<SourceAlignedOptions> ParseSourceAlignedOptions(const Json& config,
                                                         const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  SourceAlignedOptions options;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("lagThreshold", &options.lag_threshold));
  TRIMTAB_RETURN_IF_ERROR(
      r.OptionalBool("clampToMaxParallelism", &options.clamp_to_max_parallelism));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (options.lag_threshold < 0) {
    return InvalidArgumentError(r.FieldPath("lagThreshold") + ": must be >= 0");
  }
  return options;
}

Status RegisterSourceAligned(core::ExecutorPluginRegistry& registry) {
  return registry.Register(
      kSourceAlignedType,
      [](const core::PluginIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<core::ExecutorPlugin>> {
        TRIMTAB_ASSIGN_OR_RETURN(SourceAlignedOptions options,
                                 ParseSourceAlignedOptions(config, path));
        return std::unique_ptr<core::ExecutorPlugin>(
            std::make_unique<SourceAligned>(identity, options));
      });
}

}  // namespace trimtab::plugins
