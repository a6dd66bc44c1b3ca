// FlinkJob: the state machine, restarts and rescaling (see flink_job.h). Snapshots, restore,
// files, HA and the ledger are in flink_job_snapshots.cc.
#include "cluster/flink/flink_job.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace trimtab::sim::flink {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr int64_t kJobMasterStartMs = 100;   // INITIALIZING
constexpr int64_t kMaxCancelMs = 500;        // cancelling tasks
constexpr int64_t kCreatingGraphMs = 100;    // adaptive scheduler: CREATED before deploying
constexpr int64_t kTopicRetryMs = 1000;      // a source topic is held by another job
constexpr size_t kExceptionHistory = 16;     // web.exception-history-size

std::string SanitizeMetricComponent(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == ' ' || c == '.' || c == ':' || c == ',') c = '_';
  }
  return out;
}

int64_t Millis(double seconds) { return std::llround(seconds * 1000.0); }

}  // namespace

FlinkJob::FlinkJob(JobSetup setup, JobEnv env, TimePoint now)
    : id_(std::move(setup.id)),
      name_(std::move(setup.name)),
      definition_(std::move(setup.definition)),
      program_(std::move(setup.program)),
      env_(std::move(env)),
      restore_(std::move(setup.restore)),
      restore_error_(std::move(setup.restore_error)),
      ha_counter_(setup.ha_counter),
      seed_(setup.seed),
      status_ts_(kAllJobStatuses.size(), 0),
      task_ts_(kAllExecutionStates.size(), 0),
      rng_(setup.seed ^ 0x6a09e667f3bcc909ULL) {
  now_ms_ = ToUnixMillis(now);
  start_ms_ = now_ms_;
  last_modified_ms_ = now_ms_;
  status_ts_[static_cast<size_t>(JobStatus::kInitializing)] = now_ms_;
  phase_until_ms_ = now_ms_ + kJobMasterStartMs;
}

FlinkJob::~FlinkJob() = default;

StatusOr<std::unique_ptr<FlinkJob>> FlinkJob::Create(JobSetup setup, JobEnv env, TimePoint now) {
  if (!IsHexId(setup.id)) return InvalidArgumentError("job id \"" + setup.id + "\" is not 32 hex digits");
  if (setup.definition.spec.vertices.empty()) return InvalidArgumentError("job " + setup.name + " has no vertices");
  std::unique_ptr<FlinkJob> job(new FlinkJob(std::move(setup), std::move(env), now));
  job->definition_.spec.name = job->name_;
  job->BuildVertices();
  job->Progress();
  return job;
}

// ---- Views ---------------------------------------------------------------------------------

void FlinkJob::BuildVertices() {
  const JobSpec& spec = definition_.spec;
  vertices_.clear();
  for (size_t i = 0; i < spec.vertices.size(); ++i) {
    const VertexSpec& vs = spec.vertices[i];
    JobVertexView v;
    v.spec_id = vs.id;
    v.id = StableHexId(name_, vs.id);
    v.source = vs.partitions > 0;
    v.name = vs.name.empty() ? vs.id : vs.name;
    if (v.source && !v.name.starts_with("Source")) v.name = "Source: " + v.name;
    v.metric_name = SanitizeMetricComponent(v.name);
    v.max_parallelism = model_ ? model_->Topology().vertices[i].max_parallelism : vs.max_parallelism;
    v.parallelism = model_ ? model_->parallelism(static_cast<int>(i)) : vs.parallelism;
    vertices_.push_back(std::move(v));
  }
  for (const EdgeSpec& e : spec.edges) {
    int from = -1, to = -1;
    for (size_t i = 0; i < spec.vertices.size(); ++i) {
      if (spec.vertices[i].id == e.from) from = static_cast<int>(i);
      if (spec.vertices[i].id == e.to) to = static_cast<int>(i);
    }
    if (from < 0 || to < 0) continue;
    std::string ship(ShipStrategyName(e.ship));
    if (e.ship == ShipStrategy::kForward && vertices_[static_cast<size_t>(from)].parallelism !=
                                                vertices_[static_cast<size_t>(to)].parallelism) {
      ship = "REBALANCE";  // Flink replaces a forward edge between different parallelisms
    }
    vertices_[static_cast<size_t>(to)].inputs.push_back({from, ship});
  }
}

int FlinkJob::VertexIndex(const std::string& hex_id) const {
  for (size_t i = 0; i < vertices_.size(); ++i) {
    if (vertices_[i].id == hex_id) return static_cast<int>(i);
  }
  return -1;
}

int FlinkJob::max_parallelism() const {
  int m = 0;
  for (const JobVertexView& v : vertices_) m = std::max(m, v.max_parallelism);
  return m;
}

int FlinkJob::required_slots() const {
  int m = 0;
  for (const JobVertexView& v : vertices_) m = std::max(m, v.parallelism);
  return m;
}

ExecutionState FlinkJob::task_state() const { return task_state_; }

const TaskManagerInfo* FlinkJob::SubtaskTaskManager(int index) const {
  return env_.slots->SlotTaskManager(id_, index);
}

std::map<std::string, VertexRequirement> FlinkJob::resource_requirements() const { return requirements_; }

int64_t FlinkJob::num_restarts() const { return model_ ? model_->num_restarts() : 0; }
int64_t FlinkJob::num_rescales() const { return model_ ? model_->num_rescales() : 0; }

std::string FlinkJob::TopicKey(const std::string& source_spec_id) const {
  return env_.settings->namespace_name + "/" + env_.settings->cluster_id + "/" + StableHexId(name_, source_spec_id);
}

std::vector<SnapshotOutcome> FlinkJob::TakeOutcomes() {
  std::vector<SnapshotOutcome> out;
  out.swap(outcomes_);
  return out;
}

// ---- Time ----------------------------------------------------------------------------------

void FlinkJob::AdvanceTo(TimePoint now) {
  const int64_t target = ToUnixMillis(now);
  Progress();
  const int64_t max_step = std::max<int64_t>(1, Millis(env_.max_step_seconds));
  while (now_ms_ < target) {
    int64_t next = std::min(target, NextEventMs());
    if (model_ && phase_ != Phase::kTerminal) next = std::min(next, now_ms_ + max_step);
    if (next <= now_ms_) next = std::min(target, now_ms_ + 1);
    StepModelTo(next);
    Progress();
  }
}

void FlinkJob::StepModelTo(int64_t t_ms) {
  if (t_ms <= now_ms_) return;
  if (!model_ || phase_ == Phase::kTerminal) {
    now_ms_ = t_ms;
    return;
  }
  const int64_t dt = t_ms - now_ms_;
  const double mid = static_cast<double>(now_ms_) + static_cast<double>(dt) / 2.0;
  for (size_t i = 0; i < leases_.size(); ++i) {
    const TopicLease& lease = leases_[i];
    const double t = (mid - static_cast<double>(ToUnixMillis(lease.origin))) / 1000.0;
    model_->SetSourceRate(static_cast<int>(i), lease.profile ? lease.profile->Rate(std::max(0.0, t)) : 0.0);
  }
  model_->Step(static_cast<double>(dt) / 1000.0);
  // Periodic checkpoints the model triggered show as in progress.
  const int64_t known = checkpoint_stats_.history.empty() ? 0 : checkpoint_stats_.history.front().id;
  for (const auto& [cp_id, trigger_ms] : model_->InFlightCheckpoints()) {
    if (cp_id <= known) continue;
    CheckpointRecord r;
    r.id = cp_id;
    r.trigger_ms = model_origin_ms_ + trigger_ms;
    AddHistory(r);
  }
  now_ms_ = t_ms;  // snapshot events are handled at the end of the step
  HandleCheckpointEvents();
}

int64_t FlinkJob::NextEventMs() const {
  switch (phase_) {
    case Phase::kRestarting:
      if (task_state_ == ExecutionState::kCanceling && tasks_canceled_at_ms_ > now_ms_) return tasks_canceled_at_ms_;
      return phase_until_ms_ > now_ms_ ? phase_until_ms_ : now_ms_ + 1;
    case Phase::kInitializing:
    case Phase::kCancelling:
    case Phase::kFailing:
      return phase_until_ms_ > now_ms_ ? phase_until_ms_ : now_ms_ + 1;
    case Phase::kWaiting:
      if (created_until_ms_ > now_ms_) return created_until_ms_;
      if (env_.settings->reactive && reactive_slots_seen_ > 0) {
        const int64_t stable = reactive_slots_since_ms_ + env_.settings->resource_stabilization_timeout.count();
        if (stable > now_ms_) return stable;
      }
      return kNever;
    case Phase::kDeploying:
      if (task_state_ == ExecutionState::kDeploying && initializing_at_ms_ > now_ms_) return initializing_at_ms_;
      return std::max(running_at_ms_, now_ms_ + 1);
    case Phase::kRunning:
      if (pending_rescale_ && last_rescale_ms_ >= 0) {
        const int64_t due = last_rescale_ms_ + env_.settings->rescale_cooldown.count();
        if (due > now_ms_) return due;
      }
      return kNever;
    case Phase::kStopping:
    case Phase::kTerminal:
      return kNever;
  }
  return kNever;
}

void FlinkJob::SetStatus(JobStatus s) {
  if (status_ == s) return;
  status_ = s;
  status_ts_[static_cast<size_t>(s)] = now_ms_;
  last_modified_ms_ = now_ms_;
}

void FlinkJob::SetTaskState(ExecutionState s) {
  if (task_state_ == s) return;
  task_state_ = s;
  task_ts_[static_cast<size_t>(s)] = now_ms_;
  last_modified_ms_ = now_ms_;
}

// ---- State machine ---------------------------------------------------------------------------

void FlinkJob::Progress() {
  for (int guard = 0; guard < 16; ++guard) {
    const Phase before = phase_;
    const ExecutionState tasks_before = task_state_;
    switch (phase_) {
      case Phase::kInitializing:
        if (now_ms_ >= phase_until_ms_) TryInitialize();
        break;
      case Phase::kWaiting:
        TryDeploy();
        break;
      case Phase::kDeploying:
        if (task_state_ == ExecutionState::kDeploying && now_ms_ >= initializing_at_ms_ && now_ms_ < running_at_ms_) {
          SetTaskState(ExecutionState::kInitializing);
        }
        if (now_ms_ >= running_at_ms_) {
          phase_ = Phase::kRunning;
          SetStatus(JobStatus::kRunning);
          SetTaskState(ExecutionState::kRunning);
        }
        break;
      case Phase::kRunning:
        if (env_.settings->reactive && !pending_rescale_) {
          // New TaskManagers: scale up to what the job can now get.
          const int available = AvailableSlots();
          if (ReactiveSlotsStable(available) && available > required_slots()) {
            std::map<VertexId, int> target = ReactiveTarget(available);
            bool grows = false;
            for (size_t i = 0; i < vertices_.size(); ++i) {
              grows = grows || target[vertices_[i].spec_id] > vertices_[i].parallelism;
            }
            if (grows) pending_rescale_ = std::move(target);
          }
        }
        if (pending_rescale_ &&
            (last_rescale_ms_ < 0 || now_ms_ >= last_rescale_ms_ + env_.settings->rescale_cooldown.count())) {
          std::map<VertexId, int> target = std::move(*pending_rescale_);
          pending_rescale_.reset();
          RescaleOptions options;
          options.restore_from = sim::RestoreSource::kCheckpoint;
          StatusOr<double> downtime = model_->Rescale(target, options);
          if (downtime.ok() && *downtime > 0) {
            last_rescale_ms_ = now_ms_;
            HandleCheckpointEvents();
            BuildVertices();
            BeginRestart(Millis(*downtime), 0, /*rescale=*/true);
          }
        }
        if (phase_ == Phase::kRunning) CheckEndOfInput();
        break;
      case Phase::kRestarting:
        if (task_state_ == ExecutionState::kCanceling && now_ms_ >= tasks_canceled_at_ms_) {
          SetTaskState(ExecutionState::kCanceled);
        }
        if (now_ms_ >= phase_until_ms_) EnterWaiting();
        break;
      case Phase::kCancelling:
      case Phase::kFailing:
        if (now_ms_ >= phase_until_ms_) FinishTerminal(terminal_status_);
        break;
      case Phase::kStopping:
      case Phase::kTerminal:
        break;
    }
    if (phase_ == before && task_state_ == tasks_before) return;
  }
}

bool FlinkJob::TryInitialize() {
  if (!restore_error_.empty()) {
    RecordException("org.apache.flink.runtime.client.JobInitializationException", restore_error_, "");
    FinishTerminal(JobStatus::kFailed);
    return true;
  }
  JobSpec spec = definition_.spec;
  // Attach every source topic; the partition count of an existing topic wins.
  std::vector<TopicLease> leases;
  std::vector<std::string> keys;
  for (VertexSpec& vs : spec.vertices) {
    if (vs.partitions <= 0) continue;
    TopicOptions options;
    options.partitions = vs.partitions;
    auto w = definition_.workload.find(vs.id);
    options.profile = w == definition_.workload.end() ? nullptr : w->second;
    options.rate_factor = vs.rate_factor;
    const std::string key = TopicKey(vs.id);
    StatusOr<TopicLease> lease = env_.topics->Attach(key, env_.reader + "/" + id_, options);
    if (!lease.ok()) {
      for (size_t i = 0; i < keys.size(); ++i) {
        env_.topics->Detach(keys[i], env_.reader + "/" + id_, leases[i].end_offsets, FromUnixMillis(now_ms_));
      }
      phase_until_ms_ = now_ms_ + kTopicRetryMs;  // the previous reader has not let go yet
      return false;
    }
    vs.partitions = static_cast<int>(lease->end_offsets.size());
    leases.push_back(std::move(*lease));
    keys.push_back(key);
  }
  leases_ = std::move(leases);
  topic_keys_ = std::move(keys);
  // Parallelism overrides (pipeline.jobvertex-parallelism-overrides) and the restored max
  // parallelism.
  for (VertexSpec& vs : spec.vertices) {
    const std::string hex = StableHexId(name_, vs.id);
    if (restore_) {
      for (const SnapshotVertex& sv : restore_->metadata.vertices) {
        if (sv.id == hex && sv.max_parallelism > 0) vs.max_parallelism = sv.max_parallelism;
      }
    }
    auto o = env_.settings->vertex_parallelism_overrides.find(hex);
    if (o != env_.settings->vertex_parallelism_overrides.end()) vs.parallelism = o->second;
    vs.parallelism = std::min(vs.parallelism, vs.max_parallelism);
  }
  const CheckpointSettings& cp = env_.settings->checkpoints;
  if (cp.enabled) spec.checkpoint.interval_seconds = static_cast<double>(cp.interval.count()) / 1000.0;
  StatusOr<std::unique_ptr<JobModel>> model = JobModel::Create(spec, seed_);
  if (!model.ok()) {
    DetachTopics();
    RecordException("org.apache.flink.runtime.client.JobInitializationException",
                    "Could not instantiate the job: " + model.status().message(), "");
    FinishTerminal(JobStatus::kFailed);
    return true;
  }
  model_ = std::move(*model);
  definition_.spec = model_->spec();
  model_origin_ms_ = now_ms_;
  model_->RecordCheckpointEvents(true);
  model_->SetPeriodicCheckpoints(cp.enabled);
  model_->Hold();
  const Status restored = ApplyRestore();
  if (!restored.ok()) {
    DetachTopics();
    RecordException("org.apache.flink.runtime.client.JobInitializationException", restored.message(), "");
    FinishTerminal(JobStatus::kFailed);
    return true;
  }
  BuildVertices();
  for (const JobVertexView& v : vertices_) requirements_[v.id] = VertexRequirement{1, v.parallelism};
  SetStatus(JobStatus::kCreated);
  pending_downtime_ms_ = Millis(definition_.spec.restart.base_downtime_seconds +
                                restored_state_bytes_ / definition_.spec.restart.restore_bandwidth_bytes_per_second);
  EnterWaiting();
  return true;
}

void FlinkJob::EnterWaiting() {
  const bool restarting = phase_ == Phase::kRestarting;
  phase_ = Phase::kWaiting;
  if (restarting) {
    ++attempt_;
    std::fill(task_ts_.begin(), task_ts_.end(), 0);
    task_state_ = ExecutionState::kReconciling;  // forces the timestamp of the new attempt below
  }
  if (model_ && !model_->held()) model_->Hold();
  if (env_.settings->scheduler == SchedulerType::kAdaptive) {
    SetStatus(JobStatus::kCreated);
    SetTaskState(ExecutionState::kCreated);
    created_until_ms_ = now_ms_ + kCreatingGraphMs;
  } else {
    SetStatus(JobStatus::kRunning);
    SetTaskState(ExecutionState::kScheduled);
    created_until_ms_ = 0;
  }
}

int FlinkJob::AvailableSlots() const { return env_.slots->free_slots() + env_.slots->slots_of(id_); }

std::map<VertexId, int> FlinkJob::ReactiveTarget(int slots) const {
  std::map<VertexId, int> target;
  for (const JobVertexView& v : vertices_) target[v.spec_id] = std::clamp(slots, 1, std::max(1, v.max_parallelism));
  return target;
}

bool FlinkJob::ReactiveSlotsStable(int available) {
  if (available != reactive_slots_seen_) {
    reactive_slots_seen_ = available;
    reactive_slots_since_ms_ = now_ms_;
  }
  return available > 0 &&
         now_ms_ >= reactive_slots_since_ms_ + env_.settings->resource_stabilization_timeout.count();
}

bool FlinkJob::TryDeploy() {
  if (now_ms_ < created_until_ms_) return false;
  if (env_.settings->reactive) {
    // The parallelism follows the slots: whatever the job graph said, every vertex runs on all
    // of them (up to its max parallelism).
    const int available = AvailableSlots();
    if (!ReactiveSlotsStable(available)) return false;
    const std::map<VertexId, int> target = ReactiveTarget(available);
    bool changed = false;
    for (size_t i = 0; i < vertices_.size(); ++i) {
      changed = changed || target.at(vertices_[i].spec_id) != model_->parallelism(static_cast<int>(i));
    }
    if (changed) {
      RescaleOptions layout;
      layout.while_held = true;  // not deployed: the shape of the deployment that follows
      if (model_->Rescale(target, layout).ok()) BuildVertices();
    }
  }
  if (!env_.slots->Allocate(id_, required_slots(), FromUnixMillis(now_ms_))) return false;
  const int64_t paused = Millis(model_->held_downtime_seconds());
  model_->Release(static_cast<double>(std::max<int64_t>(0, pending_downtime_ms_ - paused)) / 1000.0);
  deploying_at_ms_ = now_ms_;
  running_at_ms_ = now_ms_ + std::max(pending_downtime_ms_, paused);
  initializing_at_ms_ = now_ms_ + std::min<int64_t>(2000, (running_at_ms_ - now_ms_) / 5);
  pending_downtime_ms_ = 0;
  phase_ = Phase::kDeploying;
  SetStatus(JobStatus::kRunning);
  SetTaskState(ExecutionState::kDeploying);
  return true;
}

void FlinkJob::BeginRestart(int64_t downtime_ms, int64_t backoff_ms, bool rescale) {
  const int64_t cancel = std::min<int64_t>(kMaxCancelMs, std::max<int64_t>(0, (downtime_ms - backoff_ms) / 10));
  const int64_t restarting = std::min(downtime_ms, cancel + backoff_ms);
  phase_ = Phase::kRestarting;
  phase_until_ms_ = now_ms_ + restarting;
  tasks_canceled_at_ms_ = now_ms_ + std::min(cancel, restarting);
  pending_downtime_ms_ = downtime_ms - restarting;
  running_at_ms_ = 0;
  SetStatus(JobStatus::kRestarting);
  SetTaskState(ExecutionState::kCanceling);
  if (rescale && env_.settings->scheduler == SchedulerType::kAdaptive) {
    env_.slots->Release(id_, FromUnixMillis(now_ms_));  // the adaptive scheduler re-acquires
  }
}

void FlinkJob::FinishTerminal(JobStatus s) {
  phase_ = Phase::kTerminal;
  SetStatus(s);
  switch (s) {
    case JobStatus::kFinished: SetTaskState(ExecutionState::kFinished); break;
    case JobStatus::kFailed: SetTaskState(ExecutionState::kFailed); break;
    default: SetTaskState(ExecutionState::kCanceled); break;
  }
  end_ms_ = IsGloballyTerminal(s) ? now_ms_ : -1;
  if (model_) {
    if (!model_->held()) model_->Hold();
    model_->AbortCheckpoints(s == JobStatus::kSuspended ? "The job is suspended." : "The job has terminated.");
    HandleCheckpointEvents();
  }
  FailPendingSnapshots("org.apache.flink.runtime.checkpoint.CheckpointException",
                       "Checkpoint Coordinator is suspending.");
  DetachTopics();
  env_.slots->Release(id_, FromUnixMillis(now_ms_));
  if (IsGloballyTerminal(s)) {
    CleanupCheckpointsOnTerminal(s);
    if (env_.ha_outbox) {
      HaUpdate u;
      u.type = HaUpdate::Type::kJobRemoved;
      u.job_id = id_;
      env_.ha_outbox->push_back(std::move(u));
    }
  }
}

void FlinkJob::CheckEndOfInput() {
  if (!model_->finished()) {  // unbounded, not at the end yet, or rewound by a failover
    end_of_input_model_ms_ = -1;
    final_checkpoint_done_ = false;
    return;
  }
  if (end_of_input_model_ms_ < 0) end_of_input_model_ms_ = Millis(model_->now_seconds());
  const CheckpointSettings& cp = env_.settings->checkpoints;
  if (cp.enabled && cp.after_tasks_finish && !final_checkpoint_done_) return;
  FinishTerminal(JobStatus::kFinished);
}

void FlinkJob::DetachTopics() {
  if (leases_.empty()) return;
  for (size_t i = 0; i < leases_.size(); ++i) {
    std::vector<double> ends;
    if (model_) {
      for (const PartitionOffsets& po : model_->partitions(static_cast<int>(i))) ends.push_back(po.end);
    } else {
      ends = leases_[i].end_offsets;
    }
    env_.topics->Detach(topic_keys_[i], env_.reader + "/" + id_, ends, FromUnixMillis(now_ms_));
  }
  leases_.clear();
}

// ---- Operations ----------------------------------------------------------------------------

Status FlinkJob::Cancel(TimePoint) {
  if (IsTerminal(status_)) {
    return FailedPreconditionError("Job cancellation failed because the job has already reached another terminal state (" +
                                   std::string(JobStatusName(status_)) + ").");
  }
  if (phase_ == Phase::kCancelling) return Status::Ok();
  terminal_status_ = JobStatus::kCanceled;
  phase_ = Phase::kCancelling;
  const bool tasks = model_ != nullptr;
  phase_until_ms_ = now_ms_ + (tasks ? kMaxCancelMs : kJobMasterStartMs);
  pending_rescale_.reset();
  if (model_) {
    if (!model_->held()) model_->Hold();
    model_->AbortCheckpoints("Checkpoint Coordinator is suspending.");
    HandleCheckpointEvents();
  }
  SetStatus(JobStatus::kCancelling);
  if (tasks) SetTaskState(ExecutionState::kCanceling);
  return Status::Ok();
}

void FlinkJob::FailTasks(const std::string& exception_class, const std::string& message, const std::string& tm_id,
                         TimePoint) {
  if (phase_ != Phase::kDeploying && phase_ != Phase::kRunning && phase_ != Phase::kStopping) return;
  RecordException(exception_class, message, tm_id);
  if (model_->held()) model_->Release(0);  // stop-with-savepoint in flight: the tasks were up
  const std::optional<int64_t> backoff = NextBackoffMs();
  if (!backoff) {
    terminal_status_ = JobStatus::kFailed;
    phase_ = Phase::kFailing;
    phase_until_ms_ = now_ms_ + kMaxCancelMs;
    model_->Hold();
    model_->AbortCheckpoints("The job is failing.");
    HandleCheckpointEvents();
    SetStatus(JobStatus::kFailing);
    SetTaskState(ExecutionState::kCanceling);
    return;
  }
  const double downtime = model_->Fail(static_cast<double>(*backoff) / 1000.0);
  HandleCheckpointEvents();
  BeginRestart(Millis(downtime), *backoff, /*rescale=*/false);
  Progress();
}

std::optional<int64_t> FlinkJob::NextBackoffMs() {
  const RestartStrategySettings& r = env_.settings->restart;
  switch (r.type) {
    case RestartStrategyType::kNone:
      return std::nullopt;
    case RestartStrategyType::kFixedDelay:
      if (fixed_attempts_ >= r.attempts) return std::nullopt;
      ++fixed_attempts_;
      return r.delay.count();
    case RestartStrategyType::kFailureRate:
      failure_times_ms_.push_back(now_ms_);
      while (!failure_times_ms_.empty() && failure_times_ms_.front() <= now_ms_ - r.failure_rate_interval.count()) {
        failure_times_ms_.pop_front();
      }
      if (static_cast<int64_t>(failure_times_ms_.size()) > r.max_failures_per_interval) return std::nullopt;
      return r.delay.count();
    case RestartStrategyType::kExponentialDelay: {
      if (current_backoff_ms_ == 0 ||
          (last_failure_ms_ >= 0 && now_ms_ - last_failure_ms_ >= r.reset_threshold.count())) {
        current_backoff_ms_ = r.initial_backoff.count();
      } else {
        current_backoff_ms_ = std::min<int64_t>(r.max_backoff.count(),
                                                std::llround(static_cast<double>(current_backoff_ms_) * r.multiplier));
      }
      last_failure_ms_ = now_ms_;
      const double jitter = r.jitter * static_cast<double>(current_backoff_ms_) * (2.0 * rng_.Uniform() - 1.0);
      return std::max<int64_t>(0, current_backoff_ms_ + std::llround(jitter));
    }
  }
  return std::nullopt;
}

void FlinkJob::Suspend(TimePoint) {
  if (IsTerminal(status_)) return;
  FinishTerminal(JobStatus::kSuspended);
}

void FlinkJob::UpdateResourceRequirements(const std::map<std::string, VertexRequirement>& requirements,
                                          TimePoint) {
  if (requirements == requirements_ || IsTerminal(status_)) return;
  requirements_ = requirements;
  if (!model_) return;
  std::map<VertexId, int> target;
  bool changed = false;
  for (size_t i = 0; i < vertices_.size(); ++i) {
    auto it = requirements.find(vertices_[i].id);
    if (it == requirements.end()) continue;
    const int p = std::clamp(it->second.upper, 1, vertices_[i].max_parallelism);
    target[vertices_[i].spec_id] = p;
    changed = changed || p != model_->parallelism(static_cast<int>(i));
  }
  if (!changed) {
    pending_rescale_.reset();
    return;
  }
  if (phase_ == Phase::kWaiting) {  // not deployed yet: the next deployment uses the new shape
    RescaleOptions free;
    free.free = true;
    if (model_->Rescale(target, free).ok()) BuildVertices();
    return;
  }
  pending_rescale_ = std::move(target);
  Progress();
}

void FlinkJob::RecordException(const std::string& exception_class, const std::string& message,
                               const std::string& tm_id) {
  ExceptionRecord e;
  e.exception_class = exception_class;
  e.message = message;
  e.timestamp_ms = now_ms_;
  e.task_manager_id = tm_id;
  if (!vertices_.empty()) e.task_name = vertices_.front().name + " (1/" + std::to_string(vertices_.front().parallelism) + ")";
  if (!tm_id.empty()) {
    if (const SlotPool::TaskManager* tm = env_.slots->Find(tm_id)) {
      e.endpoint = tm->info.host + ":" + std::to_string(tm->info.data_port);
    } else {
      e.endpoint = tm_id;
    }
  }
  exceptions_.push_front(std::move(e));
  while (exceptions_.size() > kExceptionHistory) exceptions_.pop_back();
}

}  // namespace trimtab::sim::flink
