// The self-contained HTML report of `trimtab simulate --report out.html`: one file, no scripts,
// no external assets; every chart is inline SVG generated here.
//
// Contents: the scenario (name, description, seed, duration, SLO), the comparison table (the
// figures of simulator.h, per policy), a slots-over-time chart comparing every policy, and per
// policy three charts sharing one time axis — input rate vs the job's capacity at its current
// parallelism, parallelism per vertex, lag (seconds of input) against the SLO — with every rescale
// marked, followed by the table of decisions with their reasons (the decision log).
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
};

struct PolicyTrace {
  std::string policy;
  std::vector<TracePoint> points;  // time order
};

struct HtmlReportInput {
  const SimulationReport* report = nullptr;  // required
  std::string description;
  std::vector<PolicyTrace> traces;  // any subset of the report's policies
};

// The whole HTML document.
std::string RenderHtmlReport(const HtmlReportInput& input);

// Escapes &, <, >, " and ' for HTML text and attributes.
std::string HtmlEscape(std::string_view text);

}  // namespace trimtab::sim
