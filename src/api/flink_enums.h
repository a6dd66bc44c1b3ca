// Enumerations of the Flink Kubernetes Operator resources (flink.apache.org/v1beta1) with their
// exact wire values, as the upstream CRDs and status fields spell them.
//
// Every enum has Name() (the wire value) and a Parse*() that fails with kInvalidArgument listing
// the accepted values. Flink's own JobStatus names (RUNNING, FAILED, ...) are kept as strings in
// the status (the operator only compares them); helpers below classify them.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(UpgradeMode mode, ParseUpgradeMode("last-state"));
//   std::string_view wire = Name(mode);   // "last-state"
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace trimtab::api {

// apiVersion of both resources.
inline constexpr std::string_view kFlinkApiVersion = "flink.apache.org/v1beta1";

// spec.job.upgradeMode: how state is carried over when the job is stopped and started again.
enum class UpgradeMode {
  kStateless,  // "stateless": start empty
  kSavepoint,  // "savepoint": stop-with-savepoint, restore from it
  kLastState,  // "last-state": restore from the latest checkpoint kept in HA metadata
};
// spec.job.state: the desired state.
enum class JobState { kRunning, kSuspended };  // "running", "suspended"
// spec.mode.
enum class DeploymentMode { kNative, kStandalone };  // "native", "standalone"
// status.reconciliationStatus.state.
enum class ReconciliationState {
  kDeployed,     // "DEPLOYED": lastReconciledSpec is what runs
  kUpgrading,    // "UPGRADING": being upgraded / about to be deployed
  kRollingBack,  // "ROLLING_BACK"
  kRolledBack,   // "ROLLED_BACK": lastStableSpec runs
};
// status.jobManagerDeploymentStatus. REST is used only in kReady.
enum class JobManagerDeploymentStatus {
  kReady,             // "READY"
  kDeployedNotReady,  // "DEPLOYED_NOT_READY": port open, one more rest-ready delay
  kDeploying,         // "DEPLOYING"
  kMissing,           // "MISSING"
  kError,             // "ERROR"
};
// status.lifecycleState (derived, see lifecycle.h).
enum class LifecycleState {
  kCreated,
  kSuspended,
  kUpgrading,
  kDeployed,
  kStable,
  kRollingBack,
  kRolledBack,
  kFailed,
  kDeleting,
  kDeleted,
};
// spec.flinkVersion. v1_13 and v1_14 are accepted on the wire but unsupported.
enum class FlinkVersion {
  kV1_13,
  kV1_14,
  kV1_15,
  kV1_16,
  kV1_17,
  kV1_18,
  kV1_19,
  kV1_20,
  kV2_0,
  kV2_1,
  kV2_2,
  kV2_3,
  kV2_4,
};
enum class SnapshotTriggerType { kManual, kPeriodic, kUpgrade, kUnknown };
enum class SavepointFormatType { kCanonical, kNative, kUnknown };
enum class CheckpointType { kFull, kIncremental, kUnknown };
// The kind of change between two specs; ordered, a diff's type is the maximum of its fields.
enum class DiffType { kIgnore, kScale, kUpgrade, kSavepointRedeploy };

std::string_view Name(UpgradeMode v);
std::string_view Name(JobState v);
std::string_view Name(DeploymentMode v);
std::string_view Name(ReconciliationState v);
std::string_view Name(JobManagerDeploymentStatus v);
std::string_view Name(LifecycleState v);
std::string_view Name(FlinkVersion v);
std::string_view Name(SnapshotTriggerType v);
std::string_view Name(SavepointFormatType v);
std::string_view Name(CheckpointType v);
std::string_view Name(DiffType v);

StatusOr<UpgradeMode> ParseUpgradeMode(std::string_view text);
StatusOr<JobState> ParseJobState(std::string_view text);
StatusOr<DeploymentMode> ParseDeploymentMode(std::string_view text);
StatusOr<ReconciliationState> ParseReconciliationState(std::string_view text);
StatusOr<JobManagerDeploymentStatus> ParseJobManagerDeploymentStatus(std::string_view text);
StatusOr<LifecycleState> ParseLifecycleState(std::string_view text);
StatusOr<FlinkVersion> ParseFlinkVersion(std::string_view text);
StatusOr<SnapshotTriggerType> ParseSnapshotTriggerType(std::string_view text);
StatusOr<SavepointFormatType> ParseSavepointFormatType(std::string_view text);
StatusOr<CheckpointType> ParseCheckpointType(std::string_view text);

// The wire values of each enum, in declaration order (for JsonReader::OptionalEnum and docs).
const std::vector<std::string_view>& UpgradeModeNames();
const std::vector<std::string_view>& FlinkVersionNames();

// Terminal lifecycle states (upstream ResourceLifecycleState.isTerminal()).
bool IsTerminal(LifecycleState v);

// ≥ v1_15.
bool IsSupported(FlinkVersion v);
// "1.18" / "2.0".
std::string VersionNumber(FlinkVersion v);
// v >= other (declaration order is release order).
inline bool IsAtLeast(FlinkVersion v, FlinkVersion other) { return v >= other; }

// Event reason / message of a JobManagerDeploymentStatus (upstream JobManagerDeploymentStatus):
// READY -> "JobManagerReady", DEPLOYED_NOT_READY -> "DeployedNotReady", ...
std::string_view ConditionReason(JobManagerDeploymentStatus v);
std::string_view ConditionMessage(JobManagerDeploymentStatus v);

// Flink's JobStatus names as the REST API and status.jobStatus.state carry them.
namespace job_status {
inline constexpr std::string_view kInitializing = "INITIALIZING";
inline constexpr std::string_view kCreated = "CREATED";
inline constexpr std::string_view kRunning = "RUNNING";
inline constexpr std::string_view kFailing = "FAILING";
inline constexpr std::string_view kFailed = "FAILED";
inline constexpr std::string_view kCancelling = "CANCELLING";
inline constexpr std::string_view kCanceled = "CANCELED";
inline constexpr std::string_view kFinished = "FINISHED";
inline constexpr std::string_view kRestarting = "RESTARTING";
inline constexpr std::string_view kSuspended = "SUSPENDED";
inline constexpr std::string_view kReconciling = "RECONCILING";

// FINISHED, CANCELED, FAILED: the job will never run again in this cluster.
bool IsGloballyTerminal(std::string_view state);
// Globally terminal or SUSPENDED.
bool IsTerminal(std::string_view state);
// One of the names above.
bool IsKnown(std::string_view state);
}  // namespace job_status

}  // namespace trimtab::api
