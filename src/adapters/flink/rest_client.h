// FlinkRestClient: the Flink REST calls the operator makes against one JobManager (notes
// flink-autoscaler-and-operator.md §B.14, wire shapes in flink-rest-and-sim.md §1.3):
//
//   jobs        GET /jobs/overview, GET /jobs/:id, GET /jobs/:id/exceptions,
//               GET /jobs/:id/execution-result, PATCH /jobs/:id?mode=cancel
//   cluster     GET /config, GET /jobs/:id/jobmanager/config
//   snapshots   GET /jobs/:id/checkpoints, POST /jobs/:id/savepoints (+ GET .../:trigger),
//               POST /jobs/:id/checkpoints (+ GET .../:trigger), POST /jobs/:id/stop (polled on
//               the savepoints status URL), POST /savepoint-disposal (+ GET .../:trigger)
//   rescale     GET|PUT /jobs/:id/resource-requirements
//   jars        POST /jars/upload (multipart), POST /jars/:id/run, DELETE /jars/:id
//
// Every request has the client's timeout and goes through FlinkRestTransport (rest_transport.h),
// which says how errors read and which codes they carry.
//
// Usage:
//   FlinkRestClient rest(http, "http://sm-rest.prod:8081", std::chrono::seconds(10));
//   TRIMTAB_ASSIGN_OR_RETURN(std::vector<JobOverview> jobs, rest.ListJobs());
//   TRIMTAB_ASSIGN_OR_RETURN(std::string trigger, rest.StopWithSavepoint(id, {.target_directory = dir}));
//
// Thread-safety: const methods, safe for concurrent use (the HttpClient is).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/flink/rest_transport.h"
#include "adapters/http/client.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::flink {

struct JobOverview {
  std::string id;
  std::string name;
  std::string state;  // Flink JobStatus name
  int64_t start_time = 0;
  int64_t end_time = -1;
  int64_t last_modification = 0;
  std::map<std::string, int64_t> tasks;  // lower-case ExecutionState -> count, plus "total"
};

struct ExceptionEntry {
  std::string exception_name;
  std::string stacktrace;
  int64_t timestamp = 0;
  std::string task_name;
};

struct ExecutionResult {
  bool completed = false;          // status.id == COMPLETED
  std::string application_status;  // SUCCEEDED, FAILED, CANCELED, UNKNOWN
  std::string failure_class;
  std::string failure_stacktrace;
};

struct ClusterConfig {
  std::string flink_version;
  std::string flink_revision;
};

struct CheckpointRecord {
  int64_t id = 0;
  std::string status;  // IN_PROGRESS, COMPLETED, FAILED
  bool is_savepoint = false;
  std::string external_path;
  int64_t trigger_timestamp = 0;
  int64_t latest_ack_timestamp = 0;
  int64_t state_size = 0;
  std::optional<int64_t> end_to_end_duration;  // ms; absent when not a number
};

struct CheckpointStats {
  // false when Flink answers 404 "Checkpointing has not been enabled." (a job without periodic
  // checkpoints: there is no checkpoint history, not even of its savepoints); everything below
  // is then empty.
  bool checkpointing_enabled = true;
  int64_t in_progress = 0;
  int64_t completed = 0;
  int64_t failed = 0;
  std::optional<CheckpointRecord> latest_completed;
  std::optional<CheckpointRecord> latest_savepoint;
  std::optional<CheckpointRecord> latest_failed;
  // latest.restored: the checkpoint or savepoint the job was restored from (id, is_savepoint,
  // external_path; restore_timestamp in trigger_timestamp).
  std::optional<CheckpointRecord> latest_restored;
  std::vector<CheckpointRecord> history;  // newest first
};

// The body of GET /jobs/:jid/checkpoints (CheckpointingStatistics); missing parts stay empty.
CheckpointStats ParseCheckpointStats(const Json& doc);

// Result of an asynchronous operation poll.
struct AsyncOperation {
  bool completed = false;   // false: IN_PROGRESS
  std::string location;     // savepoint / stop-with-savepoint success
  int64_t checkpoint_id = 0;  // checkpoint trigger success
  std::string failure;      // non-empty when the operation failed
};

struct SavepointRequest {
  std::string target_directory;  // "" = the cluster's default
  std::string format_type;       // "CANONICAL" / "NATIVE" / "" (default)
  bool cancel_job = false;       // savepoints only
  bool drain = false;            // stop only
  std::string trigger_id;        // client-chosen idempotency id ("" = none)
};

struct ParallelismBounds {
  int lower = 1;
  int upper = 1;
  friend bool operator==(const ParallelismBounds&, const ParallelismBounds&) = default;
};
using ResourceRequirements = std::map<std::string, ParallelismBounds>;  // vertex id -> bounds

struct RunJarRequest {
  std::string entry_class;
  std::vector<std::string> program_args;
  std::optional<int64_t> parallelism;
  std::string job_id;
  std::optional<bool> allow_non_restored_state;
  std::string savepoint_path;
  std::map<std::string, std::string> flink_configuration;
};

class FlinkRestClient {
 public:
  // `base_url` like "http://host:8081" (no trailing slash). `http` is shared and must outlive
  // the client.
  FlinkRestClient(std::shared_ptr<const http::HttpClient> http, std::string base_url,
                  std::chrono::milliseconds timeout);

  const std::string& base_url() const { return transport_.base_url(); }

  StatusOr<std::vector<JobOverview>> ListJobs() const;
  StatusOr<Json> JobDetails(const std::string& job_id) const;
  StatusOr<std::vector<ExceptionEntry>> Exceptions(const std::string& job_id, int max) const;
  StatusOr<ExecutionResult> GetExecutionResult(const std::string& job_id) const;
  Status Cancel(const std::string& job_id) const;
  StatusOr<ClusterConfig> Config() const;
  // The job's effective Flink configuration as its JobManager reports it (key -> value).
  StatusOr<std::map<std::string, std::string>> JobConfiguration(const std::string& job_id) const;

  StatusOr<CheckpointStats> Checkpoints(const std::string& job_id) const;
  StatusOr<std::string> TriggerSavepoint(const std::string& job_id, const SavepointRequest& r) const;
  StatusOr<std::string> StopWithSavepoint(const std::string& job_id, const SavepointRequest& r) const;
  // Polls a savepoint or stop-with-savepoint trigger.
  StatusOr<AsyncOperation> SavepointStatus(const std::string& job_id,
                                           const std::string& trigger_id) const;
  // checkpoint_type: "FULL", "INCREMENTAL" or "" (CONFIGURED).
  StatusOr<std::string> TriggerCheckpoint(const std::string& job_id,
                                          const std::string& checkpoint_type) const;
  StatusOr<AsyncOperation> CheckpointStatus(const std::string& job_id,
                                            const std::string& trigger_id) const;
  StatusOr<std::string> DisposeSavepoint(const std::string& path) const;
  StatusOr<AsyncOperation> DisposalStatus(const std::string& trigger_id) const;

  StatusOr<ResourceRequirements> GetResourceRequirements(const std::string& job_id) const;
  Status PutResourceRequirements(const std::string& job_id, const ResourceRequirements& r) const;

  // Returns the jar id (basename of the stored file name).
  StatusOr<std::string> UploadJar(const std::string& file_name, const std::string& bytes) const;
  // Returns the job id.
  StatusOr<std::string> RunJar(const std::string& jar_id, const RunJarRequest& request) const;
  Status DeleteJar(const std::string& jar_id) const;

 private:
  // Performs one call through the transport with the client's timeout.
  StatusOr<Json> Call(const std::string& method, const std::string& path,
                      const std::string& body = "", const std::string& content_type = "") const;

  std::shared_ptr<const http::HttpClient> http_;
  FlinkRestTransport transport_;
  std::chrono::milliseconds timeout_;
};

}  // namespace trimtab::flink
