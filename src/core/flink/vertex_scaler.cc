#include "core/flink/vertex_scaler.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "core/flink/delayed_scale_down.h"
#include "core/flink/evaluator.h"
#include "core/flink/java_number_format.h"
#include "core/flink/parallelism_alignment.h"

namespace trimtab::core::flink {
namespace {

std::string Num(double v) { return FormatLogNumber(v); }

// What parallelism is fitted to: source partitions, else the key groups behind a HASH input;
// 0 = neither.
int AlignmentUnits(bool has_hash_input, int num_partitions, int max_parallelism) {
  return num_partitions > 0 ? num_partitions : has_hash_input ? max_parallelism : 0;
}

// The hot key a scale-down counts (ScaleParallelism): measured at the current, higher
// parallelism, it stays on one subtask as the vertex shrinks. A scale-up counts none.
double ScaleDownHotExcess(int units, int current, double scale_factor, double load_imbalance) {
  return scale_factor < 1 ? HotKeyExcess(units, current, load_imbalance) : 0;
}

// The history entry shows the vertex too small for `target_capacity`: it ran near capacity (at
// least `min_load` busy, so its rate was measured rather than extrapolated from little busy time)
// and processed less.
bool FellShort(const ScalingHistoryEntry& e, double target_capacity, double min_load) {
  const double rate = Average(e.summary.metrics, kMetricTrueProcessingRate);
  return Average(e.summary.metrics, kMetricLoad) >= min_load && rate > 0 &&
         rate < target_capacity;
}

}  // namespace

double EffectiveParallelism(int p, int units) {
  if (units <= 0) return p;
  if (p >= units) return units;
  const int busiest = (units + p - 1) / p;  // ceil(units / p) key groups or partitions
  return static_cast<double>(units) / busiest;
}

double HotKeyExcess(int units, int p, double load_imbalance) {
  if (units <= 0 || !std::isfinite(load_imbalance)) return 0;
  return std::max(0.0, load_imbalance / p - 1 / EffectiveParallelism(p, units));
}

double CapacityGain(int units, int current, int p, BusyTimeAggregator aggregator,
                    double hot_excess) {
  // The busiest subtask's share of the load at parallelism q.
  const auto busiest_share = [&](int q) {
    return std::min(1.0, 1 / EffectiveParallelism(q, units) + hot_excess);
  };
  // MAX / MIN busy time measure the rate the busiest subtask allows; AVG measures the subtasks'
  // mean, as if the load were spread evenly over `current` subtasks.
  const double measured =
      aggregator == BusyTimeAggregator::kAvg ? 1.0 / current : busiest_share(current);
  return measured / busiest_share(p);
}

int ScaleParallelism(int current, bool has_hash_input, int num_partitions, int max_parallelism,
                     double scale_factor, int lower, int upper, AlignmentMode mode,
                     const CapacityInput& capacity, std::optional<std::string>* limited) {
  const int upper_bound = std::min(max_parallelism, upper);
  const int units = AlignmentUnits(has_hash_input, num_partitions, max_parallelism);
  if (mode == AlignmentMode::kCapacity && units > 0) {
    // The smallest parallelism that carries scale_factor times what the vertex carries now; past
    // `units` subtasks nothing is gained.
    const double hot =
        ScaleDownHotExcess(units, current, scale_factor, capacity.load_imbalance);
    const int last = std::max(lower, std::min(units, upper_bound));
    for (int p = std::max(1, lower); p < last; ++p) {
      if (CapacityGain(units, current, p, capacity.aggregator, hot) >= scale_factor * (1 - 1e-9)) {
        return p;
      }
    }
    return last;
  }
  const double raw = std::min(std::ceil(scale_factor * current),
                              static_cast<double>(std::numeric_limits<int>::max()));
  int p = std::min(std::max(lower, static_cast<int>(raw)), upper_bound);
  if (p == current) return p;
  AlignmentResult a = AlignParallelism({.proposed = p,
                                        .current = current,
                                        .num_partitions = num_partitions,
                                        .max_parallelism = max_parallelism,
                                        .lower = lower,
                                        .upper = upper,
                                        .has_hash_input = has_hash_input},
                                       mode);
  if (limited) *limited = a.limited;
  return a.parallelism;
}

double ObservedScalingCoefficient(const std::vector<ScalingHistoryEntry>& history,
                                  const AutoscalerOptions& o) {
  if (history.empty() ||
      static_cast<int>(history.size()) < o.observed_scalability_min_observations) {
    return 1.0;
  }
  // Baseline: TPR of the newest entry that ran with parallelism 1, else TPR per subtask of the
  // newest entry with the smallest parallelism.
  double baseline = std::numeric_limits<double>::quiet_NaN();
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (it->summary.current_parallelism == 1) {
      baseline = Average(it->summary.metrics, kMetricTrueProcessingRate);
      break;
    }
  }
  if (std::isnan(baseline)) {
    const ScalingHistoryEntry* smallest = nullptr;
    for (auto it = history.rbegin(); it != history.rend(); ++it) {
      if (!smallest || it->summary.current_parallelism < smallest->summary.current_parallelism) {
        smallest = &*it;
      }
    }
    baseline = Average(smallest->summary.metrics, kMetricTrueProcessingRate) /
               smallest->summary.current_parallelism;
  }
  if (std::isnan(baseline) || baseline == 0) return 1.0;
  double sum_pr = 0, sum_pp = 0;
  for (const ScalingHistoryEntry& e : history) {
    const double p = e.summary.current_parallelism;
    const double r = Average(e.summary.metrics, kMetricTrueProcessingRate);
    if (std::isnan(r)) return 1.0;
    sum_pr += p * r;
    sum_pp += p * p;
  }
  if (sum_pp == 0) return 1.0;
  double alpha = sum_pr / (sum_pp * baseline);
  if (!std::isfinite(alpha)) return 1.0;
  alpha = std::clamp(alpha, o.observed_scalability_coefficient_min, 1.0);
  return std::ceil(alpha * 100.0 - 1e-9) / 100.0;
}

std::optional<ObservedCapacityFloor> ObservedCapacityScaleUp(
    const std::vector<ScalingHistoryEntry>& history, int current, int proposed,
    double target_capacity, double min_load, const std::function<int(int, double)>& scale_from) {
  // The strongest evidence: the largest parallelism at or above the proposal that fell short.
  const ScalingHistoryEntry* best = nullptr;
  for (const ScalingHistoryEntry& e : history) {
    const int q = e.summary.current_parallelism;
    if (q <= current || q < proposed || !FellShort(e, target_capacity, min_load)) continue;
    if (!best || q > best->summary.current_parallelism) best = &e;
  }
  if (!best) return std::nullopt;
  const int q = best->summary.current_parallelism;
  const double rate = Average(best->summary.metrics, kMetricTrueProcessingRate);
  const int p = std::max(q, scale_from(q, target_capacity / rate));
  if (p <= proposed) return std::nullopt;
  return ObservedCapacityFloor{p, q, rate};
}

const ScalingSummary* HeldScaleDown(const std::vector<ScalingHistoryEntry>& history, int current,
                                    TimePoint since) {
  if (history.empty() || history.back().time < since) return nullptr;
  const ScalingSummary& last = history.back().summary;
  const bool held = last.new_parallelism == current &&
                    last.new_parallelism < last.current_parallelism &&
                    Current(last.metrics, kMetricRecommendedParallelism) < last.new_parallelism;
  return held ? &last : nullptr;
}

int LargestShortParallelism(const std::vector<ScalingHistoryEntry>& history,
                            double target_capacity, double min_load) {
  int largest = 0;
  for (const ScalingHistoryEntry& e : history) {
    if (FellShort(e, target_capacity, min_load)) {
      largest = std::max(largest, e.summary.current_parallelism);
    }
  }
  return largest;
}

std::optional<HotKeyScaleDown> ProposeHotKeyScaleDown(
    const HotKeyInput& in, const std::vector<ScalingHistoryEntry>& history, double min_load) {
  if (in.current < kHotKeyMinParallelism || !(in.load_imbalance >= kHotKeyMinImbalance) ||
      !(in.tpr > 0) || !std::isfinite(in.scale_up_threshold)) {
    return std::nullopt;
  }
  const double hot = HotKeyExcess(in.units, in.current, in.load_imbalance);
  const double need = kHotKeyHeadroom * in.scale_up_threshold;
  const int too_small = LargestShortParallelism(history, need, min_load);
  // The smallest parallelism, down to half, that still carries `need` by the CAPACITY model
  // with the hot key measured now; the subtasks above it must be next to idle.
  for (int q = std::max((in.current + 1) / 2, too_small + 1); q < in.current; ++q) {
    const double capacity =
        in.tpr * CapacityGain(in.units, in.current, q, in.aggregator, hot);
    if (capacity < need) continue;
    const double average = capacity / q;
    const double marginal = (in.tpr - capacity) / (in.current - q);
    if (!(marginal < in.marginal_capacity * average)) return std::nullopt;
    return HotKeyScaleDown{
        q, "hot key: the busiest subtask is " + Num(in.load_imbalance) +
               "x as busy as the mean; the last " + std::to_string(in.current - q) +
               " subtasks add " + Num(marginal) + "/s each, " +
               Num(100 * marginal / average) + " % of an average subtask's " + Num(average) +
               "/s"};
  }
  return std::nullopt;
}

bool OutsideUtilizationBound(const MetricMap& m) {
  const double tpr = Average(m, kMetricTrueProcessingRate);
  return tpr < Current(m, kMetricScaleUpRateThreshold) ||
         tpr > Current(m, kMetricScaleDownRateThreshold);
}

ParallelismChange ComputeScaleTargetParallelism(const AutoscalerOptions& o,
                                                const VertexScalingInput& in, MetricMap* metrics,
                                                std::map<VertexId, VertexDelayedScaleDown>* delayed,
                                                std::vector<AutoscalerEvent>* events) {
  ParallelismChange none;
  const int current = static_cast<int>(Current(*metrics, kMetricParallelism));
  const double tpr = Average(*metrics, kMetricTrueProcessingRate);
  if (std::isnan(tpr)) {
    none.reason = "true processing rate is not available";
    return none;
  }
  const double target_capacity =
      TargetProcessingCapacity(*metrics, o, o.target_utilization, true, in.restart_time);
  if (std::isnan(target_capacity)) {
    none.reason = "target data rate is not available";
    return none;
  }
  double scale_factor = target_capacity / tpr;
  static const std::vector<ScalingHistoryEntry> kEmpty;
  const std::vector<ScalingHistoryEntry>& history = in.history ? *in.history : kEmpty;
  if (o.observed_scalability_enabled) scale_factor /= ObservedScalingCoefficient(history, o);
  scale_factor = std::clamp(scale_factor, 1 - o.max_scale_down_factor, 1 + o.max_scale_up_factor);

  const int lower = std::min(current, in.min_parallelism.value_or(o.vertex_min_parallelism));
  const int upper = std::max(current, in.max_parallelism.value_or(o.vertex_max_parallelism));
  std::optional<std::string> limited;
  const int num_partitions = static_cast<int>(Current(*metrics, kMetricNumSourcePartitions));
  const int max_parallelism = static_cast<int>(Current(*metrics, kMetricMaxParallelism));
  const double imbalance = Average(*metrics, kMetricLoadImbalance);
  const int units = AlignmentUnits(in.has_hash_input, num_partitions, max_parallelism);
  int new_p = ScaleParallelism(current, in.has_hash_input,
                               num_partitions > 0 ? num_partitions : 0, max_parallelism,
                               scale_factor, lower, upper, o.alignment_mode,
                               {o.busy_time_aggregator, imbalance}, &limited);
  // Whether alignment applied to this proposal, and what it made of the clamped one.
  std::optional<VertexAlignment> alignment;
  if (units > 0 && o.alignment_mode != AlignmentMode::kOff) {
    const double raw = std::min(std::ceil(scale_factor * current),
                                static_cast<double>(std::numeric_limits<int>::max()));
    const int clamped =
        std::min(std::max(lower, static_cast<int>(raw)), std::min(max_parallelism, upper));
    if (clamped != current || o.alignment_mode == AlignmentMode::kCapacity) {
      alignment = VertexAlignment{num_partitions > 0 ? "partitions" : "keyGroups",
                                  std::string(AlignmentModeName(o.alignment_mode)), units,
                                  clamped, new_p};
    }
  }
  if (limited) {
    events->push_back({"Warning", "ScalingLimited",
                       "Scaling limited detected for " + in.vertex + " (" + *limited,
                       "ScalingLimited" + in.vertex});
    // Upstream text: "... for <v> (expected parallelism: X, actual parallelism Y). ..."
    std::string& msg = events->back().message;
    const size_t dot = msg.find(". Scaling limited due to");
    if (dot != std::string::npos) msg.insert(dot, ")");
  }
  // trimtab (observed-capacity.enabled): the history may know that the proposed parallelism is
  // too small.
  std::optional<ObservedCapacityFloor> floor;
  if (o.observed_capacity_enabled && new_p > current) {
    floor = ObservedCapacityScaleUp(
        history, current, new_p, target_capacity, o.target_utilization,
        [&](int q, double factor) {
          return ScaleParallelism(q, in.has_hash_input, num_partitions > 0 ? num_partitions : 0,
                                  max_parallelism,
                                  std::min(factor, 1 + o.max_scale_up_factor), q, upper,
                                  o.alignment_mode, {o.busy_time_aggregator, imbalance});
        });
    if (floor && floor->parallelism > std::min(max_parallelism, upper)) floor.reset();
    if (floor) new_p = floor->parallelism;
  }
  // trimtab (scale-down.follow-through.window): inside its band, a vertex whose last scale-down
  // was held short (by the behavior rules, or a plugin) goes on towards what was recommended.
  const ScalingSummary* held = nullptr;
  if (o.scale_down_follow_through_window > Millis(0) && new_p < current) {
    const double down_threshold = Current(*metrics, kMetricScaleDownRateThreshold);
    if (std::isfinite(down_threshold) && !(tpr > down_threshold)) {
      held = HeldScaleDown(history, current, in.now - o.scale_down_follow_through_window);
    }
  }
  int recommended = 0;
  if (held) {
    recommended = static_cast<int>(Current(held->metrics, kMetricRecommendedParallelism));
    const int too_small = LargestShortParallelism(history, target_capacity, o.target_utilization);
    new_p = std::max({new_p, recommended, too_small + 1});
    if (new_p >= current) {
      delayed->erase(in.vertex);
      none.reason = "within utilization band; the scale-down held at " + std::to_string(current) +
                    " goes no lower: parallelism " + std::to_string(too_small) +
                    " was too small";
      return none;
    }
  }
  // trimtab (scale-down.hot-key.marginal-capacity): inside its band, a vertex whose hot key
  // leaves its last subtasks next to idle gives them back (no lower than a scale-down the
  // algorithm proposes, which inside the band would not be acted on).
  std::optional<HotKeyScaleDown> hot_key;
  if (o.scale_down_hot_key_marginal_capacity > 0 && !held && new_p <= current &&
      o.alignment_mode == AlignmentMode::kCapacity) {
    const double catch_up = Current(*metrics, kMetricCatchUpDataRate);
    const bool caught_up = !(catch_up > 0.01 * Average(*metrics, kMetricTargetDataRate));
    if (units > 0 && caught_up && !OutsideUtilizationBound(*metrics)) {
      hot_key = ProposeHotKeyScaleDown(
          {units, current, tpr, imbalance, Current(*metrics, kMetricScaleUpRateThreshold),
           o.busy_time_aggregator, o.scale_down_hot_key_marginal_capacity},
          history, o.target_utilization);
      if (hot_key) {
        new_p = new_p < current ? std::max(new_p, hot_key->parallelism) : hot_key->parallelism;
      }
    }
  }
  if (new_p == current) {
    delayed->erase(in.vertex);
    none.alignment = alignment;
    none.reason = "already at target parallelism " + std::to_string(current) +
                  " (scale factor " + Num(scale_factor) + ")";
    return none;
  }
  // What the vertex should process at new_p: linear in the parallelism, or, with CAPACITY, in
  // the busiest subtask's share of the load; from the observation the scale-up was sized from.
  // The share counts the hot key measured now in both directions. A scale-up is sized without it
  // (at low parallelism hot keys hide among many key groups and may spread as the vertex grows),
  // but what it is expected to gain, which the restart-cost gate weighs, is the conservative
  // figure: a hot key measured at 56 subtasks had a 50-GB job go to 144 and 200 on gains that
  // never came (docs/benchmarks.md).
  const int base_p = floor ? floor->observed_parallelism : current;
  const double base_tpr = floor ? floor->observed_rate : tpr;
  double gain = static_cast<double>(new_p) / base_p;
  if (o.alignment_mode == AlignmentMode::kCapacity && units > 0) {
    gain = CapacityGain(units, base_p, new_p, o.busy_time_aggregator,
                        HotKeyExcess(units, base_p, imbalance));
  }
  SetCurrent(metrics, kMetricExpectedProcessingRate, base_tpr * gain);
  const bool outside =
      OutsideUtilizationBound(*metrics) || held != nullptr || hot_key.has_value();
  std::string band = outside ? "outside utilization band" : "within utilization band";
  if (hot_key) band = hot_key->reason;
  if (held) {
    band = "follows through the scale-down " + std::to_string(held->current_parallelism) +
           " -> " + std::to_string(held->new_parallelism) +
           ", held above the recommended " + std::to_string(recommended);
  }

  if (new_p > current) {
    delayed->erase(in.vertex);
    if (!history.empty()) {
      const ScalingSummary& last = history.back().summary;
      if (current == last.new_parallelism && last.new_parallelism > last.current_parallelism) {
        const double last_tpr = Average(last.metrics, kMetricTrueProcessingRate);
        const double last_expected = Current(last.metrics, kMetricExpectedProcessingRate);
        const double expected_increase = last_expected - last_tpr;
        const double actual_increase = tpr - last_tpr;
        if (!(actual_increase / expected_increase >= o.scaling_effectiveness_threshold)) {
          const bool block = o.scaling_effectiveness_detection_enabled;
          // Upstream prints both increases as Java doubles ("90.0") and dedupes the event per
          // vertex and expected increase.
          events->push_back(
              {"Normal", "IneffectiveScaling",
               "Ineffective scaling detected for " + in.vertex + " (expected increase: " +
                   FormatJavaDouble(expected_increase) + ", actual increase " +
                   FormatJavaDouble(actual_increase) +
                   "). Blocking of ineffective scaling decisions is " +
                   (block ? "enabled" : "disabled"),
               "ineffective" + in.vertex + FormatJavaDouble(expected_increase)});
          if (block) {
            metrics->erase(kMetricExpectedProcessingRate);
            none.reason = "ineffective scaling: expected increase " + Num(expected_increase) +
                          " got " + Num(actual_increase) + "; scale-up to " +
                          std::to_string(new_p) + " blocked";
            return none;
          }
        }
      }
    }
    std::string why = band;
    if (floor) {
      why += "; sized from the scaling history: at parallelism " +
             std::to_string(floor->observed_parallelism) + " it processed " +
             Num(floor->observed_rate) + "/s, short of the target capacity " +
             Num(target_capacity) + "/s";
    }
    return {true, new_p, outside,
            "scale up " + std::to_string(current) + " -> " + std::to_string(new_p) + " (" + why +
                ")",
            alignment};
  }

  // Scale down: delayed by scale-down.interval.
  if (o.scale_down_interval.count() <= 0) {
    return {true, new_p, outside,
            "scale down " + std::to_string(current) + " -> " + std::to_string(new_p) + " (" +
                band + ")",
            alignment};
  }
  const TimePoint window_start = in.now - o.scale_down_interval;
  VertexDelayedScaleDown& d = TriggerScaleDown(delayed, in.vertex, in.now, new_p, outside);
  if (window_start < d.first_trigger_time) {
    metrics->erase(kMetricExpectedProcessingRate);
    none.reason = "scale-down to " + std::to_string(new_p) + " delayed until " +
                  FormatRfc3339(d.first_trigger_time + o.scale_down_interval) +
                  " (scale-down.interval " + FormatFlinkDuration(o.scale_down_interval) + ")";
    return none;
  }
  // Upstream keeps EXPECTED_PROCESSING_RATE of this cycle's recommendation (new_p) here.
  const DelayedScaleDownRecommendation best = MaxRecommendation(&d, window_start);
  return {true, best.parallelism, best.outside_utilization_bound,
          "scale down " + std::to_string(current) + " -> " + std::to_string(best.parallelism) +
              " (highest recommendation within scale-down.interval " +
              FormatFlinkDuration(o.scale_down_interval) + "; " +
              (best.outside_utilization_bound ? "outside" : "within") + " utilization band)",
          alignment};
}

}  // namespace trimtab::core::flink
