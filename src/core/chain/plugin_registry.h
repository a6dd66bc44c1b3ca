// ExecutorPluginRegistry: plugin type name -> factory, for the executor chain. One registry per
// process; built-in plugins are added by RegisterBuiltinExecutorPlugins (src/plugins/builtin),
// shared-library plugins by the loader (src/plugins/loader), the webhook kind by
// src/plugins/webhook. Names are unique: registering a name twice fails.
//
// A factory takes the plugin's JSON config, parses it into the plugin's typed options (unknown
// fields are an error naming the field path) and returns the plugin or an error.
//
// The chain configuration is a JSON list of plugin specs:
//   [{"type": "resource-gate", "name": "cpu-gate", "priority": 10, "config": {...}}, ...]
// `name` defaults to `type`, `priority` to 0, `config` to {}.
//
// Usage:
//   ExecutorPluginRegistry registry;
//   TRIMTAB_RETURN_IF_ERROR(registry.Register("resource-gate", &CreateResourceGate));
//   TRIMTAB_ASSIGN_OR_RETURN(auto plugins, registry.CreateAll(chain_json, "autoscaler.plugins"));
//
// Thread-safety: filled at start-up by one thread; Create* may then run concurrently.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_plugin.h"

namespace trimtab::core {

// `config_path` is the JSON path of `config` ("plugins[2].config") for error messages.
using ExecutorPluginFactory = std::function<StatusOr<std::unique_ptr<ExecutorPlugin>>(
    const PluginIdentity& identity, const Json& config, const std::string& config_path)>;

class ExecutorPluginRegistry {
 public:
  // Fails with AlreadyExists when `type` is taken, InvalidArgument when it is empty.
  // `origin` says where the factory comes from ("built-in", a .so path) for error messages.
  Status Register(std::string type, ExecutorPluginFactory factory,
                  std::string origin = "built-in");

  bool Contains(std::string_view type) const;
  std::vector<std::string> Types() const;  // sorted
  // Where `type` was registered from, or "" when unknown.
  std::string OriginOf(std::string_view type) const;

  // Creates one plugin instance of `type`.
  StatusOr<std::unique_ptr<ExecutorPlugin>> Create(std::string_view type,
                                                   const PluginIdentity& identity,
                                                   const Json& config,
                                                   const std::string& config_path) const;

  // Creates every plugin of a chain configuration (see the header comment). Fails on the first
  // bad spec, naming its path; instance names must be unique.
  StatusOr<std::vector<std::unique_ptr<ExecutorPlugin>>> CreateAll(const Json& specs,
                                                                   const std::string& path) const;

 private:
  struct Entry {
    ExecutorPluginFactory factory;
    std::string origin;
  };
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace trimtab::core
