#include "core/flink/eval_flink.h"

#include <set>

#include <nlohmann/json.hpp>

#include "core/chain/scaling_realizer.h"
#include "core/flink/autoscaler.h"
#include "core/flink/autoscaler_json.h"

namespace trimtab::core::flink {

StatusOr<Json> EvaluateFlinkDocument(const Json& document) {
  TRIMTAB_ASSIGN_OR_RETURN(AutoscalerInput input, AutoscalerInputFromJson(document, "input"));
  AutoscalerState state;
  if (document.contains("state") && !document["state"].is_null()) {
    TRIMTAB_ASSIGN_OR_RETURN(state, AutoscalerStateFromJson(document["state"], "input.state"));
  }
  // The user's pipeline.jobvertex-parallelism-overrides: {vertex: parallelism}.
  ParallelismOverrides user;
  if (document.contains("userParallelismOverrides")) {
    const Json& u = document["userParallelismOverrides"];
    const std::string path = "input.userParallelismOverrides";
    if (!u.is_object()) return InvalidArgumentError(path + ": expected an object");
    for (auto it = u.begin(); it != u.end(); ++it) {
      if (!it.value().is_number_integer() || it.value().get<int64_t>() < 1) {
        return InvalidArgumentError(path + "." + it.key() + ": expected a positive integer");
      }
      user[it.key()] = static_cast<int>(it.value().get<int64_t>());
    }
  }
  TRIMTAB_ASSIGN_OR_RETURN(std::shared_ptr<const AutoscalerOptions> options, OptionsOf(input));
  TRIMTAB_ASSIGN_OR_RETURN(AutoscalerResult result, RunAutoscalerCycle(input, std::move(state)));
  Json out = ToJson(result);
  // Vertices the autoscaler leaves alone: vertex.exclude.ids and finished vertices.
  Json excluded = Json::array();
  for (const VertexInfo& v : input.topology.vertices) {
    if (options->vertex_exclude_ids.count(v.id) || v.finished) excluded.push_back(v.id);
  }
  out["excludedVertices"] = excluded;
  out["processingBacklog"] = result.processing_backlog;
  // What the realizer writes into pipeline.jobvertex-parallelism-overrides (upstream
  // realizeParallelismOverrides): the autoscaler's overrides over the user's, except for excluded
  // vertices, where the user's value wins; the user's alone when the autoscaler is disabled.
  const ParallelismOverrides realized =
      options->enabled ? MergeParallelismOverrides(user, result.state.parallelism_overrides,
                                                   std::set<VertexId>(
                                                       options->vertex_exclude_ids.begin(),
                                                       options->vertex_exclude_ids.end()))
                       : user;
  Json realized_json = Json::object();
  for (const auto& [id, p] : realized) realized_json[id] = p;
  out["realizedParallelismOverrides"] = realized_json;
  return out;
}

}  // namespace trimtab::core::flink
