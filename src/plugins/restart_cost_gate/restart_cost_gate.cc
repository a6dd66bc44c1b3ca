#include "plugins/restart_cost_gate/restart_cost_gate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/number_format.h"
#include "core/chain/slot_math.h"

namespace trimtab::plugins {
namespace {

std::optional<double> Pick(const core::MetricMap& metrics, const char* name, bool prefer_average) {
  const core::EvaluatedMetric* m = metrics.Find(name);
  if (!m) return std::nullopt;
  if (prefer_average) return m->average ? m->average : m->current;
  return m->current ? m->current : m->average;
}

// A vertex metric from the context, else from the vertex's summary.
std::optional<double> VertexMetric(const core::ExecutorContext& context,
                                   const core::ScalingSummaries& summaries,
                                   const core::VertexId& id, const char* name,
                                   bool prefer_average) {
  if (auto v = context.metrics.vertices.find(id); v != context.metrics.vertices.end()) {
    if (auto value = Pick(v->second, name, prefer_average)) return value;
  }
  if (auto s = summaries.find(id); s != summaries.end()) {
    return Pick(s->second.metrics, name, prefer_average);
  }
  return std::nullopt;
}

// The bottleneck's capacity before and after the rescale, in source records/s, or why it is
// unknown (a scaled-up vertex without TRUE_PROCESSING_RATE or a non-zero TARGET_DATA_RATE).
struct Capacities {
  double before = 0;
  double after = 0;
  std::string unknown;  // non-empty: the capacities are unknown, and why
};

Capacities BottleneckCapacities(const core::ExecutorContext& context,
                                const core::ScalingSummaries& summaries, double input_rate) {
  // TRUE_PROCESSING_RATE is in records/s into the vertex; a vertex behind a selective operator
  // sees only part of the stream. Normalise to source records/s (the units of input_rate and
  // lag): capacity(v) = TPR(v) * input_rate / TARGET_DATA_RATE(v), i.e. divided by the vertex's
  // share of the source stream. The share does not change with the parallelism, so the expected
  // rate after the rescale is normalised the same way.
  constexpr double kUnbounded = std::numeric_limits<double>::infinity();
  Capacities c{kUnbounded, kUnbounded, ""};
  for (const core::VertexInfo& v : context.topology.vertices) {
    auto s = summaries.find(v.id);
    bool scaled_up =
        s != summaries.end() && s->second.new_parallelism > s->second.current_parallelism;
    std::optional<double> tpr =
        VertexMetric(context, summaries, v.id, core::kMetricTrueProcessingRate, true);
    if (!tpr) {
      if (scaled_up) {
        c.unknown = std::string("metric ") + core::kMetricTrueProcessingRate + " of vertex " +
                    v.id + " is unavailable";
        return c;
      }
      continue;  // unknown capacity of an unchanged vertex: not the known bottleneck
    }
    std::optional<double> target =
        VertexMetric(context, summaries, v.id, core::kMetricTargetDataRate, true);
    if (!target || !(*target > 0)) {
      // Its share of the source stream is unknown: its capacity cannot be compared with the
      // others'. Like a missing TRUE_PROCESSING_RATE: unknown if it is scaled up, else skipped.
      if (scaled_up) {
        c.unknown = std::string("metric ") + core::kMetricTargetDataRate + " of vertex " + v.id +
                    " is unavailable or zero (its capacity in source records/s is unknown)";
        return c;
      }
      continue;
    }
    const double to_source_units = input_rate / *target;
    double new_rate = *tpr;
    if (s != summaries.end()) {
      std::optional<double> expected =
          Pick(s->second.metrics, core::kMetricExpectedProcessingRate, false);
      new_rate = expected ? *expected
                          : *tpr * s->second.new_parallelism /
                                std::max(1, s->second.current_parallelism);
    }
    c.before = std::min(c.before, *tpr * to_source_units);
    c.after = std::min(c.after, new_rate * to_source_units);
  }
  if (c.before == kUnbounded || c.after == kUnbounded) {
    // Not reachable while a scaled-up vertex must have both metrics; kept so that an unknown
    // capacity is never an approval.
    c.unknown =
        "no vertex has both TRUE_PROCESSING_RATE and a non-zero TARGET_DATA_RATE: the benefit is "
        "unknown";
  }
  return c;
}

// scaleDownBreakEven: the scale-down the autoscaler keeps asking for while the gate vetoes it.
// Kept in the plugin state as {"scaleDownWait": {"sinceMillis", "lastMillis",
// "keptSlotSeconds"}}.
struct ScaleDownWait {
  int64_t since_ms = 0;            // the first veto of the wait
  int64_t last_ms = 0;             // the latest one
  double kept_slot_seconds = 0;    // slots it would have freed x seconds, summed since then
};
constexpr const char kWaitKey[] = "scaleDownWait";

// Reads and removes the wait from the plugin state: every verdict but a break-even veto ends
// it. A malformed state is no wait (waiting anew is the cautious reading).
std::optional<ScaleDownWait> TakeWait(Json& state) {
  if (!state.is_object()) return std::nullopt;
  auto it = state.find(kWaitKey);
  if (it == state.end()) return std::nullopt;
  std::optional<ScaleDownWait> w;
  const Json& j = *it;
  if (j.is_object() && j.contains("sinceMillis") && j["sinceMillis"].is_number_integer() &&
      j.contains("lastMillis") && j["lastMillis"].is_number_integer() &&
      j.contains("keptSlotSeconds") && j["keptSlotSeconds"].is_number()) {
    w = ScaleDownWait{j["sinceMillis"].get<int64_t>(), j["lastMillis"].get<int64_t>(),
                      j["keptSlotSeconds"].get<double>()};
  }
  state.erase(it);
  if (state.empty()) state = nullptr;
  return w;
}

void PutWait(Json& state, const ScaleDownWait& w) {
  if (!state.is_object()) state = Json::object();
  state[kWaitKey] = {{"sinceMillis", w.since_ms},
                     {"lastMillis", w.last_ms},
                     {"keptSlotSeconds", w.kept_slot_seconds}};
}

}  // namespace

StatusOr<core::ExecutorResult> RestartCostGate::Execute(const core::ExecutorContext& context,
                                                        const core::ScalingSummaries& summaries,
                                                        core::CycleState& cycle,
                                                        Json& plugin_state) {
  const bool scale_up = core::HasScaleUp(summaries);
  const bool gate_down = options_.scale_down_records_per_slot_second > 0;
  const std::optional<ScaleDownWait> waited = TakeWait(plugin_state);
  if (!scale_up && !gate_down) return core::ExecutorResult::Approve("scale-down not gated");
  const core::JobTopology& topology = context.topology;
  if (topology.vertices.empty()) {
    return FailedPreconditionError("restart-cost-gate: the job topology is unknown");
  }
  const double period = options_.period_seconds;
  // The downtime a restart costs: restartSeconds, or the autoscaler's restart time where that is
  // longer (it grows with what restarts were seen to leave waiting).
  double restart_seconds = options_.restart_seconds;
  if (options_.observed_restart_time) {
    if (auto observed = Pick(context.metrics.global, core::kMetricRestartTime, false)) {
      restart_seconds = std::max(restart_seconds, *observed);
    }
  }

  double input_rate = 0;
  double lag = 0;
  for (const core::VertexInfo& v : topology.vertices) {
    if (!topology.IsSource(v.id)) continue;
    std::optional<double> rate =
        VertexMetric(context, summaries, v.id, core::kMetricTargetDataRate, true);
    if (!rate) {
      return core::ExecutorResult::Veto(std::string("metric ") + core::kMetricTargetDataRate +
                                        " of source " + v.id + " is unavailable");
    }
    input_rate += *rate;
    lag += VertexMetric(context, summaries, v.id, core::kMetricLag, false).value_or(0);
  }

  if (scale_up && options_.approve_above_lag_seconds > 0 && input_rate > 0 &&
      lag / input_rate > options_.approve_above_lag_seconds) {
    // The bypass is for a bottleneck that cannot show its gain. One that drains the backlog
    // already must drain it sooner with the restart, whose downtime adds to it.
    const Capacities c = BottleneckCapacities(context, summaries, input_rate);
    if (c.unknown.empty() && c.before > input_rate) {
      const double drain_now = lag / (c.before - input_rate);
      const double drain_after =
          c.after > input_rate
              ? restart_seconds + (lag + input_rate * restart_seconds) / (c.after - input_rate)
              : std::numeric_limits<double>::infinity();
      if (!(drain_after < drain_now)) {
        return core::ExecutorResult::Veto(
            "backlog of " + FormatFixed(lag / input_rate, 0) + "s of input drains in " +
            FormatFixed(drain_now, 0) + "s at the bottleneck's " + FormatFixed(c.before, 0) + " records/s, " +
            (std::isfinite(drain_after) ? "in " + FormatFixed(drain_after, 0) + "s" : "never") +
            " after a " + FormatFixed(restart_seconds, 0) + "s restart at the expected " +
            FormatFixed(c.after, 0) + " records/s");
      }
    }
    return core::ExecutorResult::Approve(
        "backlog of " + FormatFixed(lag / input_rate, 0) + "s of input is above approveAboveLagSeconds " +
        FormatFixed(options_.approve_above_lag_seconds, 0) + "s: the scale-up is not weighed against its restart");
  }

  double benefit = 0;
  if (scale_up) {
    if (!(input_rate > 0)) {
      return core::ExecutorResult::Veto(
          std::string("the sources' ") + core::kMetricTargetDataRate +
          " is zero: capacities in source records/s are unknown");
    }
    const Capacities c = BottleneckCapacities(context, summaries, input_rate);
    if (!c.unknown.empty()) return core::ExecutorResult::Veto(c.unknown);
    const double before = c.before, after = c.after;
    // A bottleneck below the input rate lets the backlog grow for as long as the load lasts: if
    // it would pass the threshold within the period anyway, restarting now keeps it smallest.
    const double projected = lag + std::max(0.0, input_rate - before) * period;
    if (options_.approve_above_lag_seconds > 0 &&
        projected / input_rate > options_.approve_above_lag_seconds) {
      return core::ExecutorResult::Approve(
          "the bottleneck carries " + FormatFixed(before, 0) + " of " + FormatFixed(input_rate, 0) +
          " records/s: within " + FormatFixed(period, 0) + "s the backlog would reach " +
          FormatFixed(projected / input_rate, 0) + "s of input, above approveAboveLagSeconds " +
          FormatFixed(options_.approve_above_lag_seconds, 0) +
          "s: the scale-up is not weighed against its restart");
    }
    const double demand = lag + input_rate * period;
    benefit += std::min(after * period, demand) - std::min(before * period, demand);
  }
  int freed = 0;
  if (gate_down) {
    freed = core::SlotsNeeded(topology, summaries, options_.slot_sharing, false) -
            core::SlotsNeeded(topology, summaries, options_.slot_sharing, true);
    if (freed > 0) benefit += freed * period * options_.scale_down_records_per_slot_second;
  }
  const double cost = restart_seconds * input_rate;
  const std::string numbers = "expected benefit " + FormatFixed(benefit, 0) + " records over " +
                              FormatFixed(period, 0) + "s";
  const std::string cost_text = "restart cost " + FormatFixed(cost, 0) + " records (" +
                                FormatFixed(restart_seconds, 0) + "s downtime at " +
                                FormatFixed(input_rate, 0) + " records/s)";
  if (benefit < cost && freed > 0 && options_.scale_down_break_even) {
    // Rent or buy: the slots kept so far are rent already paid.
    const int64_t now_ms = ToUnixMillis(context.now);
    const auto gap_ms = static_cast<int64_t>(options_.break_even_gap_seconds * 1000);
    ScaleDownWait w{now_ms, now_ms, 0};
    if (waited && now_ms >= waited->last_ms && now_ms - waited->last_ms <= gap_ms) {
      w = *waited;
      w.kept_slot_seconds += freed * static_cast<double>(now_ms - waited->last_ms) / 1000;
      w.last_ms = now_ms;
    }
    const double kept = w.kept_slot_seconds * options_.scale_down_records_per_slot_second;
    const std::string kept_text =
        "the slots this scale-down would have freed were kept for " +
        FormatFixed(static_cast<double>(w.last_ms - w.since_ms) / 1000, 0) + "s (" +
        FormatFixed(w.kept_slot_seconds, 0) + " slot-seconds, worth " + FormatFixed(kept, 0) + " records)";
    if (kept >= cost) {
      return core::ExecutorResult::Approve(kept_text + ": they have paid for the " + cost_text +
                                           " (scaleDownBreakEven)");
    }
    PutWait(plugin_state, w);
    return core::ExecutorResult::Veto(numbers + " is below the " + cost_text + "; " + kept_text +
                                      " so far (scaleDownBreakEven)");
  }
  if (benefit < cost) {
    return core::ExecutorResult::Veto(numbers + " is below the " + cost_text);
  }
  return core::ExecutorResult::Approve(numbers + " covers the " + cost_text);
}

}  // namespace trimtab::plugins
