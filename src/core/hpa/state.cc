#include "core/hpa/state.h"

#include <limits>
#include <nlohmann/json.hpp>

namespace trimtab::core::hpa {
namespace {

Status ReadTime(JsonReader& r, std::string_view field, TimePoint* out) {
  std::string text;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString(field, &text));
  auto t = ParseRfc3339(text);
  if (!t.ok()) return t.status().WithContext(r.FieldPath(field));
  *out = *t;
  return Status::Ok();
}

Status ReadCount(JsonReader& r, std::string_view field, int32_t* out) {
  int64_t v = 0;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredInt(field, &v));
  if (v < 0 || v > std::numeric_limits<int32_t>::max()) {
    return InvalidArgumentError(r.FieldPath(field) + ": Invalid value: " + std::to_string(v) +
                                ": must be between 0 and 2147483647");
  }
  *out = static_cast<int32_t>(v);
  return Status::Ok();
}

StatusOr<std::vector<TimestampedScaleEvent>> ReadEvents(JsonReader& r, std::string_view field) {
  std::vector<TimestampedScaleEvent> events;
  const Json* list = r.Get(field);
  if (!list) return events;
  const std::string path = r.FieldPath(field);
  if (!list->is_array()) {
    return InvalidArgumentError(path + ": expected array, got " + std::string(JsonTypeName(*list)));
  }
  for (size_t i = 0; i < list->size(); ++i) {
    JsonReader e((*list)[i], JoinPath(path, i));
    TRIMTAB_RETURN_IF_ERROR(e.ExpectObject());
    TimestampedScaleEvent ev;
    TRIMTAB_RETURN_IF_ERROR(ReadCount(e, "replicaChange", &ev.replica_change));
    TRIMTAB_RETURN_IF_ERROR(ReadTime(e, "timestamp", &ev.timestamp));
    TRIMTAB_RETURN_IF_ERROR(e.OptionalBool("outdated", &ev.outdated));
    TRIMTAB_RETURN_IF_ERROR(e.NoUnknownFields());
    events.push_back(ev);
  }
  return events;
}

Json EventsToJson(const std::vector<TimestampedScaleEvent>& events) {
  Json out = Json::array();
  for (const auto& e : events) {
    out.push_back({{"replicaChange", e.replica_change},
                   {"timestamp", FormatRfc3339(e.timestamp)},
                   {"outdated", e.outdated}});
  }
  return out;
}

}  // namespace

Json HpaStateToJson(const HpaState& state) {
  Json recs = Json::array();
  for (const auto& r : state.recommendations) {
    recs.push_back({{"replicas", r.replicas}, {"timestamp", FormatRfc3339(r.timestamp)}});
  }
  return Json{{"recommendations", recs},
              {"scaleUpEvents", EventsToJson(state.scale_up_events)},
              {"scaleDownEvents", EventsToJson(state.scale_down_events)}};
}

StatusOr<HpaState> HpaStateFromJson(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  HpaState state;
  if (const Json* list = r.Get("recommendations")) {
    const std::string list_path = r.FieldPath("recommendations");
    if (!list->is_array()) {
      return InvalidArgumentError(list_path + ": expected array, got " +
                                  std::string(JsonTypeName(*list)));
    }
    for (size_t i = 0; i < list->size(); ++i) {
      JsonReader e((*list)[i], JoinPath(list_path, i));
      TRIMTAB_RETURN_IF_ERROR(e.ExpectObject());
      TimestampedRecommendation rec;
      TRIMTAB_RETURN_IF_ERROR(ReadCount(e, "replicas", &rec.replicas));
      TRIMTAB_RETURN_IF_ERROR(ReadTime(e, "timestamp", &rec.timestamp));
      TRIMTAB_RETURN_IF_ERROR(e.NoUnknownFields());
      state.recommendations.push_back(rec);
    }
  }
  TRIMTAB_ASSIGN_OR_RETURN(state.scale_up_events, ReadEvents(r, "scaleUpEvents"));
  TRIMTAB_ASSIGN_OR_RETURN(state.scale_down_events, ReadEvents(r, "scaleDownEvents"));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return state;
}

}  // namespace trimtab::core::hpa
