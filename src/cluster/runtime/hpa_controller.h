// HpaController: kube-controller-manager's horizontal pod autoscaler for the local cluster, on
// the same engine as `trimtab eval hpa` (core::hpa::Reconcile). Every `sync_period` of cluster
// time (and at once when an HPA is created or its spec changes) it, for each
// autoscaling/v2 HorizontalPodAutoscaler:
//
//   1. maps spec.scaleTargetRef (apiVersion, kind) to a resource through discovery and GETs its
//      /scale subresource (failure: event FailedGetScale, AbleToScale=False FailedGetScale);
//   2. lists the target's pods by scale.status.selector (missing / invalid: events
//      SelectorRequired / InvalidSelector, ScalingActive=False InvalidSelector);
//   3. fetches what the metrics need over the API like the upstream controller:
//      metrics.k8s.io PodMetrics for Resource / ContainerResource metrics,
//      external.metrics.k8s.io for External metrics, custom.metrics.k8s.io for Pods / Object
//      metrics (a fetch that fails leaves the metric without a value: the engine's error);
//   4. runs core::hpa::Reconcile with the persisted history and, when it says so, updates the
//      scale subresource (events SuccessfulRescale "New size: N; reason: R" / FailedRescale);
//   5. writes status through the status subresource when it changed: currentReplicas,
//      desiredReplicas, currentMetrics (an empty slot for a failed metric, as upstream),
//      lastScaleTime, and the conditions AbleToScale / ScalingActive / ScalingLimited
//      (lastTransitionTime moves only when a condition's status flips); events for failed
//      metrics (FailedGetResourceMetric, FailedGetExternalMetric, ...) and
//      FailedComputeMetricsReplicas.
//
// History. Upstream keeps each HPA's recommendations and scale events in controller memory and
// loses them on restart. Here they are also written, after every sync, to a ConfigMap
// `<hpa>-hpa-history` in the HPA's namespace (key `state.json`: HpaStateToJson plus the HPA's
// uid), owned by the HPA so it goes with it; after a restart of `trimtab local` the history is
// read back, so stabilization windows and rate policies hold across restarts.
//
// Threading: a Controller with `workers` threads; handlers only enqueue; the history cache is
// guarded by a mutex (a key is never synced by two workers at once).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

// Target holds a Json by value, so this header needs the complete type.
#include <nlohmann/json.hpp>

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"
#include "core/hpa/controller.h"
#include "core/hpa/state.h"

namespace trimtab::cluster::runtime {

struct HpaControllerOptions {
  // --horizontal-pod-autoscaler-sync-period (`trimtab local --hpa-sync-period`).
  Duration sync_period = std::chrono::seconds(15);
  // Tolerance, windows, CPU initialization period and the HPAScaleToZero gate.
  core::hpa::HpaControllerOptions engine;
  int workers = 2;
};

kube::GroupVersionResource HorizontalPodAutoscalersGvr();
// The ConfigMap that holds an HPA's history.
std::string HpaHistoryConfigMapName(const std::string& hpa_name);

class HpaController {
 public:
  HpaController(const kube::KubeClient* client, InformerSet* informers, EventRecorder* events,
                Clock* clock, HpaControllerOptions options);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  struct Target {
    kube::GroupVersionResource gvr;
    Json scale;  // autoscaling/v1 Scale
  };
  struct History {
    std::string uid;
    core::hpa::HpaState state;
  };

  Result Sync(const std::string& key);
  // Resolves scaleTargetRef and GETs the scale; an error is upstream's FailedGetScale text.
  StatusOr<Target> GetScale(const Json& hpa);
  StatusOr<kube::GroupVersionResource> Resolve(const std::string& api_version,
                                               const std::string& kind);
  // What the engine observes: pods, resource / external / custom metric values.
  core::hpa::Observations Observe(const Json& hpa, const core::hpa::HpaSpec& spec,
                                  const LabelSelector& selector);
  History LoadHistory(const Json& hpa);
  void SaveHistory(const Json& hpa, const History& history);
  void WriteStatus(const Json& hpa, Json status);
  void Event(const Json& hpa, const std::string& type, const std::string& reason,
             const std::string& message);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  const HpaControllerOptions options_;
  Controller controller_;

  std::mutex mu_;
  std::map<std::string, History> history_;  // by HPA key; guarded by mu_
  std::map<std::string, std::pair<kube::GroupVersionResource, TimePoint>> mappings_;  // mu_
};

}  // namespace trimtab::cluster::runtime
