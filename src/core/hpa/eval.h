// `trimtab eval hpa`: one HPA decision from a self-contained JSON (or YAML) document — spec,
// the target's replicas, pods, metric values, persisted history and `now` — to the decision
// JSON (decision_json.h) or a short summary. The CLI and the tests call EvalHpa so that both
// exercise exactly the same path. The document format is in docs/eval-hpa.md:
//
//   {"description": "...", "now": "2024-05-01T12:00:00Z", "namespace": "default",
//    "spec": {...autoscaling/v2 HPA spec...},
//    "currentReplicas": 3, "statusReplicas": 3, "scaledToZero": false,
//    "pods": [...], "metrics": {...},            (observation_json.h)
//    "state": {...},                             (state.h)
//    "controller": {"tolerance": 0.1, "cpuInitializationPeriodSeconds": 300,
//                   "initialReadinessDelaySeconds": 30,
//                   "downscaleStabilizationWindowSeconds": 300,
//                   "scaleUpLimitFactor": 2.0, "scaleUpLimitMinimum": 4.0}}
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "common/json.h"
#include "common/status.h"
#include "core/hpa/controller.h"
#include "core/hpa/decision.h"
#include "core/hpa/state.h"

namespace trimtab::core::hpa {

struct EvalDocument {
  std::string description;
  HpaInput input;
  HpaState state;
  HpaControllerOptions options;
};

// Strict decode; every error names the field ("spec.maxReplicas: Required value").
StatusOr<EvalDocument> EvalDocumentFromJson(const Json& doc);

HpaDecision RunEval(const EvalDocument& doc);

// Parses `text` (JSON or YAML; `source` names it in errors), decodes and runs it, and returns
// the decision as pretty JSON, or the summary when `summary` is set.
StatusOr<std::string> EvalHpa(std::string_view text, std::string_view source, bool summary);

}  // namespace trimtab::core::hpa
