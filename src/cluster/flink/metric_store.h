// MetricStore: the JobManager-side metric store of a simulated Flink cluster, as Flink's
// MetricFetcher fills it (notes flink-rest-and-sim.md §1.4, §2): a snapshot of every metric of
// the JobManager, each TaskManager, each job and each subtask, taken from the job models at most
// every metrics.fetcher.update-interval (10 s), values kept as the strings Flink stores.
//
// Metric ids follow Flink's store: scope components pass the character filter (space . : , ->
// _); task metrics are `<name>`, operator metrics `<operator>.<name>` (FLIP-27 sources:
// `Source__Kafka_Source.numRecordsIn`), Kafka reader gauges
// `<operator>.KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset`. `pendingRecords`
// appears once a reader has fetched its first record.
//
// Query helpers implement the REST semantics: lists of ids without `get`, bare arrays, string
// values on plain endpoints, numeric aggregates (min, max, avg, sum, skew) on aggregating ones,
// and the empty array when any requested metric has no value in any selected store.
//
// Thread-safety: values and pure functions; the cluster builds snapshots under its lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "cluster/flink/flink_config.h"

namespace trimtab::sim::flink {

using MetricMap = std::map<std::string, std::string>;

struct JobMetricsSnapshot {
  MetricMap job;  // job scope (/jobs/:id/metrics)
  // Vertex id -> per subtask: task metrics and operator metrics (`<operator>.<name>`).
  std::map<std::string, std::vector<MetricMap>> subtasks;
};

struct MetricSnapshot {
  int64_t fetched_ms = -1;  // -1: never fetched
  MetricMap jobmanager;
  std::map<std::string, MetricMap> taskmanagers;  // by TaskManager id
  std::map<std::string, JobMetricsSnapshot> jobs;  // by job id
};

// Java's Double.toString, which is how Flink stores gauge values ("0.0", "1234.5", "1.0E7").
std::string JavaDoubleString(double v);
// Flink's metric scope character filter: space . : , -> _.
std::string SanitizeMetricName(const std::string& s);

enum class Aggregation { kMin, kMax, kAvg, kSum, kSkew };
// Parses `agg` (comma-separated, case-insensitive); nullopt when a name is unknown.
std::optional<std::vector<Aggregation>> ParseAggregations(const std::string* agg);
// Comma-separated list ("" -> empty).
std::vector<std::string> SplitCommaList(const std::string& s);
// `subtasks=0,2,5-9`; nullopt when malformed.
std::optional<std::vector<int>> ParseIndexRanges(const std::string& s);

// `[{"id": ...}]` without `get`; with `get` `[{"id": ..., "value": "<string>"}]` for the ids
// present (absent ones are left out). `prefix` is prepended to every id in the output.
Json MetricValuesResponse(const std::vector<std::pair<std::string, const MetricMap*>>& stores, const std::string* get);
// Aggregating endpoints: without `get` the union of ids; with `get` one object per id with the
// requested aggregates as numbers; `[]` when any requested id has no value in any store.
Json AggregatedMetricsResponse(const std::vector<const MetricMap*>& stores, const std::string* get,
                               const std::vector<Aggregation>& aggs);

}  // namespace trimtab::sim::flink
