// Placeholders for the eviction actions until they land.
#include "core/scheduling/actions/actions.h"

namespace trimtab::core::scheduling {

ActionPtr NewPreemptAction(const Json&, const std::string& path) {
  return FailedPreconditionError("action preempt is not implemented yet");
}
ActionPtr NewReclaimAction(const Json&, const std::string& path) {
  return FailedPreconditionError("action reclaim is not implemented yet");
}
}  // namespace trimtab::core::scheduling
