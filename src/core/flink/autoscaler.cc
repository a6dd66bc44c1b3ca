#include "core/flink/autoscaler.h"

#include <algorithm>
#include <cmath>

#include "common/number_format.h"
#include "core/flink/behavior_shaping.h"
#include "core/flink/cycle_stages.h"
#include "core/flink/evaluator.h"
#include "core/flink/java_number_format.h"

namespace trimtab::core::flink {

std::string ScalingReportLines(const ScalingSummaries& s) {
  // Appended piece by piece: the chain reports every vetoed cycle, every minute on noisy load.
  // Numbers as upstream's String.format("%.2f") prints them (half up on the shortest digits).
  std::string out;
  for (const auto& [id, summary] : s) {
    const MetricMap& m = summary.metrics;
    out += "\n{ Vertex ID ";
    out += id;
    out += " | Parallelism ";
    out += std::to_string(summary.current_parallelism);
    out += " -> ";
    out += std::to_string(summary.new_parallelism);
    out += " | Processing capacity ";
    out += FormatJavaFixed(Average(m, kMetricTrueProcessingRate), 2);
    out += " -> ";
    out += FormatJavaFixed(Current(m, kMetricExpectedProcessingRate), 2);
    out += " | Target data rate ";
    out += FormatJavaFixed(Average(m, kMetricTargetDataRate), 2);
    out += "}";
  }
  return out;
}

Millis EffectiveRestartTime(const AutoscalerState& state, const AutoscalerOptions& o,
                            std::string* source) {
  if (o.restart_time_tracking_enabled) {
    std::optional<Millis> longest;
    for (const ScalingRecord& r : state.scaling_tracking) {
      std::optional<Millis> took = r.restart_duration;
      if (took && o.restart_time_tracking_backlog && r.restart_backlog) {
        took = std::max(*took, *r.restart_backlog);
      }
      // Upstream floors a record to whole seconds and ignores one below 0 s: every negative
      // duration.
      if (took && *took < Millis(0)) continue;
      if (took && (!longest || *took > *longest)) longest = took;
    }
    if (longest) {
      if (source) *source = "the longest tracked restart";
      return std::min(*longest, o.restart_time_tracking_limit);
    }
  }
  if (o.restart_time_from_checkpoint) {
    // The newest sample that knows the latest checkpoint's duration.
    for (auto it = state.metric_window.rbegin(); it != state.metric_window.rend(); ++it) {
      const double seconds = it->global.Get(CollectedMetric::kLastCheckpointDuration);
      if (!(seconds >= 0)) continue;  // absent (NaN) or negative
      const Millis checkpoint{std::llround(seconds * 1000)};
      if (checkpoint <= o.restart_time) break;
      if (source) *source = cycle::kRestartTimeFromCheckpoint;
      return std::min(checkpoint, std::max(o.restart_time, o.restart_time_tracking_limit));
    }
  }
  if (source) *source = "restart.time";
  return o.restart_time;
}

AutoscalerState CommitScaling(AutoscalerState state, const ScalingSummaries& applied,
                              const JobTopology& topology, TimePoint now,
                              const AutoscalerOptions& o) {
  if (applied.empty()) return state;
  const TimePoint oldest = now - o.history_max_age;
  const size_t max_count = static_cast<size_t>(std::max(0, o.history_max_count));
  ScalingRecord record{now, {}, std::nullopt};
  for (const auto& [vertex, summary] : applied) {
    auto& h = state.scaling_history[vertex];
    h.push_back({now, summary});
    record.target_parallelism[vertex] = summary.new_parallelism;
    if (o.behavior.enabled) {
      RecordBehaviorScaleEvent(o.behavior, &state.behavior[vertex], now,
                               summary.current_parallelism, summary.new_parallelism);
    }
  }
  for (auto it = state.scaling_history.begin(); it != state.scaling_history.end();) {
    cycle::TrimHistory(&it->second, max_count, oldest, false);
    if (it->second.empty() || !topology.Find(it->first)) {
      it = state.scaling_history.erase(it);
    } else {
      ++it;
    }
  }
  state.scaling_tracking.push_back(std::move(record));
  cycle::TrimHistory(&state.scaling_tracking, std::max<size_t>(1, max_count), oldest, true);
  state.parallelism_overrides.clear();
  for (const VertexInfo& v : topology.vertices) {
    auto it = applied.find(v.id);
    state.parallelism_overrides[v.id] =
        it != applied.end() ? it->second.new_parallelism : v.parallelism;
  }
  state.delayed_scale_down.clear();
  return state;
}

StatusOr<std::shared_ptr<const AutoscalerOptions>> OptionsOf(const AutoscalerInput& in) {
  if (in.parsed_options) return in.parsed_options;
  auto parsed = ParseAutoscalerOptions(in.configuration);
  if (!parsed.ok()) return parsed.status().WithContext("configuration");
  return std::make_shared<const AutoscalerOptions>(*std::move(parsed));
}

StatusOr<AutoscalerResult> RunAutoscalerCycle(const AutoscalerInput& in, AutoscalerState state) {
  TRIMTAB_ASSIGN_OR_RETURN(std::shared_ptr<const AutoscalerOptions> parsed, OptionsOf(in));
  cycle::CycleContext c{.in = in, .o = *parsed, .state = std::move(state)};
  c.res.log.time = in.now;
  using Stage = StatusOr<cycle::StageResult> (*)(cycle::CycleContext&);
  const std::vector<Stage> stages =
      in.evaluated ? std::vector<Stage>{cycle::TakeEvaluated, cycle::Decide, cycle::Shape}
                   : std::vector<Stage>{cycle::Collect, cycle::Evaluate, cycle::Decide,
                                        cycle::Shape};
  for (Stage stage : stages) {
    TRIMTAB_ASSIGN_OR_RETURN(cycle::StageResult r, stage(c));
    if (r.next == cycle::StageResult::Next::kStop) {
      c.res.log.outcome = r.outcome;
      c.res.state = std::move(c.state);
      return std::move(c.res);
    }
  }
  // Every stage let the change through: the cycle's scaling.
  AutoscalerResult& res = c.res;
  res.log.outcome = CycleOutcome::kScale;
  res.state = in.commit ? CommitScaling(std::move(c.state), res.summaries, in.topology, in.now, c.o)
                        : std::move(c.state);
  // Every executed scaling stores its memory tuning, an empty one too (upstream
  // storeConfigChanges).
  if (in.commit) res.state.config_overrides = res.config_overrides;
  return std::move(c.res);
}

}  // namespace trimtab::core::flink
