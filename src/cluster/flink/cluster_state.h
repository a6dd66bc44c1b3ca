// ClusterState: everything a simulated Flink JobManager knows (its configuration, the
// TaskManagers and their slots, the jobs, asynchronous operations, uploaded jars, the metric
// store, queued HA updates) and the operations the REST API and the pod runner perform on it.
// FlinkCluster (flink_cluster.h) wraps it with a lock and a clock; the REST handlers receive it
// locked.
//
// Deployment modes: an application cluster submits its one job at creation (job id
// `$internal.pipeline.job-id`, else derived from the cluster id with HA, else random) and
// restores it from the HA metadata's latest checkpoint (last-state; also when
// execution.savepoint.path is KUBERNETES_OPERATOR_LAST_STATE) or from execution.savepoint.path;
// with HA, a job the job result store records as globally terminated (a JobManager restart
// after stop-with-savepoint, cancel or failure) is not submitted again, as Flink's application
// mode treats that job as done (FLINK-11813): the restarted JobManager lists no job;
// a session cluster runs what /jars/:id/run submits (and, with HA, recovers the jobs whose
// graphs are in the HA store).
//
// Thread-safety: not thread-safe; use through FlinkCluster.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"
#include "cluster/flink/async_operations.h"
#include "cluster/flink/cluster_settings.h"
#include "cluster/flink/flink_config.h"
#include "cluster/flink/flink_job.h"
#include "cluster/flink/ha_store.h"
#include "cluster/flink/ids.h"
#include "cluster/flink/job_definition.h"
#include "cluster/flink/metric_store.h"
#include "cluster/flink/sim_filesystem.h"
#include "cluster/flink/slot_pool.h"
#include "cluster/flink/topic_registry.h"

namespace trimtab::sim::flink {

// Chooses the job graph and workload of a submitted program; `job_config` is the cluster
// configuration merged with the submission's. The default reads trimtab.job / trimtab.workload
// from `job_config` and falls back to the jar-name defaults.
using JobResolver = std::function<StatusOr<JobDefinition>(const ProgramInfo& program, const FlinkConfig& job_config)>;
StatusOr<JobDefinition> ResolveJobFromConfig(const ProgramInfo& program, const FlinkConfig& job_config);

// The value of execution.savepoint.path that means "restore from the HA metadata".
inline constexpr char kLastStatePath[] = "KUBERNETES_OPERATOR_LAST_STATE";

struct ClusterOptions {
  FlinkConfig config;        // the JobManager's effective configuration
  ClusterSettings settings;  // parsed from `config`
  std::shared_ptr<TopicRegistry> topics;  // required
  std::shared_ptr<SimFileSystem> fs;      // required
  std::shared_ptr<HaStore> ha;            // required when settings.ha_enabled
  JobResolver resolver;                   // null: ResolveJobFromConfig
  // true: TaskManagers appear as soon as slots are needed and leave after the idle timeout
  // (no Kubernetes); false: RegisterTaskManager()/UnregisterTaskManager() from outside.
  bool auto_task_managers = true;
  std::string host = "127.0.0.1";  // the JobManager's address (pod IP)
  std::string reader;              // topic reader identity prefix ("<namespace>/<pod>")
  uint64_t seed = 1;
  double max_step_seconds = 1.0;   // longest model step when catching up with the clock
};

struct JobSubmission {
  ProgramInfo program;
  FlinkConfig overrides;  // flinkConfiguration of the run request
  std::string job_id;     // "" = random
  std::string savepoint_path;
  std::optional<bool> allow_non_restored_state;
  Json job_graph_record;  // what the HA job graph entry stores (for session recovery)
};

struct JarFile {
  std::string id;        // "<uuid>_<name>.jar"
  std::string name;      // original file name
  std::string path;      // server-side path
  int64_t uploaded_ms = 0;
  std::vector<std::string> entry_classes;
};

class ClusterState {
 public:
  static StatusOr<std::unique_ptr<ClusterState>> Create(ClusterOptions options, TimePoint now);
  ~ClusterState();

  // Advances every job and the TaskManager bookkeeping to `now`; completes async operations.
  void AdvanceTo(TimePoint now);
  TimePoint now() const { return now_; }
  int64_t now_ms() const { return ToUnixMillis(now_); }

  const ClusterSettings& settings() const { return options_.settings; }
  const FlinkConfig& config() const { return options_.config; }
  const FlinkVersion& version() const { return options_.settings.version; }
  const std::string& host() const { return options_.host; }
  int64_t start_ms() const { return start_ms_; }
  // The topics every cluster of the process shares (they outlive this JobManager).
  const TopicRegistry& topics() const { return *options_.topics; }

  // ---- Jobs ----------------------------------------------------------------------------------
  const std::vector<std::unique_ptr<FlinkJob>>& jobs() const { return jobs_; }
  FlinkJob* FindJob(const std::string& job_id);
  const FlinkJob* FindJob(const std::string& job_id) const;
  // Errors: InvalidArgument (bad program / job text / restore), Conflict (duplicate job id).
  StatusOr<std::string> SubmitJob(const JobSubmission& submission);
  // NotFound (unknown job), Conflict (already terminal: the 409 text).
  Status CancelJob(const std::string& job_id);
  // Registers the operation under `client_trigger` (or a new id) and returns the trigger id.
  // Unknown jobs still get an operation (it completes with FlinkJobNotFoundException).
  std::string TriggerSavepoint(const std::string& job_id, const SavepointRequest& request,
                               const std::string& client_trigger);
  std::string TriggerCheckpoint(const std::string& job_id, const std::string& client_trigger);
  std::string DisposeSavepoint(const std::string& path);
  std::optional<Json> OperationResult(AsyncOperations::Kind kind, const std::string& job_id,
                                      const std::string& trigger_id) const;
  // Validated as Flink's dispatcher does (notes §1.6). NotFound, Internal (default scheduler /
  // reactive mode: HTTP 500), InvalidArgument (400, newline-joined), Conflict (409).
  Status UpdateResourceRequirements(const std::string& job_id,
                                    const std::map<std::string, std::pair<int64_t, int64_t>>& requirements);
  // Test hook: a task failure in `job_id`.
  Status FailJobForTest(const std::string& job_id, const std::string& message);

  // ---- TaskManagers --------------------------------------------------------------------------
  const SlotPool& slots() const { return slots_; }
  void RegisterTaskManager(const TaskManagerInfo& info);
  // The jobs with tasks on it fail (TaskManager lost).
  void UnregisterTaskManager(const std::string& tm_id, const std::string& reason);
  // TaskManagers the jobs need (ceil(slots needed / slots per TaskManager)).
  int DesiredTaskManagers() const;
  // Registered TaskManagers idle for resourcemanager.taskmanager-timeout beyond what is needed.
  std::vector<std::string> TaskManagersToRelease() const;

  // ---- Jars ---------------------------------------------------------------------------------
  const std::map<std::string, JarFile>& jars() const { return jars_; }
  StatusOr<JarFile> UploadJar(const std::string& file_name);
  Status DeleteJar(const std::string& jar_id);

  // ---- Metrics, HA, lifecycle ---------------------------------------------------------------
  // The metric store, refetched when older than metrics.fetcher.update-interval.
  const MetricSnapshot& Metrics();
  std::vector<HaUpdate> TakeHaUpdates();
  void RequestShutdown() { shutdown_requested_ = true; }
  bool shutdown_requested() const { return shutdown_requested_; }
  // The JobManager stops: every job is SUSPENDED (HA metadata and topics survive).
  void SuspendAll();
  IdGenerator& ids() { return ids_; }

 private:
  explicit ClusterState(ClusterOptions options, TimePoint now);
  Status Init();
  StatusOr<std::optional<RestoreInfo>> FindRestore(const std::string& job_id, const std::string& savepoint_path,
                                                     bool allow_non_restored, int64_t* ha_counter,
                                                     std::string* restore_error);
  void AutoProvision();
  void RefreshMetrics();
  // Job result store (HA only): "<storage path>/<job id>.json" of a globally terminated job.
  std::string JobResultUri(const std::string& job_id) const;
  bool JobResultExists(const std::string& job_id) const;
  void RecordJobResults();

  ClusterOptions options_;
  TimePoint now_;
  int64_t start_ms_ = 0;
  IdGenerator ids_;
  SlotPool slots_;
  AsyncOperations operations_;
  std::vector<std::unique_ptr<FlinkJob>> jobs_;
  std::map<std::string, std::unique_ptr<ClusterSettings>> job_settings_;  // by job id
  std::map<std::string, int64_t> requirements_busy_until_ms_;             // by job id
  std::map<std::string, JarFile> jars_;
  std::vector<HaUpdate> ha_outbox_;
  MetricSnapshot metrics_;
  // Cumulative TaskManager counters (GC count/time, CPU time) integrated between fetches.
  struct TaskManagerCounters {
    double gc_count = 0;
    double gc_time_ms = 0;
    double cpu_time_ns = 0;
  };
  std::map<std::string, TaskManagerCounters> tm_counters_;
  int next_tm_index_ = 1;
  bool shutdown_requested_ = false;
  std::set<std::string> results_recorded_;  // job ids whose job result store entry is written
};

}  // namespace trimtab::sim::flink
