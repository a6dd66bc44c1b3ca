// Whole-job eviction, shared by gangpreempt and gangreclaim (Volcano's actions/utils bundle.go
// and simulate.go), for a cluster without HyperNodes: the whole cluster is the one domain.
//
// For a starving job: its pending tasks and their total need; the victims' running tasks
// grouped per job into bundles — Safe (a job's lowest-priority tasks beyond its minMember:
// taking them keeps that job's gang) and Whole (the rest of that job's tasks, valid only if the
// plugins approve every one of them, so a job is either left a gang or evicted whole); bundles
// in order Safe first, then victim-job (or victim-queue) order, then the share of the need they
// free per resource they hold, then job id. Bundles are added one by one until idle plus
// releasing plus freed covers the need; then the whole gang is simulated: victims evicted,
// every pending task pipelined on the best node (Allocatable queue, resources on FutureIdle,
// preemption predicates). The first bundle set with which the job becomes pipelined is kept.
//
// Thread-safety: the session's thread.
#pragma once

#include <string>
#include <vector>

#include "core/scheduling/framework.h"
#include "core/scheduling/statement.h"

namespace trimtab::core::scheduling {

struct GangEvictionOptions {
  bool reclaim = false;            // gangreclaim (other reclaimable queues) vs gangpreempt
  bool allow_whole_bundle = true;  // allowWholeBundle
};

// Tries to make room for `job`; on success the evictions and pipelines are in `stmt` (not yet
// committed) and true is returned.
bool EvictForJob(Session& ssn, const QueueInfo& queue, JobInfo& job,
                 const GangEvictionOptions& options, Statement* stmt);

// The driver of both actions: starving jobs per queue in their orders, Commit when the job is
// pipelined afterwards, else Discard.
void RunGangEviction(Session& ssn, const GangEvictionOptions& options);

}  // namespace trimtab::core::scheduling
