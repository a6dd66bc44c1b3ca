#include "adapters/kube/event_recorder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "adapters/kube/object.h"

namespace trimtab::kube {
namespace {

constexpr int kUpdateAttempts = 3;  // conflicts while bumping an Event
constexpr int kNameAttempts = 16;   // name collisions while creating one

// 64-bit FNV-1a over length-prefixed parts, as 16 hex digits (a valid label value).
std::string HashParts(std::initializer_list<std::string_view> parts) {
  uint64_t h = 1469598103934665603ULL;
  auto feed = [&h](std::string_view bytes) {
    for (unsigned char c : bytes) {
      h ^= c;
      h *= 1099511628211ULL;
    }
  };
  for (std::string_view part : parts) {
    feed(std::to_string(part.size()));
    feed(":");
    feed(part);
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string StringField(const Json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// lastTimestamp (or firstTimestamp) of an Event; epoch when absent or malformed.
TimePoint LastSeen(const Json& event) {
  for (const char* field : {"lastTimestamp", "firstTimestamp"}) {
    StatusOr<TimePoint> t = ParseRfc3339(StringField(event, field));
    if (t.ok()) return *t;
  }
  return TimePoint{};
}

bool About(const Json& event, const EventObjectReference& object) {
  auto it = event.find("involvedObject");
  if (it == event.end() || !it->is_object()) return false;
  if (!object.uid.empty()) return StringField(*it, "uid") == object.uid;
  return StringField(*it, "kind") == object.kind && StringField(*it, "name") == object.name;
}

}  // namespace

std::string EventRecorder::IdentityHash(const EventObjectReference& object,
                                        const EventToRecord& event) {
  const std::string& key = event.key.empty() ? event.message : event.key;
  return HashParts({object.uid.empty() ? object.kind + "/" + object.name : object.uid, event.type,
                    event.reason, key});
}

TimePoint EventRecorder::Now() const {
  return (options_.clock != nullptr ? options_.clock : RealClock::Default())->Now();
}

StatusOr<Json> EventRecorder::Create(const EventObjectReference& object, const EventToRecord& event,
                                     const std::string& hash, TimePoint now) const {
  const int64_t nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  const std::string stamp = FormatRfc3339(now);
  Json involved = {{"apiVersion", object.api_version},
                   {"kind", object.kind},
                   {"namespace", object.namespace_name},
                   {"name", object.name}};
  if (!object.uid.empty()) involved["uid"] = object.uid;
  Json body = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"namespace", object.namespace_name}, {"labels", {{kEventKeyLabel, hash}}}}},
      {"involvedObject", std::move(involved)},
      {"type", event.type},
      {"reason", event.reason},
      {"message", event.message},
      {"source", {{"component", options_.component}}},
      {"firstTimestamp", stamp},
      {"lastTimestamp", stamp},
      {"count", 1},
      {"reportingComponent", options_.reporting_component},
      {"reportingInstance", options_.reporting_instance}};
  // client-go names events "<object>.<nanoseconds in hex>"; two events in the same nanosecond of
  // a manual clock get a suffix.
  for (int attempt = 0;; ++attempt) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%llx", static_cast<unsigned long long>(nanos + attempt));
    body["metadata"]["name"] = object.name + "." + buf;
    StatusOr<Json> created = options_.client->Create(EventsResource(), object.namespace_name, body);
    if (created.ok() || created.status().code() != StatusCode::kAlreadyExists ||
        attempt + 1 >= kNameAttempts) {
      if (!created.ok()) {
        return created.status().WithContext("event " + event.reason + " about " + object.kind +
                                            " " + object.namespace_name + "/" + object.name);
      }
      return created;
    }
  }
}

StatusOr<Json> EventRecorder::Record(const EventObjectReference& object, const EventToRecord& event,
                                     std::optional<Duration> dedup_interval) const {
  if (options_.client == nullptr) return InvalidArgumentError("event recorder: no client");
  if (object.namespace_name.empty() || object.name.empty()) {
    return InvalidArgumentError("event " + event.reason +
                                ": the involved object needs a namespace and a name");
  }
  if (event.reason.empty()) {
    return InvalidArgumentError("event about " + object.kind + " " + object.namespace_name + "/" +
                                object.name + ": reason is empty");
  }
  const std::string hash = IdentityHash(object, event);
  const TimePoint now = Now();
  if (!dedup_interval) return Create(object, event, hash, now);

  const std::string context = "event " + event.reason + " about " + object.kind + " " +
                              object.namespace_name + "/" + object.name;
  for (int attempt = 0; attempt < kUpdateAttempts; ++attempt) {
    StatusOr<LabelSelector> selector =
        LabelSelector::Parse(std::string(kEventKeyLabel) + "=" + hash);
    if (!selector.ok()) return selector.status().WithContext(context);
    StatusOr<std::vector<Json>> same =
        options_.client->List(EventsResource(), object.namespace_name, {.labels = *selector});
    if (!same.ok()) return same.status().WithContext(context);
    const Json* latest = nullptr;
    for (const Json& e : *same) {
      if (!About(e, object) || StringField(e, "reason") != event.reason ||
          StringField(e, "type") != event.type) {
        continue;
      }
      if (latest == nullptr || LastSeen(e) > LastSeen(*latest)) latest = &e;
    }
    if (latest == nullptr || now - LastSeen(*latest) >= *dedup_interval) {
      return Create(object, event, hash, now);
    }
    Json updated = *latest;
    int64_t count = 1;
    if (auto it = updated.find("count"); it != updated.end() && it->is_number_integer()) {
      count = it->get<int64_t>();
    }
    updated["count"] = count + 1;
    updated["lastTimestamp"] = FormatRfc3339(now);
    updated["message"] = event.message;
    StatusOr<Json> stored = options_.client->Update(EventsResource(), updated);
    if (stored.ok()) return stored;
    if (stored.status().code() != StatusCode::kConflict &&
        stored.status().code() != StatusCode::kNotFound) {
      return stored.status().WithContext(context);
    }
    // Someone else bumped or removed it: read again.
  }
  return ConflictError(context + ": the event kept changing concurrently (" +
                       std::to_string(kUpdateAttempts) + " attempts)");
}

StatusOr<std::vector<Json>> EventRecorder::EventsFor(const EventObjectReference& object) const {
  if (options_.client == nullptr) return InvalidArgumentError("event recorder: no client");
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> all,
                           options_.client->List(EventsResource(), object.namespace_name, {}));
  std::vector<Json> out;
  for (Json& e : all) {
    if (About(e, object)) out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(), [](const Json& a, const Json& b) {
    StatusOr<TimePoint> ta = ParseRfc3339(StringField(a, "firstTimestamp"));
    StatusOr<TimePoint> tb = ParseRfc3339(StringField(b, "firstTimestamp"));
    return (ta.ok() ? *ta : TimePoint{}) < (tb.ok() ? *tb : TimePoint{});
  });
  return out;
}

}  // namespace trimtab::kube
