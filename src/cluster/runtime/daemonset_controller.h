// DaemonSetController: kube-controller-manager's daemonset controller.
//
// For each DaemonSet it keeps one pod on every node the pod template may run on (the template's
// nodeSelector and required node affinity, the node's NoSchedule/NoExecute taints against the
// template's tolerations plus the ones upstream adds to daemon pods: not-ready, unreachable,
// disk/memory/pid-pressure, unschedulable, network-unavailable). A pod is bound to its node
// directly (spec.nodeName; upstream sets a node-affinity term and lets the scheduler bind it, so
// here a daemon pod skips the resource fit). Pods on nodes that no longer qualify, surplus pods
// and failed pods are deleted; RollingUpdate replaces pods of an older template
// (controller-revision-hash) up to maxUnavailable (an integer; a percentage counts as 1) at a
// time while the others are available; OnDelete leaves them.
// Status: desired/current/updated NumberScheduled, numberMisscheduled, numberReady,
// numberAvailable, numberUnavailable, observedGeneration.
//
// Threading: a Controller with `workers` threads; handlers only enqueue.
#pragma once

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

class DaemonSetController {
 public:
  DaemonSetController(const kube::KubeClient* client, InformerSet* informers,
                      EventRecorder* events, Clock* clock, int workers = 2);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& key);
  void EnqueueAll();

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  Controller controller_;
};

}  // namespace trimtab::cluster::runtime
