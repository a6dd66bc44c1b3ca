// EventRecorder: the one writer of core v1 Events (what `kubectl describe` shows under Events)
// in trimtab, as client-go's record.EventRecorder and the Flink operator's EventRecorder. The
// local cluster's kubelet, scheduler and controllers, the operator's Flink controllers and the
// autoscaler all write through it; what differs between them is configuration.
//
// Each Event carries involvedObject (apiVersion, kind, namespace, name, uid, resourceVersion and
// fieldPath when known), type (Normal / Warning), reason, message, source (component, host),
// firstTimestamp / lastTimestamp, count, reportingComponent / reportingInstance, and the label
// `trimtab.dev/event-key`: a hash of the event's identity (object, type, reason, key, source and
// field path; key = the message unless the caller gives one).
//
// Naming (EventRecorderOptions::naming):
//   kObjectTimestamp  client-go's "<object name>.<unix nanoseconds in hex>" (the low bits
//                     randomised, so events of one instant of a manual clock get distinct
//                     names). A repeat of an identity whose previous occurrence was last seen
//                     less than the dedup interval ago bumps that Event (count + 1,
//                     lastTimestamp, message); without an interval, or once it has passed, a new
//                     Event is created. The previous occurrence is looked up in the API server by
//                     the identity label (`find_previous_in_api_server`, so deduplication
//                     survives a restart) or among the Events this recorder wrote.
//   kComponentHash    the Flink operator's "<component in lower case>.<31-bit Java hashCode of
//                     (key or reason + message) + type + kind + name + uid>" (notes §B.11): one
//                     Event per identity, whose every repeat bumps count and lastTimestamp and
//                     replaces the message, whatever the interval. FlinkDeployments,
//                     FlinkSessionJobs and FlinkStateSnapshots get their Events, the
//                     controllers' and the autoscaler's alike, under this scheme.
// Updates of an existing Event read it and write it back with its resourceVersion; a conflict
// re-reads and retries a few times.
//
// Two ways to record:
//   Record()  synchronous; returns the Event as stored or an error naming the Event.
//   Post()    best effort for callers that must not fail because of an Event: queued and written
//             on the recorder's own thread between Start() and Stop() when `max_queue` > 0 (a
//             full queue drops the event), else written at once; failures are logged (a 403,
//             a Role without `events`, at most once per kPermissionDeniedLogInterval with the
//             number dropped meanwhile) and never reach the caller. Post() uses the options'
//             dedup interval.
//
// Usage:
//   kube::EventRecorder events({.client = client, .clock = clock,
//                               .naming = kube::EventNaming::kComponentHash});
//   events.Post(kube::EventObjectReferenceOf(deployment),
//               {.type = "Warning", .reason = "ValidationError", .message = text});
//   TRIMTAB_ASSIGN_OR_RETURN(Json stored, events.Record(ref, {.reason = "ScalingReport",
//                                                              .message = text}, std::nullopt));
//
// Thread-safety: safe for concurrent use; Start/Stop from the owner.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kube/kube_client.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::kube {

inline constexpr const char kEventKeyLabel[] = "trimtab.dev/event-key";

// Minimum time between two log lines about Events the API server refused with 403 (Post).
inline constexpr std::chrono::minutes kPermissionDeniedLogInterval{1};

// The object an Event is about (v1 ObjectReference).
struct EventObjectReference {
  std::string api_version;  // "flink.apache.org/v1beta1"
  std::string kind;         // "FlinkDeployment"
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;  // "" = not recorded
  std::string field_path;        // "spec.containers{nginx}"; "" = the whole object
};
// The reference to `object` (apiVersion, kind and metadata), with `field_path`.
EventObjectReference EventObjectReferenceOf(const Json& object, std::string field_path = "");

enum class EventNaming {
  kObjectTimestamp,  // client-go: "<object>.<hex nanoseconds>", deduplicated within an interval
  kComponentHash,    // Flink operator: "<component>.<hash of the identity>", one Event per identity
};

struct EventRecorderOptions {
  const KubeClient* client = nullptr;  // required (Post without one only logs)
  const Clock* clock = nullptr;        // timestamps; nullptr = RealClock::Default()
  // source.component unless the event names its own (the Flink operator's value).
  std::string component = "Operator";
  // reportingComponent; "" = the event's source.component.
  std::string reporting_component = "trimtab-operator";
  // reportingInstance, e.g. the operator pod name; "" = the event's source.host.
  std::string reporting_instance;
  EventNaming naming = EventNaming::kObjectTimestamp;
  // kObjectTimestamp: the interval Post() deduplicates within (nullopt = every Post is new).
  std::optional<Duration> dedup_interval;
  // kObjectTimestamp: find an identity's previous occurrence in the API server (a list by the
  // identity label; survives restarts) or only among the Events this recorder wrote (no list per
  // event: the local cluster's kubelet and controllers, which write many).
  bool find_previous_in_api_server = true;
  // Post(): > 0 = queued (at most this many waiting) and written on the recorder's thread.
  size_t max_queue = 0;
  // Post(): log every event (info for Normal, warning for Warning), as the Flink operator does.
  bool log_events = false;
  // Post(): log failed writes as warnings (true) or at debug level (false; the local cluster,
  // where writes into a namespace being deleted fail routinely).
  bool warn_on_failure = true;
};

struct EventToRecord {
  std::string type = "Normal";  // "Normal" or "Warning"
  std::string reason;           // CamelCase, e.g. "ScalingReport"
  std::string message;
  std::string key;        // identity for deduplication; "" = the message
  std::string component;  // source.component; "" = the options' component
  std::string host;       // source.host (the kubelet's node); "" = none
};

// The local cluster's call form: who reports (source.component, source.host).
struct EventSource {
  std::string component;  // "kubelet", "default-scheduler", "replicaset-controller"
  std::string host;       // node name for the kubelet, "" otherwise
};

class EventRecorder {
 public:
  explicit EventRecorder(EventRecorderOptions options);
  ~EventRecorder();  // Stop()s

  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Records `event` about `object` at once (rules in the header comment) and returns the Event
  // as stored. `dedup_interval` applies to kObjectTimestamp naming. Errors: InvalidArgument for
  // a missing client, object namespace / name or event reason, otherwise the KubeClient's (each
  // naming the Event).
  StatusOr<Json> Record(const EventObjectReference& object, const EventToRecord& event,
                        std::optional<Duration> dedup_interval) const;

  // Best effort (see the header comment); never fails the caller.
  void Post(EventObjectReference object, EventToRecord event);
  // The local cluster's short form of Post: `object` is the involved object's JSON.
  void Record(const Json& object, const EventSource& source, const std::string& type,
              const std::string& reason, const std::string& message,
              const std::string& field_path = "");

  // Queued Post()s: Start() runs the writer thread; Stop() writes what is queued (bounded by a
  // few seconds) and stops it.
  void Start();
  void Stop();
  // Blocks until every event posted before the call is written (tests).
  void FlushForTest();

  // The Events about `object` (matched by uid, or by kind and name when it has no uid), oldest
  // first.
  StatusOr<std::vector<Json>> EventsFor(const EventObjectReference& object) const;

  // The value of the `trimtab.dev/event-key` label for an event identity.
  static std::string IdentityHash(const EventObjectReference& object, const EventToRecord& event);
  // The kComponentHash name of an event ("<component in lower case>.<31-bit Java hashCode>").
  static std::string ComponentHashName(const EventObjectReference& object,
                                       const EventToRecord& event);

 private:
  struct Pending {
    EventObjectReference object;
    EventToRecord event;
    TimePoint at;
  };
  // An Event this recorder wrote (kObjectTimestamp without the API server lookup).
  struct Written {
    std::string ns, name;
    int64_t count = 0;
    TimePoint last;
  };

  TimePoint Now() const;
  StatusOr<Json> RecordAt(const EventObjectReference& object, const EventToRecord& event,
                          std::optional<Duration> dedup_interval, TimePoint now) const;
  StatusOr<Json> RecordByComponentHash(const EventObjectReference& object,
                                       const EventToRecord& event, const std::string& hash,
                                       TimePoint now) const;
  StatusOr<Json> RecordByTimestamp(const EventObjectReference& object, const EventToRecord& event,
                                   const std::string& hash, std::optional<Duration> interval,
                                   TimePoint now) const;
  Json NewEvent(const EventObjectReference& object, const EventToRecord& event,
                const std::string& hash, TimePoint now) const;
  StatusOr<Json> Create(const EventObjectReference& object, const EventToRecord& event,
                        const std::string& hash, TimePoint now) const;
  // count + 1, lastTimestamp, message; with the Event's resourceVersion.
  StatusOr<Json> Bump(Json existing, const EventToRecord& event, TimePoint now) const;
  void Write(const Pending& p);
  void LogFailure(const EventObjectReference& object, const EventToRecord& event,
                  const Status& status);
  void Loop();

  const EventRecorderOptions options_;

  mutable std::mutex written_mu_;
  mutable std::map<std::string, Written> written_;  // guarded by written_mu_; identity -> Event

  // PermissionDenied drops: the last time one was logged and how many were not logged since.
  std::atomic<int64_t> denied_logged_ms_{-1};
  std::atomic<int64_t> denied_unlogged_{0};

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
  bool writing_ = false;       // guarded by mu_
  std::thread thread_;
};

}  // namespace trimtab::kube
