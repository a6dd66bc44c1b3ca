// JobModel's snapshots (periodic checkpoints, triggered checkpoints and savepoints), the hold /
// release of its tasks and restored partition offsets. Kept apart from the flow code in
// job_model.cc; see job_model.h for the semantics.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/job_model.h"
#include "sim/job_model_internal.h"

namespace trimtab::sim {

namespace {
// "Down until further notice": far enough that now + step never reaches it, small enough that
// no arithmetic on it overflows.
constexpr int64_t kHeldUntilMs = std::numeric_limits<int64_t>::max() / 4;
}  // namespace

int64_t JobModel::StartSnapshot(bool savepoint, bool commits) {
  MaterializePartitions();
  InFlight f;
  f.id = next_checkpoint_id_++;
  f.savepoint = savepoint;
  f.commits = commits;
  f.trigger_ms = now_ms_;
  f.size = StateBytes();
  const double duration =
      spec_.checkpoint.base_duration_seconds + f.size / spec_.checkpoint.bandwidth_bytes_per_second;
  last_checkpoint_duration_s_ = duration;
  f.complete_ms = now_ms_ + std::llround(duration * 1000.0);
  f.reads.reserve(sources_.size());
  for (const Source& s : sources_) {
    std::vector<double> reads(s.parts.size());
    for (size_t k = 0; k < s.parts.size(); ++k) reads[k] = s.parts[k].read;
    f.reads.push_back(std::move(reads));
  }
  in_flight_.push_back(std::move(f));
  return in_flight_.back().id;
}

void JobModel::EmitEvent(InFlight& f, bool completed, const std::string& failure) {
  if (!record_events_) return;
  CheckpointEvent e;
  e.id = f.id;
  e.savepoint = f.savepoint;
  e.commits = f.commits;
  e.completed = completed;
  e.trigger_ms = f.trigger_ms;
  e.end_ms = completed ? f.complete_ms : now_ms_;
  e.state_bytes = f.size;
  e.failure = failure;
  e.read_offsets = std::move(f.reads);
  events_.push_back(std::move(e));
}

void JobModel::AdvanceCheckpoints() {
  // Completions first (in trigger order), then the next periodic trigger, as Flink's
  // coordinator would see them at this instant.
  for (size_t i = 0; i < in_flight_.size();) {
    if (now_ms_ < in_flight_[i].complete_ms) {
      ++i;
      continue;
    }
    InFlight f = std::move(in_flight_[i]);
    in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(i));
    ++completed_checkpoints_;
    last_checkpoint_size_ = f.size;
    if (f.commits && f.id > committed_id_) {
      MaterializePartitions();
      for (size_t si = 0; si < sources_.size(); ++si) {
        Source& s = sources_[si];
        for (size_t k = 0; k < s.parts.size(); ++k) s.parts[k].committed = f.reads[si][k];
      }
      committed_id_ = f.id;
      // Older periodic checkpoints still in flight are subsumed.
      for (size_t j = 0; j < in_flight_.size();) {
        if (in_flight_[j].periodic && in_flight_[j].id < f.id) {
          EmitEvent(in_flight_[j], false, "Checkpoint " + std::to_string(in_flight_[j].id) + " subsumed by " +
                                              std::to_string(f.id));
          in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(j));
          if (j < i) --i;
        } else {
          ++j;
        }
      }
    }
    EmitEvent(f, true, "");
  }
  if (!periodic_checkpoints_ || state() != JobState::kRunning || now_ms_ < next_checkpoint_ms_) return;
  for (const InFlight& f : in_flight_) {
    if (f.periodic) return;
  }
  StartSnapshot(/*savepoint=*/false, /*commits=*/true);
  in_flight_.back().periodic = true;
  next_checkpoint_ms_ = now_ms_ + std::llround(spec_.checkpoint.interval_seconds * 1000.0);
}

void JobModel::AbortAllCheckpoints(const std::string& reason) {
  for (InFlight& f : in_flight_) EmitEvent(f, false, reason);
  in_flight_.clear();
}

bool JobModel::AbortCheckpoint(int64_t id, const std::string& reason) {
  for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it) {
    if (it->id != id) continue;
    EmitEvent(*it, false, reason);
    in_flight_.erase(it);
    return true;
  }
  return false;
}

StatusOr<int64_t> JobModel::TriggerCheckpoint(bool savepoint, bool commits) {
  if (state() != JobState::kRunning) {
    return FailedPreconditionError("job " + spec_.name + ": cannot trigger a " +
                                   (savepoint ? "savepoint" : "checkpoint") +
                                   ": the tasks are not running");
  }
  const int64_t id = StartSnapshot(savepoint, commits);
  // A snapshot with no state and no base duration completes at once.
  AdvanceCheckpoints();
  return id;
}

std::vector<std::pair<int64_t, int64_t>> JobModel::InFlightCheckpoints() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  out.reserve(in_flight_.size());
  for (const InFlight& f : in_flight_) out.emplace_back(f.id, f.trigger_ms);
  return out;
}

std::vector<CheckpointEvent> JobModel::TakeCheckpointEvents() {
  std::vector<CheckpointEvent> out;
  out.swap(events_);
  return out;
}

void JobModel::SetPeriodicCheckpoints(bool enabled) {
  periodic_checkpoints_ = enabled;
  if (enabled && next_checkpoint_ms_ < now_ms_) {
    next_checkpoint_ms_ = now_ms_ + std::llround(spec_.checkpoint.interval_seconds * 1000.0);
  }
}

// ---- Hold / release ---------------------------------------------------------------------------

void JobModel::Hold() {
  if (held_) return;
  if (fast_) ExitFast();
  held_ = true;
  held_remaining_ms_ = std::max<int64_t>(0, down_until_ms_ - now_ms_);
  if (down_until_ms_ <= now_ms_) state_since_ms_ = now_ms_;  // it was running
  down_until_ms_ = kHeldUntilMs;
  awaiting_start_ = true;  // the tasks start afresh after Release()
}

void JobModel::Release(double extra_seconds) {
  if (!held_) return;
  held_ = false;
  down_until_ms_ = now_ms_ + held_remaining_ms_ + std::max<int64_t>(0, std::llround(extra_seconds * 1000.0));
  held_remaining_ms_ = 0;
  if (down_until_ms_ <= now_ms_) {  // Step() only resets windows for a restart ending inside it
    ResetWindows(now_ms_);
    state_since_ms_ = now_ms_;
    next_checkpoint_ms_ = now_ms_ + std::llround(spec_.checkpoint.interval_seconds * 1000.0);
  }
}

// ---- Restored offsets -------------------------------------------------------------------------

Status JobModel::SetPartitionOffsets(int source_index, const std::vector<PartitionOffsets>& offsets) {
  if (source_index < 0 || source_index >= num_sources()) {
    return InvalidArgumentError("job " + spec_.name + ": no source with index " + std::to_string(source_index));
  }
  Source& s = sources_[static_cast<size_t>(source_index)];
  const std::string where = "job " + spec_.name + ", source " + source_ids_[static_cast<size_t>(source_index)];
  if (offsets.size() != s.parts.size()) {
    return InvalidArgumentError(where + ": " + std::to_string(offsets.size()) + " partition offsets for " +
                                std::to_string(s.parts.size()) + " partitions");
  }
  for (size_t k = 0; k < offsets.size(); ++k) {
    const PartitionOffsets& po = offsets[k];
    if (!(po.end >= 0 && po.read >= 0 && po.committed >= 0 && po.read <= po.end && po.committed <= po.end)) {
      return InvalidArgumentError(where + ", partition " + std::to_string(k) +
                                  ": offsets must satisfy 0 <= read, committed <= end");
    }
  }
  if (fast_) ExitFast();
  MaterializePartitions();
  s.parts = offsets;
  RecountPending();
  drained_ = TotalPendingRecords() <= 0;
  return Status::Ok();
}

}  // namespace trimtab::sim
