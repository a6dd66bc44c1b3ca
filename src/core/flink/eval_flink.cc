#include "core/flink/eval_flink.h"

#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "core/chain/event_handler.h"
#include "core/chain/scaling_realizer.h"
#include "core/flink/autoscaler.h"
#include "core/flink/autoscaler_json.h"
#include "core/flink/cycle_with_chain.h"

namespace trimtab::core::flink {
namespace {

// An invalid job.autoscaler.* configuration does not fail the run: as the operator (and
// upstream) do, nothing is decided, a Warning AutoscalerError event says why, the state stays as
// it was and the stored overrides stay in force.
Json ConfigurationErrorDocument(const Status& error, const AutoscalerState& state,
                                const ParallelismOverrides& user) {
  const std::string message =
      "invalid autoscaler configuration: " + std::string(error.message());
  Json events = Json::array(
      {{{"type", "Warning"}, {"reason", kReasonAutoscalerError}, {"message", message}}});
  Json realized = Json::object();
  for (const auto& [id, p] : MergeParallelismOverrides(user, state.parallelism_overrides, {})) {
    realized[id] = p;
  }
  return {{"outcome", "ConfigurationError"},
          {"error", message},
          {"vertices", Json::object()},
          {"globalMetrics", Json::object()},
          {"scalingSummaries", Json::object()},
          {"decisionLog",
           {{"outcome", "ConfigurationError"}, {"stages", Json::object()}, {"events", events}}},
          {"state", ToJson(state)},
          {"excludedVertices", Json::array()},
          {"processingBacklog", false},
          {"realizedParallelismOverrides", realized}};
}

// The bounds the algorithm keeps each vertex's parallelism in (vertex_scaler.h): lower =
// min(current, vertex.min-parallelism), upper = min(max(current, vertex.max-parallelism), the
// vertex's max parallelism), and what a new parallelism is aligned to: the source's partitions,
// the key groups of a vertex with a HASH input, or nothing (alignment does not apply).
Json VertexLimits(const VertexInfo& v, const AutoscalerInput& in, const AutoscalerOptions& o) {
  bool hash = false;
  for (const Edge& e : in.topology.edges) {
    hash = hash || (e.to == v.id && e.ship_strategy == "HASH");
  }
  const int partitions = v.num_partitions.value_or(0);
  int min = o.vertex_min_parallelism, max = o.vertex_max_parallelism;
  bool explicit_limits = false;
  if (auto it = in.parallelism_limits.find(v.id); it != in.parallelism_limits.end()) {
    min = it->second.min.value_or(min);
    max = it->second.max.value_or(max);
    explicit_limits = true;
  }
  Json limits = {{"lower", std::min(v.parallelism, min)},
                 {"upper", std::min(std::max(v.parallelism, max), v.max_parallelism)},
                 {"maxParallelism", v.max_parallelism},
                 {"explicit", explicit_limits}};
  if (partitions > 0) limits["partitions"] = partitions;
  if (o.alignment_mode == AlignmentMode::kOff) {
    limits["alignedTo"] = nullptr;
  } else if (partitions > 0) {
    limits["alignedTo"] = "partitions";
  } else if (hash) {
    limits["alignedTo"] = "keyGroups";
  } else {
    limits["alignedTo"] = nullptr;
  }
  return limits;
}

// Whether alignment applied to the vertex's proposal this cycle, and what it made of it.
Json AlignmentJson(const VertexDecision& d) {
  if (!d.alignment) return {{"applied", false}};
  const VertexAlignment& a = *d.alignment;
  return {{"applied", true},       {"to", a.to},
          {"mode", a.mode},        {"units", a.units},
          {"unaligned", a.unaligned}, {"aligned", a.aligned},
          {"changed", a.unaligned != a.aligned}};
}

}  // namespace

StatusOr<Json> EvaluateFlinkDocument(const Json& document, const ExecutorChain* chain) {
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
  StatusOr<std::shared_ptr<const AutoscalerOptions>> parsed = OptionsOf(input);
  if (!parsed.ok()) return ConfigurationErrorDocument(parsed.status(), state, user);
  const std::shared_ptr<const AutoscalerOptions>& options = *parsed;
  // The executor chain, as the operator runs it, when the document names one.
  Json plugin_states = Json::object();
  std::optional<ChainedCycleResult> chained;
  if (document.contains("chain")) {
    if (!chain) {
      return InvalidArgumentError("input.chain: this caller cannot build an executor chain");
    }
    if (document.contains("pluginStates")) {
      plugin_states = document["pluginStates"];
      if (!plugin_states.is_object()) {
        return InvalidArgumentError("input.pluginStates: expected an object of plugin states");
      }
    }
    ChainedCycleInput chained_input{.cycle = input};
    chained_input.context.job_key = document.value("jobKey", std::string("eval"));
    TRIMTAB_ASSIGN_OR_RETURN(chained, RunAutoscalerCycleWithChain(chained_input, std::move(state),
                                                                  *chain, &plugin_states));
  }
  AutoscalerResult result;
  if (chained) {
    result = std::move(chained->cycle);
  } else {
    TRIMTAB_ASSIGN_OR_RETURN(result, RunAutoscalerCycle(input, std::move(state)));
  }
  Json out = ToJson(result);
  if (chained) {
    out["chain"] = chained->chain ? core::ToJson(*chained->chain) : Json(nullptr);
    out["pluginStates"] = plugin_states;
  }
  // Vertices the autoscaler leaves alone: vertex.exclude.ids and finished vertices.
  Json excluded = Json::array();
  for (const VertexInfo& v : input.topology.vertices) {
    if (options->vertex_exclude_ids.count(v.id) || v.finished) excluded.push_back(v.id);
  }
  out["excludedVertices"] = excluded;
  // Each vertex's bounds and alignment target, and whether alignment applied this cycle.
  for (const VertexInfo& v : input.topology.vertices) {
    if (out["vertices"].contains(v.id)) {
      out["vertices"][v.id]["limits"] = VertexLimits(v, input, *options);
      auto d = result.log.vertices.find(v.id);
      out["vertices"][v.id]["alignment"] =
          d == result.log.vertices.end() ? Json{{"applied", false}} : AlignmentJson(d->second);
    }
  }
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
