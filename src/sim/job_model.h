// JobModel: a streaming job (Flink-like) simulated in virtual time, as a fluid model with one
// value per subtask.
//
// Each Step(dt):
//   1. Sources' partitions receive the workload rate (records/s, spread evenly over partitions);
//      unread records are the backlog (Kafka lag, `pendingRecords`).
//   2. Every source subtask offers min(capacity, backlog of its partitions / dt).
//   3. Demand flows downstream through the edges (forward: subtask to subtask; rebalance: evenly;
//      hash: by the key share of each consumer's key-group range) times each vertex's
//      selectivity. Bounded buffers are modelled by their steady state: every producer is
//      throttled to the smallest capacity/demand ratio of the subtasks it feeds, transitively,
//      so a slow downstream subtask throttles all of its producers up to the sources.
//   4. Time accounting per subtask follows Flink: busy = processed / capacity; the rest is
//      backpressured if a saturated subtask lies downstream (output buffers full), else idle.
//      Gauges and meters are 60-s windows updated every 5 s of virtual time (aligned to
//      multiples of 5 s, like Flink's global view updater); they restart from zero after a
//      restart, so rates ramp up for 60 s.
//   5. Checkpoints trigger every interval, capture the source read offsets, and commit them
//      when they complete (duration = base + state size / bandwidth).
// A bounded source (stopping offsets, a Kafka source with setBounded) reads each partition only
// up to its stopping offset; its backlog (`pendingRecords`) is what it will still read. Once
// every source has read all of it, finished() is true.
// Rescale() and Fail() stop the job for base downtime + state size / restore bandwidth (plus a
// savepoint when rescaling from a savepoint); input keeps arriving, so lag piles up and drains
// afterwards at (bottleneck capacity - input rate). A restore from a checkpoint rewinds every
// partition's read offset to the committed offset: nothing is skipped and the re-read records
// are counted in reprocessed_records().
//
// Owners that run the model as a Flink job (src/cluster/flink) also use: Hold()/Release()
// to keep the tasks down while resources are missing, TriggerCheckpoint() for savepoints and
// manual checkpoints, TakeCheckpointEvents() to learn which snapshots completed (with the
// offsets they captured), and SetPartitionOffsets() to start from restored offsets.
//
// Time is kept in integer milliseconds so long runs do not drift.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<JobModel> m, JobModel::Create(spec, /*seed=*/7));
//   m->SetSourceRate(0, 50'000);
//   for (int i = 0; i < 600; ++i) m->Step(1.0);
//   JobMetrics metrics = m->Snapshot();
//   StatusOr<double> downtime = m->Rescale({{"window", 8}});
//
// Thread-safety: not thread-safe; one model per thread. Step() does not allocate.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/scaling_types.h"
#include "sim/job_spec.h"
#include "sim/metrics.h"

namespace trimtab::sim {

// Offsets of one source partition, in records since the start of the simulation.
struct PartitionOffsets {
  double end = 0;        // records produced into the partition (the log end offset)
  double read = 0;       // records the reader has consumed (its current position)
  double committed = 0;  // read position captured by the last completed checkpoint/savepoint
};

// A snapshot (checkpoint or savepoint) that completed or was aborted; see TakeCheckpointEvents().
struct CheckpointEvent {
  int64_t id = 0;
  bool savepoint = false;
  bool commits = true;     // completion moves the committed offsets (not intermediate savepoints)
  bool completed = false;  // false: aborted (restart, AbortCheckpoint, subsumed)
  int64_t trigger_ms = 0;  // model time of the trigger
  int64_t end_ms = 0;      // model time of completion / abort
  double state_bytes = 0;  // state size captured
  std::string failure;     // why it was aborted
  // Read offsets captured at the trigger, per source (source_ids() order), per partition.
  std::vector<std::vector<double>> read_offsets;
};

struct RescaleOptions {
  // Where to restore from; default: the job's restart.rescaleFrom.
  std::optional<RestoreSource> restore_from;
  // No downtime and no rewind. Only for analytical bounds (the oracle policy); no real system
  // rescales for free.
  bool free = false;
  // The job is held (not running: waiting for resources): only the layout of the tasks changes,
  // for the deployment that follows. No restart is counted and the held downtime stays.
  // Refused (FailedPrecondition) when the job is not held.
  bool while_held = false;
};

// True demand on a vertex at the current input rates if nothing were throttled.
struct VertexDemand {
  double total = 0;   // records/s arriving at the vertex
  double hashed = 0;  // part of `total` arriving over HASH edges
};

class JobModel {
 public:
  // Validates `spec` (see ValidateJobSpec). `seed` drives every random choice (key skew).
  static StatusOr<std::unique_ptr<JobModel>> Create(JobSpec spec, uint64_t seed);
  ~JobModel();

  // ---- Driving the model -------------------------------------------------------------------
  int num_sources() const;
  // Source vertex ids in topological order; index i is the source index below.
  const std::vector<VertexId>& source_ids() const { return source_ids_; }
  // Sets the external input rate of source `source_index` (records/s, before rateFactor).
  // REQUIRES: 0 <= source_index < num_sources(), rate >= 0.
  void SetSourceRate(int source_index, double records_per_second);
  double source_rate(int source_index) const;  // after rateFactor

  // Advances virtual time by dt seconds (rounded to whole milliseconds). REQUIRES: dt > 0.
  void Step(double dt_seconds);

  // Changes parallelism (vertices not named keep theirs) and restarts the job. Returns the
  // downtime in seconds (0 when nothing changes). Errors: unknown vertex, parallelism outside
  // [1, maxParallelism].
  StatusOr<double> Rescale(const std::map<VertexId, int>& parallelism, RescaleOptions options = {});
  // A task failure: restart from the latest completed checkpoint. Returns the downtime.
  // `backoff_seconds` replaces the spec's restart.failureBackoff for this failure.
  double Fail(std::optional<double> backoff_seconds = std::nullopt);

  // Keeps the tasks down (no processing; input keeps arriving) until Release(). A restart in
  // progress is paused with its remaining downtime; in-flight snapshots keep going.
  void Hold();
  // Ends a Hold(): the tasks run again after the paused downtime plus `extra_seconds`.
  void Release(double extra_seconds = 0);
  bool held() const { return held_; }
  // Downtime Release() will still run (paused restart), in seconds.
  double held_downtime_seconds() const { return static_cast<double>(held_remaining_ms_) / 1000.0; }

  // ---- Snapshots -------------------------------------------------------------------------
  // Periodic checkpoints every checkpoint.interval (default on).
  void SetPeriodicCheckpoints(bool enabled);
  // Starts a checkpoint (or savepoint) now; it captures the readers' offsets and completes
  // after base + state / bandwidth. A committing snapshot moves the committed offsets (the
  // restore point of a failover) when it completes and subsumes older in-flight periodic
  // checkpoints; an intermediate savepoint (commits = false, Flink >= 1.15) does neither.
  // Errors: the tasks are not running (FailedPrecondition).
  StatusOr<int64_t> TriggerCheckpoint(bool savepoint, bool commits = true);
  // Aborts an in-flight snapshot (a declined checkpoint). False when `id` is not in flight.
  bool AbortCheckpoint(int64_t id, const std::string& reason);
  // Snapshot ids continue from here (a restored job continues its checkpoint counter).
  void SetNextCheckpointId(int64_t id) { next_checkpoint_id_ = id; }
  int64_t next_checkpoint_id() const { return next_checkpoint_id_; }
  // Completed and aborted snapshots since the last call, in order. Recording starts with the
  // first call to RecordCheckpointEvents(true).
  void RecordCheckpointEvents(bool enabled) { record_events_ = enabled; }
  std::vector<CheckpointEvent> TakeCheckpointEvents();
  int num_checkpoints_in_flight() const { return static_cast<int>(in_flight_.size()); }
  // (id, model trigger time in ms) of every snapshot in flight, in trigger order.
  std::vector<std::pair<int64_t, int64_t>> InFlightCheckpoints() const;
  // Aborts every in-flight snapshot (cancellation, shutdown).
  void AbortCheckpoints(const std::string& reason) { AbortAllCheckpoints(reason); }

  // Sets the offsets of every partition of source `source_index` (a restored or re-attached
  // topic). Errors: wrong partition count, negative offsets or read/committed beyond the end.
  Status SetPartitionOffsets(int source_index, const std::vector<PartitionOffsets>& offsets);

  // ---- Observing it ------------------------------------------------------------------------
  // Metrics as Flink reports them at this instant (allocates; call once per decision).
  JobMetrics Snapshot() const;
  // The job graph as the autoscaler sees it (current parallelism).
  const core::JobTopology& Topology() const { return topology_; }
  const JobSpec& spec() const { return spec_; }

  double now_seconds() const { return static_cast<double>(now_ms_) / 1000.0; }
  JobState state() const { return down_until_ms_ > now_ms_ ? JobState::kRestarting : JobState::kRunning; }
  // Every source is bounded (VertexSpec::stopping_offsets).
  bool bounded() const;
  // Every source is bounded and has read every partition up to its stopping offset. There are
  // no buffers in the fluid model, so every downstream vertex has then processed all it
  // received: the job's work is done (Flink: the tasks reach FINISHED). A restart from a
  // checkpoint taken before the end rewinds the sources, and the job is no longer finished.
  // The model keeps stepping afterwards with nothing to read (idle tasks); its owner decides
  // what finishing means (the simulator ends the run, FlinkJob ends the job).
  bool finished() const;
  int parallelism(int vertex_index) const;
  int vertex_index(const VertexId& id) const;  // -1 when unknown
  int slots() const { return slots_; }
  int task_managers() const;

  // ---- Ground truth (reports, tests, the oracle; real policies must not read these) ---------
  // Records waiting in the partitions of source `source_index` / of all sources.
  double PendingRecords(int source_index) const {
    return std::max(0.0, pending_[static_cast<size_t>(source_index)]);
  }
  double TotalPendingRecords() const {
    double total = 0;
    for (size_t s = 0; s < pending_.size(); ++s) total += PendingRecords(static_cast<int>(s));
    return total;
  }
  // Lag in seconds of input: max over sources of pending / input rate (pending > 0 with zero
  // input counts as pending / 1 record/s).
  double LagSeconds() const;
  const std::vector<PartitionOffsets>& partitions(int source_index) const;  // materializes
  double reprocessed_records() const { return reprocessed_records_; }
  // Records the vertex processed since the simulation started (all task attempts).
  double total_processed(int vertex_index) const;
  // Per vertex (topological order) demand at the current source rates, with no throttling.
  std::vector<VertexDemand> TrueDemand() const;
  void TrueDemand(std::vector<VertexDemand>* out) const;  // the same into *out, reusing it
  // The fewest subtasks that carry `demand` on vertex `vertex_index` without saturating any
  // subtask (key-group and partition skew included); the max useful parallelism when none does.
  // Remembers the last answer per vertex (the oracle asks every step, mostly the same demand).
  int MinimalParallelism(int vertex_index, const VertexDemand& demand) const;
  // Total state size now (bytes): fixed state plus windowed state at the recent input rate.
  double StateBytes() const;
  int64_t completed_checkpoints() const { return completed_checkpoints_; }
  int64_t num_restarts() const { return num_restarts_; }
  int64_t num_rescales() const { return num_rescales_; }

  // Forces the general per-subtask path at every step (tests compare it with the linear regime).
  void DisableLinearRegimeForTest() { linear_disabled_ = true; }
  // Forces Process() to recompute the flow even when the source offers did not change.
  void DisableFlowReuseForTest() { flow_reuse_disabled_ = true; }

 private:
  struct Vertex;
  struct Source;
  struct EdgeRt;
  struct InFlight;

  explicit JobModel(JobSpec spec);
  void BuildGraph(uint64_t seed);
  void RebuildLayout();  // after a parallelism change: subtask arrays, partition owners
  void BuildTopology();
  void Process(int64_t active_start_ms, int64_t end_ms);
  void ComputeFlow();
  void ForwardPass(double* rate);
  void BackwardMinRatio();
  void PushWindows(int64_t boundary_ms, int64_t end_ms);
  void ResetWindows(int64_t start_ms);
  void StartRestart(double downtime_seconds, bool rewind);
  void AdvanceCheckpoints();
  // Whether AdvanceCheckpoints() has anything to do now: a snapshot to complete or a periodic
  // one to trigger.
  bool CheckpointsDue() const { return !in_flight_.empty() || now_ms_ >= next_checkpoint_ms_; }
  void AbortAllCheckpoints(const std::string& reason);
  int64_t StartSnapshot(bool savepoint, bool commits);
  void EmitEvent(InFlight& f, bool completed, const std::string& failure);
  double MaxHashShare(int vertex_index, int parallelism) const;
  int ComputeMinimalParallelism(int vertex_index, const VertexDemand& demand) const;
  // Linear regime (job_model_fast.cc): see the comment at fast_ below.
  bool CanStepFast(int64_t t0) const;
  // Caches the step length in seconds and its EWMA factor (ewma_dt_, ewma_alpha_dt_) for an
  // active step of `step_ms`; nothing to do while the length stays the same.
  void UseStepLength(int64_t step_ms);
  // A counter of subtask `u` in the linear regime after integrated input l and active time t.
  double LinearValue(int kind, const Vertex& v, size_t u, double l, double t) const;
  void FastStep(int64_t t0, int64_t t1);
  void EnterFast();
  void ExitFast();
  // Leaves the linear regime materializing only the partition offsets: for a rescale, whose
  // new tasks start their counters and windows from zero.
  void DropFast();
  void ComputeGains();
  void MaterializePartitions() const;
  void RecountPending();
  // Window sample / counter of subtask u (vertex v) whether materialized or virtual.
  double RingValue(int kind, int slot, const Vertex& v, size_t u) const;
  double CumValue(int kind, const Vertex& v, size_t u) const;

  JobSpec spec_;
  std::vector<Vertex> vertices_;  // topological order
  std::vector<Source> sources_;
  std::vector<EdgeRt> edges_;
  std::vector<VertexId> source_ids_;
  core::JobTopology topology_;

  int64_t now_ms_ = 0;
  int64_t down_until_ms_ = 0;      // job restarting while now < down_until
  int64_t state_since_ms_ = 0;     // when the current job state began
  int slots_ = 0;
  int num_subtasks_ = 0;

  // Per subtask (flat, vertex after vertex).
  std::vector<double> demand_, offer_, actual_, ratio_, factor_, avail_;
  std::vector<double> idle_rate_, bp_rate_;  // ms/s during the last active step
  // The flow arrays (actual_ ... bp_rate_) hold what ComputeFlow() made of the offers in offer_.
  bool flow_valid_ = false;
  bool flow_reuse_disabled_ = false;
  std::vector<double> cum_in_, cum_out_, cum_idle_, cum_bp_;
  std::vector<double> key_share_;            // hash input share per subtask
  std::vector<uint8_t> sat_, reach_;
  std::vector<double> vertex_total_, vertex_min_ratio_;
  std::vector<uint8_t> vertex_reach_;

  // 60-s windows: kSlots samples at 5-s boundaries; slot-major [slot * num_subtasks + j].
  static constexpr int kSlots = 13;
  std::vector<double> ring_in_, ring_out_, ring_idle_, ring_bp_;
  int64_t ring_time_ms_[kSlots] = {};
  int ring_head_ = 0;   // slot of the newest sample
  int ring_count_ = 0;  // samples since task start (including the start sample)
  int64_t task_start_ms_ = 0;
  int64_t next_boundary_ms_ = 5000;

  // Checkpoints. In flight in trigger order; at most one periodic one.
  struct InFlight {
    int64_t id = 0;
    bool savepoint = false;
    bool commits = true;
    bool periodic = false;
    int64_t trigger_ms = 0;
    int64_t complete_ms = 0;
    double size = 0;
    std::vector<std::vector<double>> reads;  // per source, per partition
  };
  std::vector<InFlight> in_flight_;
  std::vector<CheckpointEvent> events_;
  bool record_events_ = false;
  bool periodic_checkpoints_ = true;
  int64_t next_checkpoint_id_ = 1;
  int64_t next_checkpoint_ms_ = 0;
  int64_t completed_checkpoints_ = 0;
  int64_t committed_id_ = 0;  // id of the snapshot the committed offsets come from
  double last_checkpoint_duration_s_ = 0;
  double last_checkpoint_size_ = 0;

  bool awaiting_start_ = false;  // down: windows restart from zero when the tasks run again
  bool held_ = false;
  int64_t held_remaining_ms_ = 0;  // downtime left when Hold() paused a restart

  int64_t num_restarts_ = 0;
  int64_t num_rescales_ = 0;
  double reprocessed_records_ = 0;
  double step_seconds_ = -1;   // the last Step()'s dt and its length in whole ms
  int64_t step_ms_ = 0;
  // The last active step length in ms, in seconds, and the EWMA factor for it.
  int64_t ewma_alpha_ms_ = -1;
  double ewma_dt_ = 0;
  double ewma_alpha_dt_ = -1;
  std::vector<double> pending_;  // per source: records not yet read
  bool drained_ = true;          // after the last step every partition was read to its end

  // Linear regime. With one source, all partitions read to their end and no subtask saturated,
  // every subtask's rate is gain_[j] * input rate, so each counter is linear in the integrated
  // input L = sum(rate * dt) and the active time T since entering the regime. While fast_ the
  // per-subtask counters and partition offsets are not touched per step: counters are
  // entry_* + coefficient * (L, T), 5-s window samples are recorded as virtual (L, T) slots,
  // and every partition has fast_partition_add_ records to add to both end and read. ExitFast()
  // materializes all of it; Snapshot() reads it virtually.
  bool fast_ = false;
  bool linear_disabled_ = false;
  double fast_l_ = 0;
  double fast_t_ = 0;
  mutable double fast_partition_add_ = 0;
  std::vector<double> gain_;         // per subtask, per unit of source rate
  std::vector<double> vertex_gain_;  // per vertex
  double lambda_max_ = 0;            // largest source rate with no subtask saturated
  std::vector<double> entry_in_, entry_out_, entry_idle_;
  bool slot_virtual_[kSlots] = {};
  double slot_l_[kSlots] = {};
  double slot_t_[kSlots] = {};
};

}  // namespace trimtab::sim
