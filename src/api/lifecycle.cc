#include "api/lifecycle.h"

#include <array>
#include <optional>
#include <string_view>

#include "api/reconciled_spec.h"

namespace trimtab::api {
namespace {

bool NamesManualRestore(std::string_view error) {
  static constexpr std::array<std::string_view, 3> kMarkers = {
      "Manual restore required.",
      "It is possible that the job has finished or terminally failed, or the configmaps have "
      "been deleted.",
      "HA metadata is not available"};
  for (std::string_view m : kMarkers) {
    if (error.find(m) != std::string_view::npos) return true;
  }
  return false;
}

LifecycleState Derive(const CommonStatus& s, std::optional<JobManagerDeploymentStatus> jm) {
  if (s.lifecycle_state == LifecycleState::kDeleting ||
      s.lifecycle_state == LifecycleState::kDeleted) {
    return s.lifecycle_state;
  }
  const ReconciliationStatus& r = s.reconciliation_status;
  if (r.last_reconciled_spec.empty()) {
    return s.error.empty() ? LifecycleState::kCreated : LifecycleState::kFailed;
  }
  if (r.state == ReconciliationState::kUpgrading) return LifecycleState::kUpgrading;
  if (r.state == ReconciliationState::kRollingBack) return LifecycleState::kRollingBack;
  if (RecordedJobState(r.last_reconciled_spec) == JobState::kSuspended) {
    return LifecycleState::kSuspended;
  }
  if (s.job_status.state == job_status::kFailed) return LifecycleState::kFailed;
  if (jm && (*jm == JobManagerDeploymentStatus::kMissing ||
             *jm == JobManagerDeploymentStatus::kError) &&
      NamesManualRestore(s.error)) {
    return LifecycleState::kFailed;
  }
  if (r.state == ReconciliationState::kRolledBack) return LifecycleState::kRolledBack;
  if (r.last_reconciled_spec == r.last_stable_spec) return LifecycleState::kStable;
  return LifecycleState::kDeployed;
}

}  // namespace

LifecycleState DeriveLifecycleState(const FlinkDeploymentStatus& status) {
  return Derive(status, status.job_manager_deployment_status);
}

LifecycleState DeriveLifecycleState(const FlinkSessionJobStatus& status) {
  return Derive(status, std::nullopt);
}

}  // namespace trimtab::api
