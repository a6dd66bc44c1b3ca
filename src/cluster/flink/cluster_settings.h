// ClusterSettings: the typed view of the Flink configuration keys the simulated JobManager
// honours (docs/design/flink-pods.md "Configuration keys"; docs/flink-sim.md lists the rest),
// with Flink's defaults and deprecated key names. Errors name the key.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(ClusterSettings s, ClusterSettings::Parse(config, {.cluster_id = "wc"}));
//
// Thread-safety: plain values.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/status.h"
#include "cluster/flink/flink_config.h"

namespace trimtab::sim::flink {

using Ms = std::chrono::milliseconds;

enum class DeploymentMode { kApplication, kSession };
enum class SchedulerType { kDefault, kAdaptive };

enum class RestartStrategyType { kNone, kFixedDelay, kExponentialDelay, kFailureRate };

struct RestartStrategySettings {
  RestartStrategyType type = RestartStrategyType::kNone;
  std::string name = "NoRestartStrategy";  // as /jobs/:id/config prints it
  // fixed-delay
  int64_t attempts = 1;
  Ms delay{1000};
  // exponential-delay
  Ms initial_backoff{1000};
  Ms max_backoff{60000};
  double multiplier = 1.5;
  Ms reset_threshold{3600000};
  double jitter = 0.1;
  // failure-rate
  int64_t max_failures_per_interval = 1;
  Ms failure_rate_interval{60000};
};

struct CheckpointSettings {
  bool enabled = false;  // execution.checkpointing.interval set
  Ms interval{0};
  Ms timeout{600000};
  Ms min_pause{0};
  int64_t max_concurrent = 1;
  bool exactly_once = true;
  bool unaligned = false;
  int64_t tolerable_failures = 0;
  int64_t num_retained = 1;
  std::string retention = "NO_EXTERNALIZED_CHECKPOINTS";  // or RETAIN_/DELETE_ON_CANCELLATION
  std::string dir;            // checkpoint directory ("" = JobManager storage, not addressable)
  std::string savepoint_dir;  // default savepoint target ("" = none)
  std::string state_backend = "hashmap";
  std::string storage = "jobmanager";
  // execution.checkpointing.checkpoints-after-tasks-finish (FLIP-147, default on since Flink
  // 1.15): a job whose input ended waits for one more completed checkpoint (the final
  // checkpoint, which commits the last offsets) before it is FINISHED.
  bool after_tasks_finish = true;
};

struct TaskManagerSettings {
  int slots = 1;
  double cpu = 1;  // kubernetes.taskmanager.cpu (default: the slot count)
  // Flink's memory model from taskmanager.memory.process.size.
  int64_t process_bytes = 1728LL << 20;
  int64_t flink_bytes = 0;
  int64_t framework_heap = 128LL << 20;
  int64_t task_heap = 0;
  int64_t framework_off_heap = 128LL << 20;
  int64_t task_off_heap = 0;
  int64_t network = 0;
  int64_t managed = 0;
  int64_t metaspace = 256LL << 20;
  int64_t overhead = 0;
  int64_t HeapMax() const { return framework_heap + task_heap; }
};

struct ClusterSettings {
  DeploymentMode mode = DeploymentMode::kApplication;
  std::string cluster_id;
  std::string namespace_name = "default";
  FlinkVersion version;
  // Program (application mode).
  std::string job_id;  // $internal.pipeline.job-id ("" = random)
  std::string pipeline_name;
  std::string jar;     // first of pipeline.jars
  std::string entry_class;
  std::string program_args;
  int default_parallelism = 1;
  int max_parallelism = -1;  // pipeline.max-parallelism (-1 = Flink's rule)
  std::map<std::string, int> vertex_parallelism_overrides;  // JobVertexID -> parallelism
  // Scheduling.
  SchedulerType scheduler = SchedulerType::kDefault;
  bool reactive = false;
  Ms rescale_cooldown{30000};
  Ms resource_wait_timeout{300000};
  // jobmanager.adaptive-scheduler.resource-stabilization-timeout: how long the slots a reactive
  // job could use must stay unchanged before it is (re)scheduled on them.
  Ms resource_stabilization_timeout{10000};
  TaskManagerSettings task_manager;
  Ms task_manager_idle_timeout{30000};  // resourcemanager.taskmanager-timeout
  // Restore.
  std::string savepoint_path;  // execution.savepoint.path / execution.state-recovery.path
  bool allow_non_restored_state = false;
  std::string claim_mode = "NO_CLAIM";
  // High availability.
  bool ha_enabled = false;
  std::string ha_storage_dir;
  // The job result store (FLIP-194), with high availability only: where a globally terminated
  // job's result is kept (job-result-store.storage-path, default
  // <high-availability.storageDir>/job-result-store/<cluster-id>) and whether the entry goes
  // once the job's resources are cleaned up (job-result-store.delete-on-commit, default true).
  std::string job_result_store_path;
  bool job_result_store_delete_on_commit = true;
  bool shutdown_on_application_finish = true;  // execution.shutdown-on-application-finish
  // Checkpoints and restarts.
  CheckpointSettings checkpoints;
  RestartStrategySettings restart;
  // REST.
  int rest_port = 8081;
  Ms async_store_duration{300000};
  Ms metric_fetch_interval{10000};
  int checkpoint_history = 10;
  Ms web_refresh_interval{3000};
  bool web_submit = true;
  bool web_cancel = true;
  bool web_rescale = false;
  std::string upload_dir = "/tmp";

  struct Defaults {
    std::optional<DeploymentMode> mode;  // from the container args; else execution.target
    std::string cluster_id;              // when kubernetes.cluster-id is unset
    std::string namespace_name = "default";
    std::optional<FlinkVersion> version;  // from the image tag; default 1.20
  };
  static StatusOr<ClusterSettings> Parse(const FlinkConfig& config, const Defaults& defaults);
};

// pipeline.jobvertex-parallelism-overrides as the JobManager reads it: the common syntax
// (ParseFlinkParallelismOverrides) with every vertex id 32 hex digits, returned in lower case;
// ids that differ only in case are the same vertex, given twice (an error).
StatusOr<std::map<std::string, int>> ParseJobVertexOverrides(const std::string& text);

}  // namespace trimtab::sim::flink
