// `trimtab eval schedule FILE`: one Volcano scheduling session (gang scheduling, queues,
// priorities) on a YAML or JSON document of Kubernetes objects and a volcano-scheduler.conf;
// prints the binds, pipelined pods, evictions, PodGroup phases and conditions, queue status and
// the decision log as JSON, or a summary (docs/gang-scheduling.md). Bad input: the error names
// the field, on stderr, exit code 1.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/scheduling/eval.h"

namespace trimtab::cli {

void RegisterEvalScheduleCommand(CLI::App& eval, int* exit_code) {
  CLI::App* cmd = eval.add_subcommand(
      "schedule",
      "Run one gang-scheduling session with Volcano's semantics (actions enqueue, allocate, "
      "backfill, preempt, reclaim, gangpreempt, gangreclaim; plugins gang, priority, drf, "
      "proportion, capacity, predicates, nodeorder, binpack, conformance, overcommit) on a "
      "document with `config:` (volcano-scheduler.conf text or structure; absent = Volcano's "
      "Helm chart default), `nodes`, `pods`, `podGroups`, `queues`, `priorityClasses` (plain "
      "Kubernetes objects) and optional `schedulerNames`, `defaultQueue`, `now`. Prints which "
      "pod goes to which node, which pods are pipelined or evicted, each PodGroup's new phase "
      "and conditions (\"3/5 tasks in gang unschedulable: ...\"), each queue's allocated and "
      "deserved resources, the reason of every pod left pending, and the decision log. "
      "See docs/gang-scheduling.md.");
  auto file = std::make_shared<std::string>("-");
  auto summary = std::make_shared<bool>(false);
  cmd->add_option("FILE", *file, "Input document (JSON or YAML); '-' reads stdin")
      ->capture_default_str();
  cmd->add_flag("--summary", *summary,
                "Print binds per node, evictions, phase changes and reasons instead of JSON");
  cmd->callback([file, summary, exit_code] {
    std::string source;
    auto text = ReadInputDocument(*file, &source);
    if (!text.ok()) {
      std::cerr << "error: " << text.status().message() << "\n";
      *exit_code = 1;
      return;
    }
    auto out = core::scheduling::EvalSchedule(*text, source, *summary);
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
