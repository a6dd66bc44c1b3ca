// `trimtab eval schedule FILE`: one Volcano scheduling session (gang scheduling, queues,
// priorities) on a YAML or JSON document of Kubernetes objects and a volcano-scheduler.conf;
// prints the binds, pipelined pods, evictions, PodGroup phases and conditions, queue status and
// the decision log as JSON, or a summary (docs/gang-scheduling.md). Bad input: the error names
// the field, on stderr, exit code 1.
#include "cli/commands.h"
#include "core/scheduling/eval.h"

namespace trimtab::cli {

void RegisterEvalScheduleCommand(CLI::App& eval, int* exit_code) {
  AddEvalDocumentCommand(
      eval, "schedule",
      "Run one gang-scheduling session with Volcano's semantics (actions enqueue, allocate, "
      "backfill, preempt, reclaim, gangpreempt, gangreclaim; plugins gang, priority, drf, "
      "proportion, capacity, predicates, nodeorder, binpack, conformance, overcommit) on a "
      "document with `config:` (volcano-scheduler.conf text or structure; absent = Volcano's "
      "Helm chart default), `nodes`, `pods`, `podGroups`, `queues`, `priorityClasses` (plain "
      "Kubernetes objects) and optional `schedulerNames`, `defaultQueue`, `now`. Prints which "
      "pod goes to which node, which pods are pipelined or evicted, each PodGroup's new phase "
      "and conditions (\"3/5 tasks in gang unschedulable: ...\"), each queue's allocated and "
      "deserved resources, the reason of every pod left pending, and the decision log. "
      "See docs/gang-scheduling.md.",
      "Print binds per node, evictions, phase changes and reasons instead of JSON",
      core::scheduling::EvalSchedule, exit_code);
}

}  // namespace trimtab::cli
