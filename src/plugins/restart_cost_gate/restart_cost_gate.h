// restart-cost-gate: vetoes a rescale that does not pay for its restart. A rescale restarts the
// job; during the downtime input keeps arriving and must be caught up afterwards. That is the
// restart cost, in records:
//
//   cost = restart * R                       R = sum of the sources' TARGET_DATA_RATE (records/s)
//
// The benefit is what the new parallelism processes over the next `periodSeconds` that the old
// one would not, bounded by what there is to process (the backlog plus the input of the period):
//
//   capacity  = min over vertices of TRUE_PROCESSING_RATE (the bottleneck), before and after,
//               each in source records/s: TPR(v) * R / TARGET_DATA_RATE(v) (TPR counts records
//               into v, which behind a selective operator is a fraction of the source stream); a
//               scaled vertex's new rate is its EXPECTED_PROCESSING_RATE, or its current rate
//               scaled by new/current parallelism, normalised the same way
//   demand    = L + R * period                L = sum of the sources' LAG (records)
//   benefit   = min(after * period, demand) - min(before * period, demand)
//
// A scale-up while the backlog is above approveAboveLagSeconds of input (L / R; 0 = never) is
// approved without the comparison: a saturated bottleneck reports about the input rate as its
// TRUE_PROCESSING_RATE, so the capacity model cannot see what the backlog shows. So is one whose
// bottleneck is below the input rate by enough that the backlog would pass that threshold within
// the period, (L + (R - before) * period) / R: the restart is coming anyway, and the later it
// comes the larger the backlog it leaves. But a bottleneck that already drains the backlog
// (before > R) passes the backlog threshold only if the restart drains it sooner, downtime
// included:
//
//   restart + (L + R * restart) / (after - R)  <  L / (before - R)
//
// else it is vetoed: a hot key can make each scale-up add a fraction of what it promises while
// every restart adds its downtime's input to the backlog, and the growing backlog asks for the
// next scale-up (a 50-GB job went 2 -> 10 -> 26 -> 56 -> 144 -> 200 subtasks in 40 minutes).
//
// restart = restartSeconds, or with observedRestartTime the autoscaler's RESTART_TIME (job-wide
// evaluated metric: the restart time it sized the catch-up headroom with, which with
// restart.time-tracking grows with what restarts were seen to leave waiting) where that is
// longer. It prices the weighed restart below too.
//
// Scale-downs are not gated unless scaleDownRecordsPerSlotSecond > 0: then freed slots count as a
// benefit of freed_slots * period * that value (how many records one slot-second is worth).
// benefit < cost -> veto; otherwise approve.
//
// With scaleDownBreakEven, a rescale that frees slots (a scale-down, or a mix whose slots come
// out fewer) and is vetoed again and again is approved once the slots it would have freed, kept
// since the first of those vetoes, are worth the restart cost (at scaleDownRecordsPerSlotSecond):
// the rent-or-buy break-even, which never pays more than twice what the better of "restart at
// once" and "never restart" would have cost in hindsight. The hour ahead is a forecast; the
// hours already spent at the higher parallelism are not. The wait is the plugin's state: it
// accrues freed slots x time between such vetoes, and ends with any other verdict, a rescale
// that frees no slot, or a gap above breakEvenGapSeconds between two of them (the autoscaler
// stopped asking). A missing TARGET_DATA_RATE of a source, or a missing
// TRUE_PROCESSING_RATE or missing/zero TARGET_DATA_RATE of a scaled-up vertex, is a veto (unknown
// benefit); an unchanged vertex without them is left out of the minimum.
//
// Config: {"periodSeconds": 3600, "restartSeconds": 60, "scaleDownRecordsPerSlotSecond": 0,
//          "approveAboveLagSeconds": 0, "slotSharing": true, "observedRestartTime": false,
//          "scaleDownBreakEven": false, "breakEvenGapSeconds": 300}
//
// Thread-safety: immutable after construction.
#pragma once

#include <memory>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_plugin.h"
#include "core/chain/plugin_registry.h"

namespace trimtab::plugins {

inline constexpr const char kRestartCostGateType[] = "restart-cost-gate";

struct RestartCostGateOptions {
  double period_seconds = 3600;  // horizon over which a rescale must pay off (> 0)
  double restart_seconds = 60;   // expected downtime of a rescale (>= 0)
  double scale_down_records_per_slot_second = 0;  // 0: scale-downs are not gated
  double approve_above_lag_seconds = 0;  // scale-ups above this backlog (s of input) pass; 0: off
  bool slot_sharing = true;      // slots = max parallelism (true) or sum (false)
  // The restart's downtime is the autoscaler's RESTART_TIME (job-wide evaluated metric, seconds)
  // where the cycle has it and it is longer than restart_seconds, which stays the floor.
  bool observed_restart_time = false;
  // A vetoed scale-down passes once the slots kept while it was wanted pay for the restart;
  // only with scale_down_records_per_slot_second > 0.
  bool scale_down_break_even = false;
  // The longest gap between two vetoed scale-downs of one wait (> 0); above any decision
  // interval, so that a longer gap means the autoscaler stopped asking.
  double break_even_gap_seconds = 300;
};

class RestartCostGate final : public core::ExecutorPlugin {
 public:
  RestartCostGate(core::PluginIdentity identity, RestartCostGateOptions options)
      : ExecutorPlugin(std::move(identity)), options_(options) {}

  StatusOr<core::ExecutorResult> Execute(const core::ExecutorContext& context,
                                         const core::ScalingSummaries& summaries,
                                         core::CycleState& cycle, Json& plugin_state) override;

 private:
  RestartCostGateOptions options_;
};

StatusOr<RestartCostGateOptions> ParseRestartCostGateOptions(const Json& config,
                                                             const std::string& path);
Status RegisterRestartCostGate(core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
