#include "core/flink/evaluator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <memory_resource>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "common/number_format.h"
#include "core/flink/metric_window.h"

namespace trimtab::core::flink {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// `metric` (a CollectedMetric, or any name) of `vertex` (empty = job-wide) in `s`; NaN = absent.
template <typename Metric>
double Lookup(const CollectedSample& s, const Metric& metric, const VertexId& vertex) {
  if (vertex.empty()) return s.global.Get(metric);
  auto it = s.vertices.find(vertex);
  return it == s.vertices.end() ? kNaN : it->second.Get(metric);
}

using M = CollectedMetric;

// EvaluateMetrics reads the same few metrics of the same vertices over and over (rates, window
// averages, edge ratios, step checks). The table finds each vertex's values in every sample once,
// and turns a metric of a vertex into a plain column of doubles (NaN = absent) the first time it
// is read, so that every later read of it is a walk over an array.
class WindowTable {
 public:
  // Rows for the job-wide metrics and for each vertex of `vertices` (which may repeat).
  WindowTable(const Window& w, std::span<const VertexId* const> vertices);

  const Window& window() const { return w_; }
  // `metric` of `vertex` (empty = job-wide, as in GetRate) in every sample of the window.
  std::span<const double> Values(const VertexId& vertex, CollectedMetric metric) const {
    return Column(Row(vertex), metric);
  }
  std::span<const double> JobValues(CollectedMetric metric) const {
    return Column(vertices_.size() + 1, metric);
  }
  // The value in the latest sample. REQUIRES: a non-empty window.
  double Latest(const VertexId& vertex, CollectedMetric metric) const {
    return Values(vertex, metric).back();
  }
  double LatestJob(CollectedMetric metric) const { return JobValues(metric).back(); }

 private:
  // One row per vertex, one past them for ids the table does not know (every value absent), and
  // the job's last.
  size_t Row(const VertexId& vertex) const {
    // A linear search: job graphs have few vertices, and most ids differ in length already.
    return std::find_if(vertices_.begin(), vertices_.end(),
                        [&](const VertexId* v) { return *v == vertex; }) -
           vertices_.begin();
  }
  std::span<const double> Column(size_t row, CollectedMetric metric) const;

  const Window& w_;
  std::vector<const VertexId*> vertices_;  // sorted by id, unique
  // The table is rebuilt every cycle; a few KB from the heap would take malloc's slow path, so
  // its arrays live in this buffer unless the window is unusually large.
  std::array<std::byte, 16384> buffer_;
  // Mutable: columns are made on first use, a cache that does not change what the table holds.
  mutable std::pmr::monotonic_buffer_resource arena_{buffer_.data(), buffer_.size()};
  std::pmr::vector<const SampleValues*> cells_{&arena_};  // [row][sample]; nullptr = absent
  mutable std::pmr::vector<const double*> columns_{&arena_};  // [row][metric]; nullptr = not yet
};

WindowTable::WindowTable(const Window& w, std::span<const VertexId* const> vertices)
    : w_(w) {
  vertices_.assign(vertices.begin(), vertices.end());
  // Ids are short and a topology names each a few times; sort and dedupe the pointers.
  std::sort(vertices_.begin(), vertices_.end(),
            [](const VertexId* a, const VertexId* b) { return *a < *b; });
  vertices_.erase(std::unique(vertices_.begin(), vertices_.end(),
                              [](const VertexId* a, const VertexId* b) { return *a == *b; }),
                  vertices_.end());
  const size_t rows = vertices_.size() + 2;
  const size_t job_row = rows - 1;
  cells_.assign(rows * w.size(), nullptr);
  columns_.assign(rows * kNumCollectedMetrics, nullptr);
  for (size_t sample = 0; sample < w.size(); ++sample) {
    const CollectedSample& s = w[sample];
    cells_[job_row * w.size() + sample] = &s.global;
    // vertices_ and s.vertices are both sorted by id: walk them side by side, one three-way
    // comparison per step, instead of a find per vertex.
    auto it = s.vertices.begin();
    for (size_t row = 0; row < vertices_.size(); ++row) {
      const VertexId& id = *vertices_[row];
      const SampleValues* cell = nullptr;
      if (id.empty()) {
        cell = &s.global;
      } else {
        for (; it != s.vertices.end(); ++it) {
          const int c = it->first.compare(id);
          if (c < 0) continue;
          if (c == 0) cell = &it->second;
          break;
        }
      }
      cells_[row * w.size() + sample] = cell;
    }
  }
}

std::span<const double> WindowTable::Column(size_t row, CollectedMetric metric) const {
  const size_t n = w_.size();
  const double*& column = columns_[row * kNumCollectedMetrics + static_cast<size_t>(metric)];
  if (!column) {
    auto* values = static_cast<double*>(arena_.allocate(n * sizeof(double), alignof(double)));
    for (size_t sample = 0; sample < n; ++sample) {
      const SampleValues* cell = cells_[row * n + sample];
      values[sample] = cell ? cell->Get(metric) : kNaN;
    }
    column = values;
  }
  return {column, n};
}

// Every vertex id the topology names: its vertices and the ends of its edges (repeats included).
std::vector<const VertexId*> TopologyIds(const JobTopology& t) {
  std::vector<const VertexId*> ids;
  ids.reserve(t.vertices.size() + 2 * t.edges.size());
  for (const VertexInfo& v : t.vertices) ids.push_back(&v.id);
  for (const Edge& e : t.edges) {
    ids.push_back(&e.from);
    ids.push_back(&e.to);
  }
  return ids;
}

// A table over the rows of one vertex.
WindowTable OneVertexTable(const Window& w, const VertexId& v) {
  const VertexId* ids[] = {&v};
  return WindowTable(w, ids);
}

// GetRate over `value_at(i)`, the metric's value in sample i of `w` (NaN = absent).
template <typename ValueAt>
double RateOver(const Window& w, ValueAt value_at) {
  // The oldest and the newest sample that have the metric (two different samples).
  size_t first_at = 0;
  double first = kNaN;
  for (; first_at < w.size(); ++first_at) {
    first = value_at(first_at);
    if (!std::isnan(first)) break;
  }
  double last = kNaN;
  size_t last_at = w.size();
  while (last_at > first_at + 1) {
    last = value_at(--last_at);
    if (!std::isnan(last)) break;
  }
  if (std::isnan(first) || std::isnan(last)) return kNaN;
  const TimePoint first_ts = w[first_at].time, last_ts = w[last_at].time;
  const int64_t diff_ms =
      std::max<int64_t>(1, std::chrono::duration_cast<Millis>(last_ts - first_ts).count());
  return 1000.0 * (last - first) / static_cast<double>(diff_ms);
}

// GetAverage over `value_at(i)` for the `n` samples of the window.
template <typename ValueAt>
double AverageOver(size_t n, ValueAt value_at, int min_observations) {
  double sum = 0;
  int count = 0;
  bool any_inf = false;
  for (size_t i = 0; i < n; ++i) {
    const double v = value_at(i);
    if (std::isnan(v)) continue;
    if (std::isinf(v)) {
      any_inf = true;
      continue;
    }
    sum += v;
    ++count;
  }
  if (count == 0) return any_inf ? kInf : kNaN;
  return count < min_observations ? kNaN : sum / count;
}

double GetRate(const WindowTable& table, CollectedMetric metric, const VertexId& vertex) {
  const std::span<const double> values = table.Values(vertex, metric);
  return RateOver(table.window(), [&](size_t i) { return values[i]; });
}

// GetAverage over one column of a WindowTable.
double AverageOf(std::span<const double> values, int min_observations = 1) {
  return AverageOver(
      values.size(), [&](size_t i) { return values[i]; }, min_observations);
}

double GetAverage(const WindowTable& table, CollectedMetric metric, const VertexId& vertex,
                  int min_observations = 1) {
  return AverageOf(table.Values(vertex, metric), min_observations);
}

std::string FormatRate(double v) { return FormatFixed(v, 0) + "/s"; }

double Seconds(Millis d) { return static_cast<double>(d.count() / 1000); }  // whole seconds

// Java's Math.round for doubles: floor(x + 0.5).
double JavaRound(double x) { return std::floor(x + 0.5); }

}  // namespace

double Current(const MetricMap& m, std::string_view name) {
  const EvaluatedMetric* e = m.Find(name);
  return e && e->current ? *e->current : kNaN;
}
double Average(const MetricMap& m, std::string_view name) {
  const EvaluatedMetric* e = m.Find(name);
  return e && e->average ? *e->average : kNaN;
}

// Every evaluated metric is rounded to 3 decimals when it is stored, as upstream's
// EvaluatedScalingMetric rounds both of its values; what is computed from it later (thresholds,
// downstream target rates, the expected processing rate) reads the rounded value.
void SetCurrent(MetricMap* m, std::string_view name, double v) {
  (*m)[name].current = std::isnan(v) ? std::nullopt : std::optional<double>(RoundMetric(v));
}
void SetAverage(MetricMap* m, std::string_view name, double v) {
  (*m)[name].average = std::isnan(v) ? std::nullopt : std::optional<double>(RoundMetric(v));
}

double GetRate(const Window& w, const std::string& metric, const VertexId& vertex) {
  return RateOver(w, [&](size_t i) { return Lookup(w[i], metric, vertex); });
}

double GetAverage(const Window& w, const std::string& metric, const VertexId& vertex,
                  int min_observations) {
  return AverageOver(
      w.size(), [&](size_t i) { return Lookup(w[i], metric, vertex); }, min_observations);
}

// The window helpers declared in evaluator.h, reading a WindowTable; the public ones below build
// a table and call these.
namespace {

bool IsProcessingBacklog(const JobTopology& t, const WindowTable& table,
                         const AutoscalerOptions& o) {
  if (table.window().empty()) return false;
  for (const VertexInfo& v : t.vertices) {
    if (!t.IsSource(v.id)) continue;
    double lag = table.Latest(v.id, M::kLag);
    if (std::isnan(lag)) lag = 0;
    const double rate = GetRate(table, M::kNumRecordsIn, v.id);
    if (std::isnan(rate)) continue;
    if (lag / rate > Seconds(o.backlog_processing_lag_threshold)) return true;
  }
  return false;
}

double ComputeBusyTimeAvg(const AutoscalerOptions& o, const WindowTable& table, const VertexId& v,
                          int parallelism) {
  if (o.busy_time_aggregator == BusyTimeAggregator::kAvg) {
    return GetRate(table, M::kAccumulatedBusyTime, v) / parallelism;
  }
  return GetAverage(table, M::kLoad, v) * 1000;
}

double ComputeTprInputRate(const AutoscalerOptions& o, const WindowTable& table,
                           const VertexId& v) {
  if (o.busy_time_aggregator == BusyTimeAggregator::kAvg) {
    return GetRate(table, M::kNumRecordsIn, v);
  }
  const double avg = GetAverage(table, M::kNumRecordsInPerSecond, v);
  return std::isfinite(avg) ? avg : GetRate(table, M::kNumRecordsIn, v);
}

double ComputeTrueProcessingRate(double busy_time_avg, double input_rate, const WindowTable& table,
                                 const VertexId& v, const AutoscalerOptions& o) {
  const double busy_tpr = input_rate == 0 ? kInf : input_rate / (busy_time_avg / 1000);
  const double observed = GetAverage(table, M::kObservedTpr, v, o.observed_tpr_min_observations);
  if (std::isnan(observed)) return busy_tpr;
  if (!std::isfinite(busy_tpr)) return observed;
  return busy_tpr > observed * (1 + o.observed_tpr_switch_threshold) ? observed : busy_tpr;
}

double ComputeEdgeOutputRatio(const JobTopology& t, const WindowTable& table, const VertexId& from,
                              const VertexId& to) {
  const double input_rate = GetRate(table, M::kNumRecordsIn, from);
  // t.Inputs(to) and t.Outputs(in), counted and walked on the edges without copying ids.
  const auto edges_from = [&](const VertexId& v) {
    return std::count_if(t.edges.begin(), t.edges.end(), [&](const Edge& e) { return e.from == v; });
  };
  const auto into_to = [&](const Edge& e) { return e.to == to; };
  double edge_rate;
  if (std::count_if(t.edges.begin(), t.edges.end(), into_to) == 1) {
    edge_rate = GetRate(table, M::kNumRecordsIn, to);
  } else {
    double others = 0;
    for (const Edge& e : t.edges) {
      if (!into_to(e) || e.from == from) continue;
      if (edges_from(e.from) == 1) {
        others += GetRate(table, M::kNumRecordsOut, e.from);
      } else {
        others = kNaN;
        break;
      }
    }
    edge_rate = std::isnan(others) ? GetRate(table, M::kNumRecordsOut, from)
                                   : GetRate(table, M::kNumRecordsIn, to) - others;
  }
  if (input_rate <= 0 || edge_rate <= 0) return 0;
  return edge_rate / input_rate;
}

std::optional<ArrivalSpan> ArrivalBetween(const WindowTable& table, const VertexId& source,
                                          size_t begin, size_t end) {
  const Window& w = table.window();
  if (begin >= end || end >= w.size()) return std::nullopt;
  const std::span<const double> in = table.Values(source, M::kNumRecordsIn);
  const std::span<const double> lag = table.Values(source, M::kLag);
  const double in_end = in[end];
  const double in_begin = in[begin];
  if (std::isnan(in_end) || std::isnan(in_begin)) return std::nullopt;
  double lag_end = lag[end];
  double lag_begin = lag[begin];
  if (std::isnan(lag_end) || std::isnan(lag_begin)) lag_end = lag_begin = 0;
  const double seconds =
      static_cast<double>(std::chrono::duration_cast<Millis>(w[end].time - w[begin].time).count()) /
      1000.0;
  if (!(seconds > 0)) return std::nullopt;
  return ArrivalSpan{((in_end - in_begin) + (lag_end - lag_begin)) / seconds, seconds, begin};
}

std::vector<ArrivalSpan> RecentArrivalSpans(const WindowTable& table, const VertexId& source,
                                            Millis interval, int count) {
  const Window& w = table.window();
  std::vector<ArrivalSpan> spans;
  if (w.empty()) return spans;
  size_t end = w.size() - 1;
  while (static_cast<int>(spans.size()) < count) {
    // The newest sample at least `interval` older than the span's end.
    size_t begin = end;
    while (begin > 0 && w[end].time - w[begin].time < interval) --begin;
    if (w[end].time - w[begin].time < interval) break;
    std::optional<ArrivalSpan> span = ArrivalBetween(table, source, begin, end);
    if (!span) break;
    spans.push_back(*span);
    end = begin;
  }
  return spans;
}

}  // namespace

bool IsProcessingBacklog(const JobTopology& t, const Window& w, const AutoscalerOptions& o) {
  return IsProcessingBacklog(t, WindowTable(w, TopologyIds(t)), o);
}

double ComputeBusyTimeAvg(const AutoscalerOptions& o, const Window& w, const VertexId& v,
                          int parallelism) {
  return ComputeBusyTimeAvg(o, OneVertexTable(w, v), v, parallelism);
}

double ComputeTprInputRate(const AutoscalerOptions& o, const Window& w, const VertexId& v) {
  return ComputeTprInputRate(o, OneVertexTable(w, v), v);
}

double ComputeTrueProcessingRate(double busy_time_avg, double input_rate, const Window& w,
                                 const VertexId& v, const AutoscalerOptions& o) {
  return ComputeTrueProcessingRate(busy_time_avg, input_rate, OneVertexTable(w, v), v, o);
}

double ComputeEdgeOutputRatio(const JobTopology& t, const Window& w, const VertexId& from,
                              const VertexId& to) {
  std::vector<const VertexId*> ids = TopologyIds(t);
  ids.push_back(&from);
  ids.push_back(&to);
  return ComputeEdgeOutputRatio(t, WindowTable(w, ids), from, to);
}

std::optional<ArrivalSpan> ArrivalBetween(const Window& w, const VertexId& source, size_t begin,
                                          size_t end) {
  return ArrivalBetween(OneVertexTable(w, source), source, begin, end);
}

std::vector<ArrivalSpan> RecentArrivalSpans(const Window& w, const VertexId& source,
                                            Millis interval, int count) {
  return RecentArrivalSpans(OneVertexTable(w, source), source, interval, count);
}

namespace {

// TargetProcessingCapacity from the vertex's TARGET_DATA_RATE average and CATCH_UP_DATA_RATE.
double TargetCapacity(double target, double catch_up, const AutoscalerOptions& o,
                      double utilization, bool with_restart, Millis restart_time) {
  if (std::isnan(target) || std::isnan(catch_up)) return kNaN;
  const double catch_up_sec = Seconds(o.catch_up_duration);
  double restart_catch_up = with_restart && catch_up_sec > 0
                                ? target * Seconds(restart_time) / catch_up_sec
                                : 0;
  const double u = std::clamp(utilization, 0.0, 1.0);
  if (u == 0) return kInf;
  if (o.restart_catch_up_from_headroom) {
    // Running at `u`, the vertex has target x (1/u - 1) to spare: that drains the restart's
    // backlog too, and only what it cannot drain within catch-up.duration is added.
    restart_catch_up = std::max(0.0, restart_catch_up - (target / u - target));
  }
  return JavaRound(catch_up + restart_catch_up + target / u);
}

}  // namespace

double TargetProcessingCapacity(const MetricMap& m, const AutoscalerOptions& o,
                                double utilization, bool with_restart, Millis restart_time) {
  return TargetCapacity(Average(m, kMetricTargetDataRate), Current(m, kMetricCatchUpDataRate),
                        o, utilization, with_restart, restart_time);
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
  const double target = Average(*m, kMetricTargetDataRate);
  const double catch_up = Current(*m, kMetricCatchUpDataRate);
  SetCurrent(m, kMetricScaleUpRateThreshold,
             TargetCapacity(target, catch_up, o, upper, false, restart_time));
  SetCurrent(m, kMetricScaleDownRateThreshold,
             TargetCapacity(target, catch_up, o, lower, true, restart_time));
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
    const double lag_begin = Lookup(w[first], M::kLag, v.id);
    const double lag_end = Lookup(w[last], M::kLag, v.id);
    const double read_begin = Lookup(w[first], M::kNumRecordsIn, v.id);
    const double read_end = Lookup(w[last], M::kNumRecordsIn, v.id);
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
  // Taken at once from the last interval alone (beyond (1 + θ)²), upwards: a burst-hold
  // candidate, with the arrival rate before it.
  bool at_once_up = false;
  double before = 0;
};

// Step detection for one source (evaluator.h). Recent intervals are compared with the arrival
// rate of the window before them, not with the whole window, which they already pull along.
std::optional<StepCheck> CheckStep(const WindowTable& table, const VertexId& source,
                                   const AutoscalerOptions& o) {
  const std::vector<ArrivalSpan> spans =
      RecentArrivalSpans(table, source, o.step_detection_interval, 2);
  if (spans.empty()) return std::nullopt;
  const double factor = 1 + o.step_detection_threshold;
  auto beyond = [&](double rate, double base, double f) { return rate > base * f || rate < base / f; };
  // Only for the notes: most cycles have none.
  const auto interval = [&] { return FormatFlinkDuration(o.step_detection_interval); };

  // Confirmed: the last two intervals both beyond the threshold, on the same side, against the
  // window before them.
  if (spans.size() == 2) {
    if (std::optional<ArrivalSpan> before = ArrivalBetween(table, source, 0, spans[1].begin)) {
      const double last = spans[0].rate, prev = spans[1].rate, base = before->rate;
      if (beyond(prev, base, factor) && beyond(last, base, factor) &&
          (prev > base) == (last > base)) {
        const double rate = (last * spans[0].seconds + prev * spans[1].seconds) /
                            (spans[0].seconds + spans[1].seconds);
        return StepCheck{false, rate,
                         "step detected: arrival rate " + FormatRate(prev) + " then " +
                             FormatRate(last) + " over the last two " + interval() + " vs " +
                             FormatRate(base) + " before; target rate " + FormatRate(rate)};
      }
    }
  }
  // The last interval alone against the window before it: at once when beyond the threshold
  // twice over, else pending.
  std::optional<ArrivalSpan> before_last = ArrivalBetween(table, source, 0, spans[0].begin);
  if (!before_last) return std::nullopt;
  const double last = spans[0].rate;
  const double base1 = before_last->rate;
  if (beyond(last, base1, factor * factor)) {
    // A step this large is no noise, but an interval of several sample gaps may still hold some
    // of the rate before it (decisions every 30 s, a 1-minute interval: half of it). The newest
    // gap, when it is as far beyond on the same side, is the rate now.
    const size_t newest = table.window().size() - 1;
    if (spans[0].begin + 1 < newest) {
      const std::optional<ArrivalSpan> gap = ArrivalBetween(table, source, newest - 1, newest);
      if (gap && beyond(gap->rate, base1, factor * factor) && (gap->rate > base1) == (last > base1) &&
          (last > base1 ? gap->rate > last : gap->rate < last)) {
        return StepCheck{false, gap->rate,
                         "step detected: arrival rate " + FormatRate(last) + " over the last " +
                             interval() + ", " + FormatRate(gap->rate) + " over the newest " +
                             FormatFlinkDuration(Millis(std::llround(gap->seconds * 1000))) +
                             " vs " + FormatRate(base1) + " before; target rate " +
                             FormatRate(gap->rate),
                         gap->rate > base1, base1};
      }
    }
    return StepCheck{false, last,
                     "step detected: arrival rate " + FormatRate(last) + " over the last " +
                         interval() + " vs " + FormatRate(base1) + " before; target rate " +
                         FormatRate(last),
                     last > base1, base1};
  }
  if (!beyond(last, base1, factor)) return std::nullopt;
  return StepCheck{true, 0,
                   "possible step: arrival rate " + FormatRate(last) + " over the last " +
                       interval() + " vs " + FormatRate(base1) +
                       " before; one more interval to confirm it"};
}

}  // namespace

namespace {

// A step up taken at once from one interval (step-detection.burst-hold.enabled), per source.
struct AtOnceStep {
  double before = 0;  // the source's arrival rate before it
  double rate = 0;    // the step's rate
};

// Every vertex's metrics in topological order, with step detection on the sources but those in
// `held` (their TARGET_DATA_RATE is the window's rate). Fills `at_once` with the sources whose
// step up was taken at once from one interval.
StatusOr<std::map<VertexId, MetricMap>> EvaluateVertices(
    const JobTopology& t, const WindowTable& table, const AutoscalerOptions& o,
    Millis restart_time, bool backlog, const std::set<VertexId>& held,
    std::vector<std::string>* notes, bool* step_pending, std::map<VertexId, AtOnceStep>* at_once) {
  std::map<VertexId, MetricMap> out;
  for (const VertexInfo& info : t.vertices) {
    MetricMap m;
    const VertexId& v = info.id;
    if (t.IsSource(v)) {
      const double input_rate = GetRate(table, M::kNumRecordsIn, v);
      const double lag_rate = GetRate(table, M::kLag, v);
      const double ingestion = input_rate + lag_rate;
      if (std::isnan(ingestion)) {
        return FailedPreconditionError("vertex " + v +
                                       ": cannot evaluate metrics without ingestion rate "
                                       "information (NUM_RECORDS_IN needs two samples)");
      }
      double target = std::max(0.0, ingestion);
      if (o.step_detection_threshold > 0 && !held.count(v)) {
        if (std::optional<StepCheck> step = CheckStep(table, v, o); step) {
          if (step->pending && step_pending) *step_pending = true;
          if (notes) notes->push_back(v + ": " + step->note);
          if (!step->pending) target = step->rate;
          if (step->at_once_up && at_once) (*at_once)[v] = {step->before, step->rate};
        }
      }
      SetAverage(&m, kMetricTargetDataRate, target);
      double lag = table.Latest(v, M::kLag);
      if (std::isnan(lag)) lag = 0;
      const double catch_up_sec = Seconds(o.catch_up_duration);
      SetCurrent(&m, kMetricCatchUpDataRate, catch_up_sec == 0 ? 0 : lag / catch_up_sec);
    } else {
      double target = 0, catch_up = 0;
      for (const Edge& e : t.edges) {  // t.Inputs(v), in order, without copying ids
        if (e.to != v) continue;
        const VertexId& in = e.from;
        const MetricMap& im = out.at(in);
        const double ratio = ComputeEdgeOutputRatio(t, table, in, v);
        target += Average(im, kMetricTargetDataRate) * ratio;
        catch_up += Current(im, kMetricCatchUpDataRate) * ratio;
      }
      SetAverage(&m, kMetricTargetDataRate, target);
      SetCurrent(&m, kMetricCatchUpDataRate, catch_up);
    }
    const double busy = ComputeBusyTimeAvg(o, table, v, info.parallelism);
    SetAverage(&m, kMetricTrueProcessingRate,
               ComputeTrueProcessingRate(busy, ComputeTprInputRate(o, table, v), table, v, o));
    SetAverage(&m, kMetricLoad, busy / 1000.0);
    if (o.alignment_mode == AlignmentMode::kCapacity &&
        o.busy_time_aggregator == BusyTimeAggregator::kMax) {
      // The busiest subtask's busy time (LOAD) against the mean one (accumulated over subtasks).
      const double mean = GetRate(table, M::kAccumulatedBusyTime, v) / info.parallelism;
      if (mean > 0 && std::isfinite(busy)) {
        SetAverage(&m, kMetricLoadImbalance, std::max(1.0, busy / mean));
      }
    }
    const double lag = table.Latest(v, M::kLag);
    if (!std::isnan(lag)) SetCurrent(&m, kMetricLag, lag);
    SetCurrent(&m, kMetricParallelism, info.parallelism);
    SetCurrent(&m, kMetricMaxParallelism, info.max_parallelism);
    SetCurrent(&m, kMetricNumSourcePartitions, info.num_partitions.value_or(0));
    ComputeProcessingRateThresholds(&m, o, backlog, restart_time);
    out[v] = std::move(m);
  }
  return out;
}

// Burst hold: whether waiting one more interval for the steps in `at_once` to be confirmed is
// cheap. `held` are the vertices evaluated without those steps. Were the burst over after one
// more interval, the job at its current bottleneck capacity (in source records/s) would have to
// drain the lag now plus one interval of the burst's excess over that capacity, at the capacity's
// headroom over the rate before the burst: cheap when that takes no longer than catch-up.duration.
// A step beyond (1 + θ)³ is never held. Why, for the decision log; nullopt when not cheap.
std::optional<std::string> BurstHoldReason(const JobTopology& t,
                                           const std::map<VertexId, MetricMap>& held,
                                           const std::map<VertexId, AtOnceStep>& at_once,
                                           const AutoscalerOptions& o) {
  const double factor = 1 + o.step_detection_threshold;
  double before = 0, burst = 0, window_rate = 0, lag = 0;
  for (const VertexInfo& v : t.vertices) {
    if (!t.IsSource(v.id)) continue;
    const MetricMap& m = held.at(v.id);
    const double rate = Average(m, kMetricTargetDataRate);
    const double source_lag = Current(m, kMetricLag);
    window_rate += rate;
    if (!std::isnan(source_lag)) lag += source_lag;
    auto it = at_once.find(v.id);
    if (it == at_once.end()) {
      before += rate;
      burst += rate;
      continue;
    }
    if (it->second.rate > it->second.before * factor * factor * factor) return std::nullopt;
    before += it->second.before;
    burst += it->second.rate;
  }
  if (!(window_rate > 0)) return std::nullopt;
  double capacity = std::numeric_limits<double>::infinity();
  for (const VertexInfo& v : t.vertices) {
    const MetricMap& m = held.at(v.id);
    const double tpr = Average(m, kMetricTrueProcessingRate);
    const double target = Average(m, kMetricTargetDataRate);
    if (!std::isfinite(tpr) || !(target > 0)) continue;
    capacity = std::min(capacity, tpr * window_rate / target);
  }
  if (!std::isfinite(capacity) || !(capacity > before)) return std::nullopt;
  const double interval = Seconds(o.step_detection_interval);
  const double left = lag + std::max(0.0, burst - capacity) * interval;
  const double drain = left / (capacity - before);
  if (!(drain <= Seconds(o.catch_up_duration))) return std::nullopt;
  return "burst hold: were the step to " + FormatRate(burst) + " over after one more " +
         FormatFlinkDuration(o.step_detection_interval) + ", the bottleneck's " +
         FormatRate(capacity) + " would drain the " + FormatFixed(left, 0) +
         " records it left in " + FormatFixed(drain, 0) + " s at " + FormatRate(before) +
         ", within catch-up.duration " + FormatFlinkDuration(o.catch_up_duration) +
         ": one more interval to confirm it (step-detection.burst-hold)";
}

}  // namespace

StatusOr<EvaluatedMetrics> EvaluateMetrics(const JobTopology& t, const Window& w,
                                           const AutoscalerOptions& o, Millis restart_time,
                                           bool* processing_backlog,
                                           std::vector<std::string>* notes, bool* step_pending) {
  EvaluatedMetrics out;
  const WindowTable table(w, TopologyIds(t));
  const bool backlog = IsProcessingBacklog(t, table, o);
  if (processing_backlog) *processing_backlog = backlog;
  std::map<VertexId, AtOnceStep> at_once;
  std::vector<std::string> step_notes;
  bool pending = false;
  TRIMTAB_ASSIGN_OR_RETURN(out.vertices,
                           EvaluateVertices(t, table, o, restart_time, backlog, {}, &step_notes,
                                            &pending,
                                            o.step_burst_hold ? &at_once : nullptr));
  if (!at_once.empty()) {
    std::set<VertexId> held_sources;
    for (const auto& [id, step] : at_once) held_sources.insert(id);
    using VertexMetrics = std::map<VertexId, MetricMap>;
    TRIMTAB_ASSIGN_OR_RETURN(VertexMetrics held,
                             EvaluateVertices(t, table, o, restart_time, backlog, held_sources,
                                              nullptr, nullptr, nullptr));
    if (std::optional<std::string> why = BurstHoldReason(t, held, at_once, o)) {
      out.vertices = std::move(held);
      pending = true;
      step_notes.push_back(std::move(*why));
    }
  }
  if (pending && step_pending) *step_pending = true;
  if (notes) {
    for (std::string& n : step_notes) notes->push_back(std::move(n));
  }
  // Job-wide metrics.
  SetCurrent(&out.global, kMetricGcPressure, table.LatestJob(M::kGcPressure));
  const std::pair<std::string_view, CollectedMetric> current_and_average[] = {
      {kMetricHeapMaxUsageRatio, M::kHeapMaxUsageRatio},
      {kMetricHeapMemoryUsed, M::kHeapMemoryUsed},
      {kMetricManagedMemoryUsed, M::kManagedMemoryUsed},
      {kMetricMetaspaceMemoryUsed, M::kMetaspaceMemoryUsed},
  };
  for (const auto& [name, metric] : current_and_average) {
    SetCurrent(&out.global, name, table.LatestJob(metric));
    SetAverage(&out.global, name, AverageOf(table.JobValues(metric)));
  }
  SetCurrent(&out.global, kMetricNumTaskSlotsUsed, table.LatestJob(M::kNumTaskSlotsUsed));
  return out;
}

}  // namespace trimtab::core::flink
