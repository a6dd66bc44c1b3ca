#include "core/flink/autoscaler_options.h"

#include <cctype>
#include <limits>

#include "common/flink_option_reader.h"

namespace trimtab::core::flink {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

Status CheckRange(const std::string& key, double v, double lo, double hi) {
  if (v < lo || v > hi) {
    return InvalidArgumentError(key + ": " + std::to_string(v) + " is outside [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return Status::Ok();
}

// "<Pods|Percent>:<value>/<period>", e.g. "Pods:4/15 s".
StatusOr<RatePolicy> ParseRatePolicy(const std::string& key, std::string_view text) {
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError(key + ": invalid policy \"" + std::string(text) +
                                "\": " + std::string(why) +
                                " (expected <Pods|Percent>:<value>/<period>, e.g. Pods:4/1 min)");
  };
  size_t colon = text.find(':');
  size_t slash = text.find('/');
  if (colon == std::string_view::npos || slash == std::string_view::npos || slash < colon) {
    return bad("malformed");
  }
  RatePolicy p;
  const std::string type = Upper(TrimSpaces(text.substr(0, colon)));
  if (type == "PODS" || type == "PARALLELISM") {
    p.type = RatePolicy::Type::kPods;
  } else if (type == "PERCENT") {
    p.type = RatePolicy::Type::kPercent;
  } else {
    return bad("unknown type");
  }
  auto value = ParseFlinkInt(key, text.substr(colon + 1, slash - colon - 1));
  if (!value.ok() || *value <= 0 || *value > std::numeric_limits<int>::max()) {
    return bad("value must be a positive integer");
  }
  p.value = static_cast<int>(*value);
  auto period = ParseFlinkDurationMillis(key, text.substr(slash + 1));
  if (!period.ok()) return bad("invalid period");
  if (period->count() <= 0) return bad("period must be positive");
  p.period = *period;
  return p;
}

Status ParseBehaviorRules(FlinkOptionReader& r, std::string_view dir, BehaviorRules* rules,
                          bool* any) {
  const std::string base = "behavior." + std::string(dir) + ".";
  if (auto kv = r.Find(base + "stabilization-window")) {
    *any = true;
    TRIMTAB_ASSIGN_OR_RETURN(rules->stabilization_window,
                             ParseFlinkDurationMillis(kv->key, kv->value));
  }
  if (auto kv = r.Find(base + "policies")) {
    *any = true;
    for (const std::string& item : ParseFlinkList(kv->value)) {
      TRIMTAB_ASSIGN_OR_RETURN(RatePolicy p, ParseRatePolicy(kv->key, item));
      rules->policies.push_back(p);
    }
  }
  if (auto kv = r.Find(base + "select-policy")) {
    *any = true;
    const std::string v = Upper(TrimSpaces(kv->value));
    if (v == "MAX") {
      rules->select_policy = SelectPolicy::kMax;
    } else if (v == "MIN") {
      rules->select_policy = SelectPolicy::kMin;
    } else if (v == "DISABLED") {
      rules->select_policy = SelectPolicy::kDisabled;
    } else {
      return InvalidArgumentError(kv->key + ": invalid value \"" + kv->value +
                                  "\": expected Max, Min or Disabled");
    }
  }
  return Status::Ok();
}

Status ParseAlignment(FlinkOptionReader& r, AutoscalerOptions* o) {
  if (auto kv = r.Find("scaling.parallelism-alignment.mode")) {
    // Built-in names match exactly, as upstream's; CAPACITY is trimtab's own.
    const std::string v(TrimSpaces(kv->value));
    if (v == "BALANCED") {
      o->alignment_mode = AlignmentMode::kBalanced;
    } else if (v == "EVENLY_SPREAD") {
      o->alignment_mode = AlignmentMode::kEvenlySpread;
    } else if (v == "OFF") {
      o->alignment_mode = AlignmentMode::kOff;
    } else if (Upper(v) == "CAPACITY") {
      o->alignment_mode = AlignmentMode::kCapacity;
    } else {
      // Any other name is a custom mode implemented by a Java class. Upstream falls back to
      // BALANCED with a warning when the class is not configured or not found among its plugins;
      // trimtab loads no Java classes, so a custom mode always falls back.
      const std::string class_name = "scaling.parallelism-alignment.mode." + v + ".class";
      const auto cls = r.Find(class_name);
      o->alignment_mode = AlignmentMode::kBalanced;
      o->warnings.push_back(
          kv->key + ": alignment mode \"" + v + "\" is not a built-in and " +
          (cls ? "its class " + cls->value + " cannot be loaded (trimtab runs no Java plugins)"
               : "has no " + std::string(kAutoscalerPrefix) + class_name + " configured") +
          "; falling back to BALANCED");
    }
    // The legacy key is shadowed by the new one; mark it consumed.
    r.Find("scaling.key-group.partitions.adjust.mode");
    return Status::Ok();
  }
  if (auto kv = r.Find("scaling.key-group.partitions.adjust.mode")) {
    const std::string v = Upper(TrimSpaces(kv->value));
    if (v == "EVENLY_SPREAD") {
      o->alignment_mode = AlignmentMode::kLegacyEvenlySpread;
    } else if (v == "MAXIMIZE_UTILISATION") {
      o->alignment_mode = AlignmentMode::kLegacyMaximizeUtilisation;
    } else {
      return InvalidArgumentError(kv->key + ": invalid value \"" + kv->value +
                                  "\": expected EVENLY_SPREAD or MAXIMIZE_UTILISATION");
    }
  }
  return Status::Ok();
}

}  // namespace

std::string_view AlignmentModeName(AlignmentMode m) {
  switch (m) {
    case AlignmentMode::kBalanced: return "BALANCED";
    case AlignmentMode::kEvenlySpread: return "EVENLY_SPREAD";
    case AlignmentMode::kOff: return "OFF";
    case AlignmentMode::kCapacity: return "CAPACITY";
    case AlignmentMode::kLegacyEvenlySpread: return "EVENLY_SPREAD (legacy)";
    case AlignmentMode::kLegacyMaximizeUtilisation: return "MAXIMIZE_UTILISATION (legacy)";
  }
  return "?";
}

namespace {

// Every option of `conf` as written (the defaults already layered in).
StatusOr<AutoscalerOptions> ParseLayered(const std::map<std::string, std::string>& conf) {
  AutoscalerOptions o;
  FlinkOptionReader r(conf, {kAutoscalerPrefix, kLegacyAutoscalerPrefix});
  r.Find(kDefaultsOption);  // read by ParseAutoscalerOptions
  TRIMTAB_RETURN_IF_ERROR(r.Bool("enabled", &o.enabled));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("scaling.enabled", &o.scaling_enabled));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("metrics.window", &o.metrics_window));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("stabilization.interval", &o.stabilization_interval));
  if (auto kv = r.Find("excluded.periods")) {
    o.excluded_periods_text = kv->value;
    TRIMTAB_ASSIGN_OR_RETURN(o.excluded_periods, ParseExcludedPeriods(kv->key, kv->value));
  }
  TRIMTAB_RETURN_IF_ERROR(
      r.Double("utilization.target", &o.target_utilization, {"target.utilization"}));
  TRIMTAB_RETURN_IF_ERROR(r.Double("target.utilization.boundary", &o.target_utilization_boundary));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("utilization.max", &o.utilization_max));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("utilization.min", &o.utilization_min));
  TRIMTAB_RETURN_IF_ERROR(
      r.Duration("scale-down.interval", &o.scale_down_interval, {"scale-up.grace-period"}));
  TRIMTAB_RETURN_IF_ERROR(r.Int("vertex.min-parallelism", &o.vertex_min_parallelism));
  TRIMTAB_RETURN_IF_ERROR(r.Int("vertex.max-parallelism", &o.vertex_max_parallelism));
  TRIMTAB_RETURN_IF_ERROR(r.Double("scale-down.max-factor", &o.max_scale_down_factor));
  TRIMTAB_RETURN_IF_ERROR(r.Double("scale-up.max-factor", &o.max_scale_up_factor));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("catch-up.duration", &o.catch_up_duration));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("restart.time", &o.restart_time));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("restart.time-tracking.enabled", &o.restart_time_tracking_enabled));
  TRIMTAB_RETURN_IF_ERROR(
      r.Duration("restart.time-tracking.limit", &o.restart_time_tracking_limit));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("restart.time-tracking.backlog.enabled", &o.restart_time_tracking_backlog));
  TRIMTAB_RETURN_IF_ERROR(
      r.Double("scale-down.restart-time-factor", &o.scale_down_restart_time_factor));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("catch-up.restart-from-headroom", &o.restart_catch_up_from_headroom));
  TRIMTAB_RETURN_IF_ERROR(
      r.Duration("backlog-processing.lag-threshold", &o.backlog_processing_lag_threshold));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("observed-true-processing-rate.lag-threshold",
                                     &o.observed_tpr_lag_threshold));
  TRIMTAB_RETURN_IF_ERROR(r.Double("observed-true-processing-rate.switch-threshold",
                                   &o.observed_tpr_switch_threshold));
  TRIMTAB_RETURN_IF_ERROR(r.Int("observed-true-processing-rate.min-observations",
                                &o.observed_tpr_min_observations));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("observed-true-processing-rate.after-stabilization",
                                 &o.observed_tpr_after_stabilization));
  TRIMTAB_RETURN_IF_ERROR(r.Double("step-detection.threshold", &o.step_detection_threshold));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("step-detection.interval", &o.step_detection_interval));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("early-scale-up.window", &o.early_scale_up_window));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("observed-capacity.enabled", &o.observed_capacity_enabled));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("scale-down.lasting-evidence.enabled", &o.scale_down_lasting_evidence));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("step-detection.burst-hold.enabled", &o.step_burst_hold));
  TRIMTAB_RETURN_IF_ERROR(
      r.Duration("scale-down.learned-hold.min-duration", &o.scale_down_learned_hold));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("scale-down.follow-through.window",
                                     &o.scale_down_follow_through_window));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("restart.time-from-checkpoint.enabled", &o.restart_time_from_checkpoint));
  TRIMTAB_RETURN_IF_ERROR(r.Double("scale-down.hot-key.marginal-capacity",
                                   &o.scale_down_hot_key_marginal_capacity));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("scaling.effectiveness.detection.enabled",
                                 &o.scaling_effectiveness_detection_enabled));
  TRIMTAB_RETURN_IF_ERROR(
      r.Double("scaling.effectiveness.threshold", &o.scaling_effectiveness_threshold));
  TRIMTAB_RETURN_IF_ERROR(r.Double("memory.gc-pressure.threshold", &o.gc_pressure_threshold));
  TRIMTAB_RETURN_IF_ERROR(r.Double("memory.heap-usage.threshold", &o.heap_usage_threshold));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("memory.tuning.enabled", &o.memory_tuning_enabled));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("memory.tuning.scale-down-compensation.enabled",
                                 &o.memory_tuning_scale_down_compensation));
  TRIMTAB_RETURN_IF_ERROR(r.Double("memory.tuning.overhead", &o.memory_tuning_overhead));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("memory.tuning.maximize-managed-memory",
                                 &o.memory_tuning_maximize_managed_memory));
  TRIMTAB_RETURN_IF_ERROR(r.Int("history.max.count", &o.history_max_count));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("history.max.age", &o.history_max_age));
  if (auto kv = r.Find("metrics.busy-time.aggregator")) {
    const std::string v = Upper(TrimSpaces(kv->value));
    if (v == "MAX") {
      o.busy_time_aggregator = BusyTimeAggregator::kMax;
    } else if (v == "MIN") {
      o.busy_time_aggregator = BusyTimeAggregator::kMin;
    } else if (v == "AVG") {
      o.busy_time_aggregator = BusyTimeAggregator::kAvg;
    } else {
      return InvalidArgumentError(kv->key + ": invalid value \"" + kv->value +
                                  "\": expected MAX, MIN or AVG");
    }
  }
  if (auto kv = r.Find("vertex.exclude.ids")) {
    for (std::string& id : ParseFlinkList(kv->value)) o.vertex_exclude_ids.insert(std::move(id));
  }
  TRIMTAB_RETURN_IF_ERROR(r.Duration("scaling.event.interval", &o.scaling_event_interval));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("flink.rest-client.timeout", &o.rest_client_timeout));
  if (auto kv = r.Find("quota.memory")) {
    TRIMTAB_ASSIGN_OR_RETURN(o.quota_memory_bytes, ParseFlinkMemorySize(kv->key, kv->value));
  }
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("quota.cpu", &o.quota_cpu));
  TRIMTAB_RETURN_IF_ERROR(ParseAlignment(r, &o));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("observed-scalability.enabled", &o.observed_scalability_enabled));
  TRIMTAB_RETURN_IF_ERROR(r.Int("observed-scalability.min-observations",
                                &o.observed_scalability_min_observations));
  TRIMTAB_RETURN_IF_ERROR(r.Double("observed-scalability.coefficient-min",
                                   &o.observed_scalability_coefficient_min));
  bool any_behavior = false;
  TRIMTAB_RETURN_IF_ERROR(ParseBehaviorRules(r, "scale-up", &o.behavior.scale_up, &any_behavior));
  TRIMTAB_RETURN_IF_ERROR(
      ParseBehaviorRules(r, "scale-down", &o.behavior.scale_down, &any_behavior));
  o.behavior.enabled = any_behavior;

  // Validation (upstream AutoScalerOptions validation on main).
  const std::string target_key = r.KeyOf("utilization.target", {"target.utilization"});
  TRIMTAB_RETURN_IF_ERROR(CheckRange(target_key, o.target_utilization, 0.0, 1.0));
  if (o.target_utilization_boundary < 0) {
    return InvalidArgumentError(r.KeyOf("target.utilization.boundary") + ": must not be negative");
  }
  if (o.utilization_max) {
    TRIMTAB_RETURN_IF_ERROR(
        CheckRange(r.KeyOf("utilization.max"), *o.utilization_max, o.target_utilization, 1.0));
  }
  if (o.utilization_min) {
    TRIMTAB_RETURN_IF_ERROR(
        CheckRange(r.KeyOf("utilization.min"), *o.utilization_min, 0.0, o.target_utilization));
  }
  if (o.step_detection_threshold < 0) {
    return InvalidArgumentError(r.KeyOf("step-detection.threshold") +
                                ": must not be negative (0 turns step detection off)");
  }
  if (o.step_detection_interval <= Millis(0)) {
    return InvalidArgumentError(r.KeyOf("step-detection.interval") + ": must be positive");
  }
  if (o.max_scale_down_factor < 0) {
    return InvalidArgumentError(r.KeyOf("scale-down.max-factor") + ": must not be negative");
  }
  if (o.max_scale_up_factor < 0) {
    return InvalidArgumentError(r.KeyOf("scale-up.max-factor") + ": must not be negative");
  }
  if (o.vertex_min_parallelism < 1) {
    return InvalidArgumentError(r.KeyOf("vertex.min-parallelism") + ": must be at least 1");
  }
  if (o.vertex_max_parallelism < o.vertex_min_parallelism) {
    return InvalidArgumentError(r.KeyOf("vertex.max-parallelism") +
                                ": must not be less than vertex.min-parallelism");
  }
  TRIMTAB_RETURN_IF_ERROR(
      CheckRange(r.KeyOf("memory.gc-pressure.threshold"), o.gc_pressure_threshold, 0.0, 1.0));
  TRIMTAB_RETURN_IF_ERROR(
      CheckRange(r.KeyOf("memory.heap-usage.threshold"), o.heap_usage_threshold, 0.0, 1.0));
  TRIMTAB_RETURN_IF_ERROR(CheckRange(r.KeyOf("scale-down.hot-key.marginal-capacity"),
                                     o.scale_down_hot_key_marginal_capacity, 0.0, 1.0));
  if (o.scaling_effectiveness_detection_enabled) {
    TRIMTAB_RETURN_IF_ERROR(CheckRange(r.KeyOf("scaling.effectiveness.threshold"),
                                       o.scaling_effectiveness_threshold, 0.0, 1.0));
  }
  if (o.memory_tuning_enabled) {
    TRIMTAB_RETURN_IF_ERROR(
        CheckRange(r.KeyOf("memory.tuning.overhead"), o.memory_tuning_overhead, 0.0, 1.0));
  }
  if (o.observed_scalability_enabled) {
    TRIMTAB_RETURN_IF_ERROR(CheckRange(r.KeyOf("observed-scalability.coefficient-min"),
                                       o.observed_scalability_coefficient_min, 0.01, 1.0));
  }
  if (o.observed_tpr_min_observations < 1) {
    return InvalidArgumentError(r.KeyOf("observed-true-processing-rate.min-observations") +
                                ": must be at least 1");
  }
  if (o.history_max_count < 0) {
    return InvalidArgumentError(r.KeyOf("history.max.count") + ": must not be negative");
  }
  if (o.metrics_window.count() <= 0) {
    return InvalidArgumentError(r.KeyOf("metrics.window") + ": must be positive");
  }
  if (o.quota_cpu && *o.quota_cpu <= 0) {
    return InvalidArgumentError(r.KeyOf("quota.cpu") + ": must be positive");
  }
  o.ignored_keys = r.Unconsumed();
  return o;
}

}  // namespace

StatusOr<AutoscalerOptions> ParseAutoscalerOptions(
    const std::map<std::string, std::string>& conf) {
  TRIMTAB_ASSIGN_OR_RETURN(AutoscalerDefaults defaults, ReadAutoscalerDefaults(conf));
  if (defaults == AutoscalerDefaults::kFlink) return ParseLayered(conf);
  using Configuration = std::map<std::string, std::string>;
  TRIMTAB_ASSIGN_OR_RETURN(Configuration layered, WithAutoscalerDefaults(conf));
  TRIMTAB_ASSIGN_OR_RETURN(AutoscalerOptions o, ParseLayered(layered));
  o.defaults = defaults;
  return o;
}

}  // namespace trimtab::core::flink
