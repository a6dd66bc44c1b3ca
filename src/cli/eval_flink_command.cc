// `trimtab eval flink`: one Flink autoscaler cycle, JSON in, JSON out (docs/eval-flink.md).
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "common/json.h"
#include "core/flink/eval_flink.h"

namespace trimtab::cli {

void RegisterEvalFlinkCommand(CLI::App& eval, int* exit_code) {
  CLI::App* cmd = eval.add_subcommand(
      "flink",
      "Run one Flink job autoscaler cycle (collect, evaluate, decide, shape) on a JSON or YAML "
      "document and print evaluated metrics, proposed and final parallelism, the decision log "
      "and the new state. See docs/eval-flink.md.");
  auto file = std::make_shared<std::string>("-");
  auto compact = std::make_shared<bool>(false);
  cmd->add_option("FILE,-f,--file", *file, "Input document (JSON or YAML); '-' reads stdin")
      ->capture_default_str();
  cmd->add_flag("--compact", *compact, "Print the result on one line");
  cmd->callback([file, compact, exit_code] {
    std::string source;
    auto text = ReadInputDocument(*file, &source);
    if (!text.ok()) {
      std::cerr << "error: " << text.status().message() << "\n";
      *exit_code = 1;
      return;
    }
    auto doc = ParseYaml(*text, source);
    if (!doc.ok()) {
      std::cerr << "error: " << doc.status().message() << "\n";
      *exit_code = 1;
      return;
    }
    auto result = core::flink::EvaluateFlinkDocument(*doc);
    if (!result.ok()) {
      std::cerr << "error: " << result.status().message() << "\n";
      *exit_code = 1;
      return;
    }
    std::cout << result->dump(*compact ? -1 : 2) << "\n";
    *exit_code = 0;
  });
}

}  // namespace trimtab::cli
