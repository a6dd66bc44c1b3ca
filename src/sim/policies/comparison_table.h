// The plain-text comparison table `trimtab simulate` and the autoscaling benchmark print: one row
// per policy with the report figures (src/sim/simulator.h):
//
//   policy      slot-h  x oracle  SLO viol      max lag  rescales  downtime  converge     speed
//   trimtab     41.23   1.07      120 s 0.14 %  48.2 s   5         62 s      2 / 9.5 min  1,234
//
//   slot-h     slot-hours used (slots = largest vertex parallelism, slot sharing)
//   x oracle   slot-hours / the oracle's (the lower bound with free restarts)
//   SLO viol   time with lag above the SLO, and its share of the run
//   max lag    the largest lag, in seconds of input
//   rescales   rescales applied (each one restarts the job)
//   downtime   total restart downtime
//   converge   over the workload's change points: the most rescales after one change and the
//              longest time until the job settled (last restart over, lag under the SLO);
//              "n/c k" counts changes it never settled after
//   outside restarts  SLO violation outside restart windows (from a rescale until the restart is
//              over and lag is back under the SLO); only when `restarts` is given
//   speed      simulated job-days per CPU-second (only with timing)
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "sim/policies/observed_run.h"
#include "sim/simulator.h"

namespace trimtab::sim {

// `restarts`: one per report policy (ObservedRun::restarts), or null.
std::string ComparisonTable(const SimulationReport& report, bool include_timing,
                            const std::vector<RestartAttribution>* restarts = nullptr);

// "90 s", "4.5 min", "2.0 h", "3.1 d".
std::string HumanDuration(double seconds);

// Summary of a policy's convergence over change points: "2 / 9.5 min", "1 / 3.0 min n/c 1",
// "-" when the scenario has no change points.
std::string ConvergenceSummary(const PolicyReport& p);

}  // namespace trimtab::sim
