#include "core/flink/eval_flink.h"

#include <nlohmann/json.hpp>

#include "core/flink/autoscaler.h"
#include "core/flink/autoscaler_json.h"

namespace trimtab::core::flink {

StatusOr<Json> EvaluateFlinkDocument(const Json& document) {
  TRIMTAB_ASSIGN_OR_RETURN(AutoscalerInput input, AutoscalerInputFromJson(document, "input"));
  AutoscalerState state;
  if (document.contains("state") && !document["state"].is_null()) {
    TRIMTAB_ASSIGN_OR_RETURN(state, AutoscalerStateFromJson(document["state"], "input.state"));
  }
  TRIMTAB_ASSIGN_OR_RETURN(AutoscalerResult result, RunAutoscalerCycle(input, std::move(state)));
  return ToJson(result);
}

}  // namespace trimtab::core::flink
