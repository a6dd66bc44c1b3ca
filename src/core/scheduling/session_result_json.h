// The JSON form of a SessionResult (the output of `trimtab eval schedule`, docs/gang-scheduling.md)
// and a short text summary for `--summary`.
//
//   {"binds": [{"pod": "ns/name", "uid": "...", "node": "n1"}],
//    "pipelined": [{"pod": "ns/name", "uid": "..."}],
//    "evictions": [{"pod": "ns/name", "uid": "...", "node": "n1", "action": "preempt",
//                   "preemptor": "ns/pg", "message": "..."}],
//    "podGroups": [{"namespace": "ns", "name": "pg", "queue": "q", "previousPhase": "Pending",
//                   "phase": "Inqueue", "running": 0, "succeeded": 0, "failed": 0,
//                   "conditions": [{"type": ..., "status": ..., "reason": ..., "message": ...,
//                                   "transitionID": ..., "lastTransitionTime": ...}],
//                   "events": [{"type": ..., "reason": ..., "message": ...}], "changed": true}],
//    "queues": [{"name": "default", "state": "Open", "allocated": {"cpu": "4", ...},
//                "deserved": {...}, "pending": 0, "inqueue": 1, "running": 2, "unknown": 0,
//                "completed": 0, "changed": true}],
//    "unschedulable": [{"pod": "ns/name", "uid": ..., "reason": ..., "message": ...,
//                       "nominatedNodeName": "n1"}],
//    "skipped": [{"kind": "PodGroup", "namespace": ..., "name": ..., "reason": ...}],
//    "log": ["enqueue: ...", ...]}
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/json.h"
#include "core/scheduling/session_result.h"

namespace trimtab::core::scheduling {

Json SessionResultToJson(const SessionResult& result);

// A few lines: binds per node, evictions, each PodGroup's phase change and reason.
std::string SessionResultSummary(const SessionResult& result);

}  // namespace trimtab::core::scheduling
