// `trimtab eval hpa FILE`: one Kubernetes HPA (autoscaling/v2) decision, JSON or YAML in, the
// decision with every stage's reasons out (docs/eval-hpa.md). `--summary` prints a few lines of
// explanation instead of JSON. Bad input: the error names the field, on stderr, exit code 1.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "common/json.h"
#include "core/hpa/eval.h"

namespace trimtab::cli {

void RegisterEvalHpaCommand(CLI::App& eval, int* exit_code) {
  CLI::App* cmd = eval.add_subcommand(
      "hpa",
      "Run one HorizontalPodAutoscaler sync (replica calculation, stabilization, behavior "
      "policies, min/max) on a JSON or YAML document and print each metric's proposal, what "
      "behavior did, the conditions, status.currentMetrics and the new state. "
      "See docs/eval-hpa.md.");
  auto file = std::make_shared<std::string>("-");
  auto summary = std::make_shared<bool>(false);
  cmd->add_option("FILE", *file, "Input document (JSON or YAML); '-' reads stdin")
      ->capture_default_str();
  cmd->add_flag("--summary", *summary, "Print a short human-readable explanation instead of JSON");
  cmd->callback([file, summary, exit_code] {
    std::string source;
    auto text = ReadInputDocument(*file, &source);
    if (!text.ok()) {
      std::cerr << "error: " << text.status().message() << "\n";
      *exit_code = 1;
      return;
    }
    auto out = core::hpa::EvalHpa(*text, source, *summary);
    if (!out.ok()) {
      std::cerr << "error: " << out.status().message() << "\n";
      *exit_code = 1;
      return;
    }
    std::cout << *out;
    *exit_code = 0;
  });
}

}  // namespace trimtab::cli
