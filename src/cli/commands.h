// The subcommands of the `trimtab` binary. Each Register*Command adds one subcommand (with its
// flags and --help text) to the CLI11 app; main() calls them in the order they appear in --help.
//
// A subcommand's callback stores its exit code in *exit_code: 0 success, 1 a failed run (bad
// input, failed checks), 2 a usage error.
#pragma once

namespace CLI {
class App;
}

#include <functional>
#include <string>

#include "common/status.h"

namespace trimtab::cli {

// The text of an input document named on the command line: a file path, or "-" for stdin.
// Sets *source to what error messages should call it ("stdin" or the path).
StatusOr<std::string> ReadInputDocument(const std::string& path, std::string* source);

// An `eval` subcommand over one document: FILE (JSON or YAML, "-" = stdin, the default) and
// --summary. The callback reads the document and prints what `run` returns; a read or run error
// goes to stderr as "error: <message>" with exit code 1.
using EvalDocumentRun = std::function<StatusOr<std::string>(
    const std::string& text, const std::string& source, bool summary)>;
void AddEvalDocumentCommand(CLI::App& eval, const std::string& name,
                            const std::string& description, const std::string& summary_help,
                            EvalDocumentRun run, int* exit_code);

void RegisterVersionCommand(CLI::App& app, int* exit_code);
// `simulate`: a job in virtual time under a workload, one run per scaling policy (src/sim).
void RegisterSimulateCommand(CLI::App& app, int* exit_code);
// `scenario from-flink`: a simulate scenario measured from a running Flink job (REST API).
void RegisterScenarioCommand(CLI::App& app, int* exit_code);
void RegisterEvalCommand(CLI::App& app, int* exit_code);
// `local`: the local cluster (src/cluster/apiserver + src/cluster/runtime) until SIGINT/SIGTERM.
void RegisterLocalCommand(CLI::App& app, int* exit_code);
// `operator`: the Flink Kubernetes operator against any API server (src/operator).
void RegisterOperatorCommand(CLI::App& app, int* exit_code);
// `autoscale`: the standalone autoscaler for Flink jobs no operator manages (src/standalone).
void RegisterAutoscaleCommand(CLI::App& app, int* exit_code);
// `eval flink`, registered by RegisterEvalCommand under `eval`.
void RegisterEvalFlinkCommand(CLI::App& eval, int* exit_code);
// `eval hpa`, registered by RegisterEvalCommand under `eval`.
void RegisterEvalHpaCommand(CLI::App& eval, int* exit_code);
// `eval schedule`, registered by RegisterEvalCommand under `eval`.
void RegisterEvalScheduleCommand(CLI::App& eval, int* exit_code);

}  // namespace trimtab::cli
