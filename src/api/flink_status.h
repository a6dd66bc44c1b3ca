// Status types of FlinkDeployment and FlinkSessionJob and their JSON codecs (notes
// flink-autoscaler-and-operator.md §A.5, field names as in the upstream CRDs).
//
// The operator owns the status: it is decoded at the start of a pass, changed in memory and
// written back whole (status_recorder.h). lifecycleState is derived when encoding (lifecycle.h),
// as upstream derives it on every serialisation.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(FlinkDeploymentStatus st, DecodeFlinkDeploymentStatus(j, "status"));
//   st.job_status.state = "RUNNING";
//   Json out = EncodeFlinkDeploymentStatus(st);
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/flink_enums.h"
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::api {

// One savepoint in the legacy status bookkeeping (status.jobStatus.savepointInfo).
struct Savepoint {
  int64_t time_stamp = 0;  // timeStamp, epoch ms
  std::string location;
  SnapshotTriggerType trigger_type = SnapshotTriggerType::kUnknown;
  SavepointFormatType format_type = SavepointFormatType::kUnknown;
  std::optional<int64_t> trigger_nonce;
  friend bool operator==(const Savepoint&, const Savepoint&) = default;
};

struct SavepointInfo {
  std::optional<Savepoint> last_savepoint;
  std::string trigger_id;  // non-empty <=> a savepoint is pending
  int64_t trigger_timestamp = 0;
  std::optional<SnapshotTriggerType> trigger_type;
  std::optional<SavepointFormatType> format_type;
  std::vector<Savepoint> savepoint_history;
  int64_t last_periodic_savepoint_timestamp = 0;
  friend bool operator==(const SavepointInfo&, const SavepointInfo&) = default;
};

struct Checkpoint {
  int64_t time_stamp = 0;
  SnapshotTriggerType trigger_type = SnapshotTriggerType::kUnknown;
  CheckpointType format_type = CheckpointType::kUnknown;
  std::optional<int64_t> trigger_nonce;
  friend bool operator==(const Checkpoint&, const Checkpoint&) = default;
};

struct CheckpointInfo {
  std::optional<Checkpoint> last_checkpoint;
  std::string trigger_id;  // non-empty <=> a checkpoint is pending
  int64_t trigger_timestamp = 0;
  std::optional<SnapshotTriggerType> trigger_type;
  std::optional<CheckpointType> format_type;
  int64_t last_periodic_checkpoint_timestamp = 0;
  friend bool operator==(const CheckpointInfo&, const CheckpointInfo&) = default;
};

struct JobStatus {
  std::string job_name;
  std::string job_id;  // 32 hex
  std::string state;   // Flink JobStatus name, "" = unknown
  std::string start_time;   // epoch ms as text
  std::string update_time;  // epoch ms as text
  std::string upgrade_savepoint_path;  // restore path of the next stateful start
  SavepointInfo savepoint_info;
  CheckpointInfo checkpoint_info;
  friend bool operator==(const JobStatus&, const JobStatus&) = default;
};

struct ReconciliationStatus {
  int64_t reconciliation_timestamp = 0;
  std::string last_reconciled_spec;  // see reconciled_spec.h
  std::string last_stable_spec;
  ReconciliationState state = ReconciliationState::kUpgrading;

  bool IsBeforeFirstDeployment() const { return last_reconciled_spec.empty(); }
  friend bool operator==(const ReconciliationStatus&, const ReconciliationStatus&) = default;
};

struct Condition {
  std::string type;
  std::string status;  // "True" / "False" / "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;  // RFC 3339
  std::optional<int64_t> observed_generation;
  friend bool operator==(const Condition&, const Condition&) = default;
};

struct CommonStatus {
  JobStatus job_status;
  std::string error;
  std::optional<int64_t> observed_generation;
  // As last read/derived; the encoder re-derives it (DELETING/DELETED are kept).
  LifecycleState lifecycle_state = LifecycleState::kCreated;
  ReconciliationStatus reconciliation_status;
  friend bool operator==(const CommonStatus&, const CommonStatus&) = default;
};

struct TaskManagerInfo {
  std::string label_selector;
  int64_t replicas = 0;
  friend bool operator==(const TaskManagerInfo&, const TaskManagerInfo&) = default;
};

struct FlinkDeploymentStatus : CommonStatus {
  std::map<std::string, std::string> cluster_info;
  JobManagerDeploymentStatus job_manager_deployment_status = JobManagerDeploymentStatus::kMissing;
  std::optional<TaskManagerInfo> task_manager;
  std::vector<Condition> conditions;
  friend bool operator==(const FlinkDeploymentStatus&, const FlinkDeploymentStatus&) = default;
};

struct FlinkSessionJobStatus : CommonStatus {
  friend bool operator==(const FlinkSessionJobStatus&, const FlinkSessionJobStatus&) = default;
};

StatusOr<FlinkDeploymentStatus> DecodeFlinkDeploymentStatus(const Json& json,
                                                            const std::string& path);
StatusOr<FlinkSessionJobStatus> DecodeFlinkSessionJobStatus(const Json& json,
                                                            const std::string& path);
// Both derive lifecycleState (lifecycle.h) into the output.
Json EncodeFlinkDeploymentStatus(const FlinkDeploymentStatus& status);
Json EncodeFlinkSessionJobStatus(const FlinkSessionJobStatus& status);

// The `status.error` JSON upstream writes: {"type": ..., "message": ...} (null fields omitted).
std::string ErrorJson(std::string_view type, std::string_view message);

}  // namespace trimtab::api
