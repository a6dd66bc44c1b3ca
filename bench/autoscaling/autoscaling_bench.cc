// autoscaling_bench: the public autoscaling suite. Runs every scenario of
// bench/autoscaling/scenarios (or the files / folders given) with every policy — trimtab,
// flink-compat, hpa-cpu, static, oracle — and prints one Markdown table (per scenario and
// policy: slot-hours and ratio to the oracle, time above the lag SLO restarts included and the
// part of it outside restart windows, max lag, rescales and per day, scale-downs undone within
// 15 minutes, downtime, steps and time to converge after each change, simulation speed), then
// the default policy's figures against its targets run by run and over the set, side by side
// with flink-compat (docs/benchmarks.md, "Autoscaling policies").
//
//   autoscaling_bench                       # the suite
//   autoscaling_bench my.yaml other/        # other scenarios (their `policies` are replaced)
//   autoscaling_bench --json-dir out/       # also write each scenario's JSON report
//   autoscaling_bench --keep-policies f.yaml  # the scenario's own policies and their configs
//   autoscaling_bench --seeds 1,2,3         # also every scenario under these seeds: a summary
//                                           # per policy of how the figures move with the seed
//   autoscaling_bench --random 200          # instead: 200 random scenarios (random_scenarios.h),
//                                           # the same summary and the default policy's worst runs
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
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
#include "random_scenarios.h"

namespace fs = std::filesystem;
using namespace trimtab;

namespace {

struct Totals {
  double days = 0;
  double cpu = 0;
};

// One policy over a set of runs: the scenarios (with --seeds, every scenario x seed) or the
// random runs.
struct AcrossSeeds {
  int runs = 0;
  double ratio_sum = 0;
  double ratio_worst = 0;
  std::string worst_run;          // "scenario seed N"
  double run_seconds = 0;         // simulated time, all runs
  double violation_seconds = 0;   // lag above the SLO, restarts included
  double outside_seconds = 0;     // ... outside restart windows
  int violation_over_target = 0;  // runs above 1 % of their time, restarts included
  int change_over_target = 0;     // runs with > 2 rescales after a change
  int noisy_rescales = 0;         // rescales on the noisy scenarios, all seeds
  int rescales = 0;
  int scale_downs = 0;
  int scale_downs_undone = 0;     // within 15 minutes (flaps)
  double downtime_seconds = 0;
  // The same lag figure over the runs whose load the oracle carries (its own lag at most 1 % of
  // the run): a hot key can put a load beyond any parallelism, and no policy can be judged on a
  // run that nothing keeps up with.
  int carried_runs = 0;
  double carried_seconds = 0;
  double carried_violation_seconds = 0;
};

std::vector<uint64_t> ParseSeeds(const std::string& text) {
  std::vector<uint64_t> seeds;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) {
      std::fprintf(stderr, "autoscaling_bench: --seeds: \"%s\" is not a list of numbers such as 1,2,3\n",
                   text.c_str());
      std::exit(2);
    }
    seeds.push_back(std::stoull(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return seeds;
}

void Accumulate(const sim::ObservedRun& run, const std::string& label,
                std::map<std::string, AcrossSeeds>* out) {
  const sim::SimulationReport& r = run.report;
  const bool noisy = r.scenario.find("noisy") != std::string::npos;
  bool oracle_carries = true;
  for (const sim::PolicyReport& p : r.policies) {
    if (p.policy == "oracle") oracle_carries = 100.0 * p.slo_violation_seconds / r.duration_seconds <= 1.0;
  }
  for (const sim::PolicyReport& p : r.policies) {
    AcrossSeeds& a = (*out)[p.policy];
    ++a.runs;
    if (p.ratio_to_oracle) {
      a.ratio_sum += *p.ratio_to_oracle;
      if (*p.ratio_to_oracle > a.ratio_worst) {
        a.ratio_worst = *p.ratio_to_oracle;
        a.worst_run = label;
      }
    }
    a.run_seconds += r.duration_seconds;
    a.violation_seconds += p.slo_violation_seconds;
    a.outside_seconds += p.slo_violation_outside_restarts_seconds;
    if (100.0 * p.slo_violation_seconds / r.duration_seconds > 1.0) ++a.violation_over_target;
    if (oracle_carries) {
      ++a.carried_runs;
      a.carried_seconds += r.duration_seconds;
      a.carried_violation_seconds += p.slo_violation_seconds;
    }
    bool slow = false;
    for (const sim::ChangeConvergence& c : p.changes) slow = slow || c.rescales > 2;
    if (slow) ++a.change_over_target;
    a.rescales += p.rescales;
    a.scale_downs += p.scale_downs;
    a.scale_downs_undone += p.scale_downs_undone;
    a.downtime_seconds += p.downtime_seconds;
    if (noisy) a.noisy_rescales += p.rescales;
  }
}

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

// `seed`, when set, replaces the file's: it is parsed with the scenario, because noise profiles
// take their seed from it while parsing (setting Scenario::seed afterwards would leave the noise
// as it was).
StatusOr<sim::Scenario> Load(const std::string& path, bool keep_policies,
                             std::optional<uint64_t> seed = std::nullopt) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, path));
  if (doc.is_object() && !(keep_policies && doc.contains("policies"))) {
    doc["policies"] = sim::ComparedPolicyNames();
  }
  if (doc.is_object() && seed) doc["seed"] = *seed;
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

double Pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

// "2/40 5.0 %" (scale-downs undone within 15 minutes / scale-downs).
std::string Flaps(int undone, int downs) {
  return downs > 0 ? fmt::format("{}/{} {:.1f} %", undone, downs, Pct(undone, downs)) : "-";
}

void PrintAcross(const std::map<std::string, AcrossSeeds>& across) {
  std::printf("| policy | runs | × oracle mean | worst (run) | SLO viol, all (%% of run time) | "
              "outside restarts | runs > 1 %% | rescales | per job-day | flaps (undone in 15 min) | "
              "downtime | runs > 2 steps | on noisy load | SLO viol, runs the oracle carries |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  int not_carried = 0;
  for (const std::string& name : sim::ComparedPolicyNames()) {
    auto it = across.find(name);
    if (it == across.end()) continue;
    const AcrossSeeds& a = it->second;
    std::printf("| %s | %d | %.2f | %.2f (%s) | %.2f %% | %.2f %% | %d | %d | %.1f | %s | %s | %d | "
                "%d | %.2f %% |\n",
                name.c_str(), a.runs, a.ratio_sum / a.runs, a.ratio_worst, a.worst_run.c_str(),
                Pct(a.violation_seconds, a.run_seconds), Pct(a.outside_seconds, a.run_seconds),
                a.violation_over_target, a.rescales,
                a.run_seconds > 0 ? a.rescales * 86400.0 / a.run_seconds : 0.0,
                Flaps(a.scale_downs_undone, a.scale_downs).c_str(),
                sim::HumanDuration(a.downtime_seconds).c_str(), a.change_over_target,
                a.noisy_rescales, Pct(a.carried_violation_seconds, a.carried_seconds));
    not_carried = a.runs - a.carried_runs;
  }
  if (not_carried > 0) {
    std::printf("\nThe oracle itself is above the lag SLO for more than 1 %% of the run on %d "
                "run(s): a load no parallelism carries (a hot key beyond what the key groups "
                "spread). The last column leaves them out.\n",
                not_carried);
  }
  // Issue 22's targets for trimtab over the set, against flink-compat in the same runs.
  auto t = across.find("trimtab");
  auto f = across.find("flink-compat");
  if (t == across.end() || f == across.end()) return;
  const AcrossSeeds& a = t->second;
  const AcrossSeeds& b = f->second;
  const double viol = Pct(a.violation_seconds, a.run_seconds);
  const double viol_fc = Pct(b.violation_seconds, b.run_seconds);
  const double flap = Pct(a.scale_downs_undone, a.scale_downs);
  const double cost = a.ratio_sum / a.runs;
  const auto mark = [](bool met) { return met ? "met" : "MISSED"; };
  std::printf("\ntrimtab against the targets over these %d runs:\n"
              "- SLO violation, restarts included: %.2f %% of run time (flink-compat %.2f %%; "
              "target <= flink-compat's and <= 1 %%): %s\n"
              "- rescales: %d (flink-compat %d; target <= flink-compat's): %s\n"
              "- flap rate: %.1f %% of %d scale-downs (target <= 5 %%): %s\n"
              "- cost: %.2fx the oracle on average (target <= 1.25x): %s\n",
              a.runs, viol, viol_fc, mark(viol <= viol_fc && viol <= 1.0), a.rescales,
              b.rescales, mark(a.rescales <= b.rescales), flap, a.scale_downs, mark(flap <= 5.0),
              cost, mark(cost <= 1.25));
  std::printf("Totals for combining sets: trimtab %.0f s above the SLO of %.0f s run, %d rescales, "
              "%d of %d scale-downs undone, cost sum %.4f over %d runs; flink-compat %.0f s, %d "
              "rescales\n",
              a.violation_seconds, a.run_seconds, a.rescales, a.scale_downs_undone, a.scale_downs,
              a.ratio_sum, a.runs, b.violation_seconds, b.rescales);
}

// One random run as a table row: the job, the workload shape and each policy's cost / lag
// outside restarts / rescales.
struct RandomRun {
  double trimtab_violation_pct = 0;  // restarts included
  std::string row;
};

// One policy over the random runs whose largest state is the same (--random-graphs).
struct ByState {
  int runs = 0;
  double ratio_sum = 0;
  double violation_pct_sum = 0;  // all time above the lag SLO, restarts included
  double outside_pct_sum = 0;
  int rescales = 0;
};

std::string StateLabel(double bytes) {
  return bytes == 0 ? std::string("none") : fmt::format("{:g} GB", bytes / 1e9);
}

// The per-state table of --random-graphs: long restarts are where policies differ most.
void PrintByState(const std::map<double, std::map<std::string, ByState>>& by_state) {
  std::printf("\nBy the job's largest state (a restart restores it, a checkpoint writes it; "
              "\"all\" counts restarts too):\n\n"
              "| largest state | runs | policy | × oracle mean | SLO viol, all | outside restarts | "
              "rescales |\n|---|---:|---|---:|---:|---:|---:|\n");
  for (const auto& [bytes, policies] : by_state) {
    for (const char* name : {"trimtab", "flink-compat"}) {
      auto it = policies.find(name);
      if (it == policies.end()) continue;
      const ByState& b = it->second;
      std::printf("| %s | %d | %s | %.2f | %.2f %% | %.2f %% | %d |\n", StateLabel(bytes).c_str(),
                  b.runs, name, b.ratio_sum / b.runs, b.violation_pct_sum / b.runs,
                  b.outside_pct_sum / b.runs, b.rescales);
    }
  }
}

// --random / --random-graphs: `count` scenarios drawn from `seed`, the across-runs summary per
// policy and the runs where the default policy spent most time above the lag SLO outside
// restarts (with graphs, also the summary by largest state). With `json_dir`, each scenario is
// also written there as <name>.yaml (JSON, which is YAML), to rerun with `trimtab simulate`,
// next to its report <name>.json.
int RunRandom(int count, uint64_t seed, bool graphs, const sim::PolicyRegistry& registry,
              const std::string& json_dir) {
  std::map<std::string, AcrossSeeds> across;
  std::map<double, std::map<std::string, ByState>> by_state;
  std::vector<RandomRun> runs;
  for (int i = 0; i < count; ++i) {
    Json doc = graphs ? bench::RandomGraphScenario(seed, i) : bench::RandomScenario(seed, i);
    doc["policies"] = sim::ComparedPolicyNames();
    StatusOr<sim::Scenario> scenario = sim::ParseScenario(doc);
    if (!scenario.ok()) {
      std::fprintf(stderr, "error: random scenario %d: %s\n%s\n", i,
                   scenario.status().message().c_str(), doc.dump().c_str());
      return 1;
    }
    StatusOr<sim::ObservedRun> run = sim::RunScenarioObserved(*scenario, registry, {});
    if (!run.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", scenario->name.c_str(), run.status().message().c_str());
      return 1;
    }
    Accumulate(*run, scenario->name, &across);
    const sim::SimulationReport& r = run->report;
    if (!json_dir.empty()) {
      std::ofstream(json_dir + "/" + r.scenario + ".yaml") << doc.dump(2) << "\n";
      std::ofstream(json_dir + "/" + r.scenario + ".json") << sim::ReportToText(r, false);
    }
    RandomRun rr;
    const double state = bench::LargestState(doc);
    if (graphs) {
      rr.row = fmt::format("| {} | {} vertices, state {}, decisions every {:g} s | {} |",
                           scenario->name, doc["job"]["vertices"].size(), StateLabel(state),
                           doc["decisionInterval"].get<double>(),
                           doc["workload"]["type"].get<std::string>());
    } else {
      rr.row = fmt::format("| {} | {} p={} partitions={} | {} |", scenario->name,
                           doc["job"]["library"].get<std::string>(),
                           doc["job"]["parallelism"].get<int>(), doc["job"]["partitions"].get<int>(),
                           doc["workload"]["type"].get<std::string>());
    }
    for (size_t k = 0; k < r.policies.size(); ++k) {
      const sim::PolicyReport& p = r.policies[k];
      const double outside = Pct(p.slo_violation_outside_restarts_seconds, r.duration_seconds);
      const double all = Pct(p.slo_violation_seconds, r.duration_seconds);
      ByState& b = by_state[state][p.policy];
      ++b.runs;
      b.ratio_sum += p.ratio_to_oracle.value_or(0);
      b.violation_pct_sum += all;
      b.outside_pct_sum += outside;
      b.rescales += p.rescales;
      if (p.policy == "static" || p.policy == "oracle") continue;
      if (p.policy == "trimtab") rr.trimtab_violation_pct = all;
      rr.row += fmt::format(" {:.2f}x / {:.2f} % / {} |", p.ratio_to_oracle.value_or(0), all,
                            p.rescales);
    }
    runs.push_back(std::move(rr));
    if ((i + 1) % 20 == 0) std::fprintf(stderr, "autoscaling_bench: %d of %d random scenarios\n", i + 1, count);
  }
  std::printf("%d random %s (random_scenarios.h) from seed %llu, 12 h each:\n\n", count,
              graphs ? "job graphs and workloads" : "scenarios",
              static_cast<unsigned long long>(seed));
  PrintAcross(across);
  if (graphs) PrintByState(by_state);
  std::sort(runs.begin(), runs.end(), [](const RandomRun& a, const RandomRun& b) {
    return a.trimtab_violation_pct > b.trimtab_violation_pct;
  });
  std::printf("\nThe 10 runs where trimtab spent most time above the lag SLO, restarts included "
              "(cost x oracle / %% of run above the SLO / rescales):\n\n"
              "| run | job | workload | trimtab | flink-compat | hpa-cpu |\n|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < runs.size() && i < 10; ++i) std::printf("%s\n", runs[i].row.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  std::string json_dir;
  bool keep_policies = false;
  std::vector<uint64_t> seeds;
  int random_count = 0;
  uint64_t random_seed = 1;
  bool random_graphs = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--random" || a == "--random-graphs") && i + 1 < argc) {
      random_graphs = a == "--random-graphs";
      random_count = std::atoi(argv[++i]);
      if (random_count <= 0) {
        std::fprintf(stderr, "autoscaling_bench: --random: expected a positive count, got \"%s\"\n", argv[i]);
        return 2;
      }
    } else if (a == "--random-seed" && i + 1 < argc) {
      const std::vector<uint64_t> s = ParseSeeds(argv[++i]);
      if (s.size() != 1) {
        std::fprintf(stderr, "autoscaling_bench: --random-seed: expected one number\n");
        return 2;
      }
      random_seed = s[0];
    } else if (a == "--json-dir" && i + 1 < argc) {
      json_dir = argv[++i];
    } else if (a == "--seeds" && i + 1 < argc) {
      seeds = ParseSeeds(argv[++i]);
    } else if (a == "--keep-policies") {
      keep_policies = true;
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: autoscaling_bench [--json-dir DIR] [--keep-policies] [--seeds 1,2,3] [SCENARIO.yaml | DIR]...\n"
                  "       autoscaling_bench --random N | --random-graphs N [--random-seed S]\n"
                  "  --keep-policies  use a scenario's own `policies` (with configs) when it lists\n"
                  "                   them, instead of trimtab, flink-compat, hpa-cpu, static, oracle\n"
                  "  --seeds LIST     also run every scenario under each of these seeds (noise, key\n"
                  "                   skew, partition split) and print, per policy, how the figures\n"
                  "                   hold up across them: mean and worst cost, lag, convergence\n"
                  "  --random N       instead of scenario files: N random scenarios (library job,\n"
                  "                   parallelism, partitions, workload shape drawn from the seed,\n"
                  "                   default 1), summarized per policy, with trimtab's worst runs\n"
                  "  --random-graphs N  the same with random job graphs: 2-5 vertex chains with\n"
                  "                   drawn costs, selectivity, key skew, edges and up to 50 GB of\n"
                  "                   state, decisions every 10 s to 1 min; also by largest state\n"
                  "default: the suite in the source tree's bench/autoscaling/scenarios\n");
      return 0;
    } else {
      args.push_back(a);
    }
  }
  if (!json_dir.empty()) fs::create_directories(json_dir);
  if (random_count > 0) {
    return RunRandom(random_count, random_seed, random_graphs, sim::AllPoliciesRegistry(),
                     json_dir);
  }
  if (args.empty()) args.push_back(std::string(TRIMTAB_SOURCE_DIR) + "/bench/autoscaling/scenarios");
  const std::vector<std::string> files = ScenarioFiles(args);
  if (files.empty()) {
    std::fprintf(stderr, "autoscaling_bench: no scenario files\n");
    return 1;
  }

  const sim::PolicyRegistry registry = sim::AllPoliciesRegistry();
  std::map<std::string, Totals> speed;
  std::map<std::string, AcrossSeeds> across;
  std::vector<std::string> target_notes;
  int misses = 0;
  std::string table =
      "| scenario | policy | slot-h | × oracle | SLO viol, all (% of run) | outside restarts | "
      "max lag | rescales | per day | flaps | downtime | converge: steps / time | "
      "job-days/CPU-s |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
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
    Accumulate(*run, r.scenario + " seed " + std::to_string(scenario->seed), &across);
    if (!seeds.empty()) {
      for (uint64_t seed : seeds) {
        if (seed == scenario->seed) continue;
        StatusOr<sim::Scenario> other = Load(file, keep_policies, seed);
        if (!other.ok()) {
          std::fprintf(stderr, "error: %s\n", other.status().message().c_str());
          return 1;
        }
        StatusOr<sim::ObservedRun> more = sim::RunScenarioObserved(*other, registry, {});
        if (!more.ok()) {
          std::fprintf(stderr, "error: %s seed %llu: %s\n", file.c_str(),
                       static_cast<unsigned long long>(seed), more.status().message().c_str());
          return 1;
        }
        Accumulate(*more, r.scenario + " seed " + std::to_string(seed), &across);
      }
    }
    if (!json_dir.empty()) {
      std::ofstream(json_dir + "/" + r.scenario + ".json") << sim::ReportToText(r, false);
    }
    for (const sim::PolicyReport& p : r.policies) {
      const double days = r.duration_seconds / 86400.0;
      speed[p.policy].days += days;
      speed[p.policy].cpu += p.cpu_seconds;
      table += fmt::format(
          "| {} | {} | {:.1f} | {} | {} ({:.2f} %) | {} ({:.2f} %) | {} | {} | {:.1f} | {} | {} | "
          "{} | {} |\n",
          r.scenario, p.policy, p.slot_hours,
          p.ratio_to_oracle ? fmt::format("{:.2f}", *p.ratio_to_oracle) : "-",
          sim::HumanDuration(p.slo_violation_seconds), Pct(p.slo_violation_seconds, r.duration_seconds),
          sim::HumanDuration(p.slo_violation_outside_restarts_seconds),
          Pct(p.slo_violation_outside_restarts_seconds, r.duration_seconds),
          sim::HumanDuration(p.max_lag_seconds), p.rescales, p.rescales / days,
          Flaps(p.scale_downs_undone, p.scale_downs), sim::HumanDuration(p.downtime_seconds),
          sim::ConvergenceSummary(p),
          p.cpu_seconds > 0 ? fmt::format("{:.0f}", days / p.cpu_seconds) : "-");
    }
    // The default policy against its targets, run by run (the set's are below the tables).
    const sim::PolicyReport* t = Find(r, "trimtab");
    const sim::PolicyReport* fc = Find(r, "flink-compat");
    if (!t) continue;
    std::vector<std::string> missed;
    if (t->ratio_to_oracle && *t->ratio_to_oracle > 1.25) {
      missed.push_back(fmt::format("cost {:.2f}x oracle > 1.25", *t->ratio_to_oracle));
    }
    const double viol = Pct(t->slo_violation_seconds, r.duration_seconds);
    if (viol > 1.0) missed.push_back(fmt::format("SLO violation {:.2f} % > 1 %", viol));
    if (fc && t->slo_violation_seconds > fc->slo_violation_seconds) {
      missed.push_back(fmt::format("SLO violation {} > flink-compat's {}",
                                   sim::HumanDuration(t->slo_violation_seconds),
                                   sim::HumanDuration(fc->slo_violation_seconds)));
    }
    if (fc && t->rescales > fc->rescales) {
      missed.push_back(fmt::format("{} rescales > flink-compat's {}", t->rescales, fc->rescales));
    }
    if (t->scale_downs_undone > 0) {
      missed.push_back(fmt::format("{} of {} scale-downs undone within 15 min",
                                   t->scale_downs_undone, t->scale_downs));
    }
    for (const sim::ChangeConvergence& c : t->changes) {
      if (c.rescales > 2) {
        missed.push_back(fmt::format("{} rescales after the change at {}", c.rescales,
                                     sim::HumanDuration(c.at_seconds)));
      }
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
    std::printf("| %s | %.1f | %.3f | %.0f |\n", name.c_str(), it->second.days, it->second.cpu,
                it->second.cpu > 0 ? it->second.days / it->second.cpu : 0.0);
  }
  std::printf("| all | %.1f | %.3f | %.0f |\n\n", all.days, all.cpu,
              all.cpu > 0 ? all.days / all.cpu : 0.0);
  std::printf("trimtab run by run (cost <= 1.25x oracle, SLO violation restarts included <= 1 %% "
              "and <= flink-compat's, rescales <= flink-compat's, no scale-down undone within 15 "
              "minutes, <= 2 rescales per change):\n\n");
  for (const std::string& n : target_notes) std::printf("%s\n", n.c_str());
  std::printf("\n%d run target(s) missed\n", misses);
  std::printf("\nOver the set (every scenario with its own seed%s; \"> 1 %%\" and \"> 2 steps\" "
              "count runs that miss those targets):\n\n",
              seeds.empty() ? "" : " and each of --seeds");
  PrintAcross(across);
  return 0;
}
