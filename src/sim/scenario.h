// A `trimtab simulate` scenario: a job, the workload driving its sources, how long and how
// finely to simulate, which policies to compare, the seed and the lag SLO. File format in
// docs/simulate.md:
//
//   name: q5-daily
//   job: {library: q5, parallelism: 4, partitions: 16}     # or a full job spec (job_spec.h)
//   workload: {type: daily, trough: 20000, peak: 120000}   # one profile for every source, or
//   # workload: {persons: {...}, auctions: {...}, default: {...}}  per source id
//   duration: 2 d
//   step: 5 s
//   decisionInterval: 1 min
//   seed: 42
//   slo: {lag: 30 s}
//   policies: [static, oracle]                             # or [{name: oracle, config: {...}}]
//   changePoints: [2h]                                     # optional, besides the profiles'
//
// Thread-safety: plain values (profiles are immutable and shared).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "sim/job_spec.h"
#include "sim/rate_profile.h"

namespace trimtab::sim {

struct PolicySpec {
  std::string name;
  std::shared_ptr<const Json> config;  // the policy's `config` object; null JSON when absent
};

struct Scenario {
  std::string name = "scenario";
  std::string description;
  JobSpec job;
  // Source vertex id -> input profile (records/s before the source's rateFactor).
  std::map<VertexId, std::shared_ptr<const RateProfile>> workload;
  double duration_seconds = 3600;
  double step_seconds = 1;
  double decision_interval_seconds = 60;
  uint64_t seed = 1;
  double slo_lag_seconds = 30;          // lag (seconds of input) above this violates the SLO
  std::vector<PolicySpec> policies;     // in file order
  std::vector<double> change_points;    // sorted: the profiles' plus `changePoints`
};

struct ScenarioParseOptions {
  std::string base_dir = ".";  // for csv workload files
};

StatusOr<Scenario> ParseScenario(const Json& json, const ScenarioParseOptions& options = {});
// Reads YAML or JSON from `path`; relative csv files resolve against its directory.
StatusOr<Scenario> LoadScenarioFile(const std::string& path);

}  // namespace trimtab::sim
