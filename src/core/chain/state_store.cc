#include "core/chain/state_store.h"

namespace trimtab::core {

std::string_view StateTypeName(StateType t) {
  switch (t) {
    case StateType::kCollectedMetrics:
      return "collectedMetrics";
    case StateType::kScalingHistory:
      return "scalingHistory";
    case StateType::kScalingTracking:
      return "scalingTracking";
    case StateType::kParallelismOverrides:
      return "parallelismOverrides";
    case StateType::kConfigOverrides:
      return "configOverrides";
    case StateType::kDelayedScaleDown:
      return "delayedScaleDown";
    case StateType::kRecommendations:
      return "recommendations";
    case StateType::kScaleEvents:
      return "scaleEvents";
    case StateType::kPluginState:
      return "pluginState";
    case StateType::kDecisionLog:
      return "decisionLog";
    case StateType::kDecisionHistory:
      return "decisionHistory";
  }
  return "unknown";
}

std::optional<StateType> ParseStateType(std::string_view name) {
  for (StateType t : kAllStateTypes) {
    if (StateTypeName(t) == name) return t;
  }
  return std::nullopt;
}

}  // namespace trimtab::core
