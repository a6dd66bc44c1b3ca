// EventRecorder: writes core/v1 Events about objects, as client-go's record.EventRecorder does
// for the kubelet, the scheduler and the controllers: `kubectl describe` and `kubectl get
// events` show them.
//
// Repeats of the same event (same object, reason, message, type and source) within
// `aggregation_window` update the existing Event (count + 1, lastTimestamp) instead of creating
// a new one, so a retried failure (FailedScheduling, BackOff) never floods the API server.
// Writes happen on the recorder's own thread: Record() only queues and never blocks on the
// network. A full queue drops the event (and logs it).
//
// Usage:
//   EventRecorder events(client, clock, {});
//   events.Start();
//   events.Record(pod, {.component = "kubelet", .host = "node-1"}, "Normal", "Started",
//                 "Started container nginx", "spec.containers{nginx}");
//   events.Stop();
//
// Thread-safety: Record may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "adapters/kube/kube_client.h"
#include "common/clock.h"

namespace trimtab::cluster::runtime {

struct EventSource {
  std::string component;  // "kubelet", "default-scheduler", "replicaset-controller"
  std::string host;       // node name for the kubelet, "" otherwise
};

struct EventRecorderOptions {
  Duration aggregation_window = std::chrono::minutes(10);
  size_t max_queue = 4096;
};

class EventRecorder {
 public:
  EventRecorder(const kube::KubeClient* client, Clock* clock, EventRecorderOptions options = {});
  ~EventRecorder();  // Stop()s

  void Start();
  // Writes what is queued (bounded by a few seconds), then stops the thread.
  void Stop();

  // `object` is the involved object (its kind, name, namespace, uid, apiVersion are copied);
  // `type` is "Normal" or "Warning"; `field_path` e.g. "spec.containers{nginx}".
  void Record(const Json& object, const EventSource& source, const std::string& type,
              const std::string& reason, const std::string& message,
              const std::string& field_path = "");

  // Blocks until every event recorded before the call is written (tests).
  void FlushForTest();

 private:
  struct Involved {
    std::string kind, name, ns, uid, api_version, resource_version, field_path;
  };
  struct Pending {
    Involved involved;
    EventSource source;
    std::string type, reason, message;
    TimePoint at;
  };
  struct Seen {
    std::string ns, name;
    int64_t count = 0;
    TimePoint last;
  };

  void Loop();
  void Write(const Pending& e);

  const kube::KubeClient* client_;
  Clock* clock_;
  const EventRecorderOptions options_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
  bool writing_ = false;       // guarded by mu_
  std::thread thread_;
  std::map<std::string, Seen> seen_;  // loop thread only; aggregation key -> event
};

}  // namespace trimtab::cluster::runtime
