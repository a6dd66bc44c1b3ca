// The first stage of a cycle run on evaluated metrics the caller gives (AutoscalerInput::
// evaluated; `trimtab eval flink`'s `evaluatedMetrics`), in place of Collect and Evaluate
// (cycle_stages.h): the options' notes, disabled / job not running, the tracking records trimmed
// as Collect trims them, the restart time, and the metrics checked against the topology. Decide
// and Shape then run as in any cycle, so each can be checked on metrics written by hand.
#include <chrono>
#include <cmath>

#include "common/flink_values.h"
#include "core/flink/cycle_stages.h"
#include "core/flink/evaluator.h"

namespace trimtab::core::flink::cycle {

StatusOr<StageResult> TakeEvaluated(CycleContext& c) {
  const AutoscalerInput& in = c.in;
  // An error ends the cycle without a result, so checking this before the options' notes
  // changes nothing anyone sees.
  if (!in.samples.empty()) {
    return InvalidArgumentError(
        "samples: evaluated metrics are given, so the cycle collects nothing; leave samples out");
  }
  if (std::optional<StageResult> stop = OpenCycle(c, "nothing decided")) return *stop;
  const AutoscalerOptions& o = c.o;
  AutoscalerState& state = c.state;
  AutoscalerResult& res = c.res;
  DecisionLog& log = c.res.log;
  TrimHistory(&state.scaling_tracking, static_cast<size_t>(std::max(1, o.history_max_count)),
              in.now - o.history_max_age, true);

  res.evaluated = *in.evaluated;
  for (const auto& [id, metrics] : res.evaluated.vertices) {
    if (!in.topology.Find(id)) {
      return InvalidArgumentError("evaluatedMetrics.vertices." + id + ": unknown vertex \"" + id +
                                  "\"");
    }
  }
  for (const VertexInfo& v : in.topology.vertices) {
    auto it = res.evaluated.vertices.find(v.id);
    const bool decided = !v.finished && !o.vertex_exclude_ids.count(v.id);
    if (it == res.evaluated.vertices.end()) {
      if (decided) {
        return InvalidArgumentError("evaluatedMetrics.vertices." + v.id +
                                    ": required for a vertex the autoscaler scales");
      }
      it = res.evaluated.vertices.emplace(v.id, MetricMap{}).first;
    }
    // The parallelism and key groups are the topology's; the partitions too when it knows them,
    // else a given count (a whole number, at most the key groups' limit) or none.
    MetricMap& m = it->second;
    SetCurrent(&m, kMetricParallelism, v.parallelism);
    SetCurrent(&m, kMetricMaxParallelism, v.max_parallelism);
    const double partitions = Current(m, kMetricNumSourcePartitions);
    if (v.num_partitions || std::isnan(partitions)) {
      SetCurrent(&m, kMetricNumSourcePartitions, v.num_partitions.value_or(0));
    } else if (!(partitions >= 0 && partitions <= 1e6 && partitions == std::floor(partitions))) {
      return InvalidArgumentError("evaluatedMetrics.vertices." + v.id +
                                  ".NUM_SOURCE_PARTITIONS: expected a whole number in [0, 1000000]");
    }
    // Upstream's processing backlog makes the scale-down threshold +inf.
    if (std::isinf(Current(m, kMetricScaleDownRateThreshold))) res.processing_backlog = true;
  }
  // The restart time the metrics were evaluated with (RESTART_TIME, seconds), else the one the
  // state and options give.
  const double given = Current(res.evaluated.global, kMetricRestartTime);
  if (std::isfinite(given) && given >= 0) {
    c.restart_time = Millis(std::llround(given * 1000));
  } else {
    c.restart_time = EffectiveRestartTime(state, o);
    SetCurrent(&res.evaluated.global, kMetricRestartTime,
               std::chrono::duration<double>(c.restart_time).count());
  }
  log.Note("evaluate", "evaluated metrics given: nothing collected or evaluated; restart time " +
                           FormatFlinkDuration(c.restart_time) +
                           (std::isfinite(given) && given >= 0 ? " (RESTART_TIME)" : "") +
                           (res.processing_backlog
                                ? "; processing backlog (a scale-down threshold is Infinity)"
                                : ""));
  return StageResult::Continue();
}

}  // namespace trimtab::core::flink::cycle
