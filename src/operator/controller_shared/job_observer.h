// Job-level observation and snapshots, shared by application clusters and session jobs (upstream
// JobStatusObserver, SnapshotObserver and the snapshot part of AbstractJobReconciler; notes §B.2,
// §B.6):
//
//   ObserveJob        GET /jobs/overview -> status.jobStatus (RUNNING with tasks not all running
//                     reads as CREATED), JobStatusChanged events, FAILED -> execution-result into
//                     status.error, job exceptions as JobException events, stable marking, a
//                     missing job -> "Job Not Found".
//   ObserveSnapshots  pending legacy savepoint/checkpoint triggers (grace period retries; the
//                     operator's own stop-with-savepoint of an upgrade, recorded before it was
//                     sent, -> lastSavepoint, history and upgradeSavepointPath), the newest state
//                     of a terminal job -> upgradeSavepointPath (a savepoint also into the
//                     history), savepoint history trimming with disposal.
//   TriggerSnapshots  manual (nonce) and periodic savepoints / checkpoints of a RUNNING job.
//   AbandonSnapshots  pending triggers of a job that is not running.
//
// Thread-safety: one pass at a time per resource.
#pragma once

#include "operator/controller_shared/job_context.h"

namespace trimtab::op {

void ObserveJob(JobContext& ctx);
// Returns an error only for upgrade failures (a terminal job whose last checkpoint is not
// externally addressable: "Manual restore required").
Status ObserveSnapshots(JobContext& ctx);
Status TriggerSnapshots(JobContext& ctx);
void AbandonSnapshots(JobContext& ctx);

// A checkpoint or savepoint Flink reports for a job.
struct SnapshotRef {
  std::string path;
  bool savepoint = false;
  int64_t id = 0;
};

// The newest state of `job_id` that Flink reports (upstream's savepoint observer and last-state
// logic): the latest completed checkpoint or savepoint, or, when the job completed neither, the
// checkpoint or savepoint it was restored from. nullopt when there is none; a job without
// checkpointing (Flink's 404 "Checkpointing has not been enabled") has none, as upstream reads
// that answer. FailedPrecondition when the newest one is not externally addressable ("Manual
// restore required").
StatusOr<std::optional<SnapshotRef>> NewestSnapshot(const flink::FlinkRestClient& rest,
                                                    const std::string& job_id);
// NewestSnapshot's path, "" when none.
StatusOr<std::string> LastCheckpointPath(const flink::FlinkRestClient& rest,
                                         const std::string& job_id);

// Records a completed savepoint in status.jobStatus.savepointInfo: lastSavepoint, and the
// history unless an entry with the same location is there (a savepoint is recorded once, however
// many passes see it).
void RecordSavepoint(api::CommonStatus* status, const api::Savepoint& savepoint);

// Polls an asynchronous savepoint (or stop-with-savepoint) until it completes, fails, or
// `timeout` of real time passes. Returns the savepoint path.
StatusOr<std::string> WaitForSavepoint(const flink::FlinkRestClient& rest,
                                       const std::string& job_id, const std::string& trigger_id,
                                       std::chrono::milliseconds timeout);

}  // namespace trimtab::op
