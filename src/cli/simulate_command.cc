// `trimtab simulate SCENARIO.yaml`: runs a streaming job in virtual time once per scaling
// policy and compares them (docs/simulate.md, docs/benchmarks.md).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "common/json.h"
#include "sim/policies/comparison_table.h"
#include "sim/policies/observed_run.h"
#include "sim/policies/registry.h"
#include "sim/report_html.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace trimtab::cli {

namespace {

constexpr const char kSimulateHelp[] = R"(Simulate a Flink job under a workload and compare scaling policies.

A scenario file (YAML or JSON) describes the job, the input rate over time, how long to run and
which policies to compare, e.g. examples/simulate/q5-step-up.yaml:

  name: q5-step-up
  job: {library: q5, parallelism: 4, partitions: 16}   # q1 q2 q5 q8 q11, or a full job spec
  workload: {type: step, rate: 40000, steps: [{at: 2h, rate: 120000}]}
  duration: 8h
  step: 5 s                 # simulation step (5 s = Flink's metric update interval)
  decisionInterval: 1 min   # how often policies decide
  seed: 42
  slo: {lag: 30 s}
  policies: [trimtab, flink-compat, hpa-cpu, static, oracle]

More scenarios: examples/simulate/ and bench/autoscaling/scenarios/ (step up/down, daily curve,
spike, ramp, noisy plateau, skewed partitions, two-source join). Every field: docs/simulate.md.

Policies:
  trimtab       the default: the Flink autoscaler algorithm with trimtab's defaults (run near
                85 % busy, 10-min window with step detection, keyed vertices sized by
                their busiest subtask, early scale-up while the window refills, scale-ups
                no smaller than the scaling history shows is needed, one-step scale-downs
                held 15 min or 4 restart times, catch-up sized from the backlog observed
                restarts left) through the executor plugin chain (restart-cost gate);
                configurable per scenario:
                {name: trimtab, config: {configuration: {...}, plugins: [...]}}
  flink-compat  the upstream Flink autoscaler with upstream defaults, exactly
  hpa-cpu       a Kubernetes HPA on TaskManager CPU at 70 % (reactive mode: all vertices move)
  static        never rescales
  oracle        the lower bound: knows the true demand, rescales instantly and for free

Figures per policy (the table, the JSON and the HTML report):
  slot-h / slotHours        slots in use (largest vertex parallelism) integrated over time
  x oracle / ratioToOracle  slot-hours divided by the oracle's: the cost above the lower bound
  SLO viol                  time with lag above slo.lag, restarts included (lag: the age of
                            the oldest record not yet processed)
  outside restarts          the part of it outside restart windows (a rescale until lag is back
                            under the SLO, at most 5 min after the restart ended); a diagnostic
  max lag                   the largest lag
  rescales, per day         restarts caused by the policy, and per simulated day
  flaps                     scale-downs undone by a scale-up within 15 min / scale-downs
  downtime                  the restarts' total downtime
  converge                  after each workload change: rescales until the next change, and time
                            until the last restart ended and lag stayed under the SLO
  job-d/CPU-s               simulated job-days per CPU-second (timing; not in the JSON)

The same scenario and seed give byte-identical JSON. Exit code 0 on success, 1 when the
scenario is invalid (the error names the field) or a policy fails, 2 on usage errors.)";

std::vector<std::string> SplitPolicies(const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  for (const std::string& f : flags) {
    std::stringstream ss(f);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const size_t b = item.find_first_not_of(" \t");
      const size_t e = item.find_last_not_of(" \t");
      if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    }
  }
  return out;
}

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return InvalidArgumentError("cannot open " + path + " for writing");
  f << text;
  f.close();
  if (!f) return InternalError("failed to write " + path);
  return Status::Ok();
}

// Progress on stderr once a run has taken more than a second: one updating line on a terminal,
// a line every 10 s otherwise.
class Progress {
 public:
  explicit Progress(size_t policies) : policies_(policies), tty_(isatty(fileno(stderr)) != 0) {}
  void Update(size_t index, const std::string& name, double t, double duration) {
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0 || now < next_) return;
    next_ = now + std::chrono::seconds(tty_ ? 1 : 10);
    std::fprintf(stderr, "%ssimulate: policy %zu/%zu %s: %.0f %% of the simulated time (%.0f s)%s",
                 tty_ ? "\r\033[K" : "", index + 1, policies_, name.c_str(),
                 duration > 0 ? 100.0 * t / duration : 100.0, elapsed, tty_ ? "" : "\n");
    std::fflush(stderr);
    shown_ = true;
  }
  void Finish() {
    if (shown_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  size_t policies_;
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point next_ = start_;
};

struct SimulateFlags {
  std::string scenario;
  std::vector<std::string> policies;
  std::optional<uint64_t> seed;
  std::string json_out;
  std::string report_out;
  std::string series_out;
  std::string decision_log_out;
  bool quiet = false;
};

int RunSimulate(const SimulateFlags& flags) {
  auto fail = [](const Status& s) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  };
  StatusOr<std::string> text = ReadFile(flags.scenario);
  if (!text.ok()) return fail(text.status());
  StatusOr<Json> doc = ParseYaml(*text, flags.scenario);
  if (!doc.ok()) return fail(doc.status());
  if (doc->is_object()) {
    if (flags.seed) (*doc)["seed"] = *flags.seed;
    const std::vector<std::string> chosen = SplitPolicies(flags.policies);
    if (!chosen.empty()) {
      (*doc)["policies"] = chosen;
    } else if (!doc->contains("policies")) {
      (*doc)["policies"] = sim::ComparedPolicyNames();
    }
  }
  sim::ScenarioParseOptions parse;
  parse.base_dir = std::filesystem::path(flags.scenario).parent_path().string();
  if (parse.base_dir.empty()) parse.base_dir = ".";
  StatusOr<sim::Scenario> scenario = sim::ParseScenario(*doc, parse);
  if (!scenario.ok()) return fail(scenario.status().WithContext(flags.scenario));

  Progress progress(scenario->policies.size());
  sim::ObserveOptions observe;
  observe.record_traces = !flags.report_out.empty() || !flags.series_out.empty();
  // Opened before the run, so that a path that cannot be written fails at once. The decision
  // log's lines are written as the run goes: a long run's log is never held in memory.
  std::ofstream decision_log;
  std::ofstream series;
  if (!flags.series_out.empty()) {
    series.open(flags.series_out, std::ios::binary | std::ios::trunc);
    if (!series) {
      return fail(InvalidArgumentError("--series: cannot open " + flags.series_out +
                                       " for writing"));
    }
  }
  if (!flags.decision_log_out.empty()) {
    decision_log.open(flags.decision_log_out, std::ios::binary | std::ios::trunc);
    if (!decision_log) {
      return fail(InvalidArgumentError("--decision-log: cannot open " + flags.decision_log_out +
                                       " for writing"));
    }
    observe.explain = [&](size_t, const std::string& policy, double t, const Json& cycle) {
      Json line = cycle;
      line["policy"] = policy;
      line["simulatedSeconds"] = t;
      decision_log << line.dump() << "\n";
    };
  }
  if (!flags.quiet) {
    observe.progress = [&](size_t i, const std::string& name, double t, double d) {
      progress.Update(i, name, t, d);
    };
  }
  StatusOr<sim::ObservedRun> run =
      sim::RunScenarioObserved(*scenario, sim::AllPoliciesRegistry(), observe);
  progress.Finish();
  if (!run.ok()) return fail(run.status().WithContext(flags.scenario));
  if (decision_log.is_open()) {
    decision_log.close();
    if (!decision_log) return fail(InternalError("failed to write " + flags.decision_log_out));
  }

  const bool json_stdout = flags.json_out == "-";
  const std::string table =
      sim::ComparisonTable(run->report, /*include_timing=*/true);
  (json_stdout ? std::cerr : std::cout) << table;
  if (!flags.json_out.empty()) {
    const std::string json = sim::ReportToText(run->report, /*include_timing=*/false);
    if (json_stdout) {
      std::cout << json;
    } else if (Status s = WriteText(flags.json_out, json); !s.ok()) {
      return fail(s);
    }
  }
  if (series.is_open()) {
    std::vector<sim::VertexId> vertices;
    for (const sim::VertexSpec& v : scenario->job.vertices) vertices.push_back(v.id);
    series << sim::RenderSeriesCsv(run->traces, vertices);
    series.close();
    if (!series) return fail(InternalError("failed to write " + flags.series_out));
  }
  if (!flags.report_out.empty()) {
    sim::HtmlReportInput html;
    html.report = &run->report;
    html.description = scenario->description;
    html.traces = std::move(run->traces);
    if (Status s = WriteText(flags.report_out, sim::RenderHtmlReport(html)); !s.ok()) {
      return fail(s);
    }
  }
  return 0;
}

}  // namespace

void RegisterSimulateCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("simulate", kSimulateHelp);
  auto flags = std::make_shared<SimulateFlags>();
  cmd->add_option("scenario", flags->scenario, "Scenario file (YAML or JSON)")->required();
  cmd->add_option("-p,--policy", flags->policies,
                  "Policy to compare; repeatable or comma-separated (trimtab, flink-compat, "
                  "hpa-cpu, static, oracle). Default: the scenario's `policies`, else all five");
  cmd->add_option("--seed", flags->seed, "Override the scenario's seed (noise, key skew)");
  cmd->add_option("--json", flags->json_out,
                  "Write the JSON figures to this file, or '-' for stdout (the table then goes "
                  "to stderr)");
  cmd->add_option("--report", flags->report_out,
                  "Write a self-contained HTML report with charts (input vs capacity, "
                  "parallelism, lag), every rescale with its reasons, and the changes the "
                  "plugin chain vetoed or a rule blocked");
  cmd->add_option("--series", flags->series_out,
                  "Write what the charts show as CSV, one row per policy and decision interval: "
                  "input rate, capacity at the current parallelism, lag (seconds of input), "
                  "slots, whether the job is restarting or in a restart window, the SLO "
                  "violation outside restarts so far, and each vertex's parallelism");
  cmd->add_option("--decision-log", flags->decision_log_out,
                  "Write every decision cycle of trimtab, flink-compat and hpa-cpu to this file "
                  "as JSON Lines, also the cycles that changed nothing (why a job did not "
                  "scale): what each stage saw and did, and each plugin's verdict");
  cmd->add_flag("-q,--quiet", flags->quiet, "No progress on stderr");
  cmd->callback([flags, exit_code] { *exit_code = RunSimulate(*flags); });
}

}  // namespace trimtab::cli
