// Delayed scale-down (reference notes §C.7): a vertex scales down only after it has wanted to
// for a whole scale-down.interval, and then to the highest parallelism recommended within the
// interval.
//
// Thread-safety: pure functions on the state value.
#pragma once

#include "common/clock.h"
#include "core/flink/autoscaler_state.h"

namespace trimtab::core::flink {

// Records a scale-down wish at `now`: sets first_trigger_time on the first wish and keeps the
// recommendations strictly decreasing (a new one evicts older ones that are <= it).
VertexDelayedScaleDown& TriggerScaleDown(std::map<VertexId, VertexDelayedScaleDown>* delayed,
                                         const VertexId& vertex, TimePoint now, int parallelism,
                                         bool outside_utilization_bound);

// Evicts recommendations older than `window_start` and returns the highest remaining one.
// REQUIRES: the newest recommendation is at or after window_start.
DelayedScaleDownRecommendation MaxRecommendation(VertexDelayedScaleDown* d,
                                                 TimePoint window_start);

}  // namespace trimtab::core::flink
