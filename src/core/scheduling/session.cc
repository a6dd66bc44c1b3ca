#include "core/scheduling/session.h"

namespace trimtab::core::scheduling {

// First cut: the contract only. The session engine follows in the next commits.
StatusOr<SessionResult> RunSession(const SchedulerConfig& config, const ClusterObjects& objects,
                                   const SessionOptions& options) {
  SessionResult result;
  result.log.push_back("session: not implemented yet");
  return result;
}

}  // namespace trimtab::core::scheduling
