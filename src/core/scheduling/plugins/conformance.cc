// conformance: never evicts critical pods (priority class system-cluster-critical or
// system-node-critical, or namespace kube-system), for preempt, reclaim and whole-job eviction.
#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {
namespace {

class ConformancePlugin final : public Plugin {
 public:
  std::string_view name() const override { return "conformance"; }

  void OnSessionOpen(Session& ssn) override {
    auto filter = [&ssn](const std::vector<int>& candidates) {
      std::vector<int> victims;
      for (int id : candidates) {
        if (!ssn.tasks()[id].critical) victims.push_back(id);
      }
      return std::make_pair(victims, static_cast<int>(kPermit));
    };
    auto evictable = [filter](const TaskInfo&, const std::vector<int>& c) { return filter(c); };
    ssn.AddPreemptableFn(name(), evictable);
    ssn.AddReclaimableFn(name(), evictable);
    ssn.AddUnifiedEvictableFn(
        name(), [filter](const EvictionContext&, const std::vector<int>& c) { return filter(c); });
  }
};

}  // namespace

PluginPtr NewConformancePlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Plugin>(new ConformancePlugin());
}

}  // namespace trimtab::core::scheduling
