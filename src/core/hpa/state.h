// HpaState: the per-HPA history that upstream keeps only in controller memory — timestamped
// recommendations (for stabilization windows) and scale-up / scale-down events (for rate
// policies). Here it is an explicit value: passed into each sync and returned updated, with a
// JSON codec so it can be persisted and survives restarts.
//
// Wire format (times are RFC 3339):
//   {"recommendations": [{"replicas": 4, "timestamp": "2024-05-01T12:00:00Z"}],
//    "scaleUpEvents":   [{"replicaChange": 2, "timestamp": "...", "outdated": false}],
//    "scaleDownEvents": []}
//
// Invariants (kept by the engine, not required of decoded input):
//   1. Slots are reused, never deleted: an obsolete recommendation / outdated event is
//      overwritten in place (the last such index wins), so order is not chronological.
//   2. replicaChange is non-negative; the direction is the list it is in.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <vector>

#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::core::hpa {

struct TimestampedRecommendation {
  int32_t replicas = 0;
  TimePoint timestamp{};
  friend bool operator==(const TimestampedRecommendation&,
                         const TimestampedRecommendation&) = default;
};

struct TimestampedScaleEvent {
  int32_t replica_change = 0;
  TimePoint timestamp{};
  bool outdated = false;
  friend bool operator==(const TimestampedScaleEvent&, const TimestampedScaleEvent&) = default;
};

struct HpaState {
  std::vector<TimestampedRecommendation> recommendations;
  std::vector<TimestampedScaleEvent> scale_up_events;
  std::vector<TimestampedScaleEvent> scale_down_events;
  friend bool operator==(const HpaState&, const HpaState&) = default;
};

Json HpaStateToJson(const HpaState& state);
// Strict decode: unknown fields, wrong types and negative values are errors naming the field
// under `path`.
StatusOr<HpaState> HpaStateFromJson(const Json& json, const std::string& path);

}  // namespace trimtab::core::hpa
