// Value types shared by every stage of the Flink scaling pipeline (DESIGN.md §2):
// evaluate -> decide -> shape -> plugin chain -> realize.
//
// Metric names are strings so that custom metric providers (plugins, external sources) can add
// their own next to the built-in ones; the built-in names are the upstream ScalingMetric names
// (LOAD, TRUE_PROCESSING_RATE, TARGET_DATA_RATE, CATCH_UP_DATA_RATE, LAG, ...), see kMetric*.
//
// All types are plain values with JSON codecs (scaling_types_json.h), because they cross the
// shared-library plugin ABI and webhooks as JSON and are persisted in the autoscaler state.
#pragma once

#include <cstdint>
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/slotted_map.h"

namespace trimtab::core {

// A job vertex id: 32 lowercase hex characters in Flink; any non-empty string here.
using VertexId = std::string;

// Built-in evaluated metric names (upstream ScalingMetric enum names).
inline constexpr const char kMetricLoad[] = "LOAD";
inline constexpr const char kMetricTrueProcessingRate[] = "TRUE_PROCESSING_RATE";
inline constexpr const char kMetricTargetDataRate[] = "TARGET_DATA_RATE";
inline constexpr const char kMetricCatchUpDataRate[] = "CATCH_UP_DATA_RATE";
inline constexpr const char kMetricLag[] = "LAG";
inline constexpr const char kMetricParallelism[] = "PARALLELISM";
inline constexpr const char kMetricMaxParallelism[] = "MAX_PARALLELISM";
inline constexpr const char kMetricNumSourcePartitions[] = "NUM_SOURCE_PARTITIONS";
inline constexpr const char kMetricScaleUpRateThreshold[] = "SCALE_UP_RATE_THRESHOLD";
inline constexpr const char kMetricScaleDownRateThreshold[] = "SCALE_DOWN_RATE_THRESHOLD";
inline constexpr const char kMetricExpectedProcessingRate[] = "EXPECTED_PROCESSING_RATE";
// trimtab (CAPACITY alignment): the busiest subtask's busy time over the subtasks' mean (>= 1).
inline constexpr const char kMetricLoadImbalance[] = "LOAD_IMBALANCE";
inline constexpr const char kMetricGcPressure[] = "GC_PRESSURE";
inline constexpr const char kMetricHeapMaxUsageRatio[] = "HEAP_MAX_USAGE_RATIO";
inline constexpr const char kMetricNumTaskSlotsUsed[] = "NUM_TASK_SLOTS_USED";
// trimtab, job-wide: the restart time in seconds the cycle sized the catch-up headroom with
// (restart.time, or the tracked one with restart.time-tracking.enabled); read by
// restart-cost-gate with observedRestartTime.
inline constexpr const char kMetricRestartTime[] = "RESTART_TIME";
// Job-wide memory, collected and evaluated (current and window average).
inline constexpr const char kMetricHeapMemoryUsed[] = "HEAP_MEMORY_USED";
inline constexpr const char kMetricManagedMemoryUsed[] = "MANAGED_MEMORY_USED";
inline constexpr const char kMetricMetaspaceMemoryUsed[] = "METASPACE_MEMORY_USED";
// Per vertex: the parallelism the algorithm recommended, once a cycle decided to scale.
inline constexpr const char kMetricRecommendedParallelism[] = "RECOMMENDED_PARALLELISM";

// The evaluated metric names above, sorted: the names a MetricMap keeps in slots.
inline constexpr std::string_view kEvaluatedMetricNames[] = {
    kMetricCatchUpDataRate,        kMetricExpectedProcessingRate, kMetricGcPressure,
    kMetricHeapMaxUsageRatio,      kMetricHeapMemoryUsed,         kMetricLag,
    kMetricLoad,                   kMetricLoadImbalance,          kMetricManagedMemoryUsed,
    kMetricMaxParallelism,         kMetricMetaspaceMemoryUsed,    kMetricNumSourcePartitions,
    kMetricNumTaskSlotsUsed,       kMetricParallelism,            kMetricRecommendedParallelism,
    kMetricRestartTime,            kMetricScaleDownRateThreshold, kMetricScaleUpRateThreshold,
    kMetricTargetDataRate,         kMetricTrueProcessingRate,
};

// An evaluated metric: the latest value and the average over the metric window. Either may be
// absent (upstream writes NaN); consumers must treat absence as "unknown", never as zero.
struct EvaluatedMetric {
  std::optional<double> current;
  std::optional<double> average;

  friend bool operator==(const EvaluatedMetric&, const EvaluatedMetric&) = default;
};

// Metric name -> evaluated metric. The built-in names live in slots (slotted_map.h): the
// evaluator fills some twenty of them per vertex every cycle, without building a tree or a key.
using MetricMap = SlottedMap<EvaluatedMetric, kEvaluatedMetricNames>;

// Evaluated metrics of one job: per vertex, plus job-wide ones (GC pressure, heap usage, slots,
// and job-level custom metrics).
struct EvaluatedMetrics {
  std::map<VertexId, MetricMap> vertices;
  MetricMap global;
};

// One edge of the job graph. ship_strategy is Flink's plan value: HASH, REBALANCE, FORWARD, ...
struct Edge {
  VertexId from;
  VertexId to;
  std::string ship_strategy = "REBALANCE";
};

// One vertex of the job graph as the autoscaler sees it.
struct VertexInfo {
  VertexId id;
  std::string name;
  int parallelism = 1;
  int max_parallelism = 128;           // key groups
  std::optional<int> num_partitions;   // sources only: Kafka partitions / splits, if known
  bool finished = false;
  // Flink's slotSharingGroupId (job details). Vertices of one group share slots: the group needs
  // as many as its largest parallelism, and a job the sum over its groups. Empty = the default
  // group, which every vertex without one shares.
  std::string slot_sharing_group;
};

// The job graph; vertices are listed in topological order (sources first).
struct JobTopology {
  std::vector<VertexInfo> vertices;
  std::vector<Edge> edges;

  const VertexInfo* Find(const VertexId& id) const;
  std::vector<VertexId> Inputs(const VertexId& id) const;
  std::vector<VertexId> Outputs(const VertexId& id) const;
  // No edge ends at it (without building the list of its inputs).
  bool IsSource(const VertexId& id) const {
    return std::none_of(edges.begin(), edges.end(), [&](const Edge& e) { return e.to == id; });
  }
};

// The decision for one vertex that the algorithm wants to change.
struct ScalingSummary {
  int current_parallelism = 0;
  int new_parallelism = 0;
  MetricMap metrics;  // the evaluated metrics the decision was based on
};

// Vertex -> decision. An empty map returned by a plugin is a veto.
using ScalingSummaries = std::map<VertexId, ScalingSummary>;

}  // namespace trimtab::core
