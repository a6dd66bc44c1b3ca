#include "core/hpa/behavior.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/hpa/replica_calculator.h"

namespace trimtab::core::hpa {
namespace {

constexpr int32_t kMaxInt32 = std::numeric_limits<int32_t>::max();
constexpr int32_t kMinInt32 = std::numeric_limits<int32_t>::min();

// Go int32 arithmetic wraps.
int32_t Wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

TimePoint Ago(TimePoint now, int64_t seconds) { return now - std::chrono::seconds(seconds); }

void RecordRecommendation(HpaState* state, bool found_old, size_t old_index, int32_t desired,
                          TimePoint now) {
  if (found_old) {
    state->recommendations[old_index] = {desired, now};
  } else {
    state->recommendations.push_back({desired, now});
  }
}

constexpr char kReadyForNewScale[] = "ReadyForNewScale";
constexpr char kReadyMessage[] = "recommended size matches current size";
constexpr char kScaleDownStabilizedMessage[] =
    "recent recommendations were higher than current one, applying the highest recent "
    "recommendation";
constexpr char kScaleUpStabilizedMessage[] =
    "recent recommendations were lower than current one, applying the lowest recent "
    "recommendation";
constexpr char kWithinRangeMessage[] = "the desired count is within the acceptable range";
constexpr char kScaleUpLimitMessage[] =
    "the desired replica count is increasing faster than the maximum scale rate";
constexpr char kTooManyMessage[] =
    "the desired replica count is more than the maximum replica count";
constexpr char kScaleDownLimitMessage[] =
    "the desired replica count is decreasing faster than the maximum scale rate";
constexpr char kTooFewMessage[] =
    "the desired replica count is less than the minimum replica count";

std::string Direction(int32_t stabilized, int32_t current) {
  if (stabilized > current) return "up";
  if (stabilized < current) return "down";
  return "none";
}

}  // namespace

int32_t ReplicasChangePerPeriod(int32_t period_seconds,
                                const std::vector<TimestampedScaleEvent>& events, TimePoint now) {
  const TimePoint cutoff = Ago(now, period_seconds);
  int64_t replicas = 0;
  for (const TimestampedScaleEvent& e : events) {
    if (e.timestamp > cutoff) replicas += e.replica_change;
  }
  return Wrap(replicas);
}

int32_t ScaleUpLimit(int32_t current_replicas, const std::vector<TimestampedScaleEvent>& up_events,
                     const std::vector<TimestampedScaleEvent>& down_events,
                     const ResolvedRules& rules, TimePoint now, std::vector<PolicyLimit>* limits) {
  if (rules.select_policy == SelectPolicy::kDisabled) return current_replicas;
  const bool min_change = rules.select_policy == SelectPolicy::kMin;
  int32_t result = min_change ? kMaxInt32 : kMinInt32;
  for (const ScalingPolicy& policy : rules.policies) {
    PolicyLimit l;
    l.policy = policy;
    l.replicas_added = ReplicasChangePerPeriod(policy.period_seconds, up_events, now);
    l.replicas_deleted = ReplicasChangePerPeriod(policy.period_seconds, down_events, now);
    l.period_start = Wrap(int64_t{current_replicas} - l.replicas_added + l.replicas_deleted);
    if (policy.type == ScalingPolicyType::kPods) {
      l.limit = Wrap(int64_t{l.period_start} + policy.value);
    } else {
      // Rounded up: a small percentage must still allow adding a pod.
      l.limit = GoFloatToInt32(std::ceil(static_cast<double>(l.period_start) *
                                         (1 + static_cast<double>(policy.value) / 100)));
    }
    result = min_change ? std::min(result, l.limit) : std::max(result, l.limit);
    if (limits) limits->push_back(l);
  }
  return result;
}

int32_t ScaleDownLimit(int32_t current_replicas,
                       const std::vector<TimestampedScaleEvent>& up_events,
                       const std::vector<TimestampedScaleEvent>& down_events,
                       const ResolvedRules& rules, TimePoint now,
                       std::vector<PolicyLimit>* limits) {
  if (rules.select_policy == SelectPolicy::kDisabled) return current_replicas;
  const bool min_change = rules.select_policy == SelectPolicy::kMin;
  int32_t result = min_change ? kMinInt32 : kMaxInt32;
  for (const ScalingPolicy& policy : rules.policies) {
    PolicyLimit l;
    l.policy = policy;
    l.replicas_added = ReplicasChangePerPeriod(policy.period_seconds, up_events, now);
    l.replicas_deleted = ReplicasChangePerPeriod(policy.period_seconds, down_events, now);
    l.period_start = Wrap(int64_t{current_replicas} - l.replicas_added + l.replicas_deleted);
    if (policy.type == ScalingPolicyType::kPods) {
      l.limit = Wrap(int64_t{l.period_start} - policy.value);
    } else {
      l.limit = GoFloatToInt32(static_cast<double>(l.period_start) *
                               (1 - static_cast<double>(policy.value) / 100));
    }
    result = min_change ? std::max(result, l.limit) : std::min(result, l.limit);
    if (limits) limits->push_back(l);
  }
  return result;
}

int32_t StabilizeWithBehaviors(const ResolvedRules& up, const ResolvedRules& down,
                               const NormalizationArgs& args, HpaState* state,
                               NormalizationTrace* trace) {
  trace->up_window_seconds = up.stabilization_window_seconds.value_or(0);
  trace->down_window_seconds = down.stabilization_window_seconds.value_or(0);
  // The lowest recommendation of the up window bounds scale-up, the highest of the down window
  // bounds scale-down; current replicas are clamped between the two.
  const TimePoint up_cutoff = Ago(args.now, *trace->up_window_seconds);
  const TimePoint down_cutoff = Ago(args.now, *trace->down_window_seconds);
  int32_t up_rec = args.desired_replicas;
  int32_t down_rec = args.desired_replicas;
  bool found_old = false;
  size_t old_index = 0;
  for (size_t i = 0; i < state->recommendations.size(); ++i) {
    const TimestampedRecommendation& rec = state->recommendations[i];
    if (rec.timestamp > up_cutoff) up_rec = std::min(rec.replicas, up_rec);
    if (rec.timestamp > down_cutoff) down_rec = std::max(rec.replicas, down_rec);
    if (rec.timestamp < up_cutoff && rec.timestamp < down_cutoff) {
      found_old = true;
      old_index = i;
    }
  }
  int32_t stabilized = args.current_replicas;
  if (stabilized < up_rec) stabilized = up_rec;
  if (stabilized > down_rec) stabilized = down_rec;
  RecordRecommendation(state, found_old, old_index, args.desired_replicas, args.now);
  trace->up_recommendation = up_rec;
  trace->down_recommendation = down_rec;
  trace->stabilized = stabilized;
  if (stabilized != args.desired_replicas) {
    const bool up_dir = args.desired_replicas >= args.current_replicas;
    trace->stabilization_reason = up_dir ? "ScaleUpStabilized" : "ScaleDownStabilized";
    trace->stabilization_message = up_dir ? kScaleUpStabilizedMessage : kScaleDownStabilizedMessage;
  } else {
    trace->stabilization_reason = kReadyForNewScale;
    trace->stabilization_message = kReadyMessage;
  }
  trace->direction = Direction(stabilized, args.current_replicas);
  return stabilized;
}

int32_t ConvertWithBehaviorRate(const ResolvedRules& up, const ResolvedRules& down,
                                const NormalizationArgs& args, const HpaState& state,
                                NormalizationTrace* trace) {
  const int32_t wanted = args.desired_replicas;
  int32_t desired = wanted;
  trace->limit_reason = "DesiredWithinRange";
  trace->limit_message = kWithinRangeMessage;
  if (wanted > args.current_replicas) {
    trace->select_policy = up.select_policy;
    int32_t limit = ScaleUpLimit(args.current_replicas, state.scale_up_events,
                                 state.scale_down_events, up, args.now, &trace->policies);
    trace->selected_limit = limit;
    if (limit < args.current_replicas) limit = args.current_replicas;  // no scale-up for now
    trace->rate_limit = limit;
    int32_t max_allowed = args.max_replicas;
    std::string reason = "TooManyReplicas";
    std::string message = kTooManyMessage;
    if (max_allowed > limit) {
      max_allowed = limit;
      reason = "ScaleUpLimit";
      message = kScaleUpLimitMessage;
    }
    if (wanted > max_allowed) {
      desired = max_allowed;
      trace->limit_reason = reason;
      trace->limit_message = message;
    }
  } else if (wanted < args.current_replicas) {
    trace->select_policy = down.select_policy;
    int32_t limit = ScaleDownLimit(args.current_replicas, state.scale_up_events,
                                   state.scale_down_events, down, args.now, &trace->policies);
    trace->selected_limit = limit;
    if (limit > args.current_replicas) limit = args.current_replicas;  // no scale-down for now
    trace->rate_limit = limit;
    int32_t min_allowed = args.min_replicas;
    std::string reason = "TooFewReplicas";
    std::string message = kTooFewMessage;
    if (min_allowed < limit) {
      min_allowed = limit;
      reason = "ScaleDownLimit";
      message = kScaleDownLimitMessage;
    }
    if (wanted < min_allowed) {
      desired = min_allowed;
      trace->limit_reason = reason;
      trace->limit_message = message;
    }
  }
  trace->desired = desired;
  return desired;
}

int32_t NormalizeWithBehaviors(const Behavior& behavior, const NormalizationArgs& args,
                               const NormalizationOptions& options, HpaState* state,
                               NormalizationTrace* trace) {
  const ResolvedRules up = DefaultedScaleUpRules(behavior.scale_up);
  ResolvedRules down = DefaultedScaleDownRules(behavior.scale_down);
  if (!down.stabilization_window_seconds) {  // maybeInitScaleDownStabilizationWindow
    down.stabilization_window_seconds =
        static_cast<int32_t>(options.downscale_stabilization_window.count());
  }
  trace->mode = "behavior";
  trace->recommendation = args.desired_replicas;
  NormalizationArgs rate_args = args;
  rate_args.desired_replicas = StabilizeWithBehaviors(up, down, args, state, trace);
  return ConvertWithBehaviorRate(up, down, rate_args, *state, trace);
}

int32_t NormalizeLegacy(const NormalizationArgs& args, const NormalizationOptions& options,
                        HpaState* state, NormalizationTrace* trace) {
  trace->mode = "legacy";
  trace->recommendation = args.desired_replicas;
  trace->down_window_seconds = static_cast<int32_t>(options.downscale_stabilization_window.count());

  // stabilizeRecommendation: the highest recommendation within the downscale window.
  const TimePoint cutoff = args.now - options.downscale_stabilization_window;
  int32_t max_rec = args.desired_replicas;
  bool found_old = false;
  size_t old_index = 0;
  for (size_t i = 0; i < state->recommendations.size(); ++i) {
    const TimestampedRecommendation& rec = state->recommendations[i];
    if (rec.timestamp < cutoff) {
      found_old = true;
      old_index = i;
    } else if (rec.replicas > max_rec) {
      max_rec = rec.replicas;
    }
  }
  RecordRecommendation(state, found_old, old_index, args.desired_replicas, args.now);
  trace->down_recommendation = max_rec;
  trace->stabilized = max_rec;
  if (max_rec != args.desired_replicas) {
    trace->stabilization_reason = "ScaleDownStabilized";
    trace->stabilization_message = kScaleDownStabilizedMessage;
  } else {
    trace->stabilization_reason = kReadyForNewScale;
    trace->stabilization_message = kReadyMessage;
  }
  trace->direction = Direction(max_rec, args.current_replicas);

  // convertDesiredReplicasWithRules: a per-sync scale-up cap, then min and max.
  const int32_t scale_up_limit = GoFloatToInt32(
      std::max(options.scale_up_limit_factor * static_cast<double>(args.current_replicas),
               options.scale_up_limit_minimum));
  trace->rate_limit = scale_up_limit;
  int32_t max_allowed = args.max_replicas;
  std::string reason = "TooManyReplicas";
  std::string message = kTooManyMessage;
  if (args.max_replicas > scale_up_limit) {
    max_allowed = scale_up_limit;
    reason = "ScaleUpLimit";
    message = kScaleUpLimitMessage;
  }
  int32_t desired = max_rec;
  if (max_rec < args.min_replicas) {
    desired = args.min_replicas;
    trace->limit_reason = "TooFewReplicas";
    trace->limit_message = kTooFewMessage;
  } else if (max_rec > max_allowed) {
    desired = max_allowed;
    trace->limit_reason = reason;
    trace->limit_message = message;
  } else {
    trace->limit_reason = "DesiredWithinRange";
    trace->limit_message = kWithinRangeMessage;
  }
  trace->desired = desired;
  return desired;
}

void StoreScaleEvent(const std::optional<Behavior>& behavior, int32_t prev_replicas,
                     int32_t new_replicas, TimePoint now, HpaState* state) {
  if (!behavior) return;  // the legacy path never reads events
  const bool up = new_replicas > prev_replicas;
  const ResolvedRules rules = up ? DefaultedScaleUpRules(behavior->scale_up)
                                 : DefaultedScaleDownRules(behavior->scale_down);
  int32_t longest = 0;
  for (const ScalingPolicy& p : rules.policies) longest = std::max(longest, p.period_seconds);
  std::vector<TimestampedScaleEvent>& events =
      up ? state->scale_up_events : state->scale_down_events;
  const TimePoint cutoff = Ago(now, longest);
  bool found_old = false;
  size_t old_index = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].timestamp < cutoff) events[i].outdated = true;
    if (events[i].outdated) {
      found_old = true;
      old_index = i;
    }
  }
  const TimestampedScaleEvent event{
      up ? new_replicas - prev_replicas : prev_replicas - new_replicas, now, false};
  if (found_old) {
    events[old_index] = event;
  } else {
    events.push_back(event);
  }
}

}  // namespace trimtab::core::hpa
