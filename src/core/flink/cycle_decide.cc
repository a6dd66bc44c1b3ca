// Stage 3 of a cycle (cycle_stages.h): memory pressure, then each vertex's target parallelism,
// and whether any change is wanted.
#include <cmath>

#include "core/flink/cycle_stages.h"
#include "core/flink/evaluator.h"
#include "core/flink/vertex_scaler.h"

namespace trimtab::core::flink::cycle {
namespace {

// scale-down.learned-hold: why the vertex's past scale-downs say the next one will not last, or
// nullopt. A scale-down in the history is undone when the vertex's next entry is a scale-up
// within `min_duration`, and lasted when nothing undid it for that long; younger ones are not
// counted yet.
std::optional<std::string> ShortLivedScaleDowns(const std::vector<ScalingHistoryEntry>& history,
                                                Millis min_duration, TimePoint now) {
  int undone = 0, lasted = 0;
  Millis longest_undone{0};
  for (size_t i = 0; i < history.size(); ++i) {
    const ScalingSummary& s = history[i].summary;
    if (s.new_parallelism >= s.current_parallelism) continue;
    const TimePoint end = i + 1 < history.size() ? history[i + 1].time : now;
    const Millis lived = std::chrono::duration_cast<Millis>(end - history[i].time);
    const bool next_up = i + 1 < history.size() && history[i + 1].summary.new_parallelism >
                                                       history[i + 1].summary.current_parallelism;
    if (lived >= min_duration) {
      ++lasted;
    } else if (next_up) {
      ++undone;
      longest_undone = std::max(longest_undone, lived);
    }
  }
  if (undone < 2 || undone <= lasted) return std::nullopt;
  return std::to_string(undone) + " of its last " + std::to_string(undone + lasted) +
         " scale-downs were undone by a scale-up within " + FormatFlinkDuration(longest_undone) +
         " (shorter than scale-down.learned-hold.min-duration " +
         FormatFlinkDuration(min_duration) + "): a lower level does not last here";
}

}  // namespace

StatusOr<StageResult> Decide(CycleContext& c) {
  const AutoscalerInput& in = c.in;
  const AutoscalerOptions& o = c.o;
  AutoscalerState& state = c.state;
  AutoscalerResult& res = c.res;
  DecisionLog& log = c.res.log;
  const Millis restart_time = c.restart_time;
  const std::optional<std::string>& early = c.early;
  if (c.step_pending) {
    // A rescale sized from a window average that a step has made stale would be followed by a
    // second one a window later; one more interval tells a step from a noisy minute.
    log.Note("decide", "a source's input may have stepped: no scaling decision until the next "
                       "interval confirms it (step-detection)");
    return StageResult::Stop(CycleOutcome::kNoChange, "a source's input may have stepped");
  }

  const double gc = Current(res.evaluated.global, kMetricGcPressure);
  const double heap = Average(res.evaluated.global, kMetricHeapMaxUsageRatio);
  std::string pressure;
  if (gc > o.gc_pressure_threshold) {
    pressure = "GC pressure " + Num(gc) + " > " + Num(o.gc_pressure_threshold);
    // Keyed on the kind of pressure, not the number, which moves every cycle (upstream too).
    log.events.push_back({"Normal", "MemoryPressure",
                          "GC Pressure " + Num(gc) +
                              " is above the allowed limit for scaling operations. Please adjust "
                              "the available memory manually.",
                          "gcPressure"});
  } else if (heap > o.heap_usage_threshold) {
    pressure = "heap usage " + Num(heap) + " > " + Num(o.heap_usage_threshold);
    log.events.push_back({"Normal", "MemoryPressure",
                          "Heap Usage " + Num(heap) +
                              " is above the allowed limit for scaling operations. Please adjust "
                              "the available memory manually.",
                          "heapUsage"});
  }
  if (!pressure.empty()) {
    log.Note("decide", "blocked: " + pressure);
    for (const VertexInfo& v : in.topology.vertices) {
      log.vertices[v.id] = {v.parallelism, std::nullopt, v.parallelism, false,
                            {"blocked: " + pressure}};
    }
    return StageResult::Stop(CycleOutcome::kBlocked, "blocked: " + pressure);
  }

  ScalingSummaries& proposals = c.proposals;
  bool any_outside = false;
  // An early decision leaves the delayed scale-downs as they were: it works on a copy.
  std::map<VertexId, VertexDelayedScaleDown> scratch;
  if (early) scratch = state.delayed_scale_down;
  std::map<VertexId, VertexDelayedScaleDown>* delayed =
      early ? &scratch : &state.delayed_scale_down;
  for (const VertexInfo& v : in.topology.vertices) {
    VertexDecision& d = log.vertices[v.id];
    d.current_parallelism = d.final_parallelism = v.parallelism;
    if (v.finished) {
      d.reasons.push_back("finished vertex: not scaled");
      continue;
    }
    if (o.vertex_exclude_ids.count(v.id)) {
      d.reasons.push_back("excluded by job.autoscaler.vertex.exclude.ids");
      continue;
    }
    bool hash = false;
    for (const Edge& e : in.topology.edges) hash = hash || (e.to == v.id && e.ship_strategy == "HASH");
    MetricMap& metrics = res.evaluated.vertices.at(v.id);
    auto hit = state.scaling_history.find(v.id);
    VertexScalingInput vin{v.id, hash, hit == state.scaling_history.end() ? nullptr : &hit->second,
                           restart_time, in.now};
    if (auto limits = in.parallelism_limits.find(v.id); limits != in.parallelism_limits.end()) {
      vin.min_parallelism = limits->second.min;
      vin.max_parallelism = limits->second.max;
    }
    ParallelismChange change =
        ComputeScaleTargetParallelism(o, vin, &metrics, delayed, &log.events);
    d.reasons.push_back(change.reason);
    d.alignment = change.alignment;
    if (!change.change) continue;
    if (early && change.new_parallelism < v.parallelism) {
      d.reasons.push_back("not applied: a scale-down waits for the full metric window");
      continue;
    }
    if (o.scale_down_learned_hold > Millis(0) && change.new_parallelism < v.parallelism &&
        hit != state.scaling_history.end()) {
      if (std::optional<std::string> why =
              ShortLivedScaleDowns(hit->second, o.scale_down_learned_hold, in.now)) {
        d.reasons.push_back("not applied: " + *why + " (scale-down.learned-hold)");
        continue;
      }
    }
    d.proposed_parallelism = change.new_parallelism;
    d.outside_utilization_bound = change.outside_utilization_bound;
    any_outside = any_outside || change.outside_utilization_bound;
    proposals[v.id] = {v.parallelism, change.new_parallelism, metrics};
  }
  // Shaping's behavior rules, with the scale-down window stretched to a few restart times
  // (scale-down.restart-time-factor).
  if (o.behavior.enabled && o.scale_down_restart_time_factor > 0) {
    // A scale-down is wanted for a few restart times before it is worth a restart.
    const Millis floor{std::llround(o.scale_down_restart_time_factor *
                                    static_cast<double>(restart_time.count()))};
    if (floor > o.behavior.scale_down.stabilization_window.value_or(Millis(0))) {
      c.stretched = o.behavior;
      c.stretched->scale_down.stabilization_window = floor;
      c.stretched_floor = floor;
    }
  }
  // scale-down.lasting-evidence: a cycle that changes nothing still tells the behavior history
  // that every vertex wanted its current parallelism.
  const auto record_current = [&](const char* why) {
    if (!o.behavior.enabled || !o.scale_down_lasting_evidence || early) return;
    for (const VertexInfo& v : in.topology.vertices) {
      if (v.finished || o.vertex_exclude_ids.count(v.id)) continue;
      (void)ShapeWithBehavior(c.Behavior(), &state.behavior[v.id], v.parallelism, v.parallelism,
                              in.now);
    }
    log.Note("shape", std::string("every vertex's current parallelism recorded as its "
                                  "recommendation (") +
                          why + "; scale-down.lasting-evidence)");
  };
  if (proposals.empty()) {
    log.Note("decide", "All job vertices are currently running at their target parallelism.");
    record_current("no change wanted");
    return StageResult::Stop(CycleOutcome::kNoChange,
                             "every vertex runs at its target parallelism");
  }
  if (!any_outside) {
    log.Note("decide", "All vertex processing rates are within target.");
    for (const auto& [id, p] : proposals) {
      log.vertices[id].reasons.push_back("not applied: every changed vertex is within its "
                                         "utilization band");
    }
    record_current("within the utilization band");
    return StageResult::Stop(CycleOutcome::kNoChange,
                             "every vertex is within its utilization band");
  }
  for (const VertexInfo& v : in.topology.vertices) {
    auto it = proposals.find(v.id);
    const int rec = it != proposals.end() ? it->second.new_parallelism : v.parallelism;
    res.recommended_parallelism[v.id] = rec;
    SetCurrent(&res.evaluated.vertices.at(v.id), kMetricRecommendedParallelism, rec);
    if (it != proposals.end()) {
      SetCurrent(&it->second.metrics, kMetricRecommendedParallelism, rec);
    }
  }
  log.Note("decide", "recommended changes for " + std::to_string(proposals.size()) +
                         " vertex(es)");

  return StageResult::Continue();
}

}  // namespace trimtab::core::flink::cycle
