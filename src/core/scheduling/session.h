// RunSession: one Volcano scheduling session as a pure function. It opens a session over a
// snapshot of the cluster objects (snapshot.h), lets every configured plugin register its
// callbacks tier by tier (framework.h holds the extension points and Volcano's tier and vote
// rules), runs the configured actions in order (enqueue, allocate, backfill, preempt, reclaim,
// gangpreempt, gangreclaim), closes the session (gang conditions, PodGroup phases, queue
// status) and returns what it decided. No I/O, no clock: `now_unix_seconds` stamps conditions.
//
// The semantics are Volcano's (docs/gang-scheduling.md "The scheduling session" lists every
// known difference). Determinism: every tie Volcano breaks at random (node choice among equal
// scores, map iteration) is broken by name here, so the same input gives the same output.
//
// Usage:
//   ClusterObjects objects{.nodes = ..., .pods = ..., .pod_groups = ..., .queues = ...};
//   TRIMTAB_ASSIGN_OR_RETURN(SessionResult result,
//       RunSession(DefaultSchedulerConfig(), objects, SessionOptions{.now_unix_seconds = now}));
//   for (const Bind& b : result.binds) ... POST pods/binding ...
//
// Errors: InvalidArgument for objects the session cannot read (a malformed quantity, a pod
// without a name), naming the object and field ("pods[3] (ns/p): spec.containers[0].resources.
// requests.cpu: ..."). Objects that are well-formed but unusable (a PodGroup whose queue does
// not exist, pods of a missing PodGroup, a NotReady node) are skipped and listed in
// SessionResult::skipped, as Volcano ignores them.
//
// Thread-safety: a pure function; concurrent calls share nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/scheduling/cluster_objects.h"
#include "core/scheduling/scheduler_config.h"
#include "core/scheduling/session_result.h"

namespace trimtab::core::scheduling {

struct SessionOptions {
  // Pods are scheduled by this session iff spec.schedulerName is one of these (Volcano's
  // --scheduler-name).
  std::vector<std::string> scheduler_names = {"volcano"};
  // The queue of a PodGroup that names none (--default-queue).
  std::string default_queue = "default";
  // Wall-clock time of the session, for condition timestamps only.
  int64_t now_unix_seconds = 0;
  // The session's id: the transitionID of the conditions it stamps. Empty = "session-<now>".
  std::string session_id;
  // Record the decision log (SessionResult::log). Off in the benchmark's hot path.
  bool record_log = true;
};

StatusOr<SessionResult> RunSession(const SchedulerConfig& config, const ClusterObjects& objects,
                                   const SessionOptions& options);
// The same over objects held elsewhere (see ClusterObjectRefs).
StatusOr<SessionResult> RunSession(const SchedulerConfig& config, const ClusterObjectRefs& objects,
                                   const SessionOptions& options);

}  // namespace trimtab::core::scheduling
