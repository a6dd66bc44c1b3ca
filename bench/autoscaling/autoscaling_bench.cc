// autoscaling_bench: the public autoscaling suite. Runs every scenario of
// bench/autoscaling/scenarios (or the files / folders given) with every policy — trimtab,
// flink-compat, hpa-cpu, static, oracle — and prints one Markdown table (per scenario and
// policy: slot-hours and ratio to the oracle, lag-SLO violation, max lag, rescales, downtime,
// steps and time to converge after each change, simulation speed), then the default policy's
// figures against its targets (docs/benchmarks.md, "Autoscaling policies").
//
//   autoscaling_bench                       # the suite
//   autoscaling_bench my.yaml other/        # other scenarios (their `policies` are replaced)
//   autoscaling_bench --json-dir out/       # also write each scenario's JSON report
//   autoscaling_bench --keep-policies f.yaml  # the scenario's own policies and their configs
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "sim/policies/comparison_table.h"
#include "sim/policies/observed_run.h"
#include "sim/policies/registry.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace fs = std::filesystem;
using namespace trimtab;

namespace {

struct Totals {
  double days = 0;
  double cpu = 0;
};

std::vector<std::string> ScenarioFiles(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  for (const std::string& a : args) {
    if (fs::is_directory(a)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(a)) {
        const std::string ext = e.path().extension().string();
        if (ext == ".yaml" || ext == ".yml" || ext == ".json") in_dir.push_back(e.path().string());
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(a);
    }
  }
  return files;
}

StatusOr<sim::Scenario> Load(const std::string& path, bool keep_policies) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, path));
  if (doc.is_object() && !(keep_policies && doc.contains("policies"))) {
    doc["policies"] = sim::ComparedPolicyNames();
  }
  sim::ScenarioParseOptions o;
  o.base_dir = fs::path(path).parent_path().string();
  if (o.base_dir.empty()) o.base_dir = ".";
  StatusOr<sim::Scenario> s = sim::ParseScenario(doc, o);
  if (!s.ok()) return s.status().WithContext(path);
  return s;
}

const sim::PolicyReport* Find(const sim::SimulationReport& r, const std::string& name) {
  for (const sim::PolicyReport& p : r.policies) {
    if (p.policy == name) return &p;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  std::string json_dir;
  bool keep_policies = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json-dir" && i + 1 < argc) {
      json_dir = argv[++i];
    } else if (a == "--keep-policies") {
      keep_policies = true;
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: autoscaling_bench [--json-dir DIR] [--keep-policies] [SCENARIO.yaml | DIR]...\n"
                  "  --keep-policies  use a scenario's own `policies` (with configs) when it lists\n"
                  "                   them, instead of trimtab, flink-compat, hpa-cpu, static, oracle\n"
                  "default: %s/bench/autoscaling/scenarios\n", TRIMTAB_SOURCE_DIR);
      return 0;
    } else {
      args.push_back(a);
    }
  }
  if (args.empty()) args.push_back(std::string(TRIMTAB_SOURCE_DIR) + "/bench/autoscaling/scenarios");
  const std::vector<std::string> files = ScenarioFiles(args);
  if (files.empty()) {
    std::fprintf(stderr, "autoscaling_bench: no scenario files\n");
    return 1;
  }
  if (!json_dir.empty()) fs::create_directories(json_dir);

  const sim::PolicyRegistry registry = sim::AllPoliciesRegistry();
  std::map<std::string, Totals> speed;
  std::vector<std::string> target_notes;
  int misses = 0;
  std::string table =
      "| scenario | policy | slot-h | × oracle | SLO viol (% of run) | outside restarts | max lag | "
      "rescales | downtime | converge: steps / time | job-days/CPU-s |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const std::string& file : files) {
    StatusOr<sim::Scenario> scenario = Load(file, keep_policies);
    if (!scenario.ok()) {
      std::fprintf(stderr, "error: %s\n", scenario.status().message().c_str());
      return 1;
    }
    std::fprintf(stderr, "autoscaling_bench: %s (%s simulated x %zu policies)\n",
                 scenario->name.c_str(), sim::HumanDuration(scenario->duration_seconds).c_str(),
                 scenario->policies.size());
    StatusOr<sim::ObservedRun> run = sim::RunScenarioObserved(*scenario, registry, {});
    if (!run.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", file.c_str(), run.status().message().c_str());
      return 1;
    }
    const sim::SimulationReport& r = run->report;
    if (!json_dir.empty()) {
      std::ofstream(json_dir + "/" + r.scenario + ".json") << sim::ReportToText(r, false);
    }
    for (size_t i = 0; i < r.policies.size(); ++i) {
      const sim::PolicyReport& p = r.policies[i];
      const double outside = run->restarts[i].violation_outside_restarts_seconds;
      const double days = r.duration_seconds / 86400.0;
      speed[p.policy].days += days;
      speed[p.policy].cpu += p.cpu_seconds;
      table += fmt::format(
          "| {} | {} | {:.1f} | {} | {} ({:.2f} %) | {} ({:.2f} %) | {} | {} | {} | {} | {} |\n",
          r.scenario, p.policy, p.slot_hours,
          p.ratio_to_oracle ? fmt::format("{:.2f}", *p.ratio_to_oracle) : "-",
          sim::HumanDuration(p.slo_violation_seconds),
          100.0 * p.slo_violation_seconds / r.duration_seconds, sim::HumanDuration(outside),
          100.0 * outside / r.duration_seconds, sim::HumanDuration(p.max_lag_seconds),
          p.rescales, sim::HumanDuration(p.downtime_seconds), sim::ConvergenceSummary(p),
          p.cpu_seconds > 0 ? fmt::format("{:.0f}", days / p.cpu_seconds) : "-");
    }
    // The default policy against its targets.
    const sim::PolicyReport* t = Find(r, "trimtab");
    double t_outside = 0;
    for (size_t i = 0; i < r.policies.size(); ++i) {
      if (r.policies[i].policy == "trimtab") t_outside = run->restarts[i].violation_outside_restarts_seconds;
    }
    const sim::PolicyReport* fc = Find(r, "flink-compat");
    if (!t) continue;
    std::vector<std::string> missed;
    if (t->ratio_to_oracle && *t->ratio_to_oracle > 1.10) {
      missed.push_back(fmt::format("cost {:.2f}x oracle > 1.10", *t->ratio_to_oracle));
    }
    const double viol = 100.0 * t_outside / r.duration_seconds;
    if (viol > 0.5) {
      missed.push_back(fmt::format("SLO violation outside restarts {:.2f} % > 0.5 %", viol));
    }
    for (const sim::ChangeConvergence& c : t->changes) {
      if (c.rescales > 2) {
        missed.push_back(fmt::format("{} rescales after the change at {}", c.rescales,
                                     sim::HumanDuration(c.at_seconds)));
      }
    }
    if (fc && r.scenario.find("noisy") != std::string::npos && t->rescales >= fc->rescales) {
      missed.push_back(fmt::format("{} rescales, flink-compat {}", t->rescales, fc->rescales));
    }
    misses += static_cast<int>(missed.size());
    std::string note = "- " + r.scenario + ": ";
    for (size_t i = 0; i < missed.size(); ++i) note += (i ? "; " : "") + missed[i];
    if (missed.empty()) note += "all targets met";
    target_notes.push_back(note);
  }
  std::printf("%s\n", table.c_str());
  std::printf("Simulation speed (simulated job-days per CPU-second, all scenarios):\n\n");
  std::printf("| policy | job-days | CPU s | job-days/CPU-s |\n|---|---:|---:|---:|\n");
  Totals all;
  for (const std::string& name : sim::ComparedPolicyNames()) {
    auto it = speed.find(name);
    if (it == speed.end()) continue;
    all.days += it->second.days;
    all.cpu += it->second.cpu;
    std::printf("| %s | %.1f | %.2f | %.0f |\n", name.c_str(), it->second.days, it->second.cpu,
                it->second.cpu > 0 ? it->second.days / it->second.cpu : 0.0);
  }
  std::printf("| all | %.1f | %.2f | %.0f |\n\n", all.days, all.cpu,
              all.cpu > 0 ? all.days / all.cpu : 0.0);
  std::printf("trimtab against its targets (cost <= 1.10x oracle, SLO violation outside restarts <= 0.5 %%, <= 2 "
              "rescales per change, fewer rescales than flink-compat on noisy load):\n\n");
  for (const std::string& n : target_notes) std::printf("%s\n", n.c_str());
  std::printf("\n%d target(s) missed\n", misses);
  return 0;
}
