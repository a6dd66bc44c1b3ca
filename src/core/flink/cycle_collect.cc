// Stage 1 of a cycle (cycle_stages.h): what the cycle collected and whether it can evaluate.
#include <algorithm>
#include <cmath>

#include "core/flink/custom_metrics.h"
#include "core/flink/cycle_stages.h"
#include "core/flink/evaluator.h"

namespace trimtab::core::flink::cycle {
namespace {

// The sources' summed lag in sample `s` (nullopt when a source has none).
std::optional<double> SourcesLag(const JobTopology& t, const CollectedSample& s) {
  double lag = 0;
  for (const VertexInfo& v : t.vertices) {
    if (!t.IsSource(v.id)) continue;
    auto it = s.vertices.find(v.id);
    if (it == s.vertices.end()) return std::nullopt;
    const double source_lag = it->second.Get(CollectedMetric::kLag);
    if (std::isnan(source_lag)) return std::nullopt;
    lag += source_lag;
  }
  return lag;
}

// What a restart left waiting, in time at the arrival rate before it: the sources' lag in the
// first sample since the job runs again, less their lag in the last sample before the restart,
// over their arrival rate (read rate plus lag growth) between the last two samples before it.
// nullopt when any of it is unknown; called before the restart wipes the window.
std::optional<Millis> RestartBacklog(const AutoscalerInput& in, const Window& before) {
  if (before.empty() || !in.job_running_since) return std::nullopt;
  const RawSample* first = nullptr;
  for (const RawSample& s : in.samples) {
    if (s.time >= *in.job_running_since && (!first || s.time < first->time)) first = &s;
  }
  if (!first) return std::nullopt;
  // The arrival rate just before the restart: a rescale often follows a change of rate, which
  // the whole window would average with the rate before it.
  const Window recent(before.end() - std::min<std::ptrdiff_t>(2, std::ssize(before)), before.end());
  double after = 0, rate = 0;
  for (const VertexInfo& v : in.topology.vertices) {
    if (!in.topology.IsSource(v.id)) continue;
    auto it = first->vertices.find(v.id);
    if (it == first->vertices.end() || !it->second.pending_records) return std::nullopt;
    after += *it->second.pending_records;
    rate += GetRate(recent, kMetricNumRecordsIn, v.id) + GetRate(recent, kMetricLag, v.id);
  }
  const std::optional<double> lag_before = SourcesLag(in.topology, before.back());
  if (!lag_before) return std::nullopt;
  const double seconds = (after - *lag_before) / rate;
  if (!(rate > 0) || !std::isfinite(seconds)) return std::nullopt;
  return Millis(std::llround(std::max(0.0, seconds) * 1000));
}

// Fills restart_duration of the newest tracking record once the job runs with its targets.
void UpdateRestartTracking(const AutoscalerInput& in, const AutoscalerOptions& o,
                           AutoscalerState* state, DecisionLog* log) {
  if (state->scaling_tracking.empty() || !in.job_running_since) return;
  ScalingRecord& last = state->scaling_tracking.back();
  // A job that reports running since before the scaling (clock skew, or a rescale the job took
  // without a restart) gets a negative duration recorded, as upstream records it; it counts for
  // nothing in EffectiveRestartTime, and the record takes no later duration.
  if (last.restart_duration) return;
  for (const auto& [vertex, target] : last.target_parallelism) {
    const VertexInfo* v = in.topology.Find(vertex);
    if (v && v->parallelism != target) return;
  }
  last.restart_duration =
      std::chrono::duration_cast<Millis>(*in.job_running_since - last.time);
  log->Note("collect", "restart after scaling at " + FormatRfc3339(last.time) + " took " +
                           FormatFlinkDuration(*last.restart_duration));
  if (o.restart_time_tracking_backlog) {
    last.restart_backlog = RestartBacklog(in, state->metric_window);
    if (last.restart_backlog) {
      log->Note("collect", "it left " + FormatFlinkDuration(*last.restart_backlog) +
                               " of input waiting beyond the lag before it");
    }
  }
}

// Collect-stage notes on custom metrics: what is declared, and per input sample every declared
// metric that failed to fetch or has no value (absent, never 0).
void NoteCustomCollection(const AutoscalerInput& in, DecisionLog* log) {
  if (in.custom_metrics.empty()) return;
  std::string names;
  for (const DeclaredMetric& d : in.custom_metrics) {
    names += (names.empty() ? "" : ", ") + d.requirement.name + " (" +
             std::string(MetricScopeName(d.requirement.scope)) + ")";
  }
  log->Note("collect", "custom metrics declared: " + names);
  for (const RawSample& s : in.samples) {
    for (const DeclaredMetric& d : in.custom_metrics) {
      const std::string& name = d.requirement.name;
      bool has = s.job.custom.count(name) > 0;
      if (d.requirement.scope == MetricScope::kVertex) {
        has = std::any_of(s.vertices.begin(), s.vertices.end(),
                          [&](const auto& v) { return v.second.custom.count(name) > 0; });
      }
      const std::string where = "custom metric " + name + " in the sample at " +
                                FormatRfc3339(s.time) + ": ";
      auto err = s.custom_errors.find(name);
      if (err != s.custom_errors.end()) {
        log->Note("collect", where + err->second + (has ? "" : "; absent from this sample"));
      } else if (!has) {
        log->Note("collect", where + "no value; absent from this sample");
      }
    }
  }
}

}  // namespace

std::optional<StageResult> OpenCycle(CycleContext& c, std::string_view not_running_effect) {
  const AutoscalerInput& in = c.in;
  const AutoscalerOptions& o = c.o;
  DecisionLog& log = c.res.log;
  for (const std::string& key : o.ignored_keys) log.Note("collect", "ignored option " + key);
  for (const std::string& warning : o.warnings) log.Note("collect", "warning: " + warning);

  if (!o.enabled) {
    log.Note("collect", "job.autoscaler.enabled is false: autoscaler state cleared");
    c.state = AutoscalerState{};
    return StageResult::Stop(CycleOutcome::kDisabled, "job.autoscaler.enabled is false");
  }
  for (const VertexInfo& v : in.topology.vertices) {
    log.vertices[v.id].current_parallelism = log.vertices[v.id].final_parallelism = v.parallelism;
  }
  if (in.job_status != "RUNNING") {
    log.Note("collect", "job status is " + in.job_status + ", not RUNNING: " +
                            std::string(not_running_effect));
    return StageResult::Stop(CycleOutcome::kJobNotRunning, "job status is " + in.job_status);
  }
  return std::nullopt;
}

StatusOr<StageResult> Collect(CycleContext& c) {
  if (std::optional<StageResult> stop = OpenCycle(c, "nothing collected")) return *stop;
  const AutoscalerInput& in = c.in;
  const AutoscalerOptions& o = c.o;
  AutoscalerState& state = c.state;
  DecisionLog& log = c.res.log;

  TRIMTAB_RETURN_IF_ERROR(ValidateCustomMetrics(in.custom_metrics));
  TRIMTAB_RETURN_IF_ERROR(ValidateCustomSamples(in.custom_metrics, in.samples));
  // Expired tracking records go before the restart time is read from them, every cycle, as
  // upstream trims them on every collection (the newest record always stays).
  TrimHistory(&state.scaling_tracking, static_cast<size_t>(std::max(1, o.history_max_count)),
              in.now - o.history_max_age, true);
  UpdateRestartTracking(in, o, &state, &log);
  TRIMTAB_ASSIGN_OR_RETURN(c.window,
                           UpdateMetricWindow(in.samples, in.topology, o, in.job_running_since,
                                              in.now, &state));
  const WindowStatus& ws = c.window;
  if (ws.restarted) log.Note("collect", "job restarted after the oldest sample: window wiped");
  log.Note("collect", "stored " + std::to_string(ws.added) + " new sample(s), ignored " +
                          std::to_string(ws.ignored) + ", trimmed " +
                          std::to_string(ws.trimmed) + "; window holds " +
                          std::to_string(state.metric_window.size()));
  NoteCustomCollection(in, &log);
  if (ws.stabilizing) {
    log.Note("collect", "stabilizing until " + FormatRfc3339(ws.stable_time) +
                            " (stabilization.interval " +
                            FormatFlinkDuration(o.stabilization_interval) + ")");
    return StageResult::Stop(CycleOutcome::kStabilizing,
                             "stabilizing until " + FormatRfc3339(ws.stable_time));
  }
  if (state.metric_window.size() < 2) {
    log.Note("collect", "not enough samples to evaluate: need 2, have " +
                            std::to_string(state.metric_window.size()));
    return StageResult::Stop(CycleOutcome::kNotEnoughSamples, "not enough samples to evaluate");
  }

  return StageResult::Continue();
}

}  // namespace trimtab::core::flink::cycle
