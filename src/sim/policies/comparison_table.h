// The plain-text comparison table `trimtab simulate` and the autoscaling benchmark print: one row
// per policy with the report figures (src/sim/simulator.h):
//
//   policy   slot-h  x oracle  SLO viol      outside restarts  max lag  rescales  per day  flaps
//   trimtab  41.23   1.07      120 s 0.14 %  20 s 0.02 %       48.2 s   5         10.0     1/3 33 %
//   (then downtime, converge, speed)
//
//   slot-h     slot-hours used (slots = largest vertex parallelism, slot sharing)
//   x oracle   slot-hours / the oracle's (the lower bound with free restarts)
//   SLO viol   time with lag (the age of the oldest unprocessed record) above the SLO, restarts
//              included, and its share of the run: what users feel
//   outside restarts  the part of it outside restart windows (from a rescale until the restart is
//              over and lag is back under the SLO, at most 5 minutes after it ended): a diagnostic
//   max lag    the largest lag
//   rescales   rescales applied (each one restarts the job); per day: per simulated day
//   flaps      scale-downs undone by a scale-up of a vertex they lowered within 15 minutes, of
//              all scale-downs, and the share ("-" without scale-downs)
//   downtime   total restart downtime
//   converge   over the workload's change points: the most rescales after one change and the
//              longest time until the job settled (last restart over, lag under the SLO);
//              "n/c k" counts changes it never settled after
//   speed      simulated job-days per CPU-second (only with timing)
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "sim/policies/observed_run.h"
#include "sim/simulator.h"

namespace trimtab::sim {

std::string ComparisonTable(const SimulationReport& report, bool include_timing);

// "2/7 29 %": scale-downs undone within 15 minutes / scale-downs, and the share; "-" without
// scale-downs.
std::string FlapSummary(const PolicyReport& p);

// "90 s", "4.5 min", "2.0 h", "3.1 d".
std::string HumanDuration(double seconds);

// Summary of a policy's convergence over change points: "2 / 9.5 min", "1 / 3.0 min n/c 1",
// "-" when the scenario has no change points.
std::string ConvergenceSummary(const PolicyReport& p);

}  // namespace trimtab::sim
