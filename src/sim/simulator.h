// The `trimtab simulate` driver: runs a Scenario in virtual time once per policy (a fresh
// JobModel with the same seed each time) and computes the report figures per policy:
//
//   slotHours            integral of slots in use (max parallelism, slot sharing) over time
//   ratioToOracle        slotHours / the oracle's slotHours (the lower bound; computed even when
//                        the scenario does not list the oracle)
//   sloViolationSeconds  time with lag above slo.lag, restarts included; lag is the age of the
//                        oldest unprocessed record, max over sources (report_figures.h)
//   sloViolationOutsideRestartsSeconds  the part of it outside restart windows (a diagnostic)
//   maxLagSeconds, maxLagRecords, rescales, downtimeSeconds, reprocessedRecords
//   rescalesPerJobDay    rescales per simulated day
//   scaleDowns, scaleDownsUndone  rescales that lowered a vertex, and those of them undone by a
//                        scale-up of such a vertex within 15 minutes (flaps)
//   changes[]            per workload change point: rescales until the next change and seconds
//                        until the job converged (no more rescales, lag back under the SLO);
//                        null when it never did before the next change
//   decisions[]          the policy's rescale decisions with reasons (first 200)
//
// Same scenario and seed -> byte-identical JSON (ReportToJson without timing): ordered maps,
// figures rounded to 4 decimals. Timing (CPU seconds, simulated job-days per CPU second) is
// reported only when asked, because it differs between runs.
//
// Thread-safety: RunScenario is reentrant; a Scenario may be shared by concurrent runs.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "sim/policy.h"
#include "sim/report_figures.h"
#include "sim/scenario.h"

namespace trimtab::sim {

struct DecisionRecord {
  double time_seconds = 0;
  std::map<VertexId, int> from;
  std::map<VertexId, int> to;
  std::vector<std::string> reasons;
  double downtime_seconds = 0;
};

struct ChangeConvergence {
  double at_seconds = 0;
  int rescales = 0;
  std::optional<double> seconds_to_converge;  // nullopt: not converged before the next change
};

struct PolicyReport {
  std::string policy;
  double slot_hours = 0;
  std::optional<double> ratio_to_oracle;
  double task_manager_hours = 0;
  int min_slots = 0;
  int max_slots = 0;
  double slo_violation_seconds = 0;  // restarts included
  double slo_violation_outside_restarts_seconds = 0;
  double max_lag_seconds = 0;
  double max_lag_records = 0;
  int rescales = 0;
  int scale_downs = 0;         // rescales that lowered some vertex's parallelism
  int scale_downs_undone = 0;  // ... undone by a scale-up of such a vertex within 15 minutes
  double downtime_seconds = 0;
  double reprocessed_records = 0;
  std::map<VertexId, int> final_parallelism;
  std::vector<ChangeConvergence> changes;
  std::vector<DecisionRecord> decisions;
  int decisions_omitted = 0;
  // Timing (not deterministic).
  double cpu_seconds = 0;
  double steps = 0;
};

struct SimulationReport {
  std::string scenario;
  uint64_t seed = 0;
  double duration_seconds = 0;
  double step_seconds = 0;
  double slo_lag_seconds = 0;
  double oracle_slot_hours = 0;
  std::vector<PolicyReport> policies;  // scenario order
};

// Optional hooks into RunScenario, for callers that watch a run (progress, charts) without
// changing what it computes.
struct RunHooks {
  // Wraps policy `index` of the scenario before it runs (e.g. to observe its decisions). The
  // wrapper must delegate every decision to the policy it wraps.
  std::function<std::unique_ptr<ScalingPolicy>(size_t index, std::unique_ptr<ScalingPolicy>)>
      decorate;
  // Called when policy `index` has finished.
  std::function<void(size_t index, const PolicyReport&)> finished;
  // Called after every step of policy `index` with the run's figures so far.
  std::function<void(size_t index, const StepFigures&)> after_step;
};

// Runs every policy of `scenario`. Policies are built from `registry`. The oracle is run as well
// when the scenario does not list it, so every report carries its ratio to the oracle.
StatusOr<SimulationReport> RunScenario(const Scenario& scenario, const PolicyRegistry& registry,
                                       const RunHooks& hooks = {});

// Runs one policy (used by RunScenario; exposed for tests and benchmarks).
StatusOr<PolicyReport> RunPolicy(const Scenario& scenario, ScalingPolicy& policy,
                                 const std::function<void(const StepFigures&)>& after_step = {});

Json ReportToJson(const SimulationReport& report, bool include_timing);
// Pretty JSON text with a trailing newline.
std::string ReportToText(const SimulationReport& report, bool include_timing);

// Simulated job-days per CPU-second over all policies of a report.
double JobDaysPerCpuSecond(const SimulationReport& report);

}  // namespace trimtab::sim
