// StatefulSetController: kube-controller-manager's statefulset controller.
//
// For each StatefulSet it keeps pods "<set>-0" .. "<set>-(replicas-1)" (hostname the pod name,
// subdomain spec.serviceName, labels statefulset.kubernetes.io/pod-name,
// apps.kubernetes.io/pod-index and controller-revision-hash), each with one
// PersistentVolumeClaim "<template>-<set>-<ordinal>" per volumeClaimTemplate (created first,
// never deleted: retention Retain) mounted as the template's volume name.
//   OrderedReady (default): a pod is created only when every lower ordinal is Running and
//     Ready; scale-down removes the highest ordinal first, one at a time.
//   Parallel: every missing pod is created and every surplus one deleted at once.
//   RollingUpdate: pods whose revision differs from the template's are deleted from the
//     highest ordinal down to spec.updateStrategy.rollingUpdate.partition, one at a time and only
//     while every pod is Ready; OnDelete leaves them. Failed pods are deleted and recreated.
// Status: replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas,
// currentRevision, updateRevision (the revision is "<set>-<hash of the template>"; no
// ControllerRevision objects), observedGeneration.
//
// Threading: a Controller with `workers` threads; handlers only enqueue.
#pragma once

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

class StatefulSetController {
 public:
  StatefulSetController(const kube::KubeClient* client, InformerSet* informers,
                        EventRecorder* events, Clock* clock, int workers = 2);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& key);
  Status EnsureClaims(const Json& set, int64_t ordinal);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  Controller controller_;
};

// "<name>-<hex>" of a pod template (what controller-revision-hash and the revisions carry).
std::string TemplateRevision(const std::string& name, const Json& pod_template);

}  // namespace trimtab::cluster::runtime
