// The local cluster's Events are written by the one EventRecorder (adapters/kube/event_recorder.h)
// configured as client-go's record.EventRecorder for the kubelet, the scheduler and the
// controllers: Events named "<object>.<hex nanoseconds>", repeats of the same event (object,
// field path, source, type, reason and message) within 10 minutes bump the existing Event's count
// and lastTimestamp (so a retried FailedScheduling or BackOff never floods the API server), found
// among the Events the recorder wrote (no list per event); writes happen on the recorder's own
// thread (Record only queues; a full queue drops the event), failures are logged at debug level.
//
// Usage:
//   EventRecorder events(LocalClusterEventOptions(client, clock));
//   events.Start();
//   events.Record(pod, {.component = "kubelet", .host = "node-1"}, "Normal", "Started",
//                 "Started container nginx", "spec.containers{nginx}");
//   events.Stop();
#pragma once

#include "adapters/kube/event_recorder.h"

namespace trimtab::cluster::runtime {

using EventRecorder = kube::EventRecorder;
using EventSource = kube::EventSource;

// The local cluster's configuration of the recorder (see above).
kube::EventRecorderOptions LocalClusterEventOptions(const kube::KubeClient* client,
                                                    const Clock* clock);

}  // namespace trimtab::cluster::runtime
