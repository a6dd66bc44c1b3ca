#include "api/flink_enums.h"

#include <array>

namespace trimtab::api {
namespace {

template <typename E>
std::string_view NameOf(const std::vector<std::string_view>& names, E v) {
  const size_t i = static_cast<size_t>(v);
  return i < names.size() ? names[i] : std::string_view("UNKNOWN");
}

template <typename E>
StatusOr<E> ParseOf(const std::vector<std::string_view>& names, std::string_view what,
                    std::string_view text) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) return static_cast<E>(i);
  }
  std::string list;
  for (std::string_view n : names) {
    if (!list.empty()) list += ", ";
    list += '"';
    list += n;
    list += '"';
  }
  return InvalidArgumentError("unknown " + std::string(what) + " \"" + std::string(text) +
                              "\": supported values: " + list);
}

const std::vector<std::string_view>& JobStateNames() {
  static const std::vector<std::string_view> n = {"running", "suspended"};
  return n;
}
const std::vector<std::string_view>& DeploymentModeNames() {
  static const std::vector<std::string_view> n = {"native", "standalone"};
  return n;
}
const std::vector<std::string_view>& ReconciliationStateNames() {
  static const std::vector<std::string_view> n = {"DEPLOYED", "UPGRADING", "ROLLING_BACK",
                                                  "ROLLED_BACK"};
  return n;
}
const std::vector<std::string_view>& JmStatusNames() {
  static const std::vector<std::string_view> n = {"READY", "DEPLOYED_NOT_READY", "DEPLOYING",
                                                  "MISSING", "ERROR"};
  return n;
}
const std::vector<std::string_view>& LifecycleNames() {
  static const std::vector<std::string_view> n = {
      "CREATED", "SUSPENDED", "UPGRADING",   "DEPLOYED", "STABLE",
      "ROLLING_BACK", "ROLLED_BACK", "FAILED", "DELETING", "DELETED"};
  return n;
}
const std::vector<std::string_view>& TriggerTypeNames() {
  static const std::vector<std::string_view> n = {"MANUAL", "PERIODIC", "UPGRADE", "UNKNOWN"};
  return n;
}
const std::vector<std::string_view>& SavepointFormatNames() {
  static const std::vector<std::string_view> n = {"CANONICAL", "NATIVE", "UNKNOWN"};
  return n;
}
const std::vector<std::string_view>& CheckpointTypeNames() {
  static const std::vector<std::string_view> n = {"FULL", "INCREMENTAL", "UNKNOWN"};
  return n;
}
const std::vector<std::string_view>& DiffTypeNames() {
  static const std::vector<std::string_view> n = {"IGNORE", "SCALE", "UPGRADE",
                                                  "SAVEPOINT_REDEPLOY"};
  return n;
}

}  // namespace

const std::vector<std::string_view>& UpgradeModeNames() {
  static const std::vector<std::string_view> n = {"stateless", "savepoint", "last-state"};
  return n;
}
const std::vector<std::string_view>& FlinkVersionNames() {
  static const std::vector<std::string_view> n = {"v1_13", "v1_14", "v1_15", "v1_16", "v1_17",
                                                  "v1_18", "v1_19", "v1_20", "v2_0",  "v2_1",
                                                  "v2_2",  "v2_3",  "v2_4"};
  return n;
}

std::string_view Name(UpgradeMode v) { return NameOf(UpgradeModeNames(), v); }
std::string_view Name(JobState v) { return NameOf(JobStateNames(), v); }
std::string_view Name(DeploymentMode v) { return NameOf(DeploymentModeNames(), v); }
std::string_view Name(ReconciliationState v) { return NameOf(ReconciliationStateNames(), v); }
std::string_view Name(JobManagerDeploymentStatus v) { return NameOf(JmStatusNames(), v); }
std::string_view Name(LifecycleState v) { return NameOf(LifecycleNames(), v); }
std::string_view Name(FlinkVersion v) { return NameOf(FlinkVersionNames(), v); }
std::string_view Name(SnapshotTriggerType v) { return NameOf(TriggerTypeNames(), v); }
std::string_view Name(SavepointFormatType v) { return NameOf(SavepointFormatNames(), v); }
std::string_view Name(CheckpointType v) { return NameOf(CheckpointTypeNames(), v); }
std::string_view Name(DiffType v) { return NameOf(DiffTypeNames(), v); }

StatusOr<UpgradeMode> ParseUpgradeMode(std::string_view t) {
  return ParseOf<UpgradeMode>(UpgradeModeNames(), "upgrade mode", t);
}
StatusOr<JobState> ParseJobState(std::string_view t) {
  return ParseOf<JobState>(JobStateNames(), "job state", t);
}
StatusOr<DeploymentMode> ParseDeploymentMode(std::string_view t) {
  return ParseOf<DeploymentMode>(DeploymentModeNames(), "deployment mode", t);
}
StatusOr<ReconciliationState> ParseReconciliationState(std::string_view t) {
  return ParseOf<ReconciliationState>(ReconciliationStateNames(), "reconciliation state", t);
}
StatusOr<JobManagerDeploymentStatus> ParseJobManagerDeploymentStatus(std::string_view t) {
  return ParseOf<JobManagerDeploymentStatus>(JmStatusNames(), "JobManager deployment status", t);
}
StatusOr<LifecycleState> ParseLifecycleState(std::string_view t) {
  return ParseOf<LifecycleState>(LifecycleNames(), "lifecycle state", t);
}
StatusOr<FlinkVersion> ParseFlinkVersion(std::string_view t) {
  return ParseOf<FlinkVersion>(FlinkVersionNames(), "Flink version", t);
}
StatusOr<SnapshotTriggerType> ParseSnapshotTriggerType(std::string_view t) {
  return ParseOf<SnapshotTriggerType>(TriggerTypeNames(), "snapshot trigger type", t);
}
StatusOr<SavepointFormatType> ParseSavepointFormatType(std::string_view t) {
  return ParseOf<SavepointFormatType>(SavepointFormatNames(), "savepoint format type", t);
}
StatusOr<CheckpointType> ParseCheckpointType(std::string_view t) {
  return ParseOf<CheckpointType>(CheckpointTypeNames(), "checkpoint type", t);
}

bool IsTerminal(LifecycleState v) {
  switch (v) {
    case LifecycleState::kSuspended:
    case LifecycleState::kStable:
    case LifecycleState::kRolledBack:
    case LifecycleState::kFailed:
    case LifecycleState::kDeleted:
      return true;
    default:
      return false;
  }
}

bool IsSupported(FlinkVersion v) { return v >= FlinkVersion::kV1_15; }

std::string VersionNumber(FlinkVersion v) {
  std::string name(Name(v));  // "v1_18"
  std::string out = name.substr(1);
  for (char& c : out) {
    if (c == '_') c = '.';
  }
  return out;
}

std::string_view ConditionReason(JobManagerDeploymentStatus v) {
  switch (v) {
    case JobManagerDeploymentStatus::kReady: return "JobManagerReady";
    case JobManagerDeploymentStatus::kDeployedNotReady: return "DeployedNotReady";
    case JobManagerDeploymentStatus::kDeploying: return "JobManagerIsDeploying";
    case JobManagerDeploymentStatus::kMissing: return "JobManagerDeploymentMissing";
    case JobManagerDeploymentStatus::kError: return "Error";
  }
  return "Unknown";
}

std::string_view ConditionMessage(JobManagerDeploymentStatus v) {
  switch (v) {
    case JobManagerDeploymentStatus::kReady: return "JobManager is running and ready to receive REST API calls";
    case JobManagerDeploymentStatus::kDeployedNotReady: return "JobManager is running but not ready yet to receive REST API calls";
    case JobManagerDeploymentStatus::kDeploying: return "JobManager process is starting up";
    case JobManagerDeploymentStatus::kMissing: return "JobManager deployment not found";
    case JobManagerDeploymentStatus::kError: return "Deployment in terminal error, requires spec change for reconciliation to continue";
  }
  return "";
}

namespace job_status {

bool IsGloballyTerminal(std::string_view s) {
  return s == kFinished || s == kCanceled || s == kFailed;
}
bool IsTerminal(std::string_view s) { return IsGloballyTerminal(s) || s == kSuspended; }
bool IsKnown(std::string_view s) {
  static constexpr std::array<std::string_view, 11> kAll = {
      kInitializing, kCreated,  kRunning,  kFailing,     kFailed,     kCancelling,
      kCanceled,     kFinished, kRestarting, kSuspended, kReconciling};
  for (std::string_view k : kAll) {
    if (k == s) return true;
  }
  return false;
}

}  // namespace job_status
}  // namespace trimtab::api
