// `trimtab eval flink`: one Flink autoscaler cycle, JSON in, JSON out (docs/eval-flink.md).
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "common/json.h"
#include "core/flink/eval_flink.h"
#include "plugins/builtin/builtin_plugins.h"
#include "plugins/loader/chain_builder.h"

namespace trimtab::cli {

void RegisterEvalFlinkCommand(CLI::App& eval, int* exit_code) {
  CLI::App* cmd = eval.add_subcommand(
      "flink",
      "Run one Flink job autoscaler cycle (collect, evaluate, decide, shape, and the executor "
      "chain when the document names one; or decide, shape and chain on given evaluated "
      "metrics) on a JSON or YAML document and print evaluated metrics, proposed and final "
      "parallelism, the decision log and the new state. See docs/eval-flink.md.");
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
    // A document's `chain` is built here, from the built-in plugin types (and the libraries
    // and plugin directory it names), as the operator builds its chain.
    core::ExecutorPluginRegistry registry;
    std::optional<plugins::BuiltChain> chain;
    if (doc->is_object() && doc->contains("chain")) {
      Status registered = plugins::RegisterBuiltinExecutorPlugins(registry);
      StatusOr<plugins::BuiltChain> built =
          registered.ok() ? plugins::BuildExecutorChain((*doc)["chain"], "input.chain", registry)
                          : StatusOr<plugins::BuiltChain>(registered);
      if (!built.ok()) {
        std::cerr << "error: " << built.status().message() << "\n";
        *exit_code = 1;
        return;
      }
      chain = std::move(built).value();
    }
    auto result = core::flink::EvaluateFlinkDocument(*doc, chain ? &chain->chain : nullptr);
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
