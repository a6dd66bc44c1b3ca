// The evaluate stage of the Flink autoscaler (reference notes §C.3): the metric window -> per
// vertex evaluated metrics (LOAD, TRUE_PROCESSING_RATE, TARGET_DATA_RATE, CATCH_UP_DATA_RATE,
// LAG, thresholds, ...) in topological order, plus job-wide ones (GC pressure, heap usage).
//
// Every helper uses NaN for "unknown" as upstream does; EvaluateMetrics converts NaN into an
// absent EvaluatedMetric field at the end.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "core/flink/autoscaler_options.h"
#include "core/flink/autoscaler_state.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {

using Window = std::vector<CollectedSample>;

// Per-second rate of a cumulative metric between its first and last non-NaN samples
// (1000 × Δvalue / max(1, Δms)); NaN with fewer than two. `vertex` empty = job-wide metric.
double GetRate(const Window& w, const std::string& metric, const VertexId& vertex);
// Average of the finite samples; +inf when all known samples are infinite; NaN when fewer than
// `min_observations` finite samples.
double GetAverage(const Window& w, const std::string& metric, const VertexId& vertex,
                  int min_observations = 1);

// True if some source's lag would take longer than backlog-processing.lag-threshold to process
// at its current input rate.
bool IsProcessingBacklog(const JobTopology& t, const Window& w, const AutoscalerOptions& o);

// Busy time in ms/s: MAX/MIN => average LOAD × 1000; AVG => rate(ACCUMULATED_BUSY_TIME) / p.
double ComputeBusyTimeAvg(const AutoscalerOptions& o, const Window& w, const VertexId& v,
                          int parallelism);
// TPR numerator: AVG => rate(NUM_RECORDS_IN); else average NUM_RECORDS_IN_PER_SECOND, falling
// back to rate(NUM_RECORDS_IN) when that is NaN or infinite.
double ComputeTprInputRate(const AutoscalerOptions& o, const Window& w, const VertexId& v);
// Busy-time TPR, switching to the observed TPR when it is known and the busy-time TPR is not
// finite or exceeds observed × (1 + switch-threshold).
double ComputeTrueProcessingRate(double busy_time_avg, double input_rate, const Window& w,
                                 const VertexId& v, const AutoscalerOptions& o);
// Records per input record flowing on edge from -> to (0 when either rate is <= 0).
double ComputeEdgeOutputRatio(const JobTopology& t, const Window& w, const VertexId& from,
                              const VertexId& to);

// capacity(u) = round(CATCH_UP + (with_restart && catch_up > 0 ? TARGET × restart / catch_up : 0)
//                     + TARGET / clamp(u, 0, 1)); +inf when u == 0; NaN when inputs are NaN.
double TargetProcessingCapacity(const MetricMap& m, const AutoscalerOptions& o,
                                double utilization, bool with_restart, Millis restart_time);

// Adds SCALE_UP_RATE_THRESHOLD and SCALE_DOWN_RATE_THRESHOLD to `m` (needs TARGET_DATA_RATE and
// CATCH_UP_DATA_RATE).
void ComputeProcessingRateThresholds(MetricMap* m, const AutoscalerOptions& o,
                                     bool processing_backlog, Millis restart_time);

// A source's arrival rate (records read plus lag growth, per second) between the latest sample
// and the newest one at least `interval` older; NaN when the window is not that long or lacks
// NUM_RECORDS_IN at either end.
double RecentArrivalRate(const Window& w, const VertexId& source, Millis interval);

// REQUIRES: w.size() >= 1. Fails when a source has no ingestion rate information. With
// o.step_detection_threshold > 0 (θ), a source whose RecentArrivalRate is above (1 + θ) times its
// window rate, or below the window rate / (1 + θ), gets the recent rate as TARGET_DATA_RATE (a
// step the window average would hide for a whole window); each such source adds a line to
// `notes`.
StatusOr<EvaluatedMetrics> EvaluateMetrics(const JobTopology& t, const Window& w,
                                           const AutoscalerOptions& o, Millis restart_time,
                                           bool* processing_backlog = nullptr,
                                           std::vector<std::string>* notes = nullptr);

// Helpers to read/write an EvaluatedMetric as doubles (NaN = absent).
double Current(const MetricMap& m, const std::string& name);
double Average(const MetricMap& m, const std::string& name);
void SetCurrent(MetricMap* m, const std::string& name, double v);
void SetAverage(MetricMap* m, const std::string& name, double v);

}  // namespace trimtab::core::flink
