// The built-in scheduler plugins, listed once.
#include "core/scheduling/plugin_registry.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {

const PluginRegistry& BuiltinPlugins() {
  static const PluginRegistry registry = [] {
    PluginRegistry r;
    const std::pair<const char*, PluginFactory> builtins[] = {
        {"binpack", NewBinpackPlugin},       {"capacity", NewCapacityPlugin},
        {"conformance", NewConformancePlugin}, {"drf", NewDrfPlugin},
        {"gang", NewGangPlugin},             {"nodeorder", NewNodeOrderPlugin},
        {"overcommit", NewOvercommitPlugin}, {"predicates", NewPredicatesPlugin},
        {"priority", NewPriorityPlugin},     {"proportion", NewProportionPlugin},
        {"sla", NewSlaPlugin},
    };
    for (const auto& [name, factory] : builtins) r.Register(name, factory).IgnoreError();
    return r;
  }();
  return registry;
}

}  // namespace trimtab::core::scheduling
