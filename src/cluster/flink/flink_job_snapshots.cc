// FlinkJob: checkpoints, savepoints, restore, snapshot files, HA metadata and ledger commits
// (see flink_job.h). The state machine is in flink_job.cc.
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "cluster/flink/flink_job.h"

namespace trimtab::sim::flink {

namespace {

constexpr char kNotAddressable[] = "<checkpoint-not-externally-addressable>";
constexpr size_t kSummaryWindow = 100;
constexpr char kCheckpointException[] = "org.apache.flink.runtime.checkpoint.CheckpointException";

Json FailureOperation(AsyncOperations::Kind kind, const std::string& exception_class, const std::string& message) {
  // The checkpoint trigger's CheckpointInfo spells it camelCase; everything else with a dash.
  return Json{{kind == AsyncOperations::Kind::kCheckpoint ? "failureCause" : "failure-cause",
               FailureCause(exception_class, message)}};
}

}  // namespace

// ---- Restore -----------------------------------------------------------------------------------

Status FlinkJob::ApplyRestore() {
  const std::vector<VertexId>& sources = model_->source_ids();
  std::vector<std::vector<double>> reads(sources.size());
  if (restore_) {
    const SnapshotMetadata& m = restore_->metadata;
    const std::string what = "Failed to rollback to checkpoint/savepoint " + restore_->path + ". ";
    for (const SnapshotVertex& sv : m.vertices) {
      int index = -1;
      for (size_t i = 0; i < definition_.spec.vertices.size(); ++i) {
        if (StableHexId(name_, definition_.spec.vertices[i].id) == sv.id) index = static_cast<int>(i);
      }
      if (index < 0) {
        if (restore_->allow_non_restored_state) continue;
        return InvalidArgumentError(what + "Cannot map checkpoint/savepoint state for operator " + sv.id +
                                    " to the new program, because the operator is not available in the new "
                                    "program. If you want to allow to skip this, you can set the "
                                    "--allowNonRestoredState option on the CLI.");
      }
      const int p = model_->parallelism(index);
      if (p > sv.max_parallelism) {
        return InvalidArgumentError("The state for operator " + sv.id +
                                    " can not be restored. The maximum parallelism (" +
                                    std::to_string(sv.max_parallelism) +
                                    ") of the restored state is lower than the configured parallelism (" +
                                    std::to_string(p) +
                                    "). Please reduce the parallelism of the task to be lower or equal to the "
                                    "maximum parallelism.");
      }
    }
    for (size_t i = 0; i < sources.size(); ++i) {
      const std::string hex = StableHexId(name_, sources[i]);
      for (const SnapshotSource& ss : m.sources) {
        if (ss.vertex_id == hex) reads[i] = ss.read_offsets;
      }
    }
    model_->SetNextCheckpointId(std::max(m.checkpoint_id + 1, ha_counter_));
    restored_state_bytes_ = m.state_bytes;
    CheckpointStats::Restored r;
    r.id = m.checkpoint_id;
    r.restore_ms = now_ms_;
    r.savepoint = m.savepoint;
    r.path = restore_->path;
    checkpoint_stats_.latest_restored = r;
    checkpoint_stats_.restored = 1;
  } else if (ha_counter_ > 0) {
    model_->SetNextCheckpointId(ha_counter_);
  }
  last_commit_.assign(sources.size(), {});
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::vector<double>& ends = leases_[i].end_offsets;
    const bool restored = restore_ && !reads[i].empty();
    std::vector<PartitionOffsets> offsets(ends.size());
    for (size_t k = 0; k < ends.size(); ++k) {
      // A restored source continues at its snapshot offsets (a partition the snapshot does
      // not know starts at the earliest offset); a fresh one starts at the latest.
      const double read = restored ? (k < reads[i].size() ? reads[i][k] : 0.0) : ends[k];
      offsets[k].end = std::max(ends[k], read);
      offsets[k].read = read;
      offsets[k].committed = read;
      last_commit_[i].push_back(read);
      // An intermediate savepoint commits nothing when it is taken (Flink >= 1.15); a job
      // restored from it commits the savepoint's pending side effects first, as Flink's sinks
      // commit the committables they recover. Without this, a restore from a savepoint taken
      // after the last checkpoint of a job that died before its next one left a false gap
      // (issue 28, crash seed 28030). A checkpoint's or a terminating savepoint's range is
      // already in the ledger (its commit precedes its metadata).
      const std::vector<double>& committed = leases_[i].committed_offsets;
      if (restored && restore_->metadata.savepoint && k < committed.size() && committed[k] < read &&
          i < topic_keys_.size()) {
        LedgerEntry entry;
        entry.from = committed[k];
        entry.to = read;
        entry.job_id = id_;
        entry.checkpoint_id = restore_->metadata.checkpoint_id;
        entry.savepoint = true;
        entry.time_ms = now_ms_;
        entry.snapshot_path = restore_->path;
        env_.topics->Commit(topic_keys_[i], static_cast<int>(k), entry);
      }
    }
    TRIMTAB_RETURN_IF_ERROR(model_->SetPartitionOffsets(static_cast<int>(i), offsets));
  }
  return Status::Ok();
}

// ---- Triggers ----------------------------------------------------------------------------------

void FlinkJob::TriggerSavepoint(const SavepointRequest& request, const std::string& trigger_id, TimePoint) {
  PendingSnapshot p;
  p.trigger_id = trigger_id;
  p.kind = AsyncOperations::Kind::kSavepoint;
  p.mode = request.mode;
  p.savepoint = true;
  p.format_type = request.format_type;
  if (IsTerminal(status_) || !model_) {
    outcomes_.push_back({p.kind, trigger_id,
                         FailureOperation(p.kind, "org.apache.flink.runtime.messages.FlinkJobNotFoundException",
                                          "Could not find Flink job (" + id_ + ")")});
    return;
  }
  p.path = NewSavepointPath(request.target_dir);
  const bool terminating = request.mode != SavepointRequest::Mode::kSavepoint;
  StartSnapshot(std::move(p), /*commits=*/terminating, /*hold_sources=*/terminating);
}

void FlinkJob::TriggerCheckpoint(const std::string& trigger_id, TimePoint) {
  PendingSnapshot p;
  p.trigger_id = trigger_id;
  p.kind = AsyncOperations::Kind::kCheckpoint;
  if (IsTerminal(status_) || !model_) {
    outcomes_.push_back({p.kind, trigger_id,
                         FailureOperation(p.kind, "org.apache.flink.runtime.messages.FlinkJobNotFoundException",
                                          "Could not find Flink job (" + id_ + ")")});
    return;
  }
  StartSnapshot(std::move(p), /*commits=*/true, /*hold_sources=*/false);
}

void FlinkJob::StartSnapshot(PendingSnapshot pending, bool commits, bool hold_sources) {
  if (phase_ != Phase::kRunning) {
    outcomes_.push_back({pending.kind, pending.trigger_id,
                         FailureOperation(pending.kind, kCheckpointException,
                                          "Not all required tasks are currently running.")});
    return;
  }
  StatusOr<int64_t> id = model_->TriggerCheckpoint(pending.savepoint, commits);
  if (!id.ok()) {
    outcomes_.push_back({pending.kind, pending.trigger_id,
                         FailureOperation(pending.kind, kCheckpointException, id.status().message())});
    return;
  }
  CheckpointRecord r;
  r.id = *id;
  r.savepoint = pending.savepoint;
  r.checkpoint_type = !pending.savepoint ? "CHECKPOINT" : hold_sources ? "SYNC_SAVEPOINT" : "SAVEPOINT";
  r.savepoint_format = pending.savepoint ? pending.format_type : "";
  r.trigger_ms = now_ms_;
  r.external_path = pending.path;
  AddHistory(r);
  pending_snapshots_[*id] = std::move(pending);
  if (hold_sources) {
    model_->Hold();  // stop-with-savepoint: no record after the savepoint barrier is processed
    phase_ = Phase::kStopping;
  }
  if (decline_next_ > 0) {
    --decline_next_;
    model_->AbortCheckpoint(*id, "Checkpoint was declined (tasks not ready).");
  }
  HandleCheckpointEvents();
}

// ---- Completion ---------------------------------------------------------------------------------

void FlinkJob::HandleCheckpointEvents() {
  if (!model_) return;
  for (const CheckpointEvent& e : model_->TakeCheckpointEvents()) {
    if (e.completed) {
      OnSnapshotCompleted(e);
    } else {
      OnSnapshotFailed(e);
    }
  }
}

std::string FlinkJob::CheckpointPath(int64_t id) {
  const ClusterSettings& s = *env_.settings;
  if (!s.checkpoints.dir.empty()) {
    return SimFileSystem::Join(SimFileSystem::Join(s.checkpoints.dir, id_), "chk-" + std::to_string(id));
  }
  return kNotAddressable;
}

std::string FlinkJob::NewSavepointPath(const std::string& dir) {
  return SimFileSystem::Join(dir, "savepoint-" + id_.substr(0, 6) + "-" + env_.ids->Hex(12));
}

SnapshotMetadata FlinkJob::MakeMetadata(const CheckpointEvent& e) const {
  SnapshotMetadata m;
  m.job_id = id_;
  m.job_name = name_;
  m.checkpoint_id = e.id;
  m.savepoint = e.savepoint;
  auto p = pending_snapshots_.find(e.id);
  if (p != pending_snapshots_.end() && !p->second.format_type.empty()) m.format_type = p->second.format_type;
  m.timestamp_ms = model_origin_ms_ + e.end_ms;
  m.state_bytes = e.state_bytes;
  for (const JobVertexView& v : vertices_) m.vertices.push_back({v.id, v.name, v.parallelism, v.max_parallelism});
  const std::vector<VertexId>& sources = model_->source_ids();
  for (size_t i = 0; i < sources.size() && i < e.read_offsets.size(); ++i) {
    m.sources.push_back({StableHexId(name_, sources[i]), topic_keys_.size() > i ? topic_keys_[i] : "", e.read_offsets[i]});
  }
  return m;
}

std::vector<FlinkJob::LedgerCommit> FlinkJob::CommitLedger(const CheckpointEvent& e,
                                                          const std::string& snapshot_path) {
  std::vector<LedgerCommit> commits;
  for (size_t i = 0; i < e.read_offsets.size() && i < last_commit_.size() && i < topic_keys_.size(); ++i) {
    for (size_t k = 0; k < e.read_offsets[i].size() && k < last_commit_[i].size(); ++k) {
      const double from = last_commit_[i][k];
      const double to = e.read_offsets[i][k];
      if (!(to > from)) continue;
      LedgerEntry entry;
      entry.from = from;
      entry.to = to;
      entry.job_id = id_;
      entry.checkpoint_id = e.id;
      entry.savepoint = e.savepoint;
      entry.time_ms = model_origin_ms_ + e.end_ms;
      entry.snapshot_path = snapshot_path;
      env_.topics->Commit(topic_keys_[i], static_cast<int>(k), entry);
      last_commit_[i][k] = to;
      commits.push_back({i, k, std::move(entry)});
    }
  }
  return commits;
}

void FlinkJob::UncommitLedger(const std::vector<LedgerCommit>& commits) {
  for (auto c = commits.rbegin(); c != commits.rend(); ++c) {
    env_.topics->Retract(topic_keys_[c->source], static_cast<int>(c->partition), c->entry);
    last_commit_[c->source][c->partition] = c->entry.from;
  }
}

void FlinkJob::OnSnapshotCompleted(const CheckpointEvent& e) {
  if (end_of_input_model_ms_ >= 0 && e.commits && e.trigger_ms >= end_of_input_model_ms_) {
    final_checkpoint_done_ = true;  // the final checkpoint of a bounded job (CheckEndOfInput)
  }
  auto it = pending_snapshots_.find(e.id);
  const bool triggered = it != pending_snapshots_.end();
  const PendingSnapshot pending = triggered ? it->second : PendingSnapshot{};
  const ClusterSettings& s = *env_.settings;
  std::string external = e.savepoint ? pending.path : CheckpointPath(e.id);
  // Where the metadata lives: the snapshot directory, or for a JobManager-stored checkpoint the
  // HA storage directory (what the HA ConfigMap then points to).
  std::string storage = external;
  if (external == kNotAddressable) {
    storage = s.ha_enabled ? SimFileSystem::Join(SimFileSystem::Join(s.ha_storage_dir, s.cluster_id),
                                                 "completedCheckpoint" + env_.ids->Hex(12))
                           : "";
  }
  // The ledger first, then the metadata that completes the snapshot: a process killed in
  // between leaves a commit whose snapshot is incomplete, which the topic journal drops when it
  // is replayed (topic_registry.h), never a completed snapshot without its commit.
  std::vector<LedgerCommit> commits;
  if (e.commits) commits = CommitLedger(e, storage);
  if (!storage.empty()) {
    const std::string text = SnapshotMetadataToJson(MakeMetadata(e)).dump(2);
    const Status written = env_.fs->WriteFile(SimFileSystem::Join(storage, kMetadataFileName), text);
    if (!written.ok()) {
      UncommitLedger(commits);
      CheckpointEvent failed = e;
      failed.completed = false;
      failed.failure = "Failure to finalize checkpoint: " + written.message();
      OnSnapshotFailed(failed);
      return;
    }
  }
  if (!e.savepoint) {
    retained_checkpoints_.push_back({e.id, storage});
    // Subsumed checkpoints: with HA their directories go only once the HA store names the new
    // one (HaUpdate::discard_after_stored); without HA nothing names them, they go now.
    const bool via_ha = env_.ha_outbox && !storage.empty();
    std::vector<std::string> subsumed;
    while (static_cast<int64_t>(retained_checkpoints_.size()) > s.checkpoints.num_retained) {
      const auto& [old_id, old_path] = retained_checkpoints_.front();
      if (!old_path.empty()) subsumed.push_back(old_path);
      for (CheckpointRecord& r : checkpoint_stats_.history) {
        if (r.id == old_id) r.discarded = true;
      }
      retained_checkpoints_.erase(retained_checkpoints_.begin());
    }
    if (!via_ha) {
      for (const std::string& path : subsumed) env_.fs->RemoveAll(path).IgnoreError();
    }
    if (via_ha) {
      HaUpdate u;
      u.type = HaUpdate::Type::kCheckpointAdded;
      u.job_id = id_;
      u.checkpoint_id = e.id;
      u.path = storage;
      for (const auto& [rid, rpath] : retained_checkpoints_) u.retained.push_back(rid);
      u.counter = model_->next_checkpoint_id();
      u.discard_after_stored = std::move(subsumed);
      env_.ha_outbox->push_back(std::move(u));
    }
  }
  CheckpointRecord r;
  r.id = e.id;
  r.status = CheckpointRecord::Status::kCompleted;
  r.savepoint = e.savepoint;
  r.checkpoint_type = !e.savepoint ? "CHECKPOINT"
                      : pending.mode == SavepointRequest::Mode::kSavepoint ? "SAVEPOINT"
                                                                           : "SYNC_SAVEPOINT";
  r.savepoint_format = e.savepoint ? (pending.format_type.empty() ? "CANONICAL" : pending.format_type) : "";
  r.trigger_ms = model_origin_ms_ + e.trigger_ms;
  r.end_ms = model_origin_ms_ + e.end_ms;
  r.state_bytes = std::llround(e.state_bytes);
  r.external_path = external;
  UpdateHistory(r);
  if (e.savepoint) {
    checkpoint_stats_.latest_savepoint = r;
  } else {
    checkpoint_stats_.latest_completed = r;
  }
  checkpoint_stats_.completed_window.push_back(r);
  while (checkpoint_stats_.completed_window.size() > kSummaryWindow) checkpoint_stats_.completed_window.pop_front();
  if (!triggered) return;
  pending_snapshots_.erase(it);
  outcomes_.push_back({pending.kind, pending.trigger_id,
                       pending.kind == AsyncOperations::Kind::kCheckpoint ? Json{{"checkpointId", e.id}}
                                                                          : Json{{"location", external}}});
  if (pending.mode == SavepointRequest::Mode::kStop && phase_ == Phase::kStopping) {
    FinishTerminal(JobStatus::kFinished);
  } else if (pending.mode == SavepointRequest::Mode::kCancelWithSavepoint && phase_ == Phase::kStopping) {
    phase_ = Phase::kRunning;  // Cancel() takes it from here
    Cancel(FromUnixMillis(now_ms_)).IgnoreError();
  }
}

void FlinkJob::OnSnapshotFailed(const CheckpointEvent& e) {
  auto it = pending_snapshots_.find(e.id);
  CheckpointRecord r;
  r.id = e.id;
  r.status = CheckpointRecord::Status::kFailed;
  r.savepoint = e.savepoint;
  r.checkpoint_type = e.savepoint ? "SAVEPOINT" : "CHECKPOINT";
  r.trigger_ms = model_origin_ms_ + e.trigger_ms;
  r.end_ms = now_ms_;
  r.state_bytes = std::llround(e.state_bytes);
  r.failure_message = e.failure;
  if (it != pending_snapshots_.end()) {
    r.external_path = "";
    if (it->second.mode != SavepointRequest::Mode::kSavepoint && e.savepoint) r.checkpoint_type = "SYNC_SAVEPOINT";
    r.savepoint_format = e.savepoint ? it->second.format_type : "";
  }
  UpdateHistory(r);
  checkpoint_stats_.latest_failed = r;
  if (it == pending_snapshots_.end()) return;
  const PendingSnapshot pending = it->second;
  pending_snapshots_.erase(it);
  outcomes_.push_back({pending.kind, pending.trigger_id, FailureOperation(pending.kind, kCheckpointException, e.failure)});
  if (phase_ == Phase::kStopping && pending.mode != SavepointRequest::Mode::kSavepoint) {
    model_->Release(0);  // stop-with-savepoint failed: the job keeps running
    phase_ = Phase::kRunning;
  }
}

void FlinkJob::FailPendingSnapshots(const std::string& exception_class, const std::string& message) {
  for (const auto& [cp_id, pending] : pending_snapshots_) {
    outcomes_.push_back({pending.kind, pending.trigger_id, FailureOperation(pending.kind, exception_class, message)});
  }
  pending_snapshots_.clear();
}

// ---- Statistics ---------------------------------------------------------------------------------

void FlinkJob::AddHistory(const CheckpointRecord& r) {
  CheckpointStats& st = checkpoint_stats_;
  for (const CheckpointRecord& h : st.history) {
    if (h.id == r.id) return;
  }
  ++st.total;
  ++st.in_progress;
  auto pos = std::find_if(st.history.begin(), st.history.end(), [&](const CheckpointRecord& h) { return h.id < r.id; });
  st.history.insert(pos, r);
  while (static_cast<int>(st.history.size()) > env_.settings->checkpoint_history) st.history.pop_back();
}

void FlinkJob::UpdateHistory(const CheckpointRecord& r) {
  CheckpointStats& st = checkpoint_stats_;
  auto it = std::find_if(st.history.begin(), st.history.end(), [&](const CheckpointRecord& h) { return h.id == r.id; });
  if (it == st.history.end()) {
    CheckpointRecord pending = r;  // counted as triggered now (it was not seen in progress)
    pending.status = CheckpointRecord::Status::kInProgress;
    AddHistory(pending);
    it = std::find_if(st.history.begin(), st.history.end(), [&](const CheckpointRecord& h) { return h.id == r.id; });
  }
  const bool was_in_progress = it == st.history.end() || it->status == CheckpointRecord::Status::kInProgress;
  if (was_in_progress) st.in_progress = std::max<int64_t>(0, st.in_progress - 1);
  if (r.status == CheckpointRecord::Status::kCompleted) ++st.completed;
  if (r.status == CheckpointRecord::Status::kFailed) ++st.failed;
  if (it != st.history.end()) *it = r;
}

void FlinkJob::CleanupCheckpointsOnTerminal(JobStatus s) {
  const std::string& retention = env_.settings->checkpoints.retention;
  bool discard = true;
  if (s == JobStatus::kCanceled) discard = retention != "RETAIN_ON_CANCELLATION";
  if (s == JobStatus::kFailed) discard = retention == "NO_EXTERNALIZED_CHECKPOINTS";
  if (!discard) return;
  for (const auto& [cp_id, path] : retained_checkpoints_) {
    if (!path.empty()) env_.fs->RemoveAll(path).IgnoreError();
    for (CheckpointRecord& r : checkpoint_stats_.history) {
      if (r.id == cp_id) r.discarded = true;
    }
  }
  retained_checkpoints_.clear();
}

}  // namespace trimtab::sim::flink
