// CaptureScenario: a `trimtab simulate` scenario file (docs/simulate.md) measured from a running
// Flink job over its REST API, so that "what would this policy do to my job?" starts from the
// job as it runs rather than from numbers typed by hand (`trimtab scenario from-flink`).
//
// It reads what the autoscaler reads (adapters/flink/metrics_collector.h), a few samples apart,
// and estimates per vertex what the simulator's job model needs:
//
//   parallelism, maxParallelism   as the job runs
//   capacityPerSubtask            records in per second / parallelism / (busy ms per s / 1000):
//                                 Flink's true processing rate per subtask
//   selectivity                   records out / records in
//   partitions (sources)          the Kafka / Pulsar partitions the source's gauges name, else
//                                 its parallelism
//   initialBacklog (sources)      pendingRecords at the last sample
//   rateFactor (several sources)  each source's share of the arrival rate
//   stateBytes                    the vertex's state in the latest completed checkpoint
//   edges                         the plan's ship strategies (HASH -> hash, FORWARD -> forward,
//                                 anything else -> rebalance)
//   checkpoint                    interval (checkpoint config), bandwidth (latest size / duration)
//   taskManager.slots             the TaskManagers' slots
//   workload                      constant at the arrival rate now: what the sources read plus
//                                 the growth of their backlog between the first and last sample;
//                                 or, with `history`, the job's input rate over a past span from
//                                 Prometheus (query_range), as a CSV trace the simulation replays
//
//   keySkew (keyed vertices)      fitted: the Zipf exponent under which the simulated vertex, with
//                                 the scenario's seed, is as uneven at its current parallelism as
//                                 the busiest subtask's busy time against the mean says
//
// What Flink does not report is left to the user and said in a comment: how hot keys behave at
// other parallelisms (the fit sees one), and the input's history (replace the constant workload
// with a profile or a CSV of the real rate).
//
// Errors: no RUNNING job at the URL, several RUNNING jobs and none named (the message lists
// them), the job not RUNNING or rescaled between samples, and the collector's REST errors, each
// naming what failed.
//
// Thread-safety: not safe for concurrent use of one FlinkMetricsCollector's job (it caches).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "adapters/flink/metrics_collector.h"
#include "adapters/http/client.h"
#include "common/clock.h"
#include "common/status.h"

namespace trimtab::cli {

// The input rate's history: a PromQL query for the job's total arrival rate (records/s, one series)
// evaluated over [now - span, now] every `step` (GET /api/v1/query_range).
struct RateHistory {
  const http::HttpClient* http = nullptr;  // required
  std::string prometheus_url;              // "http://prometheus:9090"
  std::string query;  // e.g. sum(rate(kafka_topic_partition_current_offset{topic="bids"}[5m]))
  Millis span{7LL * 24 * 3600 * 1000};
  Millis step{60000};
};

struct ScenarioCaptureOptions {
  std::string rest_url;  // the JobManager's REST address, "http://host:8081"
  std::string job_id;    // empty: the only RUNNING job
  int samples = 3;       // >= 1
  Millis interval{20000};
  Millis timeout{10000};  // per REST request
  Clock* clock = nullptr;  // required: the samples' times
  // Waits `interval` between samples; unset: clock->SleepFor (tests advance a manual clock here).
  std::function<void(Millis)> wait;
  std::optional<RateHistory> history;
  // With `history`: the trace goes to CapturedScenario::rate_csv and the scenario names this file
  // (relative to the scenario); empty: the trace is inline in the scenario (`data`).
  std::string rate_csv_file;
};

struct CapturedScenario {
  std::string yaml;      // the scenario file, with comments
  std::string rate_csv;  // with a history and rate_csv_file: the trace ("seconds,rate" rows)
  std::string job_id;
  std::string job_name;
};

StatusOr<CapturedScenario> CaptureScenario(adapters::FlinkMetricsCollector& collector,
                                           const ScenarioCaptureOptions& options);

// The key skew (sim/key_groups.h Zipf exponent, at most 3) under which vertex `vertex_index` of
// the captured scenario, at `parallelism` of `max_parallelism` key groups, has its busiest subtask
// `observed_imbalance` times the mean; nullopt when key-group rounding alone explains it (or
// parallelism < 2).
std::optional<double> FitKeySkew(int max_parallelism, int parallelism, int vertex_index,
                                 double observed_imbalance);

// A scenario-friendly id from a Flink vertex name: lower case letters, digits and single dashes,
// at most 40 characters ("Source: bid -> Calc" -> "source-bid-calc"); "vertex" when nothing is
// left.
std::string VertexSlug(std::string_view name);

}  // namespace trimtab::cli
