// trimtab: an autoscaling control plane for streaming jobs on Kubernetes.
#include <CLI/CLI.hpp>

#include <cstdio>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "common/logging.h"
#include "common/process_limits.h"

int main(int argc, char** argv) {
  CLI::App app{
      "trimtab - an autoscaling control plane for Apache Flink jobs on Kubernetes.\n\n"
      "It runs FlinkDeployment / FlinkSessionJob resources safely, scales them (Flink autoscaler\n"
      "per-vertex parallelism, HPA v2 replica semantics with behavior rules, a chain of policy\n"
      "plugins), schedules each job as a gang (Volcano PodGroups and Queues: admitted whole or not\n"
      "at all, queue limits, priority, whole-job preemption), and compares scaling policies in\n"
      "virtual time. `trimtab local` runs all of it on one machine, with HPAs and a\n"
      "Volcano-compatible scheduler; `trimtab operator` runs against a real cluster.",
      "trimtab"};
  app.require_subcommand(1);
  app.fallthrough();
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off (logs go to stderr)")
      ->capture_default_str();

  int exit_code = 0;
  trimtab::cli::RegisterLocalCommand(app, &exit_code);
  trimtab::cli::RegisterOperatorCommand(app, &exit_code);
  trimtab::cli::RegisterAutoscaleCommand(app, &exit_code);
  trimtab::cli::RegisterEvalCommand(app, &exit_code);
  trimtab::cli::RegisterSimulateCommand(app, &exit_code);
  trimtab::cli::RegisterScenarioCommand(app, &exit_code);
  trimtab::cli::RegisterVersionCommand(app, &exit_code);

  app.parse_complete_callback([&] {
    trimtab::Status s = trimtab::InitLogging(log_level);
    if (!s.ok()) throw CLI::ValidationError(s.message());
    // Every watch, connection and simulated listener holds a descriptor: take what the hard
    // limit allows before any thread starts (issue 27: ~1,000 watches exhausted 1024).
    if (auto limit = trimtab::RaiseOpenFileLimit(); !limit.ok()) {
      spdlog::warn("cannot raise the open-file limit: {}", limit.status().message());
    } else if (limit->after != limit->before) {
      spdlog::debug("open-file limit raised from {} to {}", limit->before, limit->after);
    }
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return exit_code;
}
