// Registries of scheduler plugins and actions: name -> factory. A factory reads the plugin's
// `arguments` (unknown keys are an error naming the field) and returns a fresh instance; a
// session creates its own instances, so plugins may keep per-session state. Duplicate names are
// rejected. The built-ins are listed in one place each (builtin_plugins.cc, builtin_actions.cc).
//
// Usage:
//   const PluginRegistry& plugins = BuiltinPlugins();
//   TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<Plugin> p,
//                            plugins.Create("overcommit", args, "tiers[1].plugins[0].arguments"));
//
// Thread-safety: filled once; Create may then run concurrently.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "core/scheduling/framework.h"

namespace trimtab::core::scheduling {

// `path` is the JSON path of `arguments`, for errors.
using PluginFactory =
    std::function<StatusOr<std::unique_ptr<Plugin>>(const Json& arguments, const std::string& path)>;
using ActionFactory =
    std::function<StatusOr<std::unique_ptr<Action>>(const Json& arguments, const std::string& path)>;

template <typename Factory, typename T>
class Registry {
 public:
  // AlreadyExists when `name` is taken.
  Status Register(std::string name, Factory factory) {
    if (name.empty()) return InvalidArgumentError("empty name");
    if (!factories_.emplace(name, std::move(factory)).second) {
      return AlreadyExistsError("\"" + name + "\" is already registered");
    }
    return Status::Ok();
  }
  bool Contains(std::string_view name) const { return factories_.find(name) != factories_.end(); }
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const auto& [name, f] : factories_) out.push_back(name);
    return out;
  }
  StatusOr<std::unique_ptr<T>> Create(std::string_view name, const Json& arguments,
                                      const std::string& path) const {
    auto it = factories_.find(name);
    if (it == factories_.end()) return NotFoundError("\"" + std::string(name) + "\" is not registered");
    return it->second(arguments, path);
  }

 private:
  std::map<std::string, Factory, std::less<>> factories_;
};

using PluginRegistry = Registry<PluginFactory, Plugin>;
using ActionRegistry = Registry<ActionFactory, Action>;

// The built-in plugins (gang, priority, drf, proportion, capacity, predicates, nodeorder,
// binpack, conformance, overcommit) and actions (enqueue, allocate, backfill, preempt, reclaim,
// gangpreempt, gangreclaim).
const PluginRegistry& BuiltinPlugins();
const ActionRegistry& BuiltinActions();

}  // namespace trimtab::core::scheduling
