#include "operator/decisions/upgrade_mode.h"

namespace trimtab::op {
namespace {

using api::UpgradeMode;
namespace js = api::job_status;

JobUpgrade Available(SuspendMode suspend, UpgradeMode restore) {
  return JobUpgrade{JobUpgrade::Outcome::kAvailable, suspend, restore, ""};
}

JobUpgrade Outcome(JobUpgrade::Outcome o) { return JobUpgrade{o, SuspendMode::kNoop, UpgradeMode::kStateless, ""}; }

JobUpgrade Failed(std::string why) {
  JobUpgrade u = Outcome(JobUpgrade::Outcome::kFailed);
  u.failure = std::move(why);
  return u;
}

bool Cancellable(const UpgradeFacts& f) {
  return f.jm_rest_available && !f.job_state.empty() && !js::IsGloballyTerminal(f.job_state) &&
         f.job_state != js::kCancelling && f.job_state != js::kReconciling;
}

std::optional<JobUpgrade> LastStateUpgrade(const UpgradeFacts& f) {
  const bool running = f.job_state == js::kRunning;
  const bool cancellable = Cancellable(f);
  if (f.flink_version_changed) {
    if (running && f.savepoint_dir_set) return Available(SuspendMode::kSavepoint, UpgradeMode::kSavepoint);
    if (cancellable) return Available(SuspendMode::kCancel, UpgradeMode::kSavepoint);
    return std::nullopt;
  }
  const bool cancel_allowed = cancellable && (f.session_job || !f.ha_metadata_available ||
                                              f.options.last_state_job_cancel_enabled);
  if (running) {
    if (f.options.last_state_max_checkpoint_age && f.job_start &&
        *f.job_start < f.now - *f.options.last_state_max_checkpoint_age) {
      const TimePoint oldest_ok = f.now - *f.options.last_state_max_checkpoint_age;
      const bool recent_completed =
          f.last_completed_checkpoint && *f.last_completed_checkpoint >= oldest_ok;
      if (!recent_completed) {
        if (f.pending_checkpoint_trigger && *f.pending_checkpoint_trigger >= oldest_ok) {
          return Outcome(JobUpgrade::Outcome::kUnavailable);
        }
        return Available(SuspendMode::kSavepoint, UpgradeMode::kSavepoint);
      }
    }
    if (cancel_allowed) return Available(SuspendMode::kCancel, UpgradeMode::kSavepoint);
    if (!f.session_job && f.ha_metadata_available) {
      return Available(SuspendMode::kLastState, UpgradeMode::kLastState);
    }
    return std::nullopt;
  }
  if (cancel_allowed) return Available(SuspendMode::kCancel, UpgradeMode::kSavepoint);
  return std::nullopt;
}

}  // namespace

std::string_view SuspendModeName(SuspendMode m) {
  switch (m) {
    case SuspendMode::kNoop: return "NOOP";
    case SuspendMode::kStateless: return "STATELESS";
    case SuspendMode::kSavepoint: return "SAVEPOINT";
    case SuspendMode::kCancel: return "CANCEL";
    case SuspendMode::kLastState: return "LAST_STATE";
  }
  return "UNKNOWN";
}

JobUpgrade DecideJobUpgrade(const UpgradeFacts& f) {
  const bool terminal = js::IsGloballyTerminal(f.job_state);
  if (f.spec_mode == UpgradeMode::kStateless) {
    return Available(terminal ? SuspendMode::kNoop : SuspendMode::kStateless, UpgradeMode::kStateless);
  }
  if (terminal && (f.job_state == js::kCanceled || !f.ha_metadata_available || f.jm_rest_available)) {
    if (f.upgrade_savepoint_path == kLastStateDummyPath) {
      // trimtab: the state is not unknown while the HA metadata has a checkpoint (Flink
      // restores it for the same job id); upstream asks for a manual restore here.
      if (f.ha_enabled_deploy && f.ha_has_checkpoint) {
        return Available(SuspendMode::kNoop, UpgradeMode::kLastState);
      }
      return Failed(
          "Job is in terminal state but last checkpoint is unknown, possibly due to an "
          "unrecoverable restore error. Manual restore required.");
    }
    return Available(SuspendMode::kNoop, UpgradeMode::kSavepoint);
  }
  if (f.job_state == js::kCancelling) return Outcome(JobUpgrade::Outcome::kPendingCancellation);

  std::optional<JobUpgrade> decided;
  bool as_last_state = f.spec_mode == UpgradeMode::kLastState;
  if (f.spec_mode == UpgradeMode::kSavepoint) {
    if (f.job_state == js::kRunning) {
      decided = Available(SuspendMode::kSavepoint, UpgradeMode::kSavepoint);
    } else {
      as_last_state = f.flink_version_changed || f.options.last_state_fallback_enabled;
    }
  }
  if (!decided && as_last_state) decided = LastStateUpgrade(f);
  if (decided) return *decided;
  if (f.session_job) return Outcome(JobUpgrade::Outcome::kUnavailable);

  if (f.ha_enabled_deploy && f.ha_enabled_observe && f.ha_metadata_available) {
    return Available(SuspendMode::kLastState, UpgradeMode::kLastState);
  }
  if (f.jm_status != api::JobManagerDeploymentStatus::kMissing &&
      f.recorded_mode != UpgradeMode::kLastState && f.jm_pod_never_started) {
    return Outcome(JobUpgrade::Outcome::kDeleteClusterAndRetry);
  }
  if ((f.jm_status == api::JobManagerDeploymentStatus::kMissing ||
       f.jm_status == api::JobManagerDeploymentStatus::kError) &&
      !f.ha_metadata_available) {
    return Failed(
        "JobManager deployment is missing and HA metadata is not available to make stateful "
        "upgrades. It is possible that the job has finished or terminally failed, or the "
        "configmaps have been deleted. Manual restore required.");
  }
  return Outcome(JobUpgrade::Outcome::kUnavailable);
}

}  // namespace trimtab::op
