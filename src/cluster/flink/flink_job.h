// FlinkJob: one job of a simulated Flink cluster. It wraps a sim::JobModel stepped in virtual
// time and adds what the JobManager shows around it: Flink's job state machine with its
// timestamps, the execution state of the tasks, checkpoints and savepoints with their files,
// statistics, HA metadata and ledger commits, restarts driven by the restart strategy,
// in-place rescaling for the adaptive scheduler, and restore on start.
//
// Life of a job (times in virtual time; D = the model's downtime for the restart):
//   INITIALIZING (JobMaster start, 100 ms; the source topics are attached and the model built,
//     restored from a snapshot when one is given)
//   -> CREATED -> waiting for slots: default scheduler RUNNING with SCHEDULED tasks, adaptive
//     scheduler CREATED
//   -> slots granted: RUNNING, tasks DEPLOYING then INITIALIZING (restore) until the model's
//     tasks run, then RUNNING
//   failure: RESTARTING for cancel + restart backoff, then as above (adaptive: CREATED first);
//     restart strategy exhausted: FAILING -> FAILED
//   rescale (adaptive, resource requirements): RUNNING -> RESTARTING -> CREATED -> RUNNING,
//     restoring from the latest checkpoint
//   reactive mode (scheduler-mode: reactive): every vertex runs at min(its max parallelism,
//     the slots the job can get), as Flink's adaptive scheduler in reactive mode does. The job
//     is scheduled once that slot count has not changed for resource-stabilization-timeout;
//     while RUNNING, more slots (TaskManagers that registered) rescale it the same way (after
//     the cooldown since the last rescale); a lost TaskManager fails it over, and it restarts
//     on the slots that are left
//   cancel: CANCELLING -> CANCELED; stop-with-savepoint: RUNNING (sources stop at the
//     savepoint) -> FINISHED; JobManager shutdown: SUSPENDED
//   bounded job (every source has stopping offsets): once the sources have read up to them
//     (JobModel::finished()), the job waits for the final checkpoint (FLIP-147: the next
//     periodic checkpoint completes and commits the last offsets; not with checkpointing off or
//     checkpoints-after-tasks-finish false), then RUNNING -> FINISHED, tasks FINISHED, slots
//     released. A failover before that rewinds the sources and the job reads to the end again.
//
// Snapshots: periodic checkpoints (execution.checkpointing.interval) and triggered checkpoints
// commit their offsets to the ledger, write `<dir>/<job id>/chk-<n>/_metadata` and, with HA, the
// job's HA entry; intermediate savepoints only write `<dir>/savepoint-<jobid6>-<hex12>/_metadata`
// (Flink >= 1.15: no side effects, not a failover restore point); terminating savepoints (stop,
// cancel-with-savepoint) stop the sources at the savepoint and commit.
//
// Thread-safety: not thread-safe; owned by FlinkCluster and used under its lock.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"
#include "cluster/flink/async_operations.h"
#include "cluster/flink/cluster_settings.h"
#include "cluster/flink/flink_states.h"
#include "cluster/flink/ha_store.h"
#include "cluster/flink/ids.h"
#include "cluster/flink/job_definition.h"
#include "cluster/flink/sim_filesystem.h"
#include "cluster/flink/slot_pool.h"
#include "cluster/flink/snapshot_metadata.h"
#include "cluster/flink/topic_registry.h"
#include "sim/job_model.h"

namespace trimtab::sim::flink {

// What a job shares with its cluster. Pointers outlive the job.
struct JobEnv {
  TopicRegistry* topics = nullptr;
  SimFileSystem* fs = nullptr;
  SlotPool* slots = nullptr;
  IdGenerator* ids = nullptr;
  std::vector<HaUpdate>* ha_outbox = nullptr;  // null when HA is off
  const ClusterSettings* settings = nullptr;
  std::string reader;  // topic reader identity prefix ("<namespace>/<pod>")
  double max_step_seconds = 1.0;
};

struct RestoreInfo {
  std::string path;  // the snapshot directory (external pointer)
  SnapshotMetadata metadata;
  bool from_ha = false;
  bool allow_non_restored_state = false;
};

struct JobSetup {
  std::string id;  // 32 hex
  std::string name;
  JobDefinition definition;
  ProgramInfo program;
  std::optional<RestoreInfo> restore;
  std::string restore_error;  // non-empty: the restore could not be loaded; the job fails
  int64_t ha_counter = 0;     // HA checkpoint counter to continue from (0: none)
  uint64_t seed = 1;
};

// A vertex as REST shows it.
struct JobVertexView {
  std::string id;           // 32 hex
  std::string spec_id;      // id in the job spec (also the Kafka topic name of a source)
  std::string name;         // "Source: Kafka Source"
  std::string metric_name;  // operator scope component: "Source__Kafka_Source"
  bool source = false;
  int max_parallelism = 128;
  int parallelism = 1;  // current
  struct Input {
    int vertex = 0;  // index into vertices()
    std::string ship_strategy;  // FORWARD, HASH, REBALANCE
  };
  std::vector<Input> inputs;
};

struct CheckpointRecord {
  int64_t id = 0;
  enum class Status { kInProgress, kCompleted, kFailed } status = Status::kInProgress;
  bool savepoint = false;
  std::string checkpoint_type = "CHECKPOINT";  // CHECKPOINT | SAVEPOINT | SYNC_SAVEPOINT
  std::string savepoint_format;                // savepoints: CANONICAL | NATIVE
  int64_t trigger_ms = 0;
  int64_t end_ms = 0;  // completion / failure time (0 while in progress)
  int64_t state_bytes = 0;
  std::string external_path;
  bool discarded = false;
  std::string failure_message;
};

struct CheckpointStats {
  int64_t restored = 0, total = 0, in_progress = 0, completed = 0, failed = 0;
  std::deque<CheckpointRecord> history;  // newest first, bounded by web.checkpoints.history
  std::optional<CheckpointRecord> latest_completed, latest_savepoint, latest_failed;
  struct Restored {
    int64_t id = 0;
    int64_t restore_ms = 0;
    bool savepoint = false;
    std::string path;
  };
  std::optional<Restored> latest_restored;
  std::deque<CheckpointRecord> completed_window;  // for the summary (last 100 completed)
};

struct ExceptionRecord {
  std::string exception_class;
  std::string message;
  int64_t timestamp_ms = 0;
  std::string task_name;
  std::string endpoint;
  std::string task_manager_id;
};

struct SavepointRequest {
  enum class Mode { kSavepoint, kStop, kCancelWithSavepoint };
  Mode mode = Mode::kSavepoint;
  std::string target_dir;
  std::string format_type = "CANONICAL";
  bool drain = false;
};

// The result of a triggered savepoint or checkpoint, for the cluster's AsyncOperations.
struct SnapshotOutcome {
  AsyncOperations::Kind kind = AsyncOperations::Kind::kSavepoint;
  std::string trigger_id;
  Json operation;  // {"location": ...} / {"checkpointId": ...} / {"failure-cause": ...}
};

struct VertexRequirement {
  int lower = 1;
  int upper = 1;
  friend bool operator==(const VertexRequirement&, const VertexRequirement&) = default;
};

class FlinkJob {
 public:
  static StatusOr<std::unique_ptr<FlinkJob>> Create(JobSetup setup, JobEnv env, TimePoint now);
  ~FlinkJob();

  // Steps the model to `now` and walks the state machine. Also picks up slots freed or
  // registered since the last call.
  void AdvanceTo(TimePoint now);

  // ---- Operations (the cluster has advanced to `now`) ----------------------------------
  // FailedPrecondition when the job is already terminal (REST: 409).
  Status Cancel(TimePoint now);
  // The outcome arrives later through TakeOutcomes() under `trigger_id`.
  void TriggerSavepoint(const SavepointRequest& request, const std::string& trigger_id, TimePoint now);
  void TriggerCheckpoint(const std::string& trigger_id, TimePoint now);
  // Adaptive scheduler only (the caller checks); validated by the caller. Unchanged
  // requirements are a no-op; a running job rescales after the cooldown.
  void UpdateResourceRequirements(const std::map<std::string, VertexRequirement>& requirements, TimePoint now);
  // A task failure (failure injection, a lost TaskManager): restart or fail per strategy.
  void FailTasks(const std::string& exception_class, const std::string& message, const std::string& tm_id,
                 TimePoint now);
  // The JobManager shuts down: SUSPENDED (HA metadata stays), topics handed back.
  void Suspend(TimePoint now);
  // The next `n` checkpoints/savepoints are declined at trigger (tests).
  void DeclineNextCheckpointsForTest(int n) { decline_next_ += n; }

  std::vector<SnapshotOutcome> TakeOutcomes();

  // ---- Views --------------------------------------------------------------------------------
  const std::string& id() const { return id_; }
  const std::string& name() const { return name_; }
  JobStatus status() const { return status_; }
  int64_t status_timestamp(JobStatus s) const { return status_ts_[static_cast<size_t>(s)]; }
  int64_t start_ms() const { return start_ms_; }
  int64_t end_ms() const { return end_ms_; }  // -1 unless globally terminal
  int64_t last_modification_ms() const { return last_modified_ms_; }
  SchedulerType scheduler() const { return env_.settings->scheduler; }
  // Vertices are empty while INITIALIZING (sparse execution graph, as Flink shows it).
  bool has_execution_graph() const { return model_ != nullptr && status_ != JobStatus::kInitializing; }
  const std::vector<JobVertexView>& vertices() const { return vertices_; }
  int VertexIndex(const std::string& hex_id) const;
  int max_parallelism() const;  // max over vertices of maxParallelism
  int required_slots() const;
  // Execution state of every task of the current attempt (all tasks share it) and when each
  // state was entered in this attempt (0: not reached).
  ExecutionState task_state() const;
  int attempt() const { return attempt_; }
  int64_t task_state_timestamp(ExecutionState s) const { return task_ts_[static_cast<size_t>(s)]; }
  int64_t deploy_ms() const { return deploying_at_ms_; }  // -1 before the first deployment
  bool tasks_running() const { return phase_ == Phase::kRunning || phase_ == Phase::kStopping; }
  // The TaskManager running subtask `index` (slot index) or nullptr.
  const TaskManagerInfo* SubtaskTaskManager(int index) const;
  const JobModel* model() const { return model_.get(); }
  // The topic each source reads, by source index ("" before the topics are attached).
  const std::vector<std::string>& topic_keys() const { return topic_keys_; }
  const CheckpointStats& checkpoint_stats() const { return checkpoint_stats_; }
  const std::deque<ExceptionRecord>& exceptions() const { return exceptions_; }
  std::map<std::string, VertexRequirement> resource_requirements() const;
  int64_t num_restarts() const;
  int64_t num_rescales() const;
  const ProgramInfo& program() const { return program_; }
  // Topic registry key of source vertex `spec_id`.
  std::string TopicKey(const std::string& source_spec_id) const;
  const ClusterSettings& settings() const { return *env_.settings; }
  int64_t now_ms() const { return now_ms_; }
  // Unix ms when the current RUNNING period started (0 if not running).
  int64_t running_since_ms() const { return phase_ == Phase::kRunning ? running_at_ms_ : 0; }

 private:
  enum class Phase {
    kInitializing,  // JobMaster start, topics attached at the end
    kWaiting,       // waiting for slots (and the adaptive cooldown)
    kDeploying,     // tasks deploying / restoring (model down until running_at_ms_)
    kRunning,
    kRestarting,    // cancelling + restart backoff
    kStopping,      // stop-with-savepoint: savepoint in flight, sources stopped
    kCancelling,
    kFailing,
    kTerminal,
  };

  struct PendingSnapshot {
    std::string trigger_id;
    AsyncOperations::Kind kind = AsyncOperations::Kind::kSavepoint;
    SavepointRequest::Mode mode = SavepointRequest::Mode::kSavepoint;
    bool savepoint = false;
    std::string path;  // target snapshot directory
    std::string format_type;
  };

  FlinkJob(JobSetup setup, JobEnv env, TimePoint now);

  // flink_job.cc: state machine.
  void Progress();  // transitions due at now_ms_
  int64_t NextEventMs() const;
  void StepModelTo(int64_t t_ms);
  void SetStatus(JobStatus s);
  void SetTaskState(ExecutionState s);
  bool TryInitialize();
  void EnterWaiting();
  bool TryDeploy();
  // Reactive mode: the slots the job can hold (its own and the free ones), the parallelism of
  // every vertex on `slots`, and the stabilization bookkeeping (true once the slot count has
  // been stable long enough).
  int AvailableSlots() const;
  std::map<VertexId, int> ReactiveTarget(int slots) const;
  bool ReactiveSlotsStable(int available);
  void BeginRestart(int64_t downtime_ms, int64_t backoff_ms, bool rescale);
  void FinishTerminal(JobStatus s);
  // RUNNING: ends a bounded job whose input is read to the end (see the life of a job above).
  void CheckEndOfInput();
  std::optional<int64_t> NextBackoffMs();
  void RecordException(const std::string& exception_class, const std::string& message, const std::string& tm_id);
  void DetachTopics();
  void BuildVertices();

  // flink_job_snapshots.cc: snapshots, restore, ledger, files, HA.
  Status ApplyRestore();
  void HandleCheckpointEvents();
  void OnSnapshotCompleted(const CheckpointEvent& e);
  void OnSnapshotFailed(const CheckpointEvent& e);
  void AddHistory(const CheckpointRecord& r);
  void UpdateHistory(const CheckpointRecord& r);
  SnapshotMetadata MakeMetadata(const CheckpointEvent& e) const;
  // Commits the ranges read since the last commit, naming the snapshot at `snapshot_path`;
  // returns the commits (source index, partition, entry) so that a snapshot that then fails can
  // take them back (UncommitLedger).
  struct LedgerCommit {
    size_t source = 0;
    size_t partition = 0;
    LedgerEntry entry;
  };
  std::vector<LedgerCommit> CommitLedger(const CheckpointEvent& e, const std::string& snapshot_path);
  void UncommitLedger(const std::vector<LedgerCommit>& commits);
  std::string CheckpointPath(int64_t id);
  std::string NewSavepointPath(const std::string& dir);
  void CleanupCheckpointsOnTerminal(JobStatus s);
  void FailPendingSnapshots(const std::string& exception_class, const std::string& message);
  void StartSnapshot(PendingSnapshot pending, bool commits, bool hold_sources);

  std::string id_;
  std::string name_;
  JobDefinition definition_;
  ProgramInfo program_;
  JobEnv env_;
  std::optional<RestoreInfo> restore_;
  std::string restore_error_;
  int64_t ha_counter_ = 0;
  uint64_t seed_ = 1;

  std::unique_ptr<JobModel> model_;
  int64_t model_origin_ms_ = 0;  // Unix ms of model time 0
  std::vector<JobVertexView> vertices_;
  std::vector<TopicLease> leases_;         // per source (model source order)
  std::vector<std::string> topic_keys_;    // per source
  std::vector<std::vector<double>> last_commit_;  // per source, per partition

  int64_t now_ms_ = 0;
  Phase phase_ = Phase::kInitializing;
  JobStatus status_ = JobStatus::kInitializing;
  std::vector<int64_t> status_ts_;
  int64_t start_ms_ = 0;
  int64_t end_ms_ = -1;
  int64_t last_modified_ms_ = 0;
  ExecutionState task_state_ = ExecutionState::kCreated;
  std::vector<int64_t> task_ts_;
  int attempt_ = 0;

  // Timeline of the current phase.
  int64_t phase_until_ms_ = 0;         // end of INITIALIZING / RESTARTING / CANCELLING / FAILING
  int64_t deploying_at_ms_ = -1;
  int64_t initializing_at_ms_ = 0;
  int64_t running_at_ms_ = 0;
  int64_t pending_downtime_ms_ = 0;    // model downtime still to run after slots are granted
  int64_t created_until_ms_ = 0;       // adaptive: CREATED shown at least until here
  int64_t tasks_canceled_at_ms_ = 0;   // RESTARTING: tasks CANCELING until here, then CANCELED
  JobStatus terminal_status_ = JobStatus::kFinished;  // target of CANCELLING / FAILING
  // Bounded jobs: model time (ms) since when the sources have read all their input (-1: not
  // at the end), and whether a committing checkpoint triggered since then has completed.
  int64_t end_of_input_model_ms_ = -1;
  bool final_checkpoint_done_ = false;

  // Restarts.
  std::deque<int64_t> failure_times_ms_;
  int64_t fixed_attempts_ = 0;
  int64_t current_backoff_ms_ = 0;
  int64_t last_failure_ms_ = -1;
  Xoshiro256 rng_;

  // Adaptive scheduler.
  std::map<std::string, VertexRequirement> requirements_;  // by vertex hex id
  std::optional<std::map<VertexId, int>> pending_rescale_;
  int64_t last_rescale_ms_ = -1;
  int reactive_slots_seen_ = -1;          // reactive: the last available slot count seen
  int64_t reactive_slots_since_ms_ = 0;   // and since when

  // Snapshots.
  std::map<int64_t, PendingSnapshot> pending_snapshots_;  // by checkpoint id
  std::vector<std::pair<int64_t, std::string>> retained_checkpoints_;  // id, path (oldest first)
  CheckpointStats checkpoint_stats_;
  std::vector<SnapshotOutcome> outcomes_;
  int decline_next_ = 0;
  double restored_state_bytes_ = 0;

  std::deque<ExceptionRecord> exceptions_;
};

}  // namespace trimtab::sim::flink
