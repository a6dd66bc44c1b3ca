// Registration of queue-capacity: JSON config -> QueueCapacityOptions -> plugin.
#include <nlohmann/json.hpp>

#include "plugins/queue_capacity/queue_capacity.h"

namespace trimtab::plugins {

StatusOr<QueueCapacityOptions> ParseQueueCapacityOptions(const Json& config,
                                                         const std::string& path) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  QueueCapacityOptions options;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("slotSharing", &options.slot_sharing));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("allowBorrowing", &options.allow_borrowing));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return options;
}

Status RegisterQueueCapacity(core::ExecutorPluginRegistry& registry) {
  return registry.Register(
      kQueueCapacityType,
      [](const core::PluginIdentity& identity, const Json& config,
         const std::string& path) -> StatusOr<std::unique_ptr<core::ExecutorPlugin>> {
        TRIMTAB_ASSIGN_OR_RETURN(QueueCapacityOptions options,
                                 ParseQueueCapacityOptions(config, path));
        return std::unique_ptr<core::ExecutorPlugin>(
            std::make_unique<QueueCapacity>(identity, options));
      });
}

}  // namespace trimtab::plugins
