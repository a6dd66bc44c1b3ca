// Target parallelism of one vertex (reference notes §C.4, §C.6, §C.7): scale factor from the
// target processing capacity and the true processing rate, capped by the max up/down factors,
// clamped to min/max parallelism, aligned to key groups / partitions, then ineffective-scaling
// detection for scale-ups and delayed scale-down for scale-downs.
//
// Thread-safety: pure functions (state passed explicitly).
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "core/flink/autoscaler_options.h"
#include "core/flink/autoscaler_state.h"
#include "core/flink/decision_log.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {

struct ParallelismChange {
  bool change = false;  // false = keep the current parallelism
  int new_parallelism = 0;
  bool outside_utilization_bound = false;
  // Why, for the decision log ("within utilization band", "scale-down delayed until ...").
  std::string reason;
  // Set when the proposal was aligned to key groups or partitions (see VertexAlignment).
  std::optional<VertexAlignment> alignment;
};

struct VertexScalingInput {
  VertexId vertex;
  bool has_hash_input = false;
  const std::vector<ScalingHistoryEntry>* history = nullptr;  // may be null = empty
  Millis restart_time{0};
  TimePoint now;
  // Explicit limits for this vertex (eval flink's `parallelismLimits`): in place of
  // vertex.min-parallelism / vertex.max-parallelism when set.
  std::optional<int> min_parallelism;
  std::optional<int> max_parallelism;
};

// Subtasks' worth of processing capacity at parallelism `p` when `units` key groups (or source
// partitions) are spread as evenly as Flink spreads them: the busiest subtask holds
// ceil(units / p) of them and saturates first, so the vertex carries units / ceil(units / p)
// subtasks' worth (p when p divides units, never more than units). units <= 0: p.
double EffectiveParallelism(int p, int units);

// The share of a keyed or partitioned vertex's load that a hot key adds to its busiest subtask,
// beyond that subtask's ceil(units / p) key groups or partitions, measured at parallelism p from
// LOAD_IMBALANCE (the busiest subtask's busy time over the mean; NaN = unknown: 0).
double HotKeyExcess(int units, int p, double load_imbalance);

// How many times more a keyed or partitioned vertex carries at parallelism p than at `current`,
// where its true processing rate was measured with `aggregator`: MAX (the default) and MIN see
// the rate the busiest subtask allows, AVG the rate of an even spread over `current` subtasks.
// The busiest subtask holds ceil(units / p) / units of the load plus `hot_excess`, which stays
// on one subtask wherever the parallelism goes.
double CapacityGain(int units, int current, int p, BusyTimeAggregator aggregator,
                    double hot_excess = 0);

struct CapacityInput {
  BusyTimeAggregator aggregator = BusyTimeAggregator::kMax;
  double load_imbalance = std::numeric_limits<double>::quiet_NaN();  // LOAD_IMBALANCE
};

// Upstream JobVertexScaler.scale: ceil(scale_factor × current) clamped to
// [lower, min(max_parallelism, upper)] and aligned when it differs from `current`.
// With AlignmentMode::kCapacity (trimtab) and keyed or partitioned input instead: the smallest
// parallelism in [lower, min(units, max_parallelism, upper)] whose CapacityGain reaches
// scale_factor, units = num_partitions if > 0, else max_parallelism for a HASH input (no divisor
// rounding: the gain already counts the uneven split). A scale-down (scale_factor < 1) counts the
// hot key measured now (HotKeyExcess): at high parallelism a hot key makes every subtask look
// slow, and the vertex loses less than a linear share when it shrinks. A scale-up does not: at
// low parallelism hot keys hide among many key groups, and several of them spread out later.
// REQUIRES: lower <= upper.
int ScaleParallelism(int current, bool has_hash_input, int num_partitions, int max_parallelism,
                     double scale_factor, int lower, int upper, AlignmentMode mode,
                     const CapacityInput& capacity = {},
                     std::optional<std::string>* limited = nullptr);

// trimtab (observed-capacity.enabled): what the scaling history says a scale-up from `current`
// to `proposed` needs. A history entry at parallelism q > current, q >= proposed, that processed
// less than `target_capacity` while its LOAD was at least `min_load` (a rate measured at low load
// is extrapolated from little busy time) shows that `proposed` falls short as well (capacity does
// not fall as subtasks are added); the largest such q is taken and the vertex is scaled from it,
// scale_from(q, target_capacity / its rate), never below q. nullopt when no entry says so or the
// result is not above `proposed`.
struct ObservedCapacityFloor {
  int parallelism = 0;           // the scale-up's new parallelism
  int observed_parallelism = 0;  // the history entry it was sized from
  double observed_rate = 0;      // its TRUE_PROCESSING_RATE
};
std::optional<ObservedCapacityFloor> ObservedCapacityScaleUp(
    const std::vector<ScalingHistoryEntry>& history, int current, int proposed,
    double target_capacity, double min_load,
    const std::function<int(int q, double scale_factor)>& scale_from);

// Observed scalability coefficient α in [coefficient-min, 1], rounded up to 2 decimals; 1.0
// without enough history or with unknown rates.
double ObservedScalingCoefficient(const std::vector<ScalingHistoryEntry>& history,
                                  const AutoscalerOptions& o);

// Computes the change for one vertex. `metrics` must hold PARALLELISM, MAX_PARALLELISM,
// NUM_SOURCE_PARTITIONS, TRUE_PROCESSING_RATE, TARGET_DATA_RATE, CATCH_UP_DATA_RATE and the
// thresholds; EXPECTED_PROCESSING_RATE is added when the algorithm wants a change.
// `delayed` is updated (triggered / cleared); events (IneffectiveScaling, ScalingLimited) are
// appended to `events`.
ParallelismChange ComputeScaleTargetParallelism(const AutoscalerOptions& o,
                                                const VertexScalingInput& in, MetricMap* metrics,
                                                std::map<VertexId, VertexDelayedScaleDown>* delayed,
                                                std::vector<AutoscalerEvent>* events);

// True when the average TPR is below the scale-up or above the scale-down threshold.
bool OutsideUtilizationBound(const MetricMap& m);

// scale-down.follow-through.window: the vertex's last rescale when it happened at or after
// `since`, set the `current` parallelism and was a scale-down held above the algorithm's
// recommendation (RECOMMENDED_PARALLELISM in its metrics) by the behavior rules or an executor
// plugin; else nullptr.
const ScalingSummary* HeldScaleDown(const std::vector<ScalingHistoryEntry>& history, int current,
                                    TimePoint since);
// The largest parallelism at which the history saw the vertex at least `min_load` busy yet
// processing less than `target_capacity` (too small for it); 0 when none.
int LargestShortParallelism(const std::vector<ScalingHistoryEntry>& history,
                            double target_capacity, double min_load);

// scale-down.hot-key.marginal-capacity: a vertex inside its utilization band whose busiest
// subtask holds a hot key (LOAD_IMBALANCE at least kHotKeyMinImbalance, at least
// kHotKeyMinParallelism subtasks). By the CAPACITY model with the hot key measured now
// (CapacityGain with HotKeyExcess), take the smallest parallelism q, no lower than half of
// `current` nor than LargestShortParallelism(history, need, min_load) + 1, that still carries
// need = kHotKeyHeadroom x the scale-up threshold. It is proposed when the subtasks above it each
// add less than `marginal_capacity` of an average subtask's capacity at q; else nullopt.
inline constexpr double kHotKeyMinImbalance = 2.0;
inline constexpr int kHotKeyMinParallelism = 4;
// The smaller parallelism must carry this much more than where the vertex would scale up: the
// hot-key model is an estimate, and key groups split unevenly at some parallelisms.
inline constexpr double kHotKeyHeadroom = 1.15;
struct HotKeyInput {
  int units = 0;  // key groups (or partitions) the load is spread over
  int current = 0;
  double tpr = 0;  // TRUE_PROCESSING_RATE at `current`
  double load_imbalance = std::numeric_limits<double>::quiet_NaN();
  double scale_up_threshold = std::numeric_limits<double>::quiet_NaN();
  BusyTimeAggregator aggregator = BusyTimeAggregator::kMax;
  double marginal_capacity = 0;  // the option's value
};
struct HotKeyScaleDown {
  int parallelism = 0;
  std::string reason;
};
std::optional<HotKeyScaleDown> ProposeHotKeyScaleDown(
    const HotKeyInput& in, const std::vector<ScalingHistoryEntry>& history, double min_load);

}  // namespace trimtab::core::flink
