#include "operator/event_recorder.h"

#include <cctype>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/kube/object.h"

namespace trimtab::op {
namespace {

int32_t JavaHash(std::string_view s) {
  uint32_t h = 0;
  for (unsigned char c : s) h = 31 * h + c;  // UTF-8 bytes; exact for ASCII
  return static_cast<int32_t>(h);
}

std::string_view TypeName(EventType t) { return t == EventType::kWarning ? "Warning" : "Normal"; }

}  // namespace

InvolvedObject InvolvedObjectOf(const Json& object) {
  InvolvedObject o;
  o.api_version = object.value("apiVersion", "");
  o.kind = object.value("kind", "");
  o.name = kube::ObjectName(object);
  o.namespace_name = kube::ObjectNamespace(object);
  o.uid = kube::ObjectUid(object);
  o.resource_version = kube::ObjectResourceVersion(object);
  return o;
}

EventRecorder::EventRecorder(const kube::KubeClient* client, Clock* clock,
                             std::string reporting_component)
    : client_(client), clock_(clock), reporting_component_(std::move(reporting_component)) {}

std::string EventRecorder::EventName(const InvolvedObject& o, EventType type,
                                     std::string_view reason, std::string_view message,
                                     std::string_view component, std::string_view message_key) {
  std::string identity = message_key.empty() ? std::string(reason) + std::string(message)
                                             : std::string(message_key);
  identity += TypeName(type);
  identity += o.kind + o.name + o.uid;
  std::string prefix(component);  // lower case: event names are DNS subdomains
  for (char& c : prefix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return prefix + "." + std::to_string(JavaHash(identity) & 0x7fffffff);
}

void EventRecorder::Record(const InvolvedObject& o, EventType type, std::string_view reason,
                           std::string_view message, std::string_view component,
                           std::string_view message_key) {
  ++recorded_;
  spdlog::log(type == EventType::kWarning ? spdlog::level::warn : spdlog::level::info,
              "event {}/{} {} {}: {}", o.namespace_name, o.name, TypeName(type), reason, message);
  if (!client_) return;
  const std::string name = EventName(o, type, reason, message, component, message_key);
  const std::string now = FormatRfc3339(clock_->Now());
  const kube::GroupVersionResource events = kube::EventsResource();
  StatusOr<Json> existing = client_->Get(events, o.namespace_name, name);
  Status result;
  if (existing.ok()) {
    Json e = *existing;
    e["count"] = e.value("count", 1) + 1;
    e["lastTimestamp"] = now;
    e["message"] = std::string(message);
    result = client_->Update(events, e).status();
  } else if (existing.status().code() == StatusCode::kNotFound) {
    Json e = {{"apiVersion", "v1"},
              {"kind", "Event"},
              {"metadata", {{"name", name}, {"namespace", o.namespace_name}}},
              {"involvedObject",
               {{"apiVersion", o.api_version}, {"kind", o.kind}, {"name", o.name},
                {"namespace", o.namespace_name}, {"uid", o.uid},
                {"resourceVersion", o.resource_version}}},
              {"reason", std::string(reason)},
              {"message", std::string(message)},
              {"type", std::string(TypeName(type))},
              {"source", {{"component", std::string(component)}}},
              {"reportingComponent", reporting_component_},
              {"firstTimestamp", now},
              {"lastTimestamp", now},
              {"count", 1}};
    result = client_->Create(events, o.namespace_name, e).status();
  } else {
    result = existing.status();
  }
  if (result.ok()) return;
  if (result.code() == StatusCode::kPermissionDenied) {
    const int64_t now_ms = ToUnixMillis(clock_->Now());
    int64_t last = denied_logged_ms_.load();
    const int64_t interval_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(kPermissionDeniedLogInterval).count();
    if (last >= 0 && now_ms - last < interval_ms) {
      ++denied_unlogged_;
      return;
    }
    if (!denied_logged_ms_.compare_exchange_strong(last, now_ms)) {
      ++denied_unlogged_;  // another thread logs this interval
      return;
    }
    const int64_t dropped = denied_unlogged_.exchange(0);
    spdlog::warn("cannot record event {} on {}/{}: {} (the operator may not write events; {} "
                 "more dropped since the last warning)",
                 reason, o.namespace_name, o.name, result.ToString(), dropped);
    return;
  }
  spdlog::warn("cannot record event {} on {}/{}: {}", reason, o.namespace_name, o.name,
               result.ToString());
}

}  // namespace trimtab::op
