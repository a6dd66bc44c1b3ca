#include "core/flink/evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

namespace trimtab::core::flink {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double Lookup(const CollectedSample& s, const std::string& metric, const VertexId& vertex) {
  const std::map<std::string, double>* m = &s.global;
  if (!vertex.empty()) {
    auto it = s.vertices.find(vertex);
    if (it == s.vertices.end()) return kNaN;
    m = &it->second;
  }
  auto it = m->find(metric);
  return it == m->end() ? kNaN : it->second;
}

std::string FormatRate(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f/s", v);
  return buf;
}

double Seconds(Millis d) { return static_cast<double>(d.count() / 1000); }  // whole seconds

// Java's Math.round for doubles: floor(x + 0.5).
double JavaRound(double x) { return std::floor(x + 0.5); }

}  // namespace

double Current(const MetricMap& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() || !it->second.current ? kNaN : *it->second.current;
}
double Average(const MetricMap& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() || !it->second.average ? kNaN : *it->second.average;
}
void SetCurrent(MetricMap* m, const std::string& name, double v) {
  EvaluatedMetric& e = (*m)[name];
  e.current = std::isnan(v) ? std::nullopt : std::optional<double>(v);
}
void SetAverage(MetricMap* m, const std::string& name, double v) {
  EvaluatedMetric& e = (*m)[name];
  e.average = std::isnan(v) ? std::nullopt : std::optional<double>(v);
}

double GetRate(const Window& w, const std::string& metric, const VertexId& vertex) {
  // The oldest and the newest sample that have the metric (two different samples).
  size_t first_at = 0;
  double first = kNaN;
  for (; first_at < w.size(); ++first_at) {
    first = Lookup(w[first_at], metric, vertex);
    if (!std::isnan(first)) break;
  }
  double last = kNaN;
  size_t last_at = w.size();
  while (last_at > first_at + 1) {
    last = Lookup(w[--last_at], metric, vertex);
    if (!std::isnan(last)) break;
  }
  if (std::isnan(first) || std::isnan(last)) return kNaN;
  const TimePoint first_ts = w[first_at].time, last_ts = w[last_at].time;
  const int64_t diff_ms =
      std::max<int64_t>(1, std::chrono::duration_cast<Millis>(last_ts - first_ts).count());
  return 1000.0 * (last - first) / static_cast<double>(diff_ms);
}

double GetAverage(const Window& w, const std::string& metric, const VertexId& vertex,
                  int min_observations) {
  double sum = 0;
  int n = 0;
  bool any_inf = false;
  for (const CollectedSample& s : w) {
    const double v = Lookup(s, metric, vertex);
    if (std::isnan(v)) continue;
    if (std::isinf(v)) {
      any_inf = true;
      continue;
    }
    sum += v;
    ++n;
  }
  if (n == 0) return any_inf ? kInf : kNaN;
  return n < min_observations ? kNaN : sum / n;
}

bool IsProcessingBacklog(const JobTopology& t, const Window& w, const AutoscalerOptions& o) {
  if (w.empty()) return false;
  for (const VertexInfo& v : t.vertices) {
    if (!t.IsSource(v.id)) continue;
    double lag = Lookup(w.back(), kMetricLag, v.id);
    if (std::isnan(lag)) lag = 0;
    const double rate = GetRate(w, kMetricNumRecordsIn, v.id);
    if (std::isnan(rate)) continue;
    if (lag / rate > Seconds(o.backlog_processing_lag_threshold)) return true;
  }
  return false;
}

double ComputeBusyTimeAvg(const AutoscalerOptions& o, const Window& w, const VertexId& v,
                          int parallelism) {
  if (o.busy_time_aggregator == BusyTimeAggregator::kAvg) {
    return GetRate(w, kMetricAccumulatedBusyTime, v) / parallelism;
  }
  return GetAverage(w, kMetricLoad, v) * 1000;
}

double ComputeTprInputRate(const AutoscalerOptions& o, const Window& w, const VertexId& v) {
  if (o.busy_time_aggregator == BusyTimeAggregator::kAvg) {
    return GetRate(w, kMetricNumRecordsIn, v);
  }
  const double avg = GetAverage(w, kMetricNumRecordsInPerSecond, v);
  return std::isfinite(avg) ? avg : GetRate(w, kMetricNumRecordsIn, v);
}

double ComputeTrueProcessingRate(double busy_time_avg, double input_rate, const Window& w,
                                 const VertexId& v, const AutoscalerOptions& o) {
  const double busy_tpr = input_rate == 0 ? kInf : input_rate / (busy_time_avg / 1000);
  const double observed = GetAverage(w, kMetricObservedTpr, v, o.observed_tpr_min_observations);
  if (std::isnan(observed)) return busy_tpr;
  if (!std::isfinite(busy_tpr)) return observed;
  return busy_tpr > observed * (1 + o.observed_tpr_switch_threshold) ? observed : busy_tpr;
}

double ComputeEdgeOutputRatio(const JobTopology& t, const Window& w, const VertexId& from,
                              const VertexId& to) {
  const double input_rate = GetRate(w, kMetricNumRecordsIn, from);
  const std::vector<VertexId> to_inputs = t.Inputs(to);
  double edge_rate;
  if (to_inputs.size() == 1) {
    edge_rate = GetRate(w, kMetricNumRecordsIn, to);
  } else {
    double others = 0;
    for (const VertexId& in : to_inputs) {
      if (in == from) continue;
      if (t.Outputs(in).size() == 1) {
        others += GetRate(w, kMetricNumRecordsOut, in);
      } else {
        others = kNaN;
        break;
      }
    }
    edge_rate = std::isnan(others) ? GetRate(w, kMetricNumRecordsOut, from)
                                   : GetRate(w, kMetricNumRecordsIn, to) - others;
  }
  if (input_rate <= 0 || edge_rate <= 0) return 0;
  return edge_rate / input_rate;
}

double TargetProcessingCapacity(const MetricMap& m, const AutoscalerOptions& o,
                                double utilization, bool with_restart, Millis restart_time) {
  const double target = Average(m, kMetricTargetDataRate);
  const double catch_up = Current(m, kMetricCatchUpDataRate);
  if (std::isnan(target) || std::isnan(catch_up)) return kNaN;
  const double catch_up_sec = Seconds(o.catch_up_duration);
  const double restart_catch_up = with_restart && catch_up_sec > 0
                                      ? target * Seconds(restart_time) / catch_up_sec
                                      : 0;
  const double u = std::clamp(utilization, 0.0, 1.0);
  if (u == 0) return kInf;
  return JavaRound(catch_up + restart_catch_up + target / u);
}

void ComputeProcessingRateThresholds(MetricMap* m, const AutoscalerOptions& o,
                                     bool processing_backlog, Millis restart_time) {
  double upper, lower;
  if (processing_backlog) {
    upper = 1.0;
    lower = 0.0;
  } else {
    upper = o.utilization_max.value_or(o.target_utilization + o.target_utilization_boundary);
    lower = o.utilization_min.value_or(o.target_utilization - o.target_utilization_boundary);
  }
  SetCurrent(m, kMetricScaleUpRateThreshold,
             TargetProcessingCapacity(*m, o, upper, false, restart_time));
  SetCurrent(m, kMetricScaleDownRateThreshold,
             TargetProcessingCapacity(*m, o, lower, true, restart_time));
}

std::optional<ArrivalSpan> ArrivalBetween(const Window& w, const VertexId& source, size_t begin,
                                          size_t end) {
  if (begin >= end || end >= w.size()) return std::nullopt;
  const double in_end = Lookup(w[end], kMetricNumRecordsIn, source);
  const double in_begin = Lookup(w[begin], kMetricNumRecordsIn, source);
  if (std::isnan(in_end) || std::isnan(in_begin)) return std::nullopt;
  double lag_end = Lookup(w[end], kMetricLag, source);
  double lag_begin = Lookup(w[begin], kMetricLag, source);
  if (std::isnan(lag_end) || std::isnan(lag_begin)) lag_end = lag_begin = 0;
  const double seconds =
      static_cast<double>(std::chrono::duration_cast<Millis>(w[end].time - w[begin].time).count()) /
      1000.0;
  if (!(seconds > 0)) return std::nullopt;
  return ArrivalSpan{((in_end - in_begin) + (lag_end - lag_begin)) / seconds, seconds, begin};
}

std::vector<ArrivalSpan> RecentArrivalSpans(const Window& w, const VertexId& source,
                                            Millis interval, int count) {
  std::vector<ArrivalSpan> spans;
  if (w.empty()) return spans;
  size_t end = w.size() - 1;
  while (static_cast<int>(spans.size()) < count) {
    // The newest sample at least `interval` older than the span's end.
    size_t begin = end;
    while (begin > 0 && w[end].time - w[begin].time < interval) --begin;
    if (w[end].time - w[begin].time < interval) break;
    std::optional<ArrivalSpan> span = ArrivalBetween(w, source, begin, end);
    if (!span) break;
    spans.push_back(*span);
    end = begin;
  }
  return spans;
}

std::optional<std::string> EarlyScaleUpReason(const JobTopology& t, const Window& w,
                                              TimePoint stable_time, const AutoscalerOptions& o) {
  if (o.early_scale_up_window <= Millis(0) || w.empty()) return std::nullopt;
  size_t first = 0;
  while (first < w.size() && w[first].time < stable_time) ++first;
  const size_t last = w.size() - 1;
  if (first >= last || w[last].time - w[first].time < o.early_scale_up_window) return std::nullopt;
  const double seconds = std::chrono::duration<double>(w[last].time - w[first].time).count();
  for (const VertexInfo& v : t.vertices) {
    if (!t.IsSource(v.id)) continue;
    const double lag_begin = Lookup(w[first], kMetricLag, v.id);
    const double lag_end = Lookup(w[last], kMetricLag, v.id);
    const double read_begin = Lookup(w[first], kMetricNumRecordsIn, v.id);
    const double read_end = Lookup(w[last], kMetricNumRecordsIn, v.id);
    if (std::isnan(lag_begin) || std::isnan(lag_end) || std::isnan(read_begin) ||
        std::isnan(read_end)) {
      continue;
    }
    // Behind: more than a second of input waits, and at the pace the backlog has shrunk since
    // stabilization it would not be gone within catch-up.duration.
    const double read_per_second = (read_end - read_begin) / seconds;
    const double drain_per_second = (lag_begin - lag_end) / seconds;
    if (lag_end <= read_per_second) continue;
    const double catch_up = Seconds(o.catch_up_duration);
    if (drain_per_second <= 0 || lag_end / drain_per_second > catch_up) {
      return v.id + " lag went from " + FormatLogNumber(lag_begin) + " to " +
             FormatLogNumber(lag_end) + " records in the " + FormatLogNumber(seconds) +
             " s since stabilization, not on course to drain within catch-up.duration " +
             FormatFlinkDuration(o.catch_up_duration);
    }
  }
  return std::nullopt;
}

namespace {

struct StepCheck {
  bool pending = false;  // only the last interval is beyond the threshold: wait for the next
  double rate = 0;       // the new arrival rate, when not pending
  std::string note;
};

// Step detection for one source (evaluator.h). Recent intervals are compared with the arrival
// rate of the window before them, not with the whole window, which they already pull along.
std::optional<StepCheck> CheckStep(const Window& w, const VertexId& source,
                                   const AutoscalerOptions& o) {
  const std::vector<ArrivalSpan> spans = RecentArrivalSpans(w, source, o.step_detection_interval, 2);
  if (spans.empty()) return std::nullopt;
  const double factor = 1 + o.step_detection_threshold;
  auto beyond = [&](double rate, double base, double f) { return rate > base * f || rate < base / f; };
  const std::string interval = FormatFlinkDuration(o.step_detection_interval);

  // Confirmed: the last two intervals both beyond the threshold, on the same side, against the
  // window before them.
  if (spans.size() == 2) {
    if (std::optional<ArrivalSpan> before = ArrivalBetween(w, source, 0, spans[1].begin)) {
      const double last = spans[0].rate, prev = spans[1].rate, base = before->rate;
      if (beyond(prev, base, factor) && beyond(last, base, factor) &&
          (prev > base) == (last > base)) {
        const double rate = (last * spans[0].seconds + prev * spans[1].seconds) /
                            (spans[0].seconds + spans[1].seconds);
        return StepCheck{false, rate,
                         "step detected: arrival rate " + FormatRate(prev) + " then " +
                             FormatRate(last) + " over the last two " + interval + " vs " +
                             FormatRate(base) + " before; target rate " + FormatRate(rate)};
      }
    }
  }
  // The last interval alone against the window before it: at once when beyond the threshold
  // twice over, else pending.
  std::optional<ArrivalSpan> before_last = ArrivalBetween(w, source, 0, spans[0].begin);
  if (!before_last) return std::nullopt;
  const double last = spans[0].rate;
  const double base1 = before_last->rate;
  if (beyond(last, base1, factor * factor)) {
    return StepCheck{false, last,
                     "step detected: arrival rate " + FormatRate(last) + " over the last " +
                         interval + " vs " + FormatRate(base1) + " before; target rate " +
                         FormatRate(last)};
  }
  if (!beyond(last, base1, factor)) return std::nullopt;
  return StepCheck{true, 0,
                   "possible step: arrival rate " + FormatRate(last) + " over the last " +
                       interval + " vs " + FormatRate(base1) +
                       " before; one more interval to confirm it"};
}

}  // namespace

StatusOr<EvaluatedMetrics> EvaluateMetrics(const JobTopology& t, const Window& w,
                                           const AutoscalerOptions& o, Millis restart_time,
                                           bool* processing_backlog,
                                           std::vector<std::string>* notes, bool* step_pending) {
  EvaluatedMetrics out;
  const bool backlog = IsProcessingBacklog(t, w, o);
  if (processing_backlog) *processing_backlog = backlog;
  const CollectedSample& latest = w.back();
  for (const VertexInfo& info : t.vertices) {
    MetricMap m;
    const VertexId& v = info.id;
    if (t.IsSource(v)) {
      const double input_rate = GetRate(w, kMetricNumRecordsIn, v);
      const double lag_rate = GetRate(w, kMetricLag, v);
      const double ingestion = input_rate + lag_rate;
      if (std::isnan(ingestion)) {
        return FailedPreconditionError("vertex " + v +
                                       ": cannot evaluate metrics without ingestion rate "
                                       "information (NUM_RECORDS_IN needs two samples)");
      }
      double target = std::max(0.0, ingestion);
      if (o.step_detection_threshold > 0) {
        if (std::optional<StepCheck> step = CheckStep(w, v, o); step) {
          if (step->pending && step_pending) *step_pending = true;
          if (notes) notes->push_back(v + ": " + step->note);
          if (!step->pending) target = step->rate;
        }
      }
      SetAverage(&m, kMetricTargetDataRate, target);
      double lag = Lookup(latest, kMetricLag, v);
      if (std::isnan(lag)) lag = 0;
      const double catch_up_sec = Seconds(o.catch_up_duration);
      SetCurrent(&m, kMetricCatchUpDataRate, catch_up_sec == 0 ? 0 : lag / catch_up_sec);
    } else {
      double target = 0, catch_up = 0;
      for (const VertexId& in : t.Inputs(v)) {
        const MetricMap& im = out.vertices.at(in);
        const double ratio = ComputeEdgeOutputRatio(t, w, in, v);
        target += Average(im, kMetricTargetDataRate) * ratio;
        catch_up += Current(im, kMetricCatchUpDataRate) * ratio;
      }
      SetAverage(&m, kMetricTargetDataRate, target);
      SetCurrent(&m, kMetricCatchUpDataRate, catch_up);
    }
    const double busy = ComputeBusyTimeAvg(o, w, v, info.parallelism);
    SetAverage(&m, kMetricTrueProcessingRate,
               ComputeTrueProcessingRate(busy, ComputeTprInputRate(o, w, v), w, v, o));
    SetAverage(&m, kMetricLoad, busy / 1000.0);
    const double lag = Lookup(latest, kMetricLag, v);
    if (!std::isnan(lag)) SetCurrent(&m, kMetricLag, lag);
    SetCurrent(&m, kMetricParallelism, info.parallelism);
    SetCurrent(&m, kMetricMaxParallelism, info.max_parallelism);
    SetCurrent(&m, kMetricNumSourcePartitions, info.num_partitions.value_or(0));
    ComputeProcessingRateThresholds(&m, o, backlog, restart_time);
    out.vertices[v] = std::move(m);
  }
  // Job-wide metrics.
  const auto latest_global = [&](const char* name) {
    auto it = latest.global.find(name);
    return it == latest.global.end() ? kNaN : it->second;
  };
  SetCurrent(&out.global, kMetricGcPressure, latest_global(kMetricGcPressure));
  for (const char* name : {kMetricHeapMaxUsageRatio, kMetricHeapMemoryUsed,
                           kMetricManagedMemoryUsed, kMetricMetaspaceMemoryUsed}) {
    SetCurrent(&out.global, name, latest_global(name));
    SetAverage(&out.global, name, GetAverage(w, name, ""));
  }
  SetCurrent(&out.global, kMetricNumTaskSlotsUsed, latest_global(kMetricNumTaskSlotsUsed));
  return out;
}

}  // namespace trimtab::core::flink
