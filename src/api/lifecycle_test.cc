#include "api/lifecycle.h"

#include <gtest/gtest.h>

namespace trimtab::api {
namespace {

constexpr char kRunningSpec[] = R"({"spec":{"job":{"state":"running"}},"resource_metadata":{}})";
constexpr char kSuspendedSpec[] =
    R"({"spec":{"job":{"state":"suspended"}},"resource_metadata":{}})";

FlinkDeploymentStatus Deployed(const char* reconciled, const char* stable) {
  FlinkDeploymentStatus s;
  s.reconciliation_status.state = ReconciliationState::kDeployed;
  s.reconciliation_status.last_reconciled_spec = reconciled;
  s.reconciliation_status.last_stable_spec = stable;
  s.job_manager_deployment_status = JobManagerDeploymentStatus::kReady;
  return s;
}

TEST(LifecycleTest, DerivationOrder) {
  FlinkDeploymentStatus s;
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kCreated);
  s.error = "bad spec";
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kFailed);

  s = Deployed(kRunningSpec, "");
  s.reconciliation_status.state = ReconciliationState::kUpgrading;
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kUpgrading);
  s.reconciliation_status.state = ReconciliationState::kRollingBack;
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kRollingBack);

  s = Deployed(kSuspendedSpec, "");
  s.job_status.state = "FAILED";  // suspended wins over a failed job
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kSuspended);

  s = Deployed(kRunningSpec, kRunningSpec);
  s.job_status.state = "FAILED";
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kFailed);

  s = Deployed(kRunningSpec, kRunningSpec);
  s.job_manager_deployment_status = JobManagerDeploymentStatus::kMissing;
  s.error = "JobManager deployment is missing and HA metadata is not available to make stateful "
            "upgrades. Manual restore required.";
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kFailed);
  s.job_manager_deployment_status = JobManagerDeploymentStatus::kReady;
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kStable);

  s = Deployed(kRunningSpec, kRunningSpec);
  s.reconciliation_status.state = ReconciliationState::kRolledBack;
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kRolledBack);

  s = Deployed(kRunningSpec, kRunningSpec);
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kStable);
  s = Deployed(kRunningSpec, kSuspendedSpec);
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kDeployed);

  s.lifecycle_state = LifecycleState::kDeleting;
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kDeleting);
}

TEST(LifecycleTest, SessionJobIgnoresJobManagerRule) {
  FlinkSessionJobStatus s;
  s.reconciliation_status.state = ReconciliationState::kDeployed;
  s.reconciliation_status.last_reconciled_spec = kRunningSpec;
  s.error = "Manual restore required.";
  EXPECT_EQ(DeriveLifecycleState(s), LifecycleState::kDeployed);
}

TEST(LifecycleTest, TerminalFlags) {
  EXPECT_TRUE(IsTerminal(LifecycleState::kStable));
  EXPECT_TRUE(IsTerminal(LifecycleState::kSuspended));
  EXPECT_FALSE(IsTerminal(LifecycleState::kDeployed));
  EXPECT_FALSE(IsTerminal(LifecycleState::kDeleting));
  EXPECT_EQ(VersionNumber(FlinkVersion::kV1_18), "1.18");
  EXPECT_EQ(VersionNumber(FlinkVersion::kV2_0), "2.0");
  EXPECT_FALSE(IsSupported(FlinkVersion::kV1_14));
  EXPECT_TRUE(IsSupported(FlinkVersion::kV1_15));
}

}  // namespace
}  // namespace trimtab::api
