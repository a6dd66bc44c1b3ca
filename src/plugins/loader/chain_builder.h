// Builds the executor chain from its configuration: loads the shared-library plugins it names,
// creates every configured plugin through the registry, orders them and logs the order.
//
//   {"pluginDirectory": "/etc/trimtab/plugins",    optional: load every *.so; refused files are
//                                                  logged as warnings and skipped
//    "libraries": ["/opt/plugins/libcap.so"],      optional: must load, else the build fails
//    "plugins": [{"type": "resource-gate", "priority": 10, "config": {...}}, ...]}
//
// The registry should already hold the built-in types (RegisterBuiltinExecutorPlugins) and the
// webhook type (RegisterWebhookPlugin).
//
// Thread-safety: call at start-up from one thread.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_chain.h"
#include "core/chain/plugin_registry.h"

namespace trimtab::plugins {

struct BuiltChain {
  core::ExecutorChain chain;
  std::vector<Status> warnings;  // refused files of pluginDirectory
};

StatusOr<BuiltChain> BuildExecutorChain(const Json& config, const std::string& path,
                                        core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
