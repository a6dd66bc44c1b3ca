// Behavior rules on parallelism (trimtab extension, `job.autoscaler.behavior.*`): the HPA
// behavior engine of src/core/hpa (stabilization windows over past recommendations, Pods/Percent
// rate policies over past scale events, selectPolicy) applied per vertex after the Flink
// algorithm, with parallelism in place of replicas.
//
// A direction without any behavior key has no stabilization window and no rate limit (unlike a
// Kubernetes HPA, whose defaults would otherwise throttle every Flink decision). Without
// behavior configuration (BehaviorOptions::enabled == false) nothing is recorded and the
// parallelism is returned unchanged, so the result equals upstream exactly.
//
// Thread-safety: pure functions on the state value.
#pragma once

#include <string>
#include <vector>

#include "common/clock.h"
#include "core/flink/autoscaler_options.h"
#include "core/hpa/spec.h"
#include "core/hpa/state.h"

namespace trimtab::core::flink {

struct BehaviorShapeResult {
  int parallelism = 0;               // allowed parallelism (== current: hold)
  std::vector<std::string> reasons;  // what the rules did, for the decision log
};

// The HPA behavior equivalent to `behavior` (every field set, so no HPA defaults apply).
hpa::Behavior ToHpaBehavior(const BehaviorOptions& behavior);

// Records `desired` as this cycle's recommendation and returns the parallelism the rules allow
// when going from `current` towards `desired`.
BehaviorShapeResult ShapeWithBehavior(const BehaviorOptions& behavior, hpa::HpaState* state,
                                      int current, int desired, TimePoint now);

// Records an executed change from `previous` to `next` for the rate policies.
void RecordBehaviorScaleEvent(const BehaviorOptions& behavior, hpa::HpaState* state,
                              TimePoint now, int previous, int next);

}  // namespace trimtab::core::flink
