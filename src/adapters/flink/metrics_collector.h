// FlinkMetricsCollector: the autoscaler's metric collection over the Flink REST API, as the
// upstream RestApiMetricsCollector does it (notes flink-autoscaler-and-operator.md §C.2,
// flink-rest-and-sim.md §1.4 / §1.7). One Collect() per job and cycle:
//
//   1. GET /jobs/:jid                         state, timestamps.RUNNING, vertices (parallelism,
//                                             maxParallelism, status, IO counters read-records /
//                                             write-records / accumulated-busy-time), plan edges
//                                             (inputs[].id, ship_strategy) -> core::JobTopology
//   2. GET /jobs/:jid/vertices/:vid/subtasks/metrics          metric-name discovery (bare array
//                                             [{"id"}]); cached per job for non-sources, asked
//                                             again every cycle for sources, whose pendingRecords
//                                             and Kafka partition gauges appear lazily; a
//                                             cached list whose required metric has no value
//                                             is discovered again on the next cycle
//   3. GET .../subtasks/metrics?get=<names>   aggregated values [{"id","min","max","avg","sum"}]
//   4. GET /jobmanager/metrics?get=taskSlotsTotal,taskSlotsAvailable   values as strings
//   5. GET /taskmanagers/metrics?get=<heap, managed, metaspace[, GC]>&agg=min,max,avg
//                                             (the GC metric only if discovery lists it)
//   6. GET /jobs/:jid/checkpoints             latest.completed.end_to_end_duration (optional: a
//                                             failure is a note, not an error)
//
// and returns core::flink::RawSample, the value the decision core's metric window takes
// (src/core/flink/metric_window.h), filled as the simulator's adapter fills it
// (src/sim/policies/flink_metrics_adapter.h):
//
//   busy_time_{min,max,avg}     busyTimeMsPerSecond min / max / avg          (required)
//   back_pressured_...          backPressuredTimeMsPerSecond avg             (sources, required)
//   num_records_in_per_second   sources: Σ Source__*.numRecordsInPerSecond; others: sum of
//                               numRecordsInPerSecond (optional)
//   num_records_out_per_second  sources: Σ Source__*.numRecordsOutPerSecond (a source needs this
//                               or the previous one)
//   num_records_in              read-records; sources when 0: Σ Source__*.numRecordsIn, then
//                               Σ Source__*.numRecordsOut
//   num_records_out             write-records;  accumulated_busy_time: accumulated-busy-time
//   pending_records             sources: Σ over every *.pendingRecords (absent: lag 0, noted)
//   job                         slots from the JobManager, heap / managed / metaspace / GC as
//                               the max over TaskManagers, last_checkpoint_duration_ms
//
// Quirks handled: aggregated endpoints answer `[]` when any requested id has no value (the
// collector then asks per metric, so one missing metric does not hide the others); values may be
// JSON numbers or strings ("NaN", "Infinity"); vertices in state FINISHED are marked finished and
// not queried; a vertex whose busy time is NaN (a legacy source) is reported in
// `nan_busy_time_vertices` so the caller excludes it for the cycle; the number of distinct Kafka
// (cluster, topic, partition) currentOffset gauges or Pulsar partitions becomes the source's
// num_partitions.
//
// Errors: an HTTP error status is kNotFound (404), kUnavailable (5xx, 429) or
// kFailedPrecondition (other 4xx), transport errors keep the HTTP client's code (kDeadlineExceeded
// for a timeout), each naming "REST GET <path>"; a required metric that is not reported is
// kFailedPrecondition "missing metrics: ..." naming every vertex and metric.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto collector, FlinkMetricsCollector::Create({.http = http.get()}));
//   TRIMTAB_ASSIGN_OR_RETURN(FlinkCollection c,
//                            collector->Collect({.rest_url = url, .job_id = jid}, now, 10s));
//   if (c.job.state == "RUNNING") input.samples.push_back(c.sample);
//
// Thread-safety: safe for concurrent use (the metric-name cache is guarded by a mutex).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "adapters/http/client.h"
#include "common/clock.h"
#include "common/status.h"
#include "core/source_partitions.h"
#include "core/flink/custom_metrics.h"
#include "core/flink/metric_window.h"
#include "core/scaling_types.h"

namespace trimtab::adapters {

// Where one job's REST API is.
struct FlinkJobRef {
  std::string rest_url;  // "http://10.0.0.7:8081" (a trailing slash is ignored)
  std::string job_id;    // 32 hex
};

// IO counters of one vertex from the job details (sums over subtasks).
struct FlinkVertexIo {
  std::optional<double> read_records;
  std::optional<double> write_records;
  std::optional<double> accumulated_busy_time;  // ms; NaN when a subtask reports NaN
};

// GET /jobs/:jid as the autoscaler reads it.
struct FlinkJobDetails {
  std::string job_id;
  std::string name;
  std::string state;                       // JobStatus name: "RUNNING", "RESTARTING", ...
  std::optional<TimePoint> running_since;  // timestamps.RUNNING when set (> 0)
  std::optional<TimePoint> server_now;     // "now": the JobManager's clock when it answered
  core::JobTopology topology;              // topological order; FINISHED vertices finished
  std::map<core::VertexId, FlinkVertexIo> io;
  std::map<core::VertexId, std::string> slot_sharing_group;  // when reported
};

struct FlinkCollection {
  FlinkJobDetails job;
  // Built-in metrics of this cycle at `now`; empty (no vertices) unless job.state is RUNNING.
  core::flink::RawSample sample;
  std::set<core::VertexId> nan_busy_time_vertices;  // exclude from scaling this cycle
  std::vector<std::string> notes;                   // for the decision log's collect stage
  // Required metrics the REST API did not report ("vertex <id> (<name>): <metric>"), in order;
  // when not empty the sample is incomplete (a job that is still starting) and nothing after
  // the vertex metrics was read.
  std::vector<std::string> missing_metrics;

  // FailedPrecondition "missing metrics: <each, separated by "; ">" (OK when none is missing).
  Status MissingMetricsStatus() const;
};

struct FlinkMetricsCollectorOptions {
  const http::HttpClient* http = nullptr;  // required; shared, thread-safe
};

class FlinkMetricsCollector {
 public:
  static StatusOr<std::unique_ptr<FlinkMetricsCollector>> Create(
      FlinkMetricsCollectorOptions options);

  // Step 1 alone. `timeout` bounds each request.
  StatusOr<FlinkJobDetails> FetchJobDetails(const FlinkJobRef& job, Millis timeout) const;

  // Steps 1-5 (metrics only when the job is RUNNING). Required metrics that are missing are not
  // an error: they are listed in `missing_metrics` and the collection stops there.
  StatusOr<FlinkCollection> Collect(const FlinkJobRef& job, TimePoint now, Millis timeout);

  // A MetricSource for declared custom metrics of source kFlinkRest (custom_metrics.h):
  // TaskManager scope from /taskmanagers/metrics, vertex scope from each vertex's
  // /subtasks/metrics, job scope from /jobs/:jid/metrics; other sources fail naming the source.
  // The returned object refers to this collector and must not outlive it.
  std::unique_ptr<core::flink::MetricSource> MetricSourceFor(const FlinkJobRef& job,
                                                             Millis timeout) const;

  // Forgets the cached metric names of a job (it was deleted or redeployed).
  void Forget(const FlinkJobRef& job);

  // Internal: one aggregated-metrics request with the empty-array fallback (public for the
  // MetricSource implementation in the .cc file).
  struct Aggregate {
    std::optional<double> min, max, avg, sum;
  };
  StatusOr<std::map<std::string, Aggregate>> FetchAggregated(const std::string& base_url,
                                                             const std::string& path,
                                                             const std::vector<std::string>& names,
                                                             const std::string& agg,
                                                             Millis timeout) const;
  // GET returning the parsed JSON body; errors as in the header comment.
  StatusOr<Json> GetJson(const std::string& base_url, const std::string& path_and_query,
                         Millis timeout) const;

 private:
  struct NameCache {
    std::optional<TimePoint> running_since;                           // the run the names belong to
    std::map<core::VertexId, std::vector<std::string>> vertex_names;  // non-sources
    std::optional<std::vector<std::string>> task_manager_names;
  };

  explicit FlinkMetricsCollector(FlinkMetricsCollectorOptions options)
      : options_(std::move(options)) {}
  StatusOr<std::vector<std::string>> MetricNames(const std::string& base_url,
                                                 const std::string& path, Millis timeout) const;
  static std::string CacheKey(const FlinkJobRef& job);

  FlinkMetricsCollectorOptions options_;
  std::mutex mu_;
  std::map<std::string, NameCache> names_;  // guarded by mu_; key: rest url + job id
};

// The number of distinct source partitions named by a source's metrics: core's, shared with
// `trimtab eval flink` (core/source_partitions.h).
using core::CountSourcePartitions;

// A metric value as the REST API writes it: a JSON number, or a string ("12.5", "NaN",
// "Infinity", "-Infinity"). Anything else is nullopt.
std::optional<double> ParseMetricValue(const Json& value);

}  // namespace trimtab::adapters
