#include "cluster/apiserver/admission/event_conversion.h"

#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

// {core/v1 field, events.k8s.io/v1 field} of the fields whose names differ.
constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {
    {"involvedObject", "regarding"},
    {"message", "note"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
    {"reportingComponent", "reportingController"},
};

Json Rename(const Json& in, bool to_events_v1) {
  Json out = in;
  for (const auto& [core, events] : kRenamed) {
    std::string from(to_events_v1 ? core : events);
    std::string to(to_events_v1 ? events : core);
    out.erase(to);
    auto it = in.find(from);
    if (it == in.end()) continue;
    out.erase(from);
    // Empty values are left out, as the Go encoding of the other version omits them.
    if (it->is_null() || (it->is_string() && it->get<std::string>().empty()) ||
        (it->is_object() && it->empty()) || (it->is_number_integer() && *it == 0)) {
      continue;
    }
    out[to] = *it;
  }
  return out;
}

}  // namespace

Json CoreEventToEventsV1(const Json& stored) {
  if (!stored.is_object()) return stored;
  Json out = Rename(stored, /*to_events_v1=*/true);
  out["apiVersion"] = "events.k8s.io/v1";
  return out;
}

StatusOr<Json> EventsV1ToCoreEvent(const Json& object) {
  if (!object.is_object()) return InvalidArgumentError("an Event must be a JSON object");
  Json out = Rename(object, /*to_events_v1=*/false);
  out["apiVersion"] = "v1";
  return out;
}

}  // namespace trimtab::cluster
