// The job upgrade flow of application clusters (upstream AbstractJobReconciler.reconcileSpecChange
// and ApplicationReconciler, notes §B.8): decide the available upgrade mode, suspend the running
// job with it, record UPGRADING with the new spec (write-ahead), and restore on the next pass.
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "api/reconciled_spec.h"
#include "common/flink_values.h"
#include "operator/deployment/deployment_pass.h"
#include "operator/decisions/flink_config_builder.h"
#include "operator/deployment/flink_deployment_controller.h"
#include "operator/controller_shared/job_observer.h"
#include "operator/controller_shared/reconciliation_utils.h"

namespace trimtab::op {
namespace {

namespace js = api::job_status;
using JmStatus = api::JobManagerDeploymentStatus;
using api::ReconciliationState;
using api::UpgradeMode;

std::optional<TimePoint> MillisText(const std::string& text) {
  try {
    const int64_t ms = std::stoll(text);
    if (ms > 0) return FromUnixMillis(ms);
  } catch (...) {
  }
  return std::nullopt;
}

}  // namespace

bool FlinkDeploymentController::JobManagerPodNeverStarted(DeploymentPass& p) {
  StatusOr<std::optional<Json>> dep = cluster_.JobManagerDeployment(p.ns(), p.name());
  if (!dep.ok() || !dep->has_value()) return false;
  const std::string created = (**dep)["metadata"].value("creationTimestamp", "");
  for (const Json& c : (**dep).value("status", Json::object()).value("conditions", Json::array())) {
    if (c.value("type", "") == "Available" && c.value("status", "") == "False" &&
        c.value("lastTransitionTime", "") == created) {
      return true;
    }
  }
  return false;
}

StatusOr<JobUpgrade> FlinkDeploymentController::AvailableUpgrade(
    DeploymentPass& p, const api::FlinkDeploymentSpec& recorded) {
  const api::FlinkDeploymentStatus& st = p.status();
  UpgradeFacts f;
  f.spec_mode = p.resource.spec.job->upgrade_mode;
  f.recorded_mode = recorded.job ? recorded.job->upgrade_mode : UpgradeMode::kStateless;
  f.job_state = st.job_status.state;
  f.jm_status = st.job_manager_deployment_status;
  f.jm_rest_available = f.jm_status == JmStatus::kReady && p.rest != nullptr;
  f.jm_pod_never_started = f.jm_status != JmStatus::kMissing && JobManagerPodNeverStarted(p);
  f.ha_enabled_deploy = IsHaEnabled(p.config);
  f.ha_enabled_observe = IsHaEnabled(EffectiveConfig(deps_.default_config, p.ns(),
                                                     recorded.flink_version,
                                                     recorded.flink_configuration));
  TRIMTAB_ASSIGN_OR_RETURN(HaMetadata ha, cluster_.ReadHaMetadata(p.ns(), p.name()));
  f.ha_metadata_available = ha.available;
  f.flink_version_changed = recorded.flink_version != p.resource.spec.flink_version;
  f.savepoint_dir_set = !SavepointDir(p.config).empty();
  f.upgrade_savepoint_path = st.job_status.upgrade_savepoint_path;
  f.ha_has_checkpoint = ha.available && ha.has_checkpoint;
  f.now = deps_.clock->Now();
  f.job_start = MillisText(st.job_status.start_time);
  f.options = p.options;
  if (p.options.last_state_max_checkpoint_age && f.jm_rest_available &&
      f.job_state == js::kRunning) {
    StatusOr<flink::CheckpointStats> stats = p.rest->Checkpoints(st.job_status.job_id);
    if (stats.ok()) {
      if (stats->latest_completed) {
        f.last_completed_checkpoint = FromUnixMillis(stats->latest_completed->latest_ack_timestamp);
      }
      for (const flink::CheckpointRecord& r : stats->history) {
        if (r.status == "IN_PROGRESS") f.pending_checkpoint_trigger = FromUnixMillis(r.trigger_timestamp);
      }
    }
  }
  return DecideJobUpgrade(f);
}

Status FlinkDeploymentController::Suspend(DeploymentPass& p, SuspendMode mode, bool* async) {
  api::FlinkDeploymentStatus& st = p.status();
  api::JobStatus& job = st.job_status;
  *async = false;
  switch (mode) {
    case SuspendMode::kNoop:
      return Status::Ok();
    case SuspendMode::kStateless:
      if (p.rest && !job.job_id.empty()) p.rest->Cancel(job.job_id).IgnoreError();
      TRIMTAB_RETURN_IF_ERROR(cluster_.Delete(p.ns(), p.name(), p.options.deletion_propagation,
                                              /*delete_ha=*/true)
                                  .status());
      st.job_manager_deployment_status = JmStatus::kMissing;
      job.state = std::string(js::kFinished);
      return Status::Ok();
    case SuspendMode::kLastState:
      TRIMTAB_RETURN_IF_ERROR(cluster_.Delete(p.ns(), p.name(), p.options.deletion_propagation,
                                              /*delete_ha=*/false)
                                  .status());
      st.job_manager_deployment_status = JmStatus::kMissing;
      job.state = std::string(js::kFinished);
      return Status::Ok();
    case SuspendMode::kSavepoint: {
      if (!p.rest) return UnavailableError("stop-with-savepoint: the JobManager REST API is not available");
      auto timeout = p.options.flink_cancel_timeout;
      if (auto it = p.config.find(flink_keys::kCheckpointTimeout); it != p.config.end()) {
        StatusOr<Millis> t = ParseFlinkDurationMillis(flink_keys::kCheckpointTimeout, it->second);
        if (t.ok()) timeout = std::max(timeout, *t);
      }
      // Write-ahead: the trigger (a client-chosen id, so the request is idempotent) is in the
      // status before the job is asked to stop. An operator that dies from here on finds it and
      // polls its result (job_observer.cc) instead of losing the savepoint.
      api::SavepointInfo& info = job.savepoint_info;
      const auto clear_trigger = [&info] {
        info.trigger_id.clear();
        info.trigger_timestamp = 0;
        info.trigger_type.reset();
        info.format_type.reset();
      };
      info.trigger_id = RandomHexId();
      info.trigger_timestamp = ToUnixMillis(deps_.clock->Now());
      info.trigger_type = api::SnapshotTriggerType::kUpgrade;
      info.format_type = p.options.savepoint_format;
      TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
      StatusOr<std::string> trigger = p.rest->StopWithSavepoint(
          job.job_id, {.target_directory = SavepointDir(p.config),
                       .format_type = std::string(api::Name(p.options.savepoint_format)),
                       .trigger_id = info.trigger_id});
      if (!trigger.ok()) {
        clear_trigger();
        return UpgradeFailure(p, reasons::kSavepointError,
                              "Stop with savepoint failed: " + trigger.status().message());
      }
      StatusOr<std::string> path = WaitForSavepoint(*p.rest, job.job_id, *trigger, timeout);
      if (!path.ok()) {
        if (path.status().code() == StatusCode::kDeadlineExceeded) {
          // Still in progress: the trigger stays recorded and the observer polls it.
          return Waiting(p, "the stop-with-savepoint " + *trigger + " of job " + job.job_id +
                                " is still in progress");
        }
        clear_trigger();
        return UpgradeFailure(p, reasons::kSavepointError,
                              "Stop with savepoint failed: " + path.status().message());
      }
      // Recorded before anything acts on it: the savepoint is in the history and the restore
      // path is known even if the operator dies right after this write.
      clear_trigger();
      RecordSavepoint(&st, api::Savepoint{ToUnixMillis(deps_.clock->Now()), *path,
                                          api::SnapshotTriggerType::kUpgrade,
                                          p.options.savepoint_format, std::nullopt});
      job.upgrade_savepoint_path = *path;
      job.state = std::string(js::kFinished);
      p.job.Event(EventType::kNormal, reasons::kSavepointCompleted,
                  "Savepoint completed (UPGRADE): " + *path, components::kJob,
                  "SavepointCompleted" + *path);
      TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
      return Status::Ok();
    }
    case SuspendMode::kCancel: {
      if (!p.rest) return UnavailableError("cancel: the JobManager REST API is not available");
      Status cancel = p.rest->Cancel(job.job_id);
      if (cancel.code() == StatusCode::kNotFound) {
        return UpgradeFailure(p, reasons::kCleanupFailed,
                              "Cannot cancel the job for the upgrade, it is missing: " +
                                  cancel.message());
      }
      if (!cancel.ok() && cancel.code() != StatusCode::kConflict) return cancel;
      // Cancellation is asynchronous in Flink: look once more, the restore waits otherwise.
      StatusOr<std::vector<flink::JobOverview>> jobs = p.rest->ListJobs();
      job.state = std::string(js::kCancelling);
      if (jobs.ok()) {
        for (const flink::JobOverview& j : *jobs) {
          if (j.id == job.job_id) job.state = j.state;
        }
      }
      if (!js::IsGloballyTerminal(job.state)) {
        *async = true;
        return Status::Ok();
      }
      StatusOr<std::string> path = LastCheckpointPath(*p.rest, job.job_id);
      if (!path.ok()) return UpgradeFailure(p, reasons::kCheckpointNotFound, path.status().message());
      job.upgrade_savepoint_path = *path;
      return Status::Ok();
    }
  }
  return InternalError("unknown suspend mode");
}

Status FlinkDeploymentController::ReconcileJobSpecChange(DeploymentPass& p, api::DiffType type) {
  api::FlinkDeploymentStatus& st = p.status();
  const api::FlinkDeploymentSpec& spec = p.resource.spec;
  const Json spec_json = api::EncodeFlinkDeploymentSpec(spec);
  const TimePoint now = deps_.clock->Now();
  TRIMTAB_ASSIGN_OR_RETURN(api::FlinkDeploymentSpec recorded,
                           api::ParseRecordedDeploymentSpec(st.reconciliation_status.last_reconciled_spec));
  const bool desired_running = spec.job->state == api::JobState::kRunning;

  if (type == api::DiffType::kSavepointRedeploy) {
    if (p.rest && !st.job_status.job_id.empty() && !js::IsTerminal(st.job_status.state)) {
      p.rest->Cancel(st.job_status.job_id).IgnoreError();
    }
    TRIMTAB_RETURN_IF_ERROR(cluster_.Delete(p.ns(), p.name(), p.options.deletion_propagation,
                                            /*delete_ha=*/true)
                                .status());
    st.job_manager_deployment_status = JmStatus::kMissing;
    st.job_status.upgrade_savepoint_path = spec.job->initial_savepoint_path;
    st.job_status.state = std::string(js::kFinished);
    if (desired_running) {
      RecordSpec(&st, spec_json, p.generation, now,
                 {.state = ReconciliationState::kUpgrading, .job_state = api::JobState::kSuspended,
                  .upgrade_mode = UpgradeMode::kSavepoint});
      TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
      TRIMTAB_RETURN_IF_ERROR(Deploy(p, spec, spec.job->initial_savepoint_path, UpgradeMode::kSavepoint));
    }
    RecordSpec(&st, spec_json, p.generation, now,
               {.state = ReconciliationState::kDeployed, .upgrade_mode = UpgradeMode::kSavepoint});
    MarkStable(&st);
    return Status::Ok();
  }

  const bool recorded_running = recorded.job && recorded.job->state == api::JobState::kRunning &&
                                st.reconciliation_status.state != ReconciliationState::kUpgrading;
  if (recorded_running) {
    TRIMTAB_ASSIGN_OR_RETURN(JobUpgrade upgrade, AvailableUpgrade(p, recorded));
    if (upgrade.outcome == JobUpgrade::Outcome::kDeleteClusterAndRetry) {
      spdlog::info("{}/{}: the JobManager pod never started; deleting it", p.ns(), p.name());
      TRIMTAB_RETURN_IF_ERROR(cluster_.Delete(p.ns(), p.name(), p.options.deletion_propagation,
                                              /*delete_ha=*/false)
                                  .status());
      st.job_manager_deployment_status = JmStatus::kMissing;
      st.job_status.state = std::string(js::kFailed);
      p.rest.reset();
      p.job.rest = nullptr;
      TRIMTAB_ASSIGN_OR_RETURN(upgrade, AvailableUpgrade(p, recorded));
    }
    switch (upgrade.outcome) {
      case JobUpgrade::Outcome::kPendingCancellation:
        p.RequeueWithin(p.options.progress_check_interval);
        return Status::Ok();
      case JobUpgrade::Outcome::kUnavailable:
      case JobUpgrade::Outcome::kDeleteClusterAndRetry:
        spdlog::info("{}/{}: no upgrade mode is available now (job {}, JobManager {}); waiting",
                     p.ns(), p.name(), st.job_status.state,
                     api::Name(st.job_manager_deployment_status));
        return ReconcileOtherChanges(p);
      case JobUpgrade::Outcome::kFailed:
        return UpgradeFailure(p, reasons::kUpgradeFailed, upgrade.failure);
      case JobUpgrade::Outcome::kAvailable:
        break;
    }
    if (upgrade.suspend_mode != SuspendMode::kNoop) {
      p.job.Event(EventType::kNormal, reasons::kSuspended, "Suspending existing deployment.");
    }
    spdlog::info("{}/{}: upgrading with suspend mode {} and restore mode {}", p.ns(), p.name(),
                 SuspendModeName(upgrade.suspend_mode), api::Name(upgrade.restore_mode));
    bool async = false;
    TRIMTAB_RETURN_IF_ERROR(Suspend(p, upgrade.suspend_mode, &async));
    RecordSpec(&st, spec_json, p.generation, now,
               {.state = desired_running ? ReconciliationState::kUpgrading : ReconciliationState::kDeployed,
                .job_state = api::JobState::kSuspended,
                .upgrade_mode = upgrade.restore_mode});
    if (!desired_running) MarkStable(&st);  // a suspend requested by the user is final
    if (async) p.RequeueWithin(p.options.progress_check_interval);
    return Status::Ok();
  }

  // Recorded suspended (or mid-upgrade): restore when the spec wants the job running.
  if (!desired_running) {
    RecordSpec(&st, spec_json, p.generation, now,
               {.state = ReconciliationState::kDeployed,
                .upgrade_mode = recorded.job ? recorded.job->upgrade_mode : UpgradeMode::kStateless});
    MarkStable(&st);
    return Status::Ok();
  }
  const UpgradeMode restore_mode = spec.job->upgrade_mode == UpgradeMode::kStateless || !recorded.job
                                       ? UpgradeMode::kStateless
                                       : recorded.job->upgrade_mode;
  if (st.reconciliation_status.state != ReconciliationState::kUpgrading ||
      st.observed_generation != p.generation) {
    RecordSpec(&st, spec_json, p.generation, now,
               {.state = ReconciliationState::kUpgrading, .job_state = api::JobState::kSuspended,
                .upgrade_mode = restore_mode});
    TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
  }
  TRIMTAB_RETURN_IF_ERROR(Restore(p, restore_mode));
  RecordSpec(&st, spec_json, p.generation, deps_.clock->Now(),
             {.state = ReconciliationState::kDeployed, .upgrade_mode = restore_mode});
  return Status::Ok();
}

Status FlinkDeploymentController::Restore(DeploymentPass& p, UpgradeMode restore_mode) {
  api::FlinkDeploymentStatus& st = p.status();
  api::JobStatus& job = st.job_status;
  std::string path;
  if (restore_mode == UpgradeMode::kSavepoint) {
    // The old JobManager may still be up (stop-with-savepoint, cancel): its checkpoint history
    // has the newest state, also when an earlier pass died before recording it.
    if (st.job_manager_deployment_status == JmStatus::kReady) {
      EnsureRestClient(p);
      if (p.rest && !job.job_id.empty()) {
        StatusOr<std::vector<flink::JobOverview>> jobs = p.rest->ListJobs();
        if (jobs.ok()) {
          for (const flink::JobOverview& j : *jobs) {
            if (j.id != job.job_id) continue;
            if (!js::IsGloballyTerminal(j.state)) {
              job.state = j.state;
              return Waiting(p, "job " + j.id + " is still " + j.state);
            }
            StatusOr<std::string> last = LastCheckpointPath(*p.rest, j.id);
            if (!last.ok()) return UpgradeFailure(p, reasons::kCheckpointNotFound, last.status().message());
            if (!last->empty()) job.upgrade_savepoint_path = *last;
          }
        }
      }
    }
    path = job.upgrade_savepoint_path;
    if (path.empty() && job.savepoint_info.last_savepoint) path = job.savepoint_info.last_savepoint->location;
    if (path == kLastStateDummyPath) {
      // The placeholder of a last-state deploy whose job never reported a newer state: the
      // state is the HA metadata's checkpoint, which Flink restores for the same job id whatever
      // execution.savepoint.path says. Only without it is the state unknown.
      TRIMTAB_ASSIGN_OR_RETURN(HaMetadata ha, cluster_.ReadHaMetadata(p.ns(), p.name()));
      if (ha.available && ha.has_checkpoint && IsHaEnabled(p.config)) {
        spdlog::info("{}/{}: restoring from the HA metadata's latest checkpoint", p.ns(), p.name());
        return Deploy(p, p.resource.spec, "", UpgradeMode::kLastState);
      }
      return UpgradeFailure(p, reasons::kUpgradeFailed,
                            "Job is in terminal state but last checkpoint is unknown, possibly due "
                            "to an unrecoverable restore error. Manual restore required.");
    }
  } else if (restore_mode == UpgradeMode::kLastState) {
    TRIMTAB_ASSIGN_OR_RETURN(HaMetadata ha, cluster_.ReadHaMetadata(p.ns(), p.name()));
    if (!ha.available) {
      return UpgradeFailure(
          p, reasons::kUpgradeFailed,
          "HA metadata not available to restore from last state. It is possible that the job has "
          "finished or terminally failed, or the configmaps have been deleted. Manual restore "
          "required.");
    }
  }
  return Deploy(p, p.resource.spec, path, restore_mode);
}

}  // namespace trimtab::op
