// ReplicaSetController: kube-controller-manager's replicaset controller.
//
// For each ReplicaSet it
//  - claims pods: active pods matching spec.selector without a controller are adopted (an
//    ownerReference with controller=true, blockOwnerDeletion=true), owned pods that no longer
//    match are released;
//  - creates pods from spec.template (generateName "<rs>-", the template's labels and
//    annotations, the ownerReference) or deletes surplus pods, preferring unscheduled, then
//    pending, then not-ready pods, then a lower controller.kubernetes.io/pod-deletion-cost, pods
//    ready for a shorter time, with more restarts, and newer ones (ActivePodsWithRanks); at most
//    `burst` per sync, and not again before the informer saw the previous changes
//    (expectations.h); events SuccessfulCreate / SuccessfulDelete / FailedCreate;
//  - writes status: replicas, fullyLabeledReplicas, readyReplicas, availableReplicas (ready for
//    minReadySeconds), observedGeneration, and the ReplicaFailure condition when creating pods
//    failed.
//
// Threading: a Controller with `workers` threads; handlers only enqueue.
#pragma once

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/expectations.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

struct ReplicaSetControllerOptions {
  int workers = 2;
  int burst = 500;  // pods created or deleted per sync at most
};

class ReplicaSetController {
 public:
  ReplicaSetController(const kube::KubeClient* client, InformerSet* informers,
                       EventRecorder* events, Clock* clock,
                       ReplicaSetControllerOptions options = {});
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& key);
  std::vector<Json> ClaimPods(const Json& rs);
  Status ManageReplicas(const Json& rs, const std::vector<Json>& pods);
  Result UpdateStatus(const Json& rs, const std::vector<Json>& pods, const Status& manage_error);
  void OnPod(const Json* old_pod, const Json* new_pod);
  void EnqueueMatching(const Json& pod);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  const ReplicaSetControllerOptions options_;
  Expectations expectations_;
  Controller controller_;
};

// Orders `pods` so that the ones a scale-down should delete first come first.
void SortPodsForDeletion(std::vector<Json>* pods);

}  // namespace trimtab::cluster::runtime
