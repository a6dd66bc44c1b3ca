// FakeFlinkRestServer: the one scripted Flink JobManager REST API on loopback for tests, with
// Flink's real wire shapes (notes flink-rest-and-sim.md §1). It serves what the autoscaler's
// metric collector reads and the job operations the operator performs:
//
//   GET /jobs/:jid                          JobDetailsInfo with every documented field, plan
//                                           nodes with inputs (omitted for sources)
//   GET /jobs/:jid/vertices/:vid/subtasks/metrics[?get=a,b][&agg=min,max]
//   GET /taskmanagers/metrics[?get=...][&agg=...]
//                                           aggregated: bare arrays; without `get` the list of
//                                           names [{"id"}]; with `get` [{"id","min","max","avg",
//                                           "sum","skew"}] as JSON numbers ("NaN" as a string),
//                                           and `[]` when ANY requested id has no value
//   GET /jobs/:jid/metrics?get=...          non-aggregated: [{"id","value":"<string>"}]
//   GET /jobmanager/metrics?get=...         non-aggregated, only the ids that exist
//   GET /jobs/:jid/checkpoints              CheckpointingStatistics: the job's checkpoint history
//                                           (counts, latest.*), or one completed checkpoint with
//                                           end_to_end_duration when only that is scripted; 404
//                                           "Checkpointing has not been enabled." without
//                                           checkpointing
//   GET  /jobs/overview                     every job, tasks all RUNNING for a RUNNING job
//   GET  /jobs/:id/exceptions, /execution-result, /checkpoints/:trigger, /savepoints/:trigger,
//        /resource-requirements
//   POST /jobs/:id/stop, /savepoints, /checkpoints; PATCH /jobs/:id?mode=cancel
//   PUT  /jobs/:id/resource-requirements   (adaptive scheduler only, every vertex required)
//   GET /config; POST /savepoint-disposal (+ GET /savepoint-disposal/:trigger)
//   POST /jars/upload (multipart), POST /jars/:id/run, DELETE /jars/:id
//   anything else                           404 {"errors":["Not found: <uri>"]}
//
// Every path also answers under the /v1 prefix. Unknown jobs answer 404 {"errors":["Job <id>
// not found"]}. Metrics are scripted per vertex as aggregates; a metric absent from the map is
// "not registered" (e.g. Kafka's pendingRecords before the first record). Asynchronous
// operations complete on the first status poll unless HoldOperations(true) keeps them
// IN_PROGRESS until CompleteOperations(). A stop-with-savepoint finishes the job and records the
// savepoint in the checkpoint history, as Flink does.
//
// Fault injection: FailNext answers an error status with Flink's error body; Hang makes matching
// requests block until Release (a stuck JobManager); SetDelay slows every answer; a request hook
// lets a test act while the client waits.
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/flink/rest_client.h"
#include "common/status.h"

namespace trimtab::testing {

struct FakeAggregate {
  double min = 0;
  double max = 0;
  double avg = 0;
  double sum = 0;
  double skew = 0;
};

// The same value on every subtask: min = max = avg = v, sum = v * subtasks.
inline FakeAggregate Uniform(double v, int subtasks) {
  return FakeAggregate{.min = v, .max = v, .avg = v, .sum = v * subtasks, .skew = 0};
}

struct FakeFlinkVertex {
  std::string id;  // 32 hex
  std::string name;
  int parallelism = 1;
  int max_parallelism = 128;
  std::string status = "RUNNING";  // aggregate ExecutionState; FINISHED for finished vertices
  std::vector<std::pair<std::string, std::string>> inputs;  // (input vertex id, ship_strategy)
  // IO counters of the job details (sums over subtasks).
  double read_records = 0;
  double write_records = 0;
  double accumulated_busy_time = 0;
  // Subtask metrics by id, e.g. "busyTimeMsPerSecond", "Source__Kafka_Source.pendingRecords".
  std::map<std::string, FakeAggregate> metrics;
};

struct FakeFlinkJob {
  std::string id;  // 32 hex
  std::string name = "fake-job";
  std::string state = "RUNNING";  // JobStatus name
  int64_t start_time_ms = 1000;
  int64_t running_since_ms = 0;  // timestamps.RUNNING
  std::vector<FakeFlinkVertex> vertices;
  std::map<std::string, std::string> job_metrics;  // /jobs/:jid/metrics, values as strings
  // GET /jobs/:jid/checkpoints without a checkpoint history: latest.completed with this
  // end_to_end_duration (ms); none (null) when unset.
  std::optional<int64_t> last_checkpoint_duration_ms;
  std::string scheduler = "default";        // "adaptive" enables resource requirements
  flink::ResourceRequirements requirements;  // vertex -> bounds
  std::vector<flink::CheckpointRecord> checkpoints;  // oldest first
  std::vector<flink::ExceptionEntry> exceptions;
  std::string failure;  // execution-result failure stack trace for FAILED jobs
  // false: GET /jobs/:id/checkpoints answers 404 "Checkpointing has not been enabled." (no
  // periodic checkpoints; savepoints still work).
  bool checkpointing = true;
  // Set by the fake from the last stop/savepoint request.
  std::string last_savepoint_dir;
  bool last_stop_drain = false;
};

struct UploadedJar {
  std::string id;
  std::string file_name;
  std::string bytes;
  std::vector<flink::RunJarRequest> runs;
};

class FakeFlinkRestServer {
 public:
  struct Options {
    std::string flink_version = "1.20.0";  // GET /config
    std::string default_savepoint_dir;     // used when a request names none ("" -> 400)
  };
  static StatusOr<std::unique_ptr<FakeFlinkRestServer>> Create(Options options);
  static StatusOr<std::unique_ptr<FakeFlinkRestServer>> Create() { return Create(Options{}); }
  ~FakeFlinkRestServer();

  std::string base_url() const;  // "http://127.0.0.1:PORT"
  int port() const;

  // One job (the metric collector's view): replaces every job by `job`; UpdateJob changes it in
  // place under the server's lock; Job() returns it.
  void SetJob(FakeFlinkJob job);
  void UpdateJob(const std::function<void(FakeFlinkJob&)>& change);
  FakeFlinkJob Job() const;
  // Several jobs (the operator's view).
  void AddJob(FakeFlinkJob job);
  void RemoveJobs();
  std::optional<FakeFlinkJob> Job(const std::string& id) const;
  std::vector<FakeFlinkJob> Jobs() const;
  void SetJobState(const std::string& id, const std::string& state);
  void AddCheckpoint(const std::string& job_id, const std::string& path, bool is_savepoint);

  // JobManager metrics (taskSlotsTotal, ...) as the strings Flink writes.
  void SetJobManagerMetrics(std::map<std::string, std::string> values);
  // TaskManager metrics aggregated over TaskManagers (Status.JVM.Memory.Heap.Max, ...).
  void SetTaskManagerMetrics(std::map<std::string, FakeAggregate> values);

  // Forgets every asynchronous operation, as a restarted JobManager does (polls answer 404).
  void ForgetOperations();
  void HoldOperations(bool hold);
  void CompleteOperations();

  // The next `count` requests whose path (without /v1) starts with `path_prefix` get `status`
  // with body {"errors":["<message>"]}.
  void FailNext(const std::string& path_prefix, int status, int count = 1,
                const std::string& message = "Internal server error.");
  // The same for requests of `method` ("" = any).
  void FailNext(const std::string& method, const std::string& path_prefix, int status,
                const std::string& message, int count = 1);
  // Like FailNext, but the answer's body is `body` as it is (bytes that are not JSON, not UTF-8).
  void AnswerNextRaw(const std::string& method, const std::string& path_prefix, int status,
                     const std::string& body, int count = 1);
  // Requests whose path starts with `path_prefix` block until Release() (or the server stops).
  void Hang(const std::string& path_prefix);
  void Release();
  // Every request sleeps this long before answering (client timeout tests).
  void SetDelay(std::chrono::milliseconds delay);
  // Called with "METHOD /path?query" before each request is answered, on the server thread and
  // outside the fake's lock (a test can act "while" the client waits for the answer).
  void SetRequestHook(std::function<void(const std::string& request)> hook);

  // "METHOD <target>" of every request, in order.
  std::vector<std::string> Requests() const;
  // Requests whose path (without /v1, without the query) starts with `path_prefix`.
  int CountRequests(std::string_view path_prefix) const;
  // Requests whose "METHOD <target>" starts with "<method> <prefix>".
  int Count(const std::string& method, const std::string& prefix) const;
  void ClearRequests();
  std::vector<std::string> DisposedSavepoints() const;
  std::vector<UploadedJar> Jars() const;

  class Impl;

 private:
  explicit FakeFlinkRestServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trimtab::testing
