#include <CLI/CLI.hpp>

#include "cli/commands.h"

#include <iostream>
#include <iterator>

#include "common/json.h"

namespace trimtab::cli {

StatusOr<std::string> ReadInputDocument(const std::string& path, std::string* source) {
  if (path == "-") {
    *source = "stdin";
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  *source = path;
  return ReadFile(path);
}

void RegisterEvalCommand(CLI::App& app, int* exit_code) {
  CLI::App* eval = app.add_subcommand(
      "eval",
      "Run one decision offline: JSON or YAML document in, JSON result with every stage's "
      "reasons out: `flink` (the Flink autoscaler), `hpa` (a Kubernetes HPA), `schedule` (a "
      "Volcano gang-scheduling session). See docs/eval-hpa.md and docs/gang-scheduling.md.");
  eval->require_subcommand(1);
  RegisterEvalFlinkCommand(*eval, exit_code);
  RegisterEvalHpaCommand(*eval, exit_code);
  RegisterEvalScheduleCommand(*eval, exit_code);
  (void)exit_code;
}

}  // namespace trimtab::cli
