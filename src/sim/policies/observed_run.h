// RunScenarioObserved: RunScenario (src/sim/simulator.h) with two optional observers, for
// `trimtab simulate` and the autoscaling benchmark:
//
//   - progress: called as simulated time advances (at each decision of each policy), so long runs
//     can report on stderr;
//   - traces: input rate, capacity at the current parallelism, lag, slots and parallelism per
//     vertex, sampled from the model's ground truth once per decision interval, for the HTML
//     report's charts, and the changes the Flink policies' plugin chain vetoed or a rule blocked
//     (read from their explanations, which the observer then asks for);
//   - explanations: every decision cycle of the policies that record one (the decision log of
//     trimtab and flink-compat, the HPA controller's record of hpa-cpu), for `--decision-log`;
//   - restart attribution (always): lag-SLO violation split into time inside restart windows (from
//     a rescale until the restart is over and lag is back under the SLO, at most 5 minutes after
//     the restart ended) and outside them, as the simulator's report counts it (report_figures.h;
//     the traces read the same figures).
//
// Each policy is wrapped in an observer that the simulator calls at every step with the ground
// truth; at the steps where the simulator would ask the policy (every decision interval, or every
// step for every-step policies) the observer takes the same metric snapshot the simulator would
// take and forwards the call, so the policy sees exactly the inputs it gets without observers.
// The report equals RunScenario's byte for byte (policies_test checks it).
//
// Thread-safety: reentrant.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "sim/policy.h"
#include "sim/report_html.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace trimtab::sim {

struct ObserveOptions {
  bool record_traces = false;
  // (policy index, policy name, simulated seconds so far, scenario duration).
  std::function<void(size_t, const std::string&, double, double)> progress;
  // Every decision of the policies that explain theirs (PolicyDecision::explanation: trimtab,
  // flink-compat and hpa-cpu), also those that change nothing: (policy index, policy name,
  // simulated seconds, explanation). Asking for it does not change what the policies decide.
  std::function<void(size_t, const std::string&, double, const Json&)> explain;
};

// The report's violation figures per policy (PolicyReport::slo_violation_seconds and
// slo_violation_outside_restarts_seconds), kept here for the callers that read them from the run.
struct RestartAttribution {
  double violation_seconds = 0;                   // lag above the SLO, all of the run
  double violation_outside_restarts_seconds = 0;  // ... outside restart windows
};

struct ObservedRun {
  SimulationReport report;
  std::vector<RestartAttribution> restarts;  // one per scenario policy
  std::vector<PolicyTrace> traces;           // one per scenario policy when record_traces
};

StatusOr<ObservedRun> RunScenarioObserved(const Scenario& scenario, const PolicyRegistry& registry,
                                          const ObserveOptions& options);

}  // namespace trimtab::sim
