#include "operator/controller_shared/job_observer.h"

#include <algorithm>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "operator/controller_shared/reconciliation_utils.h"

namespace trimtab::op {
namespace {

namespace js = api::job_status;

std::string FirstLines(const std::string& text, int64_t lines) {
  std::string out;
  size_t start = 0;
  for (int64_t i = 0; i < lines && start < text.size(); ++i) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (!out.empty()) out += '\n';
    out += text.substr(start, end - start);
    start = end + 1;
  }
  return out;
}

std::string EffectiveState(const flink::JobOverview& job) {
  if (job.state != js::kRunning) return job.state;
  auto count = [&](const char* k) {
    auto it = job.tasks.find(k);
    return it == job.tasks.end() ? int64_t{0} : it->second;
  };
  const int64_t total = count("total");
  if (total > 0 && count("running") + count("finished") < total) return std::string(js::kCreated);
  return job.state;
}

void MaybeMarkStable(JobContext& ctx) {
  api::CommonStatus& st = *ctx.status;
  if (st.reconciliation_status.state != api::ReconciliationState::kDeployed) return;
  const std::string& state = st.job_status.state;
  const std::optional<api::JobState> desired =
      api::RecordedJobState(st.reconciliation_status.last_reconciled_spec);
  if (state == js::kRunning ||
      (state == js::kFinished && desired == api::JobState::kRunning)) {
    MarkStable(&st);
  }
}

void EmitExceptions(JobContext& ctx, const std::string& job_id) {
  const int64_t limit = ctx.options.exceptions_limit_per_reconciliation;
  if (limit <= 0) return;
  StatusOr<std::vector<flink::ExceptionEntry>> entries =
      ctx.rest->Exceptions(job_id, static_cast<int>(limit));
  if (!entries.ok()) {
    spdlog::debug("{}: {}", ctx.meta.name(), entries.status().ToString());
    return;
  }
  int64_t newest = ctx.memory->last_exception_timestamp;
  int64_t emitted = 0;
  for (const flink::ExceptionEntry& e : *entries) {
    if (e.timestamp <= ctx.memory->last_exception_timestamp || emitted >= limit) continue;
    newest = std::max(newest, e.timestamp);
    ++emitted;
    std::string message = e.exception_name;
    if (!e.task_name.empty()) message += " (task " + e.task_name + ")";
    const std::string trace = FirstLines(e.stacktrace, ctx.options.exceptions_stacktrace_lines);
    if (!trace.empty()) message += "\n" + trace;
    ctx.Event(EventType::kWarning, reasons::kJobException, message, components::kJob,
              "JobException" + std::to_string(e.timestamp));
  }
  ctx.memory->last_exception_timestamp = newest;
}

std::string SavepointFormatName(const JobContext& ctx) {
  return std::string(api::Name(ctx.options.savepoint_format));
}

}  // namespace

void ObserveJob(JobContext& ctx) {
  api::CommonStatus& st = *ctx.status;
  if (api::RecordedJobState(st.reconciliation_status.last_reconciled_spec) ==
      api::JobState::kSuspended) {
    return;
  }
  api::JobStatus& job = st.job_status;
  ctx.job_missing = false;
  StatusOr<std::vector<flink::JobOverview>> jobs = ctx.rest->ListJobs();
  if (!jobs.ok()) {
    spdlog::warn("{}/{}: {}", ctx.meta.namespace_name(), ctx.meta.name(), jobs.status().ToString());
    if (jobs.status().code() == StatusCode::kDeadlineExceeded) ctx.rest_timed_out = true;
    if (job.state == js::kRunning) job.state = std::string(js::kReconciling);
    return;
  }
  const flink::JobOverview* found = nullptr;
  for (const flink::JobOverview& j : *jobs) {
    if (!job.job_id.empty() && j.id == job.job_id) found = &j;
  }
  if (!found) {
    ctx.job_missing = true;
    ctx.Event(EventType::kWarning, reasons::kMissing, "Job Not Found", components::kJob);
    st.error = "Job Not Found";
    job.state = std::string(js::kReconciling);
    const std::optional<api::UpgradeMode> mode =
        ctx.job ? std::optional<api::UpgradeMode>(ctx.job->upgrade_mode) : std::nullopt;
    if (ctx.session_job && mode == api::UpgradeMode::kStateless) {
      MarkSuspended(&st);
    } else {
      st.reconciliation_status.state = api::ReconciliationState::kDeployed;
    }
    return;
  }
  const std::string previous = job.state;
  const std::string current = EffectiveState(*found);
  job.job_name = found->name;
  job.start_time = std::to_string(found->start_time);
  if (current != previous) {
    job.state = current;
    job.update_time = std::to_string(ToUnixMillis(ctx.Now()));
    ctx.Event(EventType::kNormal, reasons::kJobStatusChanged,
              "Job status changed from " + (previous.empty() ? std::string("UNKNOWN") : previous) +
                  " to " + current,
              components::kJob);
    if (current == js::kCanceled ||
        (previous == js::kCancelling && js::IsGloballyTerminal(current))) {
      MarkSuspended(&st);
    }
    if (current == js::kFailed) {
      StatusOr<flink::ExecutionResult> result = ctx.rest->GetExecutionResult(job.job_id);
      std::string message = "Job failed";
      std::string type = "org.apache.flink.runtime.JobException";
      if (result.ok() && !result->failure_stacktrace.empty()) {
        type = result->failure_class.empty() ? type : result->failure_class;
        message = FirstLines(result->failure_stacktrace, 1);
      }
      st.error = api::ErrorJson(type, message);
      ctx.Event(EventType::kWarning, reasons::kError, message, components::kJob);
    }
  }
  if (current == js::kRunning) {
    // Every task runs: an error of an earlier attempt (a failed deploy, "Job Not Found" while the
    // JobManager restarted) no longer describes the job. Validation errors are set after this.
    st.error.clear();
    // The restore path is consumed: the job that started from it runs (the deployed
    // configuration keeps it for a JobManager restart). A path left behind would be used again
    // by a later restore that could not find a newer state: a silent rollback.
    if (st.reconciliation_status.state == api::ReconciliationState::kDeployed) {
      job.upgrade_savepoint_path.clear();
    }
  }
  MaybeMarkStable(ctx);
  EmitExceptions(ctx, job.job_id);
}

StatusOr<std::optional<SnapshotRef>> NewestSnapshot(const flink::FlinkRestClient& rest,
                                                    const std::string& job_id) {
  TRIMTAB_ASSIGN_OR_RETURN(flink::CheckpointStats stats, rest.Checkpoints(job_id));
  const flink::CheckpointRecord* newest = nullptr;
  for (const auto* r : {&stats.latest_completed, &stats.latest_savepoint}) {
    if (r->has_value() && (!newest || (*r)->id > newest->id)) newest = &**r;
  }
  // Nothing completed since the restore: the restored state is still the newest.
  if (!newest && stats.latest_restored) newest = &*stats.latest_restored;
  if (!newest) return std::optional<SnapshotRef>();
  if (newest->external_path.empty() || newest->external_path.starts_with("<")) {
    return FailedPreconditionError(
        "Latest checkpoint not externally addressable, Manual restore required.");
  }
  return std::optional<SnapshotRef>(
      SnapshotRef{.path = newest->external_path, .savepoint = newest->is_savepoint, .id = newest->id});
}

StatusOr<std::string> LastCheckpointPath(const flink::FlinkRestClient& rest,
                                         const std::string& job_id) {
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<SnapshotRef> newest, NewestSnapshot(rest, job_id));
  return newest ? newest->path : std::string();
}

void RecordSavepoint(api::CommonStatus* status, const api::Savepoint& savepoint) {
  api::SavepointInfo& info = status->job_status.savepoint_info;
  info.last_savepoint = savepoint;
  for (const api::Savepoint& known : info.savepoint_history) {
    if (known.location == savepoint.location) return;
  }
  info.savepoint_history.push_back(savepoint);
}

StatusOr<std::string> WaitForSavepoint(const flink::FlinkRestClient& rest,
                                       const std::string& job_id, const std::string& trigger_id,
                                       std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::chrono::milliseconds pause(20);
  while (true) {
    TRIMTAB_ASSIGN_OR_RETURN(flink::AsyncOperation op, rest.SavepointStatus(job_id, trigger_id));
    if (op.completed) {
      if (!op.failure.empty()) {
        return UnavailableError("savepoint " + trigger_id + " of job " + job_id +
                                " failed: " + op.failure);
      }
      return op.location;
    }
    if (std::chrono::steady_clock::now() + pause > deadline) {
      return DeadlineExceededError("savepoint " + trigger_id + " of job " + job_id +
                                   " did not complete within " +
                                   std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));  // small: see RecordSavepoint
  }
}

namespace {

void ObservePendingSavepoint(JobContext& ctx) {
  api::SavepointInfo& info = ctx.status->job_status.savepoint_info;
  if (info.trigger_id.empty()) return;
  const std::string& job_id = ctx.status->job_status.job_id;
  const api::SnapshotTriggerType type = info.trigger_type.value_or(api::SnapshotTriggerType::kUnknown);
  const bool upgrade = type == api::SnapshotTriggerType::kUpgrade;
  StatusOr<flink::AsyncOperation> op = ctx.rest->SavepointStatus(job_id, info.trigger_id);
  std::string failure;
  if (!op.ok()) {
    if (op.status().code() != StatusCode::kNotFound) return;  // transient: poll again later
    if (upgrade) {
      // The operator's own stop-with-savepoint, recorded before it was sent, and the JobManager
      // does not know it: it restarted (or the request never arrived). A job that runs again
      // (recovered from its HA checkpoint, or never stopped) is upgraded anew, and a terminal
      // job's newest state is read below. A job the restarted JobManager no longer lists
      // stopped with a savepoint whose path Flink no longer reports: keep waiting, nothing else
      // would be safe (an older savepoint would process input twice, none would lose state).
      if (!ctx.job_missing) {
        spdlog::info("{}/{}: the JobManager does not know the stop-with-savepoint {}; the job is {}",
                     ctx.meta.namespace_name(), ctx.meta.name(), info.trigger_id,
                     ctx.status->job_status.state);
        info.trigger_id.clear();
        info.trigger_timestamp = 0;
        info.trigger_type.reset();
        info.format_type.reset();
        return;
      }
      const std::string message =
          "The stop-with-savepoint " + info.trigger_id + " of job " + job_id +
          " has no result: the JobManager restarted after the job stopped and no longer reports "
          "its savepoint. Manual restore required: the savepoint is the newest savepoint-" +
          job_id.substr(0, std::min<size_t>(6, job_id.size())) + "-* in " +
          (SavepointDir(ctx.config).empty() ? std::string("the savepoint directory")
                                            : SavepointDir(ctx.config)) +
          "; set job.initialSavepointPath to it and change job.savepointRedeployNonce.";
      ctx.status->error = api::ErrorJson(reasons::kSavepointError, message);
      ctx.Event(EventType::kWarning, reasons::kSavepointError, message, components::kOperator,
                "LostUpgradeSavepoint" + info.trigger_id);
      return;
    }
    failure = op.status().message();
  } else if (!op->completed) {
    return;
  } else {
    failure = op->failure;
  }
  const bool manual = type == api::SnapshotTriggerType::kManual;
  const std::optional<int64_t> nonce = ctx.job ? ctx.job->savepoint_trigger_nonce : std::nullopt;
  if (failure.empty()) {
    api::Savepoint sp{.time_stamp = ToUnixMillis(ctx.Now()),
                      .location = op->location,
                      .trigger_type = type,
                      .format_type = info.format_type.value_or(api::SavepointFormatType::kUnknown),
                      .trigger_nonce = manual ? nonce : std::nullopt};
    RecordSavepoint(ctx.status, sp);
    if (upgrade) ctx.status->job_status.upgrade_savepoint_path = sp.location;
    ctx.Event(EventType::kNormal, reasons::kSavepointCompleted,
              "Savepoint completed (" + std::string(api::Name(type)) + "): " + sp.location,
              components::kJob, "SavepointCompleted" + sp.location);
    if (type == api::SnapshotTriggerType::kPeriodic) {
      info.last_periodic_savepoint_timestamp = sp.time_stamp;
    }
    if (manual) SetRecordedJobField(ctx.status, "savepointTriggerNonce", nonce ? Json(*nonce) : Json());
  } else {
    const bool in_grace = ToUnixMillis(ctx.Now()) <
                          info.trigger_timestamp + ctx.options.savepoint_trigger_grace_period.count();
    ctx.Event(EventType::kWarning, reasons::kSavepointError,
              "Savepoint failed for savepointTriggerNonce: " +
                  (nonce ? std::to_string(*nonce) : std::string("null")) + ": " + failure);
    if (!in_grace && manual) {
      SetRecordedJobField(ctx.status, "savepointTriggerNonce", nonce ? Json(*nonce) : Json());
    }
  }
  info.trigger_id.clear();
  info.trigger_timestamp = 0;
  info.trigger_type.reset();
  info.format_type.reset();
}

void ObservePendingCheckpoint(JobContext& ctx) {
  api::CheckpointInfo& info = ctx.status->job_status.checkpoint_info;
  if (info.trigger_id.empty()) return;
  const std::string& job_id = ctx.status->job_status.job_id;
  StatusOr<flink::AsyncOperation> op = ctx.rest->CheckpointStatus(job_id, info.trigger_id);
  std::string failure;
  if (!op.ok()) {
    if (op.status().code() != StatusCode::kNotFound) return;
    failure = op.status().message();
  } else if (!op->completed) {
    return;
  } else {
    failure = op->failure;
  }
  const api::SnapshotTriggerType type = info.trigger_type.value_or(api::SnapshotTriggerType::kUnknown);
  const bool manual = type == api::SnapshotTriggerType::kManual;
  const std::optional<int64_t> nonce = ctx.job ? ctx.job->checkpoint_trigger_nonce : std::nullopt;
  if (failure.empty()) {
    info.last_checkpoint = api::Checkpoint{.time_stamp = ToUnixMillis(ctx.Now()),
                                           .trigger_type = type,
                                           .format_type = info.format_type.value_or(api::CheckpointType::kUnknown),
                                           .trigger_nonce = manual ? nonce : std::nullopt};
    if (type == api::SnapshotTriggerType::kPeriodic) {
      info.last_periodic_checkpoint_timestamp = info.last_checkpoint->time_stamp;
    }
    if (manual) SetRecordedJobField(ctx.status, "checkpointTriggerNonce", nonce ? Json(*nonce) : Json());
  } else {
    const bool in_grace = ToUnixMillis(ctx.Now()) <
                          info.trigger_timestamp + ctx.options.checkpoint_trigger_grace_period.count();
    ctx.Event(EventType::kWarning, reasons::kCheckpointError,
              "Checkpoint failed for checkpointTriggerNonce: " +
                  (nonce ? std::to_string(*nonce) : std::string("null")) + ": " + failure);
    if (!in_grace && manual) {
      SetRecordedJobField(ctx.status, "checkpointTriggerNonce", nonce ? Json(*nonce) : Json());
    }
  }
  info.trigger_id.clear();
  info.trigger_timestamp = 0;
  info.trigger_type.reset();
  info.format_type.reset();
}

// Legacy savepoint history: oldest first; never drops the newest entry.
void CleanupSavepointHistory(JobContext& ctx) {
  if (!ctx.options.savepoint_cleanup_enabled) return;
  std::vector<api::Savepoint>& history = ctx.status->job_status.savepoint_info.savepoint_history;
  std::stable_sort(history.begin(), history.end(),
                   [](const api::Savepoint& a, const api::Savepoint& b) {
                     return a.time_stamp < b.time_stamp;
                   });
  const size_t max_count = static_cast<size_t>(ctx.options.EffectiveSavepointMaxCount());
  const int64_t oldest_allowed =
      ToUnixMillis(ctx.Now()) - ctx.options.EffectiveSavepointMaxAge().count();
  while (history.size() > 1 &&
         (history.size() > max_count || history.front().time_stamp < oldest_allowed)) {
    const std::string location = history.front().location;
    StatusOr<std::string> trigger = ctx.rest->DisposeSavepoint(location);
    if (!trigger.ok()) {
      spdlog::warn("{}/{}: dispose savepoint {}: {}", ctx.meta.namespace_name(), ctx.meta.name(),
                   location, trigger.status().ToString());
      return;  // keep it; try again next pass
    }
    history.erase(history.begin());
  }
}

bool PeriodicDue(std::optional<Millis> interval, std::optional<TimePoint>* last,
                 int64_t last_periodic_ms, const JobContext& ctx) {
  if (!interval) return false;
  if (!last->has_value()) {
    TimePoint base{};
    if (StatusOr<TimePoint> created = ParseRfc3339(ctx.meta.creation_timestamp()); created.ok()) {
      base = *created;
    }
    *last = std::max(base, FromUnixMillis(last_periodic_ms));
  }
  return **last + *interval <= ctx.Now();
}

}  // namespace

Status ObserveSnapshots(JobContext& ctx) {
  if (!ctx.rest || ctx.status->job_status.job_id.empty()) return Status::Ok();
  ObservePendingSavepoint(ctx);
  ObservePendingCheckpoint(ctx);
  api::JobStatus& job = ctx.status->job_status;
  if (js::IsGloballyTerminal(job.state)) {
    StatusOr<std::optional<SnapshotRef>> newest = NewestSnapshot(*ctx.rest, job.job_id);
    if (!newest.ok()) {
      if (newest.status().code() == StatusCode::kFailedPrecondition) return newest.status();
      spdlog::warn("{}/{}: {}", ctx.meta.namespace_name(), ctx.meta.name(), newest.status().ToString());
    } else if (newest->has_value()) {
      job.upgrade_savepoint_path = (*newest)->path;
      // A savepoint the status does not know (a stop-with-savepoint whose pass died before
      // recording it): into the history, so it is listed and cleaned up like the others.
      if ((*newest)->savepoint) {
        const api::SavepointInfo& info = job.savepoint_info;
        bool known = false;
        for (const api::Savepoint& sp : info.savepoint_history) known |= sp.location == (*newest)->path;
        if (!known) {
          RecordSavepoint(ctx.status,
                          api::Savepoint{.time_stamp = ToUnixMillis(ctx.Now()),
                                         .location = (*newest)->path,
                                         .trigger_type = job.state == js::kFinished
                                                             ? api::SnapshotTriggerType::kUpgrade
                                                             : api::SnapshotTriggerType::kUnknown,
                                         .format_type = ctx.options.savepoint_format});
        }
      }
    }
  }
  CleanupSavepointHistory(ctx);
  return Status::Ok();
}

Status TriggerSnapshots(JobContext& ctx) {
  api::JobStatus& job = ctx.status->job_status;
  if (!ctx.rest || !ctx.job || job.state != js::kRunning || job.job_id.empty()) {
    return Status::Ok();
  }
  const Json recorded = LastReconciledSpec(*ctx.status);
  // Savepoint.
  api::SavepointInfo& sp = job.savepoint_info;
  if (sp.trigger_id.empty()) {
    std::optional<api::SnapshotTriggerType> type;
    const std::optional<int64_t> nonce = ctx.job->savepoint_trigger_nonce;
    if (nonce && nonce != JobNonce(recorded, "savepointTriggerNonce")) {
      type = api::SnapshotTriggerType::kManual;
    } else if (PeriodicDue(ctx.options.periodic_savepoint_interval,
                           &ctx.memory->last_periodic_savepoint,
                           sp.last_periodic_savepoint_timestamp, ctx)) {
      type = api::SnapshotTriggerType::kPeriodic;
    }
    if (type) {
      StatusOr<std::string> trigger = ctx.rest->TriggerSavepoint(
          job.job_id, {.target_directory = SavepointDir(ctx.config),
                       .format_type = SavepointFormatName(ctx)});
      if (!trigger.ok()) {
        ctx.Event(EventType::kWarning, reasons::kSavepointError,
                  "Savepoint could not be triggered: " + trigger.status().message());
      } else {
        sp.trigger_id = *trigger;
        sp.trigger_timestamp = ToUnixMillis(ctx.Now());
        sp.trigger_type = *type;
        sp.format_type = ctx.options.savepoint_format;
        if (*type == api::SnapshotTriggerType::kPeriodic) ctx.memory->last_periodic_savepoint = ctx.Now();
      }
    }
  }
  // Checkpoint (Flink >= 1.17).
  api::CheckpointInfo& cp = job.checkpoint_info;
  const bool checkpoints_supported =
      !ctx.flink_version || api::IsAtLeast(*ctx.flink_version, api::FlinkVersion::kV1_17);
  if (cp.trigger_id.empty() && checkpoints_supported) {
    std::optional<api::SnapshotTriggerType> type;
    const std::optional<int64_t> nonce = ctx.job->checkpoint_trigger_nonce;
    if (nonce && nonce != JobNonce(recorded, "checkpointTriggerNonce")) {
      type = api::SnapshotTriggerType::kManual;
    } else if (PeriodicDue(ctx.options.periodic_checkpoint_interval,
                           &ctx.memory->last_periodic_checkpoint,
                           cp.last_periodic_checkpoint_timestamp, ctx)) {
      type = api::SnapshotTriggerType::kPeriodic;
    }
    if (type) {
      StatusOr<std::string> trigger = ctx.rest->TriggerCheckpoint(
          job.job_id, std::string(api::Name(ctx.options.checkpoint_type)));
      if (!trigger.ok()) {
        ctx.Event(EventType::kWarning, reasons::kCheckpointError,
                  "Checkpoint could not be triggered: " + trigger.status().message());
      } else {
        cp.trigger_id = *trigger;
        cp.trigger_timestamp = ToUnixMillis(ctx.Now());
        cp.trigger_type = *type;
        cp.format_type = ctx.options.checkpoint_type;
        if (*type == api::SnapshotTriggerType::kPeriodic) ctx.memory->last_periodic_checkpoint = ctx.Now();
      }
    }
  }
  return Status::Ok();
}

void AbandonSnapshots(JobContext& ctx) {
  api::JobStatus& job = ctx.status->job_status;
  if (job.state == js::kRunning) return;
  const bool lost_upgrade_savepoint =
      ctx.job_missing && job.savepoint_info.trigger_type == api::SnapshotTriggerType::kUpgrade;
  if (!job.savepoint_info.trigger_id.empty() && !lost_upgrade_savepoint) {
    if (job.savepoint_info.trigger_type == api::SnapshotTriggerType::kManual && ctx.job) {
      const std::optional<int64_t> nonce = ctx.job->savepoint_trigger_nonce;
      SetRecordedJobField(ctx.status, "savepointTriggerNonce", nonce ? Json(*nonce) : Json());
    }
    ctx.Event(EventType::kWarning, reasons::kSavepointError,
              "Savepoint abandoned: the job is not running (" + job.state + ")");
    job.savepoint_info.trigger_id.clear();
    job.savepoint_info.trigger_timestamp = 0;
    job.savepoint_info.trigger_type.reset();
    job.savepoint_info.format_type.reset();
  }
  if (!job.checkpoint_info.trigger_id.empty()) {
    if (job.checkpoint_info.trigger_type == api::SnapshotTriggerType::kManual && ctx.job) {
      const std::optional<int64_t> nonce = ctx.job->checkpoint_trigger_nonce;
      SetRecordedJobField(ctx.status, "checkpointTriggerNonce", nonce ? Json(*nonce) : Json());
    }
    ctx.Event(EventType::kWarning, reasons::kCheckpointError,
              "Checkpoint abandoned: the job is not running (" + job.state + ")");
    job.checkpoint_info.trigger_id.clear();
    job.checkpoint_info.trigger_timestamp = 0;
    job.checkpoint_info.trigger_type.reset();
    job.checkpoint_info.format_type.reset();
  }
}

}  // namespace trimtab::op
