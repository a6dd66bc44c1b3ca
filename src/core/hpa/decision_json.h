// Renders an HpaDecision as the JSON that `trimtab eval hpa` prints (docs/eval-hpa.md), and as a
// short human-readable summary (`--summary`): each metric's proposal, what stabilization and the
// rate policies did, and the final replica count with its reason.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/json.h"
#include "core/hpa/decision.h"

namespace trimtab::core::hpa {

// autoscaling/v2 MetricStatus JSON ({"type": "Resource", "resource": {...}}).
Json MetricStatusToJson(const MetricStatus& status);
Json DecisionToJson(const HpaDecision& decision);
std::string DecisionSummary(const HpaDecision& decision);

}  // namespace trimtab::core::hpa
