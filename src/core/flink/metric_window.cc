#include "core/flink/metric_window.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/flink/custom_metrics.h"

namespace trimtab::core::flink {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using M = CollectedMetric;

void Put(SampleValues* m, CollectedMetric metric, std::optional<double> v) {
  if (!v || std::isnan(*v)) return;
  m->Set(metric, std::isfinite(*v) ? RoundMetric(*v) : *v);
}

// Job-wide values are stored as collected: upstream rounds only the per-vertex metrics of a
// sample (its evaluated metrics are rounded later, like every evaluated metric).
void PutUnrounded(SampleValues* m, CollectedMetric metric, std::optional<double> v) {
  if (!v || std::isnan(*v)) return;
  m->Set(metric, *v);
}

// Average of the OBSERVED_TPR values stored in the window (NaN when fewer than min_obs).
double AverageObservedTpr(const std::vector<CollectedSample>& window, const VertexId& v,
                          int min_obs) {
  double sum = 0;
  int n = 0;
  bool any_inf = false;
  for (const CollectedSample& s : window) {
    auto vit = s.vertices.find(v);
    if (vit == s.vertices.end()) continue;
    const double tpr = vit->second.Get(M::kObservedTpr);
    if (std::isnan(tpr)) continue;
    if (std::isinf(tpr)) {
      any_inf = true;
      continue;
    }
    sum += tpr;
    ++n;
  }
  if (n == 0) return any_inf ? kInf : std::numeric_limits<double>::quiet_NaN();
  return n < min_obs ? std::numeric_limits<double>::quiet_NaN() : sum / n;
}

// Copies custom metric values (unrounded) into a collected metric map.
Status CopyCustom(const std::map<std::string, double>& custom, const std::string& path,
                  SampleValues* out) {
  for (const auto& [name, value] : custom) {
    if (IsBuiltInMetricName(name)) {
      return InvalidArgumentError(path + "." + name +
                                  ": a custom metric may not use a built-in metric name");
    }
    if (!std::isfinite(value)) {
      return InvalidArgumentError(path + "." + name + ": custom metric value must be finite");
    }
    out->Set(name, value);
  }
  return Status::Ok();
}

}  // namespace

double RoundMetric(double v) {
  if (!std::isfinite(v)) return v;
  const double r = std::round(v * 1000.0) / 1000.0;
  return r == 0.0 ? v : r;
}

StatusOr<CollectedSample> CollectSample(const RawSample& raw, const JobTopology& topology,
                                        const AutoscalerOptions& options,
                                        const std::vector<CollectedSample>& window,
                                        const std::string& path, bool observe_tpr) {
  CollectedSample out;
  out.time = raw.time;
  for (const VertexInfo& info : topology.vertices) {
    auto& m = out.vertices[info.id];
    const bool source = topology.IsSource(info.id);
    if (info.finished) {
      // Finished vertices report all-zero metrics (upstream) and are never scaled. A finished
      // source reads no records per second: its observed processing rate is +inf, as upstream's
      // (no input allows a scale-down).
      m.Set(M::kLoad, 0);
      m.Set(M::kNumRecordsIn, 0);
      m.Set(M::kNumRecordsOut, 0);
      m.Set(M::kAccumulatedBusyTime, 0);
      if (source) {
        m.Set(M::kLag, 0);
        m.Set(M::kObservedTpr, kInf);
      }
      continue;
    }
    auto it = raw.vertices.find(info.id);
    // Built only for an error: this runs for every vertex of every sample.
    const auto vpath = [&] { return path + ".vertices." + info.id; };
    if (it == raw.vertices.end()) {
      return InvalidArgumentError(vpath() + ": metrics of vertex \"" + info.id + "\" are missing");
    }
    const RawVertexMetrics& r = it->second;
    std::optional<double> busy;
    switch (options.busy_time_aggregator) {
      case BusyTimeAggregator::kMax: busy = r.busy_time_max; break;
      case BusyTimeAggregator::kMin: busy = r.busy_time_min; break;
      case BusyTimeAggregator::kAvg: busy = r.busy_time_avg; break;
    }
    if (!busy) {
      return InvalidArgumentError(vpath() + ".busyTimeMsPerSecond: required metric is missing");
    }
    Put(&m, M::kLoad, std::max(0.0, *busy / 1000.0));
    Put(&m, M::kAccumulatedBusyTime, r.accumulated_busy_time);
    Put(&m, M::kNumRecordsIn, r.num_records_in);
    Put(&m, M::kNumRecordsOut, r.num_records_out);
    if (!source) {
      Put(&m, M::kNumRecordsInPerSecond, r.num_records_in_per_second);
      continue;
    }
    const double lag = r.pending_records.value_or(0.0);
    Put(&m, M::kLag, lag);
    // Observed true processing rate (sources only).
    std::optional<double> rate = r.num_records_in_per_second;
    if (!rate) rate = r.num_records_out_per_second;
    if (!rate) continue;
    double observed;
    if (!observe_tpr) {
      observed = AverageObservedTpr(window, info.id, options.observed_tpr_min_observations);
    } else if (*rate == 0) {
      observed = kInf;
    } else if (lag >= static_cast<double>(options.observed_tpr_lag_threshold.count()) / 1000.0 *
                          *rate) {
      // Fully backpressured (1,000 ms/s): no rate can be observed; as upstream, the average of
      // the earlier observations stands in.
      const double bp = r.back_pressured_time_ms_per_second.value_or(0.0);
      observed = bp >= 1000
                     ? AverageObservedTpr(window, info.id, options.observed_tpr_min_observations)
                     : *rate / (1 - bp / 1000.0);
    } else {
      observed = AverageObservedTpr(window, info.id, options.observed_tpr_min_observations);
    }
    Put(&m, M::kObservedTpr, observed);
  }
  for (const auto& [id, r] : raw.vertices) {
    if (r.custom.empty() || !topology.Find(id)) continue;
    TRIMTAB_RETURN_IF_ERROR(
        CopyCustom(r.custom, path + ".vertices." + id + ".custom", &out.vertices[id]));
  }
  TRIMTAB_RETURN_IF_ERROR(CopyCustom(raw.job.custom, path + ".job.custom", &out.global));
  const RawJobMetrics& j = raw.job;
  if (j.gc_time_ms_per_second) {
    PutUnrounded(&out.global, M::kGcPressure, *j.gc_time_ms_per_second / 1000);
  }
  // Heap used only together with heap max, as upstream: one without the other is neither.
  if (j.heap_used && j.heap_max) {
    PutUnrounded(&out.global, M::kHeapMemoryUsed, j.heap_used);
    PutUnrounded(&out.global, M::kHeapMaxUsageRatio, *j.heap_used / *j.heap_max);
  }
  PutUnrounded(&out.global, M::kManagedMemoryUsed, j.managed_memory_used);
  PutUnrounded(&out.global, M::kMetaspaceMemoryUsed, j.metaspace_used);
  if (j.last_checkpoint_duration_ms) {
    Put(&out.global, M::kLastCheckpointDuration, *j.last_checkpoint_duration_ms / 1000);
  }
  if (j.task_slots_total && j.task_slots_available) {
    PutUnrounded(&out.global, M::kNumTaskSlotsUsed, *j.task_slots_total - *j.task_slots_available);
  }
  return out;
}

StatusOr<WindowStatus> UpdateMetricWindow(const std::vector<RawSample>& raw,
                                          const JobTopology& topology,
                                          const AutoscalerOptions& options,
                                          std::optional<TimePoint> job_running_since,
                                          TimePoint now, AutoscalerState* state) {
  WindowStatus status;
  std::vector<CollectedSample>& window = state->metric_window;
  // Restart detection: the job became RUNNING after our oldest sample.
  if (job_running_since && !window.empty() && *job_running_since > window.front().time) {
    window.clear();
    status.restarted = true;
  }
  const TimePoint running = job_running_since.value_or(TimePoint{});
  status.stable_time = running + options.stabilization_interval;
  std::vector<size_t> order(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return raw[a].time < raw[b].time; });
  for (size_t i : order) {
    if (!window.empty() && raw[i].time <= window.back().time) {
      ++status.ignored;
      continue;
    }
    // A sample taken before the job's running timestamp (clock skew between the collector and
    // the JobManager) is kept, as upstream keeps it; the next cycle's restart detection wipes it.
    // trimtab (observed-true-processing-rate.after-stabilization): Flink's per-second meters
    // restart from zero with the job, so a rate read while they fill is too low.
    const bool observe_tpr =
        !options.observed_tpr_after_stabilization || raw[i].time >= status.stable_time;
    TRIMTAB_ASSIGN_OR_RETURN(CollectedSample s,
                             CollectSample(raw[i], topology, options, window,
                                           "samples[" + std::to_string(i) + "]", observe_tpr));
    window.push_back(std::move(s));
    ++status.added;
  }
  status.stabilizing = now < status.stable_time;
  // Window full: the first sample at/after the stable time plus the window size.
  TimePoint first_stable = now;
  for (const CollectedSample& s : window) {
    if (s.time >= status.stable_time) {
      first_stable = std::min(first_stable, s.time);
      break;
    }
  }
  status.window_full_time = first_stable + options.metrics_window;
  if (!status.stabilizing && now >= status.window_full_time) {
    status.fully_collected = true;
    const TimePoint cutoff = now - options.metrics_window;
    auto keep = std::find_if(window.begin(), window.end(),
                             [&](const CollectedSample& s) { return s.time >= cutoff; });
    status.trimmed = static_cast<size_t>(keep - window.begin());
    window.erase(window.begin(), keep);
  }
  return status;
}

}  // namespace trimtab::core::flink
