// The one list of in-tree executor plugin types: every plugin compiled into trimtab, plus the
// webhook kind. Shared-library plugins are added separately by the loader
// (src/plugins/loader/shared_library_loader.h).
//
//   budget-cap             src/plugins/budget_cap
//   multi-job-coordinator  src/plugins/multi_job_coordinator
//   queue-capacity         src/plugins/queue_capacity
//   resource-gate          src/plugins/resource_gate
//   restart-cost-gate      src/plugins/restart_cost_gate
//   source-aligned         src/plugins/source_aligned
//   webhook                src/plugins/webhook
//
// Thread-safety: call once at start-up.
#pragma once

#include "common/status.h"
#include "core/chain/plugin_registry.h"

namespace trimtab::plugins {

Status RegisterBuiltinExecutorPlugins(core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
