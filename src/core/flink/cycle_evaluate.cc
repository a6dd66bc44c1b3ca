// Stage 2 of a cycle (cycle_stages.h): the metric window evaluated, and whether a decision may
// be made yet.
#include <cmath>

#include "core/flink/custom_metrics.h"
#include "core/flink/cycle_stages.h"
#include "core/flink/evaluator.h"

namespace trimtab::core::flink::cycle {
namespace {

// "current 0.5, window average 0.45" ("absent" for unknown values).
std::string CurrentAndAverage(const MetricMap& m, const std::string& name) {
  const double current = Current(m, name);
  const double average = Average(m, name);
  return "current " + (std::isnan(current) ? std::string("absent") : Num(current)) +
         ", window average " + (std::isnan(average) ? std::string("absent") : Num(average));
}

}  // namespace

StatusOr<StageResult> Evaluate(CycleContext& c) {
  const AutoscalerInput& in = c.in;
  const AutoscalerOptions& o = c.o;
  AutoscalerState& state = c.state;
  AutoscalerResult& res = c.res;
  DecisionLog& log = c.res.log;
  const WindowStatus& ws = c.window;
  std::string restart_source;
  c.restart_time = EffectiveRestartTime(state, o, &restart_source);
  const Millis restart_time = c.restart_time;
  bool backlog = false;
  std::vector<std::string> evaluate_notes;
  TRIMTAB_ASSIGN_OR_RETURN(res.evaluated,
                           EvaluateMetrics(in.topology, state.metric_window, o, restart_time,
                                           &backlog, &evaluate_notes, &c.step_pending));
  res.processing_backlog = backlog;
  SetCurrent(&res.evaluated.global, kMetricRestartTime,
             std::chrono::duration<double>(restart_time).count());
  log.Note("evaluate", "restart time " + FormatFlinkDuration(restart_time) +
                           (restart_source == kRestartTimeFromCheckpoint
                                ? " (" + restart_source + ")"
                                : "") +
                           (backlog ? "; processing backlog: utilization band is [0, 1]" : ""));
  for (std::string& note : evaluate_notes) log.Note("evaluate", std::move(note));
  for (const VertexInfo& v : in.topology.vertices) {
    const MetricMap& m = res.evaluated.vertices.at(v.id);
    // "<id>: TPR t, target rate r, catch-up rate c, load l, band [up, down]", appended in place:
    // one note per vertex every cycle.
    const std::pair<const char*, double> parts[] = {
        {": TPR ", Average(m, kMetricTrueProcessingRate)},
        {", target rate ", Average(m, kMetricTargetDataRate)},
        {", catch-up rate ", Current(m, kMetricCatchUpDataRate)},
        {", load ", Average(m, kMetricLoad)},
        {", band [", Current(m, kMetricScaleUpRateThreshold)},
        {", ", Current(m, kMetricScaleDownRateThreshold)},
    };
    std::string note = v.id;
    for (const auto& [label, value] : parts) {
      note += label;
      note += Num(value);
    }
    note += "]";
    log.Note("evaluate", std::move(note));
  }
  EvaluateCustomMetrics(in.custom_metrics, in.topology, state.metric_window, &res.evaluated);
  for (const DeclaredMetric& d : in.custom_metrics) {
    const std::string& name = d.requirement.name;
    if (d.requirement.scope != MetricScope::kVertex) {
      log.Note("evaluate", "custom " + name + ": " + CurrentAndAverage(res.evaluated.global, name));
      continue;
    }
    std::string per_vertex;
    for (const VertexInfo& v : in.topology.vertices) {
      per_vertex += (per_vertex.empty() ? "" : "; ") + v.id + " " +
                    CurrentAndAverage(res.evaluated.vertices[v.id], name);
    }
    log.Note("evaluate", "custom " + name + ": " + per_vertex);
  }
  // Early scale-up (trimtab): a job that falls behind right after a (re)start need not wait for
  // the whole window; scale-downs still do.
  std::optional<std::string>& early = c.early;
  if (!ws.fully_collected) {
    early = EarlyScaleUpReason(in.topology, state.metric_window, ws.stable_time, o);
    const std::string not_full =
        "metric window not full until " + FormatRfc3339(ws.window_full_time);
    if (!early) {
      log.Note("evaluate", not_full + ": no scaling decision yet");
      return StageResult::Stop(CycleOutcome::kWindowNotFull, not_full);
    }
    log.Note("evaluate", not_full + ", but " + *early + ": scale-ups only (early-scale-up)");
  }

  return StageResult::Continue();
}

}  // namespace trimtab::core::flink::cycle
