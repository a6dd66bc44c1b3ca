#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {

PluginPtr NewCapacityPlugin(const Json& args, const std::string& path) {
  return FailedPreconditionError(path + ": the capacity plugin is not implemented yet");
}

}  // namespace trimtab::core::scheduling
