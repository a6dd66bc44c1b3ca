// Between the local cluster and the scheduling engine (core/scheduling): the ClusterObjects a
// session reads, built from the runtime's snapshot and caches, and the writes its result asks
// for, computed against the objects as they are now. Pure functions, so the adapter is tested
// without an API server; VolcanoScheduler and VolcanoStatusWriter do the I/O.
//
//   BuildSessionInput     nodes from the snapshot; every pod of the pod cache (bound, pending
//                         and finished ones: a PodGroup counts its succeeded members), with the
//                         node of a pod the loop has bound but the cache does not show yet
//                         (assumed) filled in, so a session never places a pod twice; the
//                         cache's shared objects themselves, only an assumed pod is copied
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

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "cluster/runtime/scheduler.h"
#include "common/json.h"
#include "core/scheduling/cluster_objects.h"
#include "core/scheduling/session_result.h"

namespace trimtab::cluster::volcano {

// What a session reads: `refs` point into the objects this value holds (move it, never copy it,
// while the refs are in use).
struct SessionInput {
  core::scheduling::ClusterObjectRefs refs;
  std::vector<kube::ObjectPtr> held;  // the nodes, pods, PodGroups, queues and classes
  std::deque<Json> assumed_copies;    // assumed pods with their node filled in
  SessionInput() = default;
  SessionInput(SessionInput&&) = default;
  SessionInput& operator=(SessionInput&&) = default;
  SessionInput(const SessionInput&) = delete;
};

SessionInput BuildSessionInput(const runtime::ClusterSnapshot& snapshot,
                               const std::vector<kube::ObjectPtr>& pods,
                               const std::vector<kube::ObjectPtr>& pod_groups,
                               const std::vector<kube::ObjectPtr>& queues,
                               const std::vector<kube::ObjectPtr>& priority_classes);

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
