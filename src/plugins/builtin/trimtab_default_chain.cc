#include "plugins/builtin/trimtab_default_chain.h"

#include <nlohmann/json.hpp>

namespace trimtab::plugins {

Json TrimtabDefaultExecutorPlugins() {
  // The restart-cost-gate (src/plugins/restart_cost_gate) vetoes rescales that do not pay for
  // their restart; it compares vertex capacities in source records/s (TRUE_PROCESSING_RATE divided
  // by the vertex's share of the source stream), so a vertex behind a selective operator is not
  // mistaken for the bottleneck. Scale-downs are gated too: a freed slot is worth 2500 records per
  // slot-second, so freeing 2 slots for an hour (18M records) pays for a 60-s restart up to 300k
  // records/s. At 1000 the gate kept multi-vertex-join at 4 slots for the 6 h after its drop to
  // 150k/s (1.61x the oracle's slot-hours instead of 1.21x; docs/benchmarks.md, "Autoscaling
  // policies"). A scale-up while more than 30 s of input is waiting passes without the
  // comparison: a saturated bottleneck reports about the input rate as its capacity, so the model
  // sees no gain where the backlog shows one (skewed-partitions seed 1 spent 4 % of its run above
  // the lag SLO behind such a veto). Unless the bottleneck already drains the backlog and would
  // drain it later after the restart, priced at the restart time the autoscaler measured where
  // that is longer than 60 s: on 200 random job graphs a 50-GB job with a hot key scaled
  // 2 -> 200 in five restarts, each adding 260 s of input and little capacity. With this and the
  // hot key in the expected rate (vertex_scaler.cc) it stops at 26; the 50-GB jobs went from
  // 10.0 % to 6.8 % of the time above the lag SLO, 357 to 228 rescales and 2.88x to 2.32x the
  // oracle, with the suite and the random library scenarios unchanged (docs/benchmarks.md).
  // A scale-down vetoed cycle after cycle passes once the slots it would have freed, kept since
  // the first veto, are worth the restart (rent or buy): the gate weighs the hour ahead every
  // cycle, and a 50-GB job that caught up after a burst kept 15 slots for the 10 hours after it
  // where 7 would do, one hour at a time. On the 200 random job graphs 37 runs kept such slots
  // for more than an hour; the mean cost went 1.59x -> 1.55x the oracle (50 GB: 2.31x -> 2.18x)
  // for 15 more rescales and lag outside restarts 0.78 % -> 0.80 %; the suite and extra/ are
  // unchanged (docs/benchmarks.md).
  return Json::array({Json::object({{"type", "restart-cost-gate"},
                                    {"config", Json::object({{"periodSeconds", 3600},
                                                             {"restartSeconds", 60},
                                                             {"scaleDownRecordsPerSlotSecond", 2500},
                                                             {"approveAboveLagSeconds", 30},
                                                             {"observedRestartTime", true},
                                                             {"scaleDownBreakEven", true}})}})});
}

}  // namespace trimtab::plugins
