// sim_bench: how many simulated job-days the streaming job model runs per CPU-second for a
// q5-shaped job (source -HASH-> HOP window -HASH-> max/join -> sink, 4 x 4 subtasks, 16
// partitions) under a noisy daily workload, with the `static` policy deciding every minute.
//
// Baseline, measured in the same run so the ratio is machine-independent: the same job driven
// by a naive loop that materializes the full Flink metric snapshot every step (what a
// simulator that computes metrics eagerly would pay). Target: >= 1000 job-days per CPU-second
// at the 5-s step that matches Flink's metric update interval.
#include <cstdio>
#include <ctime>
#include <memory>

#include <nlohmann/json.hpp>

#include "sim/job_library.h"
#include "sim/job_model.h"
#include "sim/policy.h"
#include "sim/rate_profile.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace {

using trimtab::Json;
using namespace trimtab::sim;

double Cpu() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// peak 70000/s: the 4-subtask job keeps up all day (the common case of a provisioned job);
// peak 100000/s: its hottest key-group range saturates around the daily peak.
Scenario MakeScenario(double days, double step, double peak = 70000) {
  Scenario s;
  s.name = "bench-q5";
  s.job = std::move(LibraryJob("q5", {.parallelism = 4, .partitions = 16})).value();
  const Json profile = {{"type", "noise"},
                        {"stddev", 0.1},
                        {"interval", 30},
                        {"of", {{"type", "daily"}, {"trough", 20000}, {"peak", peak}}}};
  std::shared_ptr<const RateProfile> p = std::move(ParseRateProfile(profile, "workload", {.seed = 3})).value();
  s.workload["source"] = p;
  s.duration_seconds = days * 86400;
  s.step_seconds = step;
  s.decision_interval_seconds = 60;
  s.seed = 3;
  return s;
}

// Job-days per CPU-second of the simulator driver (static policy) at `step`.
double DriverSpeed(double days, double step, double peak = 70000) {
  const Scenario s = MakeScenario(days, step, peak);
  auto policy = MakeStaticPolicy();
  const double start = Cpu();
  const auto report = RunPolicy(s, *policy);
  const double cpu = Cpu() - start;
  if (!report.ok()) {
    std::fprintf(stderr, "sim_bench: %s\n", report.status().ToString().c_str());
    return 0;
  }
  return days / cpu;
}

// Baseline: the same model stepped by a loop that takes a full metric snapshot every step.
double NaiveSpeed(double days, double step) {
  const Scenario s = MakeScenario(days, step);
  auto model = std::move(JobModel::Create(s.job, s.seed)).value();
  const RateProfile& profile = *s.workload.at("source");
  const long steps = static_cast<long>(s.duration_seconds / step);
  double sink = 0;
  const double start = Cpu();
  for (long k = 0; k < steps; ++k) {
    model->SetSourceRate(0, profile.Rate(static_cast<double>(k) * step));
    model->Step(step);
    sink += model->Snapshot().vertices.size();
  }
  const double cpu = Cpu() - start;
  if (sink < 0) std::puts("");
  return days / cpu;
}

}  // namespace

int main() {
  const double naive = NaiveSpeed(2, 5.0);
  const double step5 = DriverSpeed(60, 5.0);
  const double step1 = DriverSpeed(20, 1.0);
  const double saturated = DriverSpeed(20, 5.0, 100000);
  std::printf("sim_bench: q5-shaped job, 4 vertices x 4 subtasks, 16 partitions, noisy daily load\n");
  std::printf("  baseline (snapshot every step, 5 s step)  %10.1f job-days/CPU-s\n", naive);
  std::printf("  driver + model, 1 s step                  %10.1f job-days/CPU-s  (%.1fx baseline)\n",
              step1, step1 / naive);
  std::printf("  driver + model, 5 s step                  %10.1f job-days/CPU-s  (%.1fx baseline)\n",
              step5, step5 / naive);
  std::printf("  driver + model, 5 s step, saturated peak   %10.1f job-days/CPU-s  (%.1fx baseline)\n",
              saturated, saturated / naive);
  std::printf("  target >= 1000 job-days/CPU-s at 5 s step: %s\n", step5 >= 1000 ? "met" : "NOT met");
  return 0;
}
