#include "operator/autoscaler/state_documents.h"

#include <utility>

#include "core/flink/autoscaler_json.h"

namespace trimtab::op {
namespace {

using core::StateType;
namespace flink = core::flink;

// Documents that are one member of the state's JSON (autoscaler_json.h).
constexpr std::pair<StateType, const char*> kStateMembers[] = {
    {StateType::kCollectedMetrics, "metricWindow"},
    {StateType::kScalingHistory, "scalingHistory"},
    {StateType::kScalingTracking, "scalingTracking"},
    {StateType::kDelayedScaleDown, "delayedScaleDown"},
    {StateType::kParallelismOverrides, "parallelismOverrides"},
    {StateType::kConfigOverrides, "configOverrides"},
};

bool IsEmpty(const Json& j) { return j.is_null() || (j.is_structured() && j.empty()); }

// Reads one document; absent is null.
StatusOr<Json> Read(core::AutoscalerStateStore& store, const std::string& job_key, StateType t) {
  Json doc;
  Status s = store.Get(job_key, t, &doc);
  if (s.code() == StatusCode::kNotFound) return Json();
  if (!s.ok()) return s;
  return doc;
}

Status PutOrRemove(core::AutoscalerStateStore& store, const std::string& job_key, StateType t,
                   const Json& doc) {
  return IsEmpty(doc) ? store.Remove(job_key, t) : store.Put(job_key, t, doc);
}

}  // namespace

StatusOr<StoredAutoscalerState> LoadAutoscalerState(core::AutoscalerStateStore& store,
                                                    const std::string& job_key) {
  StoredAutoscalerState out;
  auto discard = [&](StateType t, const Status& why) {
    out.notes.push_back("discarded stored " + std::string(core::StateTypeName(t)) + ": " +
                        why.message());
  };
  // One JSON state object with every member that decodes on its own.
  Json combined = Json::object();
  for (const auto& [type, member] : kStateMembers) {
    TRIMTAB_ASSIGN_OR_RETURN(Json doc, Read(store, job_key, type));
    if (doc.is_null()) continue;
    Json one = {{member, doc}};
    StatusOr<flink::AutoscalerState> decoded = flink::AutoscalerStateFromJson(one, "state");
    if (!decoded.ok()) {
      discard(type, decoded.status());
      continue;
    }
    combined[member] = std::move(doc);
  }
  // Behavior rules: recommendations and scale events per vertex, stored apart.
  TRIMTAB_ASSIGN_OR_RETURN(Json recommendations, Read(store, job_key, StateType::kRecommendations));
  TRIMTAB_ASSIGN_OR_RETURN(Json events, Read(store, job_key, StateType::kScaleEvents));
  if (!recommendations.is_null() || !events.is_null()) {
    Json behavior = Json::object();
    bool shaped = (recommendations.is_null() || recommendations.is_object()) &&
                  (events.is_null() || events.is_object());
    if (shaped && recommendations.is_object()) {
      for (auto it = recommendations.begin(); it != recommendations.end(); ++it) {
        behavior[it.key()]["recommendations"] = it.value();
      }
    }
    if (shaped && events.is_object()) {
      for (auto it = events.begin(); it != events.end(); ++it) {
        if (!it.value().is_object()) {
          shaped = false;
          break;
        }
        for (auto e = it.value().begin(); e != it.value().end(); ++e) {
          behavior[it.key()][e.key()] = e.value();
        }
      }
    }
    StatusOr<flink::AutoscalerState> decoded =
        shaped ? flink::AutoscalerStateFromJson({{"behavior", behavior}}, "state")
               : StatusOr<flink::AutoscalerState>(
                     InvalidArgumentError("expected objects keyed by vertex id"));
    if (decoded.ok()) {
      combined["behavior"] = std::move(behavior);
    } else {
      discard(StateType::kRecommendations, decoded.status());
      discard(StateType::kScaleEvents, decoded.status());
    }
  }
  TRIMTAB_ASSIGN_OR_RETURN(out.state, flink::AutoscalerStateFromJson(combined, "state"));
  TRIMTAB_ASSIGN_OR_RETURN(Json plugins, Read(store, job_key, StateType::kPluginState));
  if (plugins.is_object()) {
    out.plugin_states = std::move(plugins);
  } else if (!plugins.is_null()) {
    discard(StateType::kPluginState, InvalidArgumentError("expected an object"));
  }
  TRIMTAB_ASSIGN_OR_RETURN(Json history, Read(store, job_key, StateType::kDecisionHistory));
  if (history.is_object()) {
    out.history = std::move(history);
  } else if (!history.is_null()) {
    discard(StateType::kDecisionHistory, InvalidArgumentError("expected an object"));
  }
  return out;
}

Status SaveAutoscalerState(core::AutoscalerStateStore& store, const std::string& job_key,
                           const flink::AutoscalerState& state, const Json& plugin_states,
                           const Json& decision_log, const Json& history) {
  const Json j = flink::ToJson(state);
  for (const auto& [type, member] : kStateMembers) {
    // configOverrides is written only when memory tuning stored some.
    TRIMTAB_RETURN_IF_ERROR(
        PutOrRemove(store, job_key, type, j.contains(member) ? j.at(member) : Json()));
  }
  Json recommendations = Json::object();
  Json events = Json::object();
  for (const auto& [vertex, b] : j.at("behavior").items()) {
    if (!IsEmpty(b.at("recommendations"))) recommendations[vertex] = b.at("recommendations");
    Json e = Json::object();
    for (const char* list : {"scaleUpEvents", "scaleDownEvents"}) {
      if (!IsEmpty(b.at(list))) e[list] = b.at(list);
    }
    if (!e.empty()) events[vertex] = std::move(e);
  }
  TRIMTAB_RETURN_IF_ERROR(
      PutOrRemove(store, job_key, StateType::kRecommendations, recommendations));
  TRIMTAB_RETURN_IF_ERROR(PutOrRemove(store, job_key, StateType::kScaleEvents, events));
  TRIMTAB_RETURN_IF_ERROR(PutOrRemove(store, job_key, StateType::kPluginState,
                                      plugin_states.is_object() ? plugin_states : Json()));
  // Memory tuning is not part of this autoscaler: no configuration overrides are kept.
  TRIMTAB_RETURN_IF_ERROR(store.Remove(job_key, StateType::kConfigOverrides));
  if (!decision_log.is_null()) {
    TRIMTAB_RETURN_IF_ERROR(store.Put(job_key, StateType::kDecisionLog, decision_log));
  }
  if (!history.is_null()) {
    TRIMTAB_RETURN_IF_ERROR(store.Put(job_key, StateType::kDecisionHistory, history));
  }
  return store.Flush(job_key);
}

}  // namespace trimtab::op
