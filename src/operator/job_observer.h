// Job-level observation and snapshots, shared by application clusters and session jobs (upstream
// JobStatusObserver, SnapshotObserver and the snapshot part of AbstractJobReconciler; notes §B.2,
// §B.6):
//
//   ObserveJob        GET /jobs/overview -> status.jobStatus (RUNNING with tasks not all running
//                     reads as CREATED), JobStatusChanged events, FAILED -> execution-result into
//                     status.error, job exceptions as JobException events, stable marking, a
//                     missing job -> "Job Not Found".
//   ObserveSnapshots  pending legacy savepoint/checkpoint triggers (grace period retries), the last
//                     checkpoint of a terminal job -> upgradeSavepointPath, savepoint history
//                     trimming with disposal.
//   TriggerSnapshots  manual (nonce) and periodic savepoints / checkpoints of a RUNNING job.
//   AbandonSnapshots  pending triggers of a job that is not running.
//
// Thread-safety: one pass at a time per resource.
#pragma once

#include "operator/job_context.h"

namespace trimtab::op {

void ObserveJob(JobContext& ctx);
// Returns an error only for upgrade failures (a terminal job whose last checkpoint is not
// externally addressable: "Manual restore required").
Status ObserveSnapshots(JobContext& ctx);
Status TriggerSnapshots(JobContext& ctx);
void AbandonSnapshots(JobContext& ctx);

// The newest externally addressable checkpoint or savepoint of `job_id` ("" when none); error
// when the newest one is not externally addressable.
StatusOr<std::string> LastCheckpointPath(const flink::FlinkRestClient& rest,
                                         const std::string& job_id);

// Polls an asynchronous savepoint (or stop-with-savepoint) until it completes, fails, or
// `timeout` of real time passes. Returns the savepoint path.
StatusOr<std::string> WaitForSavepoint(const flink::FlinkRestClient& rest,
                                       const std::string& job_id, const std::string& trigger_id,
                                       std::chrono::milliseconds timeout);

}  // namespace trimtab::op
