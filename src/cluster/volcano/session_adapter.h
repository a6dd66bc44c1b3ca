// Between the local cluster and the scheduling engine (core/scheduling): the ClusterObjects a
// session reads, built from the runtime's snapshot and caches, and the writes its result asks
// for, computed against the objects as they are now. Pure functions, so the adapter is tested
// without an API server; VolcanoScheduler and VolcanoStatusWriter do the I/O.
//
//   BuildClusterObjects   nodes from the snapshot; every pod of the pod cache (bound, pending
//                         and finished ones: a PodGroup counts its succeeded members), with the
//                         node of a pod the loop has bound but the cache does not show yet
//                         (assumed) filled in, so a session never places a pod twice
//   PodGroupWithStatus    the PodGroup with the session's status (phase, conditions, running /
//                         succeeded / failed), or nullopt when nothing but timestamps and
//                         transition ids would change (Volcano writes PodGroup status only then)
//   QueueAllocatedPatch   the merge patch of Queue status.allocated (resources that are gone
//                         set to null), or nullopt when unchanged
//   PodScheduledPatch     the status merge patch that sets PodScheduled=False with the session's
//                         reason and message, or nullopt when the pod already says so
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/runtime/scheduler.h"
#include "common/json.h"
#include "core/scheduling/cluster_objects.h"
#include "core/scheduling/session_result.h"

namespace trimtab::cluster::volcano {

core::scheduling::ClusterObjects BuildClusterObjects(const runtime::ClusterSnapshot& snapshot,
                                                     std::vector<Json> pods,
                                                     std::vector<Json> pod_groups,
                                                     std::vector<Json> queues,
                                                     std::vector<Json> priority_classes);

// The PodGroup's status as the session sees it: {phase, conditions, running, succeeded, failed}.
Json PodGroupStatus(const core::scheduling::PodGroupOutcome& outcome);

std::optional<Json> PodGroupWithStatus(const Json& current,
                                       const core::scheduling::PodGroupOutcome& outcome);

std::optional<Json> QueueAllocatedPatch(const Json& current,
                                        const core::scheduling::QueueOutcome& outcome);

// `now` is the RFC 3339 time a changed condition gets as lastTransitionTime.
std::optional<Json> PodScheduledPatch(const Json& pod, const std::string& reason,
                                      const std::string& message, const std::string& now);

}  // namespace trimtab::cluster::volcano
