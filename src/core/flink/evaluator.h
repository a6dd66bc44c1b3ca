// The evaluate stage of the Flink autoscaler (reference notes §C.3): the metric window -> per
// vertex evaluated metrics (LOAD, TRUE_PROCESSING_RATE, TARGET_DATA_RATE, CATCH_UP_DATA_RATE,
// LAG, thresholds, ...) in topological order, plus job-wide ones (GC pressure, heap usage).
//
// Every helper uses NaN for "unknown" as upstream does; EvaluateMetrics converts NaN into an
// absent EvaluatedMetric field at the end.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
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

// A source's arrival rate (records read plus lag growth, per second) over consecutive spans of
// the window, newest first: the first ends at the latest sample and starts at the newest sample at
// least `interval` older; each next one ends where the previous one started. At most `count`;
// fewer when the window is too short or a sample lacks NUM_RECORDS_IN.
struct ArrivalSpan {
  double rate = 0;     // records/s
  double seconds = 0;  // the span's length
  size_t begin = 0;    // index in the window of the span's first sample
};
std::vector<ArrivalSpan> RecentArrivalSpans(const Window& w, const VertexId& source,
                                            Millis interval, int count);
// The arrival rate between samples `begin` and `end` of the window; nullopt when begin >= end or
// either lacks NUM_RECORDS_IN.
std::optional<ArrivalSpan> ArrivalBetween(const Window& w, const VertexId& source, size_t begin,
                                          size_t end);

// Early scale-up (o.early_scale_up_window > 0; docs/eval-flink.md): when the samples at or after
// `stable_time` span at least the early window and some source is behind (more than one second
// of what it reads is waiting, and at the pace its lag shrank over those samples it would not
// drain within catch-up.duration), why, for the decision log; else nullopt. The caller may then
// decide scale-ups before the window is full.
std::optional<std::string> EarlyScaleUpReason(const JobTopology& t, const Window& w,
                                              TimePoint stable_time, const AutoscalerOptions& o);

// REQUIRES: w.size() >= 1. Fails when a source has no ingestion rate information.
//
// Step detection (o.step_detection_threshold = θ > 0; docs/eval-flink.md): a source's arrival
// rate over the last step_detection_interval is compared with its rate over the window before
// that interval. Beyond (1 + θ)² times (or below 1 / (1 + θ)²): a step, taken at once. Beyond
// (1 + θ): a step if the interval before it was beyond (1 + θ) of the window before *it*, on the
// same side; the rate over both intervals is then the target; otherwise the step is pending:
// `*step_pending` is set and the caller should not decide this cycle. A detected step replaces
// the source's TARGET_DATA_RATE (downstream vertices follow through the output ratios). Each
// detection or pending step adds a line to `notes`.
StatusOr<EvaluatedMetrics> EvaluateMetrics(const JobTopology& t, const Window& w,
                                           const AutoscalerOptions& o, Millis restart_time,
                                           bool* processing_backlog = nullptr,
                                           std::vector<std::string>* notes = nullptr,
                                           bool* step_pending = nullptr);

// Helpers to read/write an EvaluatedMetric as doubles (NaN = absent).
double Current(const MetricMap& m, std::string_view name);
double Average(const MetricMap& m, std::string_view name);
void SetCurrent(MetricMap* m, std::string_view name, double v);
void SetAverage(MetricMap* m, std::string_view name, double v);

}  // namespace trimtab::core::flink
