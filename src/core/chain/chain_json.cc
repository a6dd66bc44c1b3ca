#include "core/chain/chain_json.h"

#include <nlohmann/json.hpp>

#include "core/scaling_types_json.h"

namespace trimtab::core {

Json ToJson(const ExecutorContext& context) {
  Json configuration = Json::object();
  for (const auto& [k, v] : context.configuration) configuration[k] = v;
  Json fleet = Json::array();
  for (const JobFootprint& f : context.fleet) {
    fleet.push_back({{"jobKey", f.job_key},
                     {"namespace", f.namespace_name},
                     {"slots", f.slots},
                     {"desiredSlots", f.desired_slots},
                     {"weight", f.weight}});
  }
  return Json{{"jobKey", context.job_key},
              {"namespace", context.namespace_name},
              {"timeMillis", ToUnixMillis(context.now)},
              {"configuration", std::move(configuration)},
              {"metrics", ToJson(context.metrics)},
              {"topology", ToJson(context.topology)},
              {"fleet", std::move(fleet)}};
}

StatusOr<ExecutorContext> ExecutorContextFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  ExecutorContext c;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("jobKey", &c.job_key));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("namespace", &c.namespace_name));
  int64_t millis = 0;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("timeMillis", &millis));
  c.now = FromUnixMillis(millis);
  if (const Json* conf = r.Get("configuration")) {
    if (!conf->is_object()) {
      return InvalidArgumentError(r.FieldPath("configuration") + ": must be an object");
    }
    for (const auto& [k, v] : conf->items()) {
      if (!v.is_string()) {
        return InvalidArgumentError(JoinPath(r.FieldPath("configuration"), k) +
                                    ": must be a string, got " + std::string(JsonTypeName(v)));
      }
      c.configuration[k] = v.get<std::string>();
    }
  }
  if (const Json* m = r.Get("metrics")) {
    TRIMTAB_ASSIGN_OR_RETURN(c.metrics, EvaluatedMetricsFromJson(*m, r.FieldPath("metrics")));
  }
  if (const Json* t = r.Get("topology")) {
    TRIMTAB_ASSIGN_OR_RETURN(c.topology, JobTopologyFromJson(*t, r.FieldPath("topology")));
  }
  if (const Json* fleet = r.Get("fleet")) {
    if (!fleet->is_array()) return InvalidArgumentError(r.FieldPath("fleet") + ": must be a list");
    for (size_t i = 0; i < fleet->size(); ++i) {
      JsonReader fr((*fleet)[i], JoinPath(r.FieldPath("fleet"), i));
      TRIMTAB_RETURN_IF_ERROR(fr.ExpectObject());
      JobFootprint f;
      int64_t slots = 0, desired = 0;
      TRIMTAB_RETURN_IF_ERROR(fr.RequiredString("jobKey", &f.job_key));
      TRIMTAB_RETURN_IF_ERROR(fr.OptionalString("namespace", &f.namespace_name));
      TRIMTAB_RETURN_IF_ERROR(fr.OptionalInt("slots", &slots));
      TRIMTAB_RETURN_IF_ERROR(fr.OptionalInt("desiredSlots", &desired));
      TRIMTAB_RETURN_IF_ERROR(fr.OptionalDouble("weight", &f.weight));
      TRIMTAB_RETURN_IF_ERROR(fr.NoUnknownFields());
      f.slots = static_cast<int>(slots);
      f.desired_slots = static_cast<int>(desired);
      c.fleet.push_back(std::move(f));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return c;
}

Json MakePluginRequest(const std::string& plugin, const ExecutorContext& context,
                       const ScalingSummaries& summaries, const Json& plugin_state) {
  return Json{{"plugin", plugin},
              {"context", ToJson(context)},
              {"summaries", ToJson(summaries)},
              {"pluginState", plugin_state}};
}

StatusOr<PluginResponse> PluginResponseFromJson(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  std::string verdict_text;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("verdict", &verdict_text));
  StatusOr<ChainVerdict> verdict = ParseChainVerdict(verdict_text);
  if (!verdict.ok()) return verdict.status().WithContext(r.FieldPath("verdict"));
  PluginResponse response;
  response.result.verdict = *verdict;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("reason", &response.result.reason));
  const Json* summaries = r.Get("summaries");
  if (*verdict == ChainVerdict::kModify && summaries == nullptr) {
    return InvalidArgumentError(r.FieldPath("summaries") + ": required when verdict is modify");
  }
  if (summaries != nullptr && !summaries->is_null()) {
    TRIMTAB_ASSIGN_OR_RETURN(response.result.summaries,
                             ScalingSummariesFromJson(*summaries, r.FieldPath("summaries")));
  }
  if (const Json* state = r.Get("pluginState")) response.plugin_state_json = state->dump();
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return response;
}

Json ToJson(const ExecutorResult& result) {
  Json j = {{"verdict", std::string(ChainVerdictName(result.verdict))}, {"reason", result.reason}};
  if (result.verdict == ChainVerdict::kModify) j["summaries"] = ToJson(result.summaries);
  return j;
}

}  // namespace trimtab::core
