// `trimtab eval hpa FILE`: one Kubernetes HPA (autoscaling/v2) decision, JSON or YAML in, the
// decision with every stage's reasons out (docs/eval-hpa.md). `--summary` prints a few lines of
// explanation instead of JSON. Bad input: the error names the field, on stderr, exit code 1.
#include "cli/commands.h"
#include "core/hpa/eval.h"

namespace trimtab::cli {

void RegisterEvalHpaCommand(CLI::App& eval, int* exit_code) {
  AddEvalDocumentCommand(
      eval, "hpa",
      "Run one HorizontalPodAutoscaler sync (replica calculation, stabilization, behavior "
      "policies, min/max) on a JSON or YAML document and print each metric's proposal, what "
      "behavior did, the conditions, status.currentMetrics and the new state. "
      "See docs/eval-hpa.md.",
      "Print a short human-readable explanation instead of JSON", core::hpa::EvalHpa, exit_code);
}

}  // namespace trimtab::cli
