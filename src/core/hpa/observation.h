// What the HPA engine observes in one sync: the target's pods (from the pod lister) and the
// values the three metrics APIs would return (metrics.k8s.io, custom.metrics.k8s.io,
// external.metrics.k8s.io). The engine never fetches anything; callers fill these in.
//
// A metric whose values are absent from Observations behaves like a metrics API that returned an
// empty list (the upstream "no metrics returned from ... API" error).
//
// Thread-safety: plain values.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/quantity.h"

namespace trimtab::core::hpa {

enum class PodPhase { kPending, kRunning, kSucceeded, kFailed, kUnknown };

std::string_view PodPhaseName(PodPhase phase);

struct ContainerInfo {
  std::string name;
  std::map<std::string, Quantity> requests;  // resource name -> request
  // An init container with restartPolicy Always (a sidecar); its requests count like a
  // regular container's.
  bool restartable_init = false;
};

struct PodInfo {
  std::string name;
  PodPhase phase = PodPhase::kRunning;
  std::optional<bool> ready;  // the Ready condition's status; unset: the pod has no Ready condition
  std::optional<TimePoint> ready_transition_time;  // Ready condition lastTransitionTime
  std::optional<TimePoint> start_time;             // status.startTime
  bool deleted = false;                            // metadata.deletionTimestamp is set
  std::vector<ContainerInfo> containers;           // regular and restartable init containers
  std::map<std::string, Quantity> pod_requests;    // pod-level requests (KEP-2837), if any
};

// One pod's sample. For resource metrics either the pod total (`value`) or per-container usage
// (`containers`, summed for Resource metrics, picked by name for ContainerResource metrics).
struct PodSample {
  std::string pod;
  std::optional<Quantity> value;
  std::map<std::string, Quantity> containers;
};

// The samples of one metric for the target's pods.
struct PodSamples {
  TimePoint timestamp{};
  std::chrono::seconds window{60};  // upstream defaults custom metric windows to 1 min
  std::vector<PodSample> samples;
};

// One value of an Object metric (custom.metrics.k8s.io, describedObject).
struct ObjectValue {
  Quantity value;
  TimePoint timestamp{};
};

// One series of an External metric; the engine sums every series the metric selector matches.
struct ExternalSample {
  std::map<std::string, std::string> labels;
  Quantity value;
  TimePoint timestamp{};
};

struct Observations {
  std::string namespace_name = "default";
  std::vector<PodInfo> pods;                       // pods matched by the target's selector
  std::map<std::string, PodSamples> resource;      // by resource name ("cpu", "memory")
  std::map<std::string, PodSamples> pods_metrics;  // by Pods metric name
  std::map<std::string, ObjectValue> objects;      // by Object metric name
  std::map<std::string, std::vector<ExternalSample>> external;  // by External metric name
  // By External metric name: why the external metrics API could not be read (the metric fails
  // with "unable to fetch metrics from external metrics API: <error>", as upstream's client
  // reports it, instead of "no metrics returned from external metrics API").
  std::map<std::string, std::string> external_errors;
};

}  // namespace trimtab::core::hpa
