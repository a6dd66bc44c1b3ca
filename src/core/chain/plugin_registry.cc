#include "core/chain/plugin_registry.h"

#include <set>

#include <nlohmann/json.hpp>

namespace trimtab::core {

Status ExecutorPluginRegistry::Register(std::string type, ExecutorPluginFactory factory,
                                        std::string origin) {
  if (type.empty()) return InvalidArgumentError("executor plugin registry: empty plugin type");
  if (!factory) {
    return InvalidArgumentError("executor plugin registry: plugin \"" + type + "\" has no factory");
  }
  auto it = entries_.find(type);
  if (it != entries_.end()) {
    return AlreadyExistsError("executor plugin registry: plugin \"" + type + "\" from " + origin +
                              " is already registered from " + it->second.origin);
  }
  entries_.emplace(std::move(type), Entry{std::move(factory), std::move(origin)});
  return Status::Ok();
}

bool ExecutorPluginRegistry::Contains(std::string_view type) const {
  return entries_.find(type) != entries_.end();
}

std::vector<std::string> ExecutorPluginRegistry::Types() const {
  std::vector<std::string> types;
  for (const auto& [type, entry] : entries_) types.push_back(type);
  return types;
}

std::string ExecutorPluginRegistry::OriginOf(std::string_view type) const {
  auto it = entries_.find(type);
  return it == entries_.end() ? std::string() : it->second.origin;
}

StatusOr<std::unique_ptr<ExecutorPlugin>> ExecutorPluginRegistry::Create(
    std::string_view type, const PluginIdentity& identity, const Json& config,
    const std::string& config_path) const {
  auto it = entries_.find(type);
  if (it == entries_.end()) {
    std::string known;
    for (const auto& [name, entry] : entries_) known += (known.empty() ? "" : ", ") + name;
    return NotFoundError("unknown executor plugin type \"" + std::string(type) + "\" (known: " +
                         (known.empty() ? "none" : known) + ")");
  }
  StatusOr<std::unique_ptr<ExecutorPlugin>> plugin =
      it->second.factory(identity, config, config_path);
  if (!plugin.ok()) {
    return plugin.status().WithContext("plugin \"" + identity.name + "\" (" + std::string(type) +
                                       ")");
  }
  if (*plugin == nullptr) {
    return InternalError("plugin \"" + identity.name + "\" (" + std::string(type) +
                         "): factory returned no plugin");
  }
  return plugin;
}

StatusOr<std::vector<std::unique_ptr<ExecutorPlugin>>> ExecutorPluginRegistry::CreateAll(
    const Json& specs, const std::string& path) const {
  if (!specs.is_array()) {
    return InvalidArgumentError(path + ": must be a list of plugin specs, got " +
                                std::string(JsonTypeName(specs)));
  }
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  std::set<std::string> names;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string spec_path = JoinPath(path, i);
    JsonReader r(specs[i], spec_path);
    TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
    std::string type;
    TRIMTAB_RETURN_IF_ERROR(r.RequiredString("type", &type));
    PluginIdentity identity{.name = type, .priority = 0};
    TRIMTAB_RETURN_IF_ERROR(r.OptionalString("name", &identity.name));
    int64_t priority = 0;
    TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("priority", &priority));
    if (priority < -1000000 || priority > 1000000) {
      return InvalidArgumentError(r.FieldPath("priority") + ": must be within [-1000000, 1000000]");
    }
    identity.priority = static_cast<int>(priority);
    const Json* config = r.Get("config");
    TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
    if (identity.name.empty()) {
      return InvalidArgumentError(r.FieldPath("name") + ": must not be empty");
    }
    if (!names.insert(identity.name).second) {
      return AlreadyExistsError(r.FieldPath("name") + ": plugin name \"" + identity.name +
                                "\" is used twice in the chain");
    }
    static const Json kEmptyObject = Json::object();
    TRIMTAB_ASSIGN_OR_RETURN(
        std::unique_ptr<ExecutorPlugin> plugin,
        Create(type, identity, config ? *config : kEmptyObject, JoinPath(spec_path, "config")));
    plugins.push_back(std::move(plugin));
  }
  return plugins;
}

}  // namespace trimtab::core
