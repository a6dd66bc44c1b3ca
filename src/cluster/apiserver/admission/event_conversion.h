// core/v1 <-> events.k8s.io/v1 Event, as the kube-apiserver converts them: both APIs serve the
// same stored objects (core/v1 form), so `kubectl events`, `kubectl get events.events.k8s.io`
// and clients of either API see every event whichever API wrote it.
//
//   core/v1               events.k8s.io/v1
//   involvedObject        regarding
//   message               note
//   source                deprecatedSource
//   firstTimestamp        deprecatedFirstTimestamp
//   lastTimestamp         deprecatedLastTimestamp
//   count                 deprecatedCount
//   reportingComponent    reportingController
//   reason, type, action, related, eventTime, series, reportingInstance: the same
//
// Thread-safety: pure functions.
#pragma once

#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster {

// A stored core/v1 Event in events.k8s.io/v1 form.
Json CoreEventToEventsV1(const Json& stored);
// An events.k8s.io/v1 Event in the stored core/v1 form.
StatusOr<Json> EventsV1ToCoreEvent(const Json& object);

}  // namespace trimtab::cluster
