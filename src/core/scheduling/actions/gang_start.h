// The gang's start rule: a job is started (its first pod placed) only when its whole
// minResources fits, in its queue and on the nodes. A trimtab addition to Volcano's actions,
// for groups whose minMember is smaller than the job (docs/gang-scheduling-session.md "The
// start rule"): the operator sizes a Flink cluster's minMember by the pods that exist (native
// Flink creates its TaskManagers only once the JobManager runs) and minResources by the whole
// job, so Volcano's per-pod checks would start a JobManager that has room while its
// TaskManagers have none. Admission (enqueue) checks minResources once; this checks it again
// at the moment the job starts, and also for a job admitted past the check (sla).
//
// Thread-safety: runs inside one session.
#pragma once

#include <string>

#include "core/scheduling/framework.h"

namespace trimtab::core::scheduling {

// Whether the rule applies: the job has minResources and no pod allocated, bound, running or
// finished (Releasing pods of an earlier run do not count).
bool GangNotStarted(const JobInfo& job);

// What the job still needs before it can start: minResources minus what it holds (all of
// minResources for a job that has not started).
Resources GangStartNeed(const JobInfo& job);

// Whether `need` (GangStartNeed) fits:
//  1. the queue: need + the queue's allocated + the other jobs' reservations (Inqueue groups,
//     and Running groups with minMember pods allocated: what their minResources asks beyond
//     their allocation) <= the queue's real capability, on the dimensions `need` names: the
//     sum enqueue's proportion check makes, without the job itself, without sla's exemption
//     and without subtracting elastic allocations (pods above their group's minResources keep
//     running until something evicts them, so they do hold room now);
//  2. the nodes: need <= the sum over nodes of FutureIdle (idle + releasing - pipelined).
// `why` (optional) gets "queue q: insufficient cpu" / "nodes: insufficient memory".
bool GangStartFits(Session& ssn, const JobInfo& job, const Resources& need, std::string* why);

}  // namespace trimtab::core::scheduling
