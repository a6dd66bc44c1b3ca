// AutoscalerOptions: every `job.autoscaler.*` option of the upstream Flink autoscaler with its
// upstream default (main branch, see reference notes §C.10), parsed from a Flink configuration
// map, plus trimtab's `job.autoscaler.behavior.*` extension (docs/eval-flink.md).
//
// Key resolution per option, first hit wins: `job.autoscaler.<k>`, then the legacy prefix
// `kubernetes.operator.job.autoscaler.<k>`, then the same two prefixes for each deprecated alias
// (`target.utilization` for `utilization.target`, `scale-up.grace-period` for
// `scale-down.interval`). Errors name the key as written in the map.
//
// Keys under either prefix that trimtab does not know are ignored as Flink ignores them and are
// listed in `ignored_keys` so the decision log can show them.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(AutoscalerOptions o, ParseAutoscalerOptions(flink_conf));
//
// Thread-safety: values.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/flink_values.h"
#include "common/number_format.h"
#include "common/status.h"
#include "core/flink/excluded_periods.h"
#include "core/flink/trimtab_defaults.h"

namespace trimtab::core::flink {

using Millis = std::chrono::milliseconds;

// How a proposed parallelism is aligned to the key groups / source partitions (§C.5).
enum class AlignmentMode {
  kBalanced,      // divisor or load-reducing value above the proposal; none => keep the proposal
  kEvenlySpread,  // divisor above the proposal; none => keep the proposal
  kOff,           // no alignment
  // trimtab: the smallest parallelism whose busiest subtask (ceil(N/p) key groups or partitions)
  // carries the target, instead of ceil(scale factor × p) then a divisor (vertex_scaler.h).
  kCapacity,
  // The deprecated `scaling.key-group.partitions.adjust.mode` (≤1.15 semantics): divisor (or, for
  // MAXIMIZE_UTILISATION, load-reducing) above the proposal, then a relaxed downward search that
  // may block the scaling (emits ScalingLimited).
  kLegacyEvenlySpread,
  kLegacyMaximizeUtilisation,
};
std::string_view AlignmentModeName(AlignmentMode m);

// MAX / MIN: busy time from the per-sample max/min over subtasks; AVG: from accumulated busy time.
enum class BusyTimeAggregator { kMax, kMin, kAvg };

// trimtab extension: HPA-style behavior rules applied per vertex to the parallelism.
struct RatePolicy {
  enum class Type { kPods, kPercent } type = Type::kPods;
  int value = 0;       // > 0
  Millis period{0};    // > 0
};
enum class SelectPolicy { kMax, kMin, kDisabled };
struct BehaviorRules {
  std::optional<Millis> stabilization_window;  // absent = no stabilization in this direction
  std::vector<RatePolicy> policies;            // empty = no rate limit in this direction
  SelectPolicy select_policy = SelectPolicy::kMax;
};
struct BehaviorOptions {
  bool enabled = false;  // true iff any job.autoscaler.behavior.* key was set
  BehaviorRules scale_up;
  BehaviorRules scale_down;
};

struct AutoscalerOptions {
  // `job.autoscaler.defaults`: which defaults the options not set were taken from
  // (trimtab_defaults.h). kTrimtab also brings trimtab's default executor plugins where the caller
  // runs a chain (the operator's autoscaler).
  AutoscalerDefaults defaults = AutoscalerDefaults::kFlink;
  bool enabled = false;
  bool scaling_enabled = true;  // false: evaluate and recommend, never scale
  Millis metrics_window{15 * 60 * 1000};
  Millis stabilization_interval{5 * 60 * 1000};
  std::string excluded_periods_text;
  std::vector<ExcludedPeriod> excluded_periods;
  double target_utilization = 0.7;
  double target_utilization_boundary = 0.3;
  std::optional<double> utilization_max;
  std::optional<double> utilization_min;
  Millis scale_down_interval{60 * 60 * 1000};
  int vertex_min_parallelism = 1;
  int vertex_max_parallelism = 200;
  double max_scale_down_factor = 0.6;
  double max_scale_up_factor = 100000.0;
  Millis catch_up_duration{30 * 60 * 1000};
  Millis restart_time{5 * 60 * 1000};
  bool restart_time_tracking_enabled = false;
  Millis restart_time_tracking_limit{15 * 60 * 1000};
  // trimtab extension (docs/eval-flink.md, "Restart backlog"): with time tracking, a restart
  // counts as long as the input it left waiting (downtime plus replay from the last checkpoint)
  // when that is longer than the time it took.
  bool restart_time_tracking_backlog = false;
  // trimtab extension (docs/eval-flink.md, "Scale-down window from the restart time"): with
  // behavior rules, the scale-down stabilization window is at least this many times the
  // effective restart time. 0 = off.
  double scale_down_restart_time_factor = 0;
  // trimtab extension (docs/eval-flink.md, "Restart catch-up from the utilization headroom"): the
  // restart catch-up rate (TARGET_DATA_RATE x restart time / catch-up.duration) counts only what
  // the headroom below the utilization target, TARGET_DATA_RATE x (1 / utilization - 1), does not
  // already give. Off = upstream, which adds both.
  bool restart_catch_up_from_headroom = false;
  Millis backlog_processing_lag_threshold{5 * 60 * 1000};
  Millis observed_tpr_lag_threshold{30 * 1000};
  double observed_tpr_switch_threshold = 0.15;
  // trimtab extension (docs/eval-flink.md, "Observed processing rate after stabilization"): a
  // sample taken during stabilization.interval adds no OBSERVED_TPR observation. Off = upstream,
  // which observes the rate of a source whose meters are still filling after a restart.
  bool observed_tpr_after_stabilization = false;
  // trimtab extension (docs/eval-flink.md, "Step detection"): when a source's arrival rate over
  // the latest `step_detection_interval` is above (1 + this) times its window rate, or below the
  // window rate / (1 + this), the latest rate is its TARGET_DATA_RATE. 0 = off (upstream).
  double step_detection_threshold = 0;
  Millis step_detection_interval{60 * 1000};
  // trimtab extension (docs/eval-flink.md, "Early scale-up"): while the metric window refills
  // after a (re)start, a scale-up may be decided once the samples since stabilization span this
  // long and a source's lag grew over them. 0 = off (upstream: no decision before the window is
  // full).
  Millis early_scale_up_window{0};
  // trimtab extension (docs/eval-flink.md, "Observed capacity"): a scale-up is at least what the
  // vertex's scaling history says it needs: when the history shows the vertex processing less
  // than the target capacity at the proposed parallelism or above, the vertex is scaled from
  // that observation instead of from the current one. Off = upstream.
  bool observed_capacity_enabled = false;
  // trimtab extension (docs/eval-flink.md, "Scale-down follow-through"): for this long after a
  // scale-down held above the algorithm's recommendation (by the behavior rules or a plugin), the
  // vertex keeps scaling down towards that recommendation even inside its utilization band
  // (never to a parallelism its history showed too small). 0 = off: the band may keep the vertex
  // where the scale-down stopped for as long as the load stays.
  Millis scale_down_follow_through_window{0};
  // trimtab extension (docs/eval-flink.md, "Restart time from the last checkpoint"): until a
  // restart has been tracked, the restart time is at least the latest completed checkpoint's
  // end-to-end duration (capped by restart.time-tracking.limit): restoring the state takes about
  // as long as writing it, and a job with 50 GB of state does not restart in restart.time's 20 s.
  bool restart_time_from_checkpoint = false;
  // trimtab extension (docs/eval-flink.md, "Hot-key scale-down"): inside its utilization band, a
  // vertex sized by CAPACITY whose busiest subtask is at least twice as busy as the mean (a hot
  // key) scales down, by at most half, when its last subtasks each add less than this fraction
  // of an average subtask's capacity and the smaller parallelism still carries 1.15x the
  // scale-up threshold (never to one its history showed too small). 0 = off: a hot key can keep
  // a vertex at its max parallelism for a few percent of capacity.
  double scale_down_hot_key_marginal_capacity = 0;
  // trimtab extension (docs/eval-flink.md, "Lasting scale-down evidence"): with behavior rules,
  // every evaluated cycle records each vertex's recommendation (its current parallelism when it
  // wants no change or stays within its band) in the behavior history, so that the scale-down
  // stabilization window holds the highest recommendation of the whole window: a dip of a minute
  // or two is one low recommendation among high ones. Off: only the cycles that proposed a change
  // record one, and a dip after a quiet spell is alone in the window.
  bool scale_down_lasting_evidence = false;
  // trimtab extension (docs/eval-flink.md, "Burst hold"): with step detection, a step up seen in
  // the last interval only (beyond (1 + θ)², which is otherwise taken at once) waits for the next
  // interval to confirm it when waiting is cheap: were the burst over after one more interval,
  // the job at its current capacity would drain what it left within catch-up.duration. Off: such
  // a step is always taken at once.
  bool step_burst_hold = false;
  // trimtab extension (docs/eval-flink.md, "Learned scale-down hold"): a vertex whose scaling
  // history shows its scale-downs do not last (of those resolved, more were followed by a
  // scale-up of the vertex within this long than lasted this long, at least two) keeps its
  // parallelism instead of scaling down: two restarts for a level that is gone within minutes.
  // The history ages out (history.max.count / history.max.age). 0 = off.
  Millis scale_down_learned_hold{0};
  int observed_tpr_min_observations = 2;
  bool scaling_effectiveness_detection_enabled = false;
  double scaling_effectiveness_threshold = 0.1;
  double gc_pressure_threshold = 1.0;
  double heap_usage_threshold = 1.0;
  bool memory_tuning_enabled = false;  // parsed; memory tuning itself is not part of this core
  bool memory_tuning_scale_down_compensation = true;
  double memory_tuning_overhead = 0.2;
  bool memory_tuning_maximize_managed_memory = false;
  int history_max_count = 3;
  Millis history_max_age{24 * 60 * 60 * 1000};
  BusyTimeAggregator busy_time_aggregator = BusyTimeAggregator::kMax;
  std::set<std::string> vertex_exclude_ids;
  Millis scaling_event_interval{30 * 60 * 1000};
  Millis rest_client_timeout{10 * 1000};
  std::optional<int64_t> quota_memory_bytes;
  std::optional<double> quota_cpu;
  AlignmentMode alignment_mode = AlignmentMode::kBalanced;
  bool observed_scalability_enabled = false;
  int observed_scalability_min_observations = 3;
  double observed_scalability_coefficient_min = 0.5;
  BehaviorOptions behavior;

  // Keys under job.autoscaler.* / kubernetes.operator.job.autoscaler.* that were not understood.
  std::vector<std::string> ignored_keys;
  // Options that upstream accepts with a warning and a fallback (a custom alignment mode falls
  // back to BALANCED); the decision log shows them.
  std::vector<std::string> warnings;
};

inline constexpr const char kAutoscalerPrefix[] = "job.autoscaler.";
inline constexpr const char kLegacyAutoscalerPrefix[] = "kubernetes.operator.job.autoscaler.";

// Parses and validates (validation as upstream FLINK-39826: range checks of utilization,
// thresholds and factors). With `job.autoscaler.defaults: trimtab` the options the map does not
// set take trimtab's values (WithAutoscalerDefaults) before parsing.
StatusOr<AutoscalerOptions> ParseAutoscalerOptions(const std::map<std::string, std::string>& conf);

}  // namespace trimtab::core::flink
