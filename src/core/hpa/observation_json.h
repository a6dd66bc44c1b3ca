// Strict JSON decoding of Observations (observation.h), the "what the cluster shows" half of an
// eval document or scenario step:
//
//   "pods": [{"name": "web-0", "phase": "Running", "ready": true,
//             "readyTransitionTime": "2024-05-01T11:50:00Z", "startTime": "2024-05-01T11:49:00Z",
//             "deleted": false, "requests": {"cpu": "500m"},
//             "containers": [{"name": "app", "requests": {"cpu": "500m"}, "restartableInit":
//             false}]}],
//   "metrics": {
//     "resource": {"cpu": {"timestamp": "...", "windowSeconds": 60,
//                          "pods": {"web-0": "250m", "web-1": {"app": "200m", "proxy": "20m"}}}},
//     "pods":     {"http_requests": {"pods": {"web-0": "12"}}},
//     "object":   {"requests_per_second": {"value": "2k", "timestamp": "..."}},
//     "external": {"queue_messages_ready": [{"value": "90", "labels": {"queue": "jobs"}}]}}
//
// Pod-level "requests" are KEP-2837 pod-level requests (used when no container is named).
// Sample timestamps default to `now`. Errors name the field.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"
#include "core/hpa/observation.h"

namespace trimtab::core::hpa {

// Decodes the "pods" array found at `path`.
StatusOr<std::vector<PodInfo>> PodsFromJson(const Json& json, const std::string& path);
// Decodes the "metrics" object found at `path` into `out` (pods and namespace untouched).
Status MetricValuesFromJson(const Json& json, const std::string& path, TimePoint now,
                            Observations* out);

}  // namespace trimtab::core::hpa
