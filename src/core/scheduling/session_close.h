// CloseSession: what the session writes back when it closes (Volcano's closeSession and the
// cache's job status recording):
//   * every PodGroup's status: phase by the rule of note A.1 — Unknown when it has Running
//     tasks and an Unschedulable condition stamped by this session; Completed / Running once
//     scheduled tasks (Running, Bound, Failed, Succeeded, and terminating ones that had a node)
//     reach minMember (Completed when all of them finished); else Inqueue if it was Inqueue,
//     else Pending — plus running / succeeded / failed counts, and a Warning event
//     "N/M tasks in gang unschedulable: ..." for Pending, Inqueue and Unknown groups;
//   * every Queue's status.allocated (sum over tasks in an allocated status) and its PodGroups
//     counted per phase (what Volcano's queue controller does);
//   * the pods still pending with their PodScheduled reason, and the pipelined pods.
//
// Thread-safety: the session's thread.
#pragma once

#include "core/scheduling/framework.h"

namespace trimtab::core::scheduling {

void CloseSession(Session& ssn);

}  // namespace trimtab::core::scheduling
