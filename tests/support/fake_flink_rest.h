// FakeFlinkRestServer: a scripted Flink JobManager REST API on loopback for the autoscaler's
// metric collector and the operator autoscaler tests. It serves the endpoints the collector uses
// with Flink's real wire shapes (notes flink-rest-and-sim.md §1.3-§1.5):
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
//   GET /jobs/:jid/checkpoints              CheckpointingStatistics: counts, latest.completed
//                                           (end_to_end_duration) or null
//   anything else                           404 {"errors":["Not found: <uri>"]}
//
// Every path also answers under the /v1 prefix. Metrics are scripted per vertex as aggregates;
// a metric absent from the map is "not registered" (e.g. Kafka's pendingRecords before the first
// record). Fault injection: FailNext answers an error status with Flink's error body; Hang makes
// matching requests block until Release (a stuck JobManager, for client timeouts).
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  int64_t start_time_ms = 0;
  int64_t running_since_ms = 0;  // timestamps.RUNNING
  std::vector<FakeFlinkVertex> vertices;
  std::map<std::string, std::string> job_metrics;  // /jobs/:jid/metrics, values as strings
  // GET /jobs/:jid/checkpoints: latest.completed with this end_to_end_duration (ms); none (null)
  // when unset.
  std::optional<int64_t> last_checkpoint_duration_ms;
};

class FakeFlinkRestServer {
 public:
  static StatusOr<std::unique_ptr<FakeFlinkRestServer>> Create();
  ~FakeFlinkRestServer();

  std::string base_url() const;  // "http://127.0.0.1:PORT"

  void SetJob(FakeFlinkJob job);
  // Changes the job in place under the server's lock.
  void UpdateJob(const std::function<void(FakeFlinkJob&)>& change);
  FakeFlinkJob Job() const;
  // JobManager metrics (taskSlotsTotal, ...) as the strings Flink writes.
  void SetJobManagerMetrics(std::map<std::string, std::string> values);
  // TaskManager metrics aggregated over TaskManagers (Status.JVM.Memory.Heap.Max, ...).
  void SetTaskManagerMetrics(std::map<std::string, FakeAggregate> values);

  // The next `count` GETs whose path (without /v1) starts with `path_prefix` get `status` with
  // body {"errors":["<message>"]}.
  void FailNext(const std::string& path_prefix, int status, int count = 1,
                const std::string& message = "Internal server error.");
  // GETs whose path starts with `path_prefix` block until Release() (or the server stops).
  void Hang(const std::string& path_prefix);
  void Release();

  // "GET <target>" of every request, in order.
  std::vector<std::string> Requests() const;
  // Requests whose path (without /v1, without the query) starts with `path_prefix`.
  int CountRequests(std::string_view path_prefix) const;
  void ClearRequests();

  class Impl;

 private:
  explicit FakeFlinkRestServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trimtab::testing
