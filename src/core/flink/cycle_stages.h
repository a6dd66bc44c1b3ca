// The stages of one autoscaler cycle (DESIGN.md §2), each a unit of its own that
// RunAutoscalerCycle (autoscaler.h) drives in order over one CycleContext:
//
//   cycle::Collect   (cycle_collect.cc)   options' notes, disabled / job not running, restart
//                                         tracking, the metric window, stabilization, samples
//   cycle::Evaluate  (cycle_evaluate.cc)  restart time, evaluated metrics (custom ones too), the
//                                         window-not-full rule and early scale-up
//   cycle::Decide    (cycle_decide.cc)    a stepped input, memory pressure, per-vertex target
//                                         parallelism, the utilization band
//   cycle::Shape     (cycle_shape.cc)     behavior rules, scaling.enabled / excluded periods,
//                                         memory tuning, cluster resources and quota, the
//                                         ScalingReport of a scaling
//
// With evaluated metrics given (AutoscalerInput::evaluated), cycle::TakeEvaluated
// (cycle_take_evaluated.cc) takes the place of Collect and Evaluate: Decide and Shape run on them.
//
// A stage returns StageResult::Continue() (the next stage runs) or StageResult::Stop(outcome,
// reason): the cycle ends with that outcome and the state as the stage left it. Every note and
// event a stage makes goes to the context's decision log. Errors (StatusOr) end the cycle as
// errors. No stage reads another's messages: what a later stage needs is a typed field of the
// context.
//
// Internal to core/flink. Thread-safety: a context belongs to one cycle on one thread.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/number_format.h"
#include "core/flink/autoscaler.h"
#include "core/flink/behavior_shaping.h"
#include "core/flink/metric_window.h"

namespace trimtab::core::flink::cycle {

struct StageResult {
  enum class Next {
    kContinue,  // run the next stage
    kStop,      // end the cycle with `outcome`
  };
  Next next = Next::kContinue;
  CycleOutcome outcome = CycleOutcome::kNoChange;
  std::string reason;  // why the cycle stops (the stage's decision-log note says the same)

  static StageResult Continue() { return {}; }
  static StageResult Stop(CycleOutcome outcome, std::string reason) {
    return {Next::kStop, outcome, std::move(reason)};
  }
};

// What the stages of one cycle share. Each stage fills the fields of its section for the stages
// after it.
struct CycleContext {
  const AutoscalerInput& in;
  const AutoscalerOptions& o;
  AutoscalerState state;
  AutoscalerResult res;  // res.log is the decision log

  // Collect -> Evaluate.
  WindowStatus window;

  // Evaluate -> Decide.
  Millis restart_time{0};
  // Why a scale-up may be decided before the metric window is full (early-scale-up); set only
  // while it is not full. Decide then applies scale-ups only.
  std::optional<std::string> early;
  bool step_pending = false;  // a source's input may have stepped (step-detection)

  // Decide -> Shape.
  ScalingSummaries proposals;
  // The behavior rules with the scale-down stabilization window stretched to a few restart
  // times (scale-down.restart-time-factor), when that is longer than the configured one.
  std::optional<BehaviorOptions> stretched;
  Millis stretched_floor{0};
  const BehaviorOptions& Behavior() const { return stretched ? *stretched : o.behavior; }
};

// What every first stage (Collect, TakeEvaluated) does before its own work: notes the options'
// ignored keys and warnings, clears the state and stops when the autoscaler is disabled, records
// each vertex's current parallelism, and stops when the job is not RUNNING (the note ends with
// `not_running_effect`, e.g. "nothing collected"). nullopt: go on.
std::optional<StageResult> OpenCycle(CycleContext& c, std::string_view not_running_effect);
StatusOr<StageResult> Collect(CycleContext& c);
StatusOr<StageResult> TakeEvaluated(CycleContext& c);
StatusOr<StageResult> Evaluate(CycleContext& c);
StatusOr<StageResult> Decide(CycleContext& c);
StatusOr<StageResult> Shape(CycleContext& c);

// Numbers in decision-log notes.
inline std::string Num(double v) { return FormatLogNumber(v); }

// EffectiveRestartTime's `source` when the value is the last checkpoint's duration: the decision
// log names it.
inline constexpr const char kRestartTimeFromCheckpoint[] = "the last checkpoint's duration";

// Trims a time-ordered vector to `max_count` newest entries younger than `max_age`.
template <typename T>
void TrimHistory(std::vector<T>* v, size_t max_count, TimePoint oldest_allowed, bool keep_last) {
  auto young = std::find_if(v->begin(), v->end(),
                            [&](const T& e) { return e.time >= oldest_allowed; });
  size_t drop = static_cast<size_t>(young - v->begin());
  if (v->size() - drop > max_count) drop = v->size() - max_count;
  if (keep_last && drop >= v->size() && !v->empty()) drop = v->size() - 1;
  v->erase(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(drop));
}

}  // namespace trimtab::core::flink::cycle
