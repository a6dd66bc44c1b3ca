// RunSession: open (snapshot, plugins tier by tier), the actions in order, close (plugins'
// OnSessionClose, PodGroup status, queue status, pod reasons).
#include "core/scheduling/session.h"

#include <set>

#include "core/scheduling/framework.h"
#include "core/scheduling/plugin_registry.h"
#include "core/scheduling/session_close.h"

namespace trimtab::core::scheduling {
namespace {

StatusOr<std::vector<std::unique_ptr<Plugin>>> CreatePlugins(const SchedulerConfig& config) {
  std::vector<std::unique_ptr<Plugin>> plugins;
  std::set<std::string> seen;
  for (size_t t = 0; t < config.tiers.size(); ++t) {
    for (size_t k = 0; k < config.tiers[t].plugins.size(); ++k) {
      const PluginOption& p = config.tiers[t].plugins[k];
      const std::string path =
          "tiers[" + std::to_string(t) + "].plugins[" + std::to_string(k) + "]";
      if (!seen.insert(p.name).second) {
        return InvalidArgumentError(path + ".name: plugin \"" + p.name + "\" is listed twice");
      }
      if ((p.name == "drf" || p.name == "capacity") && p.enable_hierarchy.value_or(false)) {
        return InvalidArgumentError(path + ".enableHierarchy: hierarchical " + p.name +
                                    " is not supported by this engine");
      }
      auto plugin = BuiltinPlugins().Create(p.name, p.arguments, path + ".arguments");
      if (!plugin.ok()) return plugin.status();
      plugins.push_back(std::move(*plugin));
    }
  }
  return plugins;
}

StatusOr<std::vector<std::unique_ptr<Action>>> CreateActions(const SchedulerConfig& config) {
  std::vector<std::unique_ptr<Action>> actions;
  for (const std::string& name : config.actions) {
    auto action = BuiltinActions().Create(name, config.ActionArguments(name),
                                          "configurations[" + name + "].arguments");
    if (!action.ok()) return action.status();
    actions.push_back(std::move(*action));
  }
  return actions;
}

}  // namespace

StatusOr<SessionResult> RunSession(const SchedulerConfig& config, const ClusterObjects& objects,
                                   const SessionOptions& options) {
  return RunSession(config, RefsOf(objects), options);
}

StatusOr<SessionResult> RunSession(const SchedulerConfig& config, const ClusterObjectRefs& objects,
                                   const SessionOptions& options) {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Plugin>> plugins, CreatePlugins(config));
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Action>> actions, CreateActions(config));
  TRIMTAB_ASSIGN_OR_RETURN(Snapshot snapshot, BuildSnapshot(objects, options));
  Session ssn(config, options, std::move(snapshot));
  if (ssn.logging()) {
    ssn.Log("open: " + std::to_string(ssn.jobs().size()) + " jobs, " +
            std::to_string(ssn.nodes().size()) + " nodes, " +
            std::to_string(ssn.queues().size()) + " queues; total <" +
            ssn.Res(ssn.total_resource()) + ">");
    for (const std::string& note : ssn.snapshot().notes) ssn.Log(note);
    for (const Skipped& s : ssn.snapshot().skipped) {
      ssn.Log("open: skipped " + s.kind + " " + (s.ns.empty() ? "" : s.ns + "/") + s.name + ": " +
              s.reason);
    }
  }
  ssn.result().skipped = ssn.snapshot().skipped;
  TRIMTAB_RETURN_IF_ERROR(ssn.OpenPlugins(plugins));
  for (const auto& action : actions) action->Execute(ssn);
  ssn.ClosePlugins();
  CloseSession(ssn);
  return std::move(ssn.result());
}

}  // namespace trimtab::core::scheduling
