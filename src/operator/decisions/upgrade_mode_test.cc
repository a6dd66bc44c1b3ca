#include "operator/decisions/upgrade_mode.h"

#include <gtest/gtest.h>

namespace trimtab::op {
namespace {

using api::UpgradeMode;
using Outcome = JobUpgrade::Outcome;

UpgradeFacts Running(UpgradeMode mode) {
  UpgradeFacts f;
  f.spec_mode = mode;
  f.recorded_mode = mode;
  f.job_state = "RUNNING";
  f.jm_rest_available = true;
  f.jm_status = api::JobManagerDeploymentStatus::kReady;
  f.savepoint_dir_set = true;
  return f;
}

void Expect(const UpgradeFacts& f, Outcome outcome, SuspendMode suspend, UpgradeMode restore,
            const char* what) {
  JobUpgrade u = DecideJobUpgrade(f);
  EXPECT_EQ(u.outcome, outcome) << what << " " << u.failure;
  if (outcome == Outcome::kAvailable) {
    EXPECT_EQ(u.suspend_mode, suspend) << what << ": got " << SuspendModeName(u.suspend_mode);
    EXPECT_EQ(u.restore_mode, restore) << what;
  }
}

TEST(UpgradeModeTest, Rules) {
  Expect(Running(UpgradeMode::kStateless), Outcome::kAvailable, SuspendMode::kStateless,
         UpgradeMode::kStateless, "stateless");
  UpgradeFacts f = Running(UpgradeMode::kStateless);
  f.job_state = "FAILED";
  Expect(f, Outcome::kAvailable, SuspendMode::kNoop, UpgradeMode::kStateless, "stateless terminal");

  Expect(Running(UpgradeMode::kSavepoint), Outcome::kAvailable, SuspendMode::kSavepoint,
         UpgradeMode::kSavepoint, "savepoint running");

  f = Running(UpgradeMode::kSavepoint);
  f.job_state = "FINISHED";
  Expect(f, Outcome::kAvailable, SuspendMode::kNoop, UpgradeMode::kSavepoint,
         "terminal job restores from the observed checkpoint");
  f.upgrade_savepoint_path = kLastStateDummyPath;
  EXPECT_EQ(DecideJobUpgrade(f).outcome, Outcome::kFailed);
  EXPECT_NE(DecideJobUpgrade(f).failure.find("Manual restore required."), std::string::npos);

  f = Running(UpgradeMode::kSavepoint);
  f.job_state = "CANCELLING";
  Expect(f, Outcome::kPendingCancellation, SuspendMode::kNoop, UpgradeMode::kStateless, "cancelling");

  // Last-state with HA metadata and job-cancel disabled keeps the HA data.
  f = Running(UpgradeMode::kLastState);
  f.ha_metadata_available = true;
  f.ha_enabled_deploy = f.ha_enabled_observe = true;
  Expect(f, Outcome::kAvailable, SuspendMode::kLastState, UpgradeMode::kLastState, "last-state HA");
  f.options.last_state_job_cancel_enabled = true;
  Expect(f, Outcome::kAvailable, SuspendMode::kCancel, UpgradeMode::kSavepoint, "job-cancel");
  // Without HA metadata a running job is cancelled and restored from its retained checkpoint.
  f = Running(UpgradeMode::kLastState);
  Expect(f, Outcome::kAvailable, SuspendMode::kCancel, UpgradeMode::kSavepoint, "last-state no HA");
  // A version change takes a savepoint.
  f.flink_version_changed = true;
  Expect(f, Outcome::kAvailable, SuspendMode::kSavepoint, UpgradeMode::kSavepoint, "version change");

  // Savepoint mode with a job that is not running falls back to last-state (HA), never stateless.
  f = Running(UpgradeMode::kSavepoint);
  f.job_state = "RESTARTING";
  f.jm_rest_available = false;
  f.ha_metadata_available = true;
  f.ha_enabled_deploy = f.ha_enabled_observe = true;
  Expect(f, Outcome::kAvailable, SuspendMode::kLastState, UpgradeMode::kLastState, "fallback");
  f.options.last_state_fallback_enabled = false;
  f.ha_metadata_available = false;
  Expect(f, Outcome::kUnavailable, SuspendMode::kNoop, UpgradeMode::kStateless, "no fallback");

  // JobManager missing and no HA metadata: manual restore.
  f = Running(UpgradeMode::kLastState);
  f.job_state = "RECONCILING";
  f.jm_rest_available = false;
  f.jm_status = api::JobManagerDeploymentStatus::kMissing;
  JobUpgrade u = DecideJobUpgrade(f);
  EXPECT_EQ(u.outcome, Outcome::kFailed);
  EXPECT_NE(u.failure.find("HA metadata is not available"), std::string::npos);
  // The same for a session job only waits.
  f.session_job = true;
  EXPECT_EQ(DecideJobUpgrade(f).outcome, Outcome::kUnavailable);

  // A JobManager whose pod never started is deleted (not for a recorded last-state deploy).
  f = Running(UpgradeMode::kSavepoint);
  f.job_state = "RECONCILING";
  f.jm_rest_available = false;
  f.jm_status = api::JobManagerDeploymentStatus::kDeploying;
  f.jm_pod_never_started = true;
  f.options.last_state_fallback_enabled = false;
  EXPECT_EQ(DecideJobUpgrade(f).outcome, Outcome::kDeleteClusterAndRetry);
}

TEST(UpgradeModeTest, MaxCheckpointAge) {
  UpgradeFacts f = Running(UpgradeMode::kLastState);
  f.ha_metadata_available = true;
  f.options.last_state_max_checkpoint_age = std::chrono::minutes(5);
  f.now = TimePoint{} + std::chrono::hours(1);
  f.job_start = f.now - std::chrono::minutes(30);
  f.last_completed_checkpoint = f.now - std::chrono::minutes(2);
  Expect(f, Outcome::kAvailable, SuspendMode::kLastState, UpgradeMode::kLastState, "fresh checkpoint");
  f.last_completed_checkpoint = f.now - std::chrono::minutes(10);
  Expect(f, Outcome::kAvailable, SuspendMode::kSavepoint, UpgradeMode::kSavepoint, "stale");
  f.pending_checkpoint_trigger = f.now - std::chrono::minutes(1);
  EXPECT_EQ(DecideJobUpgrade(f).outcome, Outcome::kUnavailable);
}

}  // namespace
}  // namespace trimtab::op
