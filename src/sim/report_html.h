// The self-contained HTML report of `trimtab simulate --report out.html`: one file, no scripts,
// no external assets; every chart is inline SVG generated here.
//
// Contents: the scenario (name, description, seed, duration, SLO), the comparison table (the
// figures of simulator.h, per policy), a slots-over-time chart comparing every policy, and per
// policy three charts sharing one time axis — input rate vs the job's capacity at its current
// parallelism, parallelism per vertex, lag (seconds of input) against the SLO — with every rescale
// marked, followed by the table of decisions with their reasons (the decision log) and the
// changes the autoscaler wanted but its plugin chain vetoed or a rule blocked.
//
// The series come from PolicyTrace (sampled at decision instants by the harness in
// src/sim/policies/observed_run.h, from the model's ground truth: a report figure, not something
// the policy saw).
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace trimtab::sim {

struct TracePoint {
  double time_seconds = 0;
  double input_rate = 0;  // records/s into all sources
  double capacity = 0;    // records/s the job carries at its current parallelism (0: unknown)
  double lag_seconds = 0;
  int slots = 0;
  std::map<VertexId, int> parallelism;
  // Time the job was down (restarting) since the previous point, in whole simulation steps (a
  // step counts when it starts with the job down; the report's downtime is exact).
  double down_seconds = 0;
  bool in_restart_window = false;  // lag now is the restart's (see RestartAttribution)
  // Lag-SLO violation outside restart windows so far in the run, in seconds.
  double violation_outside_restarts_seconds = 0;
};

// Consecutive decision cycles in which the autoscaler wanted a change, a scale-up or a
// scale-down, that a plugin of its chain vetoed or a rule blocked (memory pressure, excluded
// period, quota, scaling disabled), while the job kept its parallelism: what the job did not do,
// and why. Changes the algorithm itself held back (utilization band, behavior windows) are not
// listed; the decision log has every cycle (`--decision-log`).
struct HeldChange {
  double first_seconds = 0;  // the first and the last cycle of the run
  double last_seconds = 0;
  int cycles = 0;
  // The last cycle's proposal: the vertices it wanted to change, at their parallelism, and what
  // it wanted for them (a scale-up behind a growing backlog grows from cycle to cycle).
  std::map<VertexId, int> from;
  std::map<VertexId, int> wanted;
  std::string why;  // the last cycle's veto or block, as logged
};

struct PolicyTrace {
  std::string policy;
  std::vector<TracePoint> points;  // time order
  std::vector<HeldChange> held;    // time order
};

struct HtmlReportInput {
  const SimulationReport* report = nullptr;  // required
  std::string description;
  std::vector<PolicyTrace> traces;  // any subset of the report's policies
};

// The whole HTML document.
std::string RenderHtmlReport(const HtmlReportInput& input);

// The traces as CSV (`trimtab simulate --series out.csv`), one row per policy and sample, time
// order within a policy: policy, seconds, inputRate, capacity (empty when unknown), lagSeconds,
// slots, downSeconds (since the previous row, in whole steps), inRestartWindow (0/1), sloViolationOutsideRestartsSeconds (running
// total), then one parallelism column per vertex of `vertices` ("parallelism:<id>"; empty where a
// point lacks the vertex). Numbers are printed with up to 6 significant digits; a policy name or
// vertex id with a comma or quote is quoted as RFC 4180 asks.
std::string RenderSeriesCsv(const std::vector<PolicyTrace>& traces,
                            const std::vector<VertexId>& vertices);

// Escapes &, <, >, " and ' for HTML text and attributes.
std::string HtmlEscape(std::string_view text);

}  // namespace trimtab::sim
