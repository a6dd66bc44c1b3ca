// The available upgrade mode: how a running job may be stopped for an upgrade and how its
// successor restores state (upstream AbstractJobReconciler.getJobUpgrade, notes §B.8). Pure: the
// reconciler gathers the facts, this decides.
//
// Rules, in order:
//  1. spec upgradeMode stateless -> suspend STATELESS (NOOP when the job is terminal), restore
//     stateless.
//  2. job globally terminal and (CANCELED, no HA metadata, or the JobManager REST API answers) ->
//     NOOP, restore from the last checkpoint the observer recorded (upgradeSavepointPath); if that
//     is the last-state marker the upgrade fails: "Manual restore required".
//  3. job CANCELLING -> wait for the cancellation.
//  4. spec savepoint: RUNNING -> SAVEPOINT (stop-with-savepoint); otherwise continue as
//     last-state when the Flink version changed or last-state-fallback is enabled, else wait.
//  5. last-state: Flink version changed -> SAVEPOINT when RUNNING with a savepoint dir, else CANCEL
//     when cancellable, else wait. Same version: RUNNING with max.allowed.checkpoint.age set and
//     the job older than it -> a completed checkpoint within the age keeps the default, a pending
//     one waits, otherwise SAVEPOINT; default = CANCEL when cancellable (session job, no HA
//     metadata, or job-cancel enabled) else LAST_STATE. Not RUNNING: CANCEL when cancellable.
//  6. still unavailable (application clusters only): HA on in both configs with HA metadata ->
//     LAST_STATE; JobManager present, recorded mode not last-state and its pod never started ->
//     delete the cluster and decide again; JobManager MISSING/ERROR without HA metadata -> fails
//     ("... HA metadata is not available ... Manual restore required.").
// Never falls back from savepoint/last-state to stateless.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "api/flink_enums.h"
#include "common/clock.h"
#include "operator/decisions/operator_config.h"

namespace trimtab::op {

// How the running job is stopped.
enum class SuspendMode {
  kNoop,       // nothing to stop (job already terminal)
  kStateless,  // cancel, delete the cluster and its HA data
  kSavepoint,  // stop-with-savepoint
  kCancel,     // cancel keeping the retained checkpoint; restore from it as a savepoint
  kLastState,  // delete the cluster, keep HA metadata; restore from it
};
std::string_view SuspendModeName(SuspendMode m);

struct UpgradeFacts {
  api::UpgradeMode spec_mode = api::UpgradeMode::kStateless;      // new spec
  api::UpgradeMode recorded_mode = api::UpgradeMode::kStateless;  // lastReconciledSpec
  std::string job_state;  // observed Flink JobStatus name
  bool session_job = false;
  bool jm_rest_available = false;  // JobManager READY
  api::JobManagerDeploymentStatus jm_status = api::JobManagerDeploymentStatus::kMissing;
  bool jm_pod_never_started = false;
  bool ha_enabled_deploy = false;   // HA in the new spec's config
  bool ha_enabled_observe = false;  // HA in the deployed spec's config
  bool ha_metadata_available = false;
  bool flink_version_changed = false;
  bool savepoint_dir_set = false;
  std::string upgrade_savepoint_path;  // status.jobStatus.upgradeSavepointPath
  bool ha_has_checkpoint = false;      // the HA metadata records at least one checkpoint
  // For max.allowed.checkpoint.age.
  TimePoint now{};
  std::optional<TimePoint> job_start;
  std::optional<TimePoint> last_completed_checkpoint;
  std::optional<TimePoint> pending_checkpoint_trigger;
  OperatorConfig options;
};

struct JobUpgrade {
  enum class Outcome {
    kAvailable,            // suspend with `suspend_mode`, restore with `restore_mode`
    kPendingCancellation,  // job CANCELLING: stop this pass, requeue
    kUnavailable,          // nothing safe now: skip the upgrade this pass, keep observing
    kDeleteClusterAndRetry,  // the JobManager never started: delete it and decide again
    kFailed,               // manual intervention needed: `failure` says why
  };
  Outcome outcome = Outcome::kUnavailable;
  SuspendMode suspend_mode = SuspendMode::kNoop;
  api::UpgradeMode restore_mode = api::UpgradeMode::kStateless;
  std::string failure;
};

JobUpgrade DecideJobUpgrade(const UpgradeFacts& facts);

}  // namespace trimtab::op
