#include "plugins/loader/chain_builder.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "plugins/loader/shared_library_loader.h"

namespace trimtab::plugins {

StatusOr<BuiltChain> BuildExecutorChain(const Json& config, const std::string& path,
                                        core::ExecutorPluginRegistry& registry) {
  JsonReader r(config, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  BuiltChain built;
  std::string directory;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("pluginDirectory", &directory));
  const Json* libraries = r.Get("libraries");
  const Json* plugins = r.Get("plugins");
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (!directory.empty()) {
    LoadReport report = LoadPluginDirectory(directory, registry);
    for (const Status& failure : report.failures) {
      spdlog::warn("executor plugins: skipped: {}", failure.ToString());
      built.warnings.push_back(failure);
    }
  }
  if (libraries != nullptr) {
    if (!libraries->is_array()) {
      return InvalidArgumentError(r.FieldPath("libraries") + ": must be a list of file paths");
    }
    for (size_t i = 0; i < libraries->size(); ++i) {
      const Json& item = (*libraries)[i];
      std::string item_path = JoinPath(r.FieldPath("libraries"), i);
      if (!item.is_string()) return InvalidArgumentError(item_path + ": must be a string");
      StatusOr<std::vector<std::string>> loaded =
          LoadSharedLibraryPlugin(item.get<std::string>(), registry);
      if (!loaded.ok()) return loaded.status().WithContext(item_path);
    }
  }
  std::vector<std::unique_ptr<core::ExecutorPlugin>> created;
  if (plugins != nullptr) {
    TRIMTAB_ASSIGN_OR_RETURN(created, registry.CreateAll(*plugins, r.FieldPath("plugins")));
  }
  TRIMTAB_ASSIGN_OR_RETURN(built.chain, core::ExecutorChain::Create(std::move(created)));
  spdlog::info("executor chain: {}", built.chain.Describe());
  return built;
}

}  // namespace trimtab::plugins
