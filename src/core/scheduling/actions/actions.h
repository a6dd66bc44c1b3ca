// Factories of the built-in actions, one file each, following Volcano's
// pkg/scheduler/actions/<name>. Registered by BuiltinActions() (builtin_actions.cc).
#pragma once

#include <memory>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/scheduling/framework.h"

namespace trimtab::core::scheduling {

using ActionPtr = StatusOr<std::unique_ptr<Action>>;

ActionPtr NewEnqueueAction(const Json& args, const std::string& path);
ActionPtr NewAllocateAction(const Json& args, const std::string& path);
ActionPtr NewBackfillAction(const Json& args, const std::string& path);
ActionPtr NewPreemptAction(const Json& args, const std::string& path);
ActionPtr NewReclaimAction(const Json& args, const std::string& path);
ActionPtr NewGangPreemptAction(const Json& args, const std::string& path);
ActionPtr NewGangReclaimAction(const Json& args, const std::string& path);

}  // namespace trimtab::core::scheduling
