// `trimtab eval schedule`: one scheduling session from a self-contained YAML or JSON document
// (docs/gang-scheduling.md "trimtab eval schedule"):
//
//   description: "..."                  # optional, ignored
//   config: |                           # volcano-scheduler.conf text, or the same structure
//     actions: "enqueue, allocate, backfill"   # inline; absent = the Helm chart's default
//     tiers: [...]
//   schedulerNames: [volcano]           # optional (default [volcano])
//   defaultQueue: default               # optional
//   now: "2024-05-01T12:00:00Z"         # optional, stamps conditions
//   nodes: [...]                        # v1 Node objects
//   pods: [...]                         # v1 Pod objects
//   podGroups: [...]                    # scheduling.volcano.sh/v1beta1 PodGroup objects
//   queues: [...]                       # scheduling.volcano.sh/v1beta1 Queue objects
//   priorityClasses: [...]              # scheduling.k8s.io/v1 PriorityClass objects
//
// The output is SessionResultToJson (session_result_json.h). The CLI and the scenario tests
// both call EvalSchedule / RunEval so that they exercise the same path.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "common/json.h"
#include "common/status.h"
#include "core/scheduling/cluster_objects.h"
#include "core/scheduling/scheduler_config.h"
#include "core/scheduling/session.h"
#include "core/scheduling/session_result.h"

namespace trimtab::core::scheduling {

struct EvalDocument {
  std::string description;
  SchedulerConfig config;
  ClusterObjects objects;
  SessionOptions options;
};

// Strict decode: unknown top-level fields and wrong types are errors naming the field.
StatusOr<EvalDocument> EvalDocumentFromJson(const Json& doc);

StatusOr<SessionResult> RunEval(const EvalDocument& doc);

// Parses `text` (JSON or YAML; `source` names it in errors), runs the session, and returns the
// result as pretty JSON, or the text summary when `summary` is set.
StatusOr<std::string> EvalSchedule(std::string_view text, std::string_view source, bool summary);

}  // namespace trimtab::core::scheduling
