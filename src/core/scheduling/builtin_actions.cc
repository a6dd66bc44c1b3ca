// The built-in actions, listed once.
#include "core/scheduling/actions/actions.h"
#include "core/scheduling/plugin_registry.h"

namespace trimtab::core::scheduling {

const ActionRegistry& BuiltinActions() {
  static const ActionRegistry registry = [] {
    ActionRegistry r;
    const std::pair<const char*, ActionFactory> builtins[] = {
        {"allocate", NewAllocateAction},       {"backfill", NewBackfillAction},
        {"enqueue", NewEnqueueAction},         {"gangpreempt", NewGangPreemptAction},
        {"gangreclaim", NewGangReclaimAction}, {"preempt", NewPreemptAction},
        {"reclaim", NewReclaimAction},
    };
    for (const auto& [name, factory] : builtins) r.Register(name, factory).IgnoreError();
    return r;
  }();
  return registry;
}

}  // namespace trimtab::core::scheduling
