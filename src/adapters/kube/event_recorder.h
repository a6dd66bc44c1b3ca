// EventRecorder: writes core v1 Events about an object (what `kubectl describe` shows under
// Events), as client-go's record.EventRecorder and the Flink operator's EventRecorder do.
//
// Each Event carries involvedObject (apiVersion, kind, namespace, name, uid), type (Normal /
// Warning), reason, message, source.component, firstTimestamp / lastTimestamp, count, and the
// label `trimtab.dev/event-key`: a hash of (object uid, type, reason, key) that identifies "the
// same event" (key = the message unless the caller gives one).
//
// Deduplication (upstream EventUtils.createOrUpdateEventWithInterval, the autoscaler's
// `scaling.event.interval`): with a dedup interval, a repeat whose previous occurrence (the newest
// Event with the same identity) was last seen less than the interval ago does not create an
// Event; it bumps that Event's count and lastTimestamp and replaces its message. Without an
// interval, or once the interval has passed, a new Event is created, named like client-go's:
// "<object name>.<unix nanoseconds in hex>". Updates use optimistic concurrency
// (resourceVersion); a conflict re-reads and retries a few times.
//
// Usage:
//   EventRecorder recorder({.client = kube_client.get(), .clock = clock});
//   TRIMTAB_RETURN_IF_ERROR(recorder.Record(ref, {.type = "Warning", .reason = "ScalingVetoed",
//                                                 .message = text}, std::chrono::minutes(30))
//                               .status());
//
// Thread-safety: safe for concurrent use (the state lives in the API server).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "adapters/kube/kube_client.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::kube {

inline constexpr const char kEventKeyLabel[] = "trimtab.dev/event-key";

// The object an Event is about (v1 ObjectReference).
struct EventObjectReference {
  std::string api_version;  // "flink.apache.org/v1beta1"
  std::string kind;         // "FlinkDeployment"
  std::string namespace_name;
  std::string name;
  std::string uid;
};

struct EventRecorderOptions {
  const KubeClient* client = nullptr;  // required
  const Clock* clock = nullptr;        // timestamps; nullptr = RealClock::Default()
  std::string component = "Operator";  // source.component (the Flink operator's value)
  std::string reporting_component = "trimtab-operator";  // reportingComponent
  std::string reporting_instance;  // reportingInstance, e.g. the operator pod name
};

struct EventToRecord {
  std::string type = "Normal";  // "Normal" or "Warning"
  std::string reason;           // CamelCase, e.g. "ScalingReport"
  std::string message;
  std::string key;  // identity for deduplication; "" = the message
};

class EventRecorder {
 public:
  explicit EventRecorder(EventRecorderOptions options) : options_(std::move(options)) {}

  // Records `event` about `object` (rules in the header comment) and returns the Event as
  // stored. Errors: InvalidArgument for a missing object namespace / name / event reason,
  // otherwise the KubeClient's (each naming the Event).
  StatusOr<Json> Record(const EventObjectReference& object, const EventToRecord& event,
                        std::optional<Duration> dedup_interval) const;

  // The Events about `object` (matched by uid, or by kind and name when it has no uid), oldest
  // first.
  StatusOr<std::vector<Json>> EventsFor(const EventObjectReference& object) const;

  // The value of the `trimtab.dev/event-key` label for an event identity.
  static std::string IdentityHash(const EventObjectReference& object, const EventToRecord& event);

 private:
  TimePoint Now() const;
  StatusOr<Json> Create(const EventObjectReference& object, const EventToRecord& event,
                        const std::string& hash, TimePoint now) const;

  EventRecorderOptions options_;
};

}  // namespace trimtab::kube
