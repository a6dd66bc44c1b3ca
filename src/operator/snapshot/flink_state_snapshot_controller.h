// FlinkStateSnapshotController: one reconcile pass of a FlinkStateSnapshot
// (flink.apache.org/v1beta1), a savepoint or checkpoint of the job of a FlinkDeployment or
// FlinkSessionJob in the same namespace, requested by a user (notes §A.9, §B.3, §B.11):
//
//   read the snapshot and the job it references -> deletion (dispose a COMPLETED savepoint with
//   disposeOnDelete, best effort and bounded, then drop the finalizer) or: finalizer ->
//   by status.state:
//     TRIGGER_PENDING  validate (FAILED on the first error) -> alreadyExists: COMPLETED at once
//                      with spec.savepoint.path; else POST the savepoint / checkpoint trigger
//                      -> IN_PROGRESS (triggerId, triggerTimestamp)
//     IN_PROGRESS      the job is gone or not RUNNING -> ABANDONED; else poll the trigger ->
//                      COMPLETED (path, resultTimestamp) or a failure
//     COMPLETED, FAILED, ABANDONED   terminal: nothing more happens until deletion
//   -> labels (snapshot.type, snapshot.trigger-type, snapshot.state, job-reference.kind/name)
//   kept in sync with spec and status.
//
// A failure (trigger refused, snapshot failed, job not running when triggering) increments
// status.failures and records status.error. While retries remain the state goes back to
// TRIGGER_PENDING and the next attempt waits 10 s x 2^(failures-1); once failures exceed
// spec.backoffLimit (when >= 0; -1 = unlimited) the snapshot is FAILED for good.
//
// Only user-created snapshots come here; the FlinkDeployment / FlinkSessionJob controllers still
// record operator-triggered savepoints and checkpoints in the legacy status fields
// (docs/operator.md).
//
// Usage:
//   FlinkStateSnapshotController controller(WithDefaults(deps));
//   StatusOr<ReconcileResult> r = controller.Reconcile("prod", "nightly-savepoint");
//   if (r.ok() && r->requeue_after) queue.AddAfter(key, *r->requeue_after);
//
// Thread-safety: Reconcile() may run concurrently for different snapshots; calls for one
// snapshot must be serialised (the work queue does).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "adapters/kube/object.h"
#include "operator/controller_shared/controller_deps.h"
#include "operator/controller_shared/status_recorder.h"

namespace trimtab::op {

// JOSDK's default finalizer name (<plural>.<group>/finalizer), as for the other two kinds.
inline constexpr char kFlinkStateSnapshotFinalizer[] =
    "flinkstatesnapshots.flink.apache.org/finalizer";

inline kube::GroupVersionResource FlinkStateSnapshotsResource() {
  return {"flink.apache.org", "v1beta1", "flinkstatesnapshots", true};
}

// Labels upstream keeps on every FlinkStateSnapshot (CrdConstants).
namespace snapshot_labels {
inline constexpr char kType[] = "snapshot.type";                 // SAVEPOINT | CHECKPOINT
inline constexpr char kTriggerType[] = "snapshot.trigger-type";  // MANUAL for user-created ones
inline constexpr char kState[] = "snapshot.state";               // status.state
inline constexpr char kJobKind[] = "job-reference.kind";
inline constexpr char kJobName[] = "job-reference.name";
}  // namespace snapshot_labels

// status.state; the enumerators' wire names are SnapshotStateName().
enum class SnapshotState {
  kTriggerPending,  // waiting to be triggered (again, after a retryable failure)
  kInProgress,      // triggered; polled every progress-check interval
  kCompleted,       // terminal: status.path holds the snapshot
  kFailed,          // terminal: status.error says why
  kAbandoned,       // terminal: the job stopped or disappeared while the snapshot ran
};
std::string_view SnapshotStateName(SnapshotState s);

// The spec as the controller reads it; unknown fields are ignored, as upstream does.
struct SnapshotSpec {
  struct JobReference {
    std::string kind;  // FlinkDeployment | FlinkSessionJob
    std::string name;
  };
  struct Savepoint {
    std::string path;                       // "" = the job's configured savepoint directory
    std::string format_type = "CANONICAL";  // CANONICAL | NATIVE
    bool dispose_on_delete = true;
    bool already_exists = false;
  };
  std::optional<JobReference> job_reference;
  std::optional<Savepoint> savepoint;
  bool checkpoint = false;  // spec.checkpoint is present
  int64_t backoff_limit = -1;

  bool is_savepoint() const { return savepoint.has_value(); }
};
SnapshotSpec DecodeSnapshotSpec(const Json& spec);

struct SnapshotStatus {
  SnapshotState state = SnapshotState::kTriggerPending;
  std::string trigger_id;
  std::string trigger_timestamp;  // RFC 3339
  std::string result_timestamp;   // RFC 3339
  std::string path;
  std::string error;
  int64_t failures = 0;
};
SnapshotStatus DecodeSnapshotStatus(const Json& status);
Json EncodeSnapshotStatus(const SnapshotStatus& status);

// The spec checks that need no other object, first failure wins (notes §B.3): exactly one of
// savepoint / checkpoint; jobReference (kind and name) unless savepoint.alreadyExists; a path
// for an already existing savepoint. Messages name the field.
std::optional<std::string> ValidateSnapshotSpec(const SnapshotSpec& spec);

// Delay before the next attempt after the n-th failure (n >= 1): 10 s x 2^(n-1).
Duration SnapshotRetryDelay(int64_t failures);
// True when no attempt is left: backoff_limit >= 0 and failures > backoff_limit.
bool SnapshotRetriesExhausted(int64_t failures, int64_t backoff_limit);

struct SnapshotPass;

class FlinkStateSnapshotController {
 public:
  explicit FlinkStateSnapshotController(ControllerDeps deps);
  ~FlinkStateSnapshotController();

  StatusOr<ReconcileResult> Reconcile(const std::string& ns, const std::string& name);

 private:
  // Reads the referenced FlinkDeployment / FlinkSessionJob, its configuration and, when its
  // cluster is READY, a REST client.
  Status ResolveJob(SnapshotPass& p);
  StatusOr<ReconcileResult> RunPass(SnapshotPass& p);
  StatusOr<ReconcileResult> TriggerPending(SnapshotPass& p);
  StatusOr<ReconcileResult> InProgress(SnapshotPass& p);
  // Records a failed attempt and decides between a retry and FAILED.
  ReconcileResult Failed(SnapshotPass& p, const std::string& message);
  // Validation failure: FAILED at once, no retry.
  void Invalid(SnapshotPass& p, const std::string& message);
  StatusOr<ReconcileResult> Cleanup(SnapshotPass& p);
  void DisposeSavepoint(SnapshotPass& p);
  // Adds the finalizer and brings the labels in line with spec and status (one update).
  Status SyncMetadata(SnapshotPass& p, bool with_finalizer);
  Status WriteStatus(SnapshotPass& p);
  void Event(SnapshotPass& p, bool warning, std::string_view reason, const std::string& message);

  ControllerDeps deps_;
  StatusRecorder status_recorder_;
  std::mutex retry_mu_;
  // uid -> earliest time of the next attempt after a failure. In memory only: after an operator
  // restart a pending retry simply runs at once.
  std::map<std::string, TimePoint> next_attempt_;  // guarded by retry_mu_
};

}  // namespace trimtab::op
