#include <CLI/CLI.hpp>

#include "cli/commands.h"

#include <iostream>
#include <iterator>
#include <memory>

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

void AddEvalDocumentCommand(CLI::App& eval, const std::string& name,
                            const std::string& description, const std::string& summary_help,
                            EvalDocumentRun run, int* exit_code) {
  CLI::App* cmd = eval.add_subcommand(name, description);
  auto file = std::make_shared<std::string>("-");
  auto summary = std::make_shared<bool>(false);
  cmd->add_option("FILE", *file, "Input document (JSON or YAML); '-' reads stdin")
      ->capture_default_str();
  cmd->add_flag("--summary", *summary, summary_help);
  cmd->callback([file, summary, run = std::move(run), exit_code] {
    std::string source;
    StatusOr<std::string> out = ReadInputDocument(*file, &source);
    if (out.ok()) out = run(*out, source, *summary);
    if (!out.ok()) {
      std::cerr << "error: " << out.status().message() << "\n";
      *exit_code = 1;
      return;
    }
    std::cout << *out;
    *exit_code = 0;
  });
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
