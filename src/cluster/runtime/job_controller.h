// JobController: kube-controller-manager's job controller for NonIndexed and Indexed Jobs.
//
// For each Job it
//  - starts startTime on the first sync of an unsuspended Job and keeps min(parallelism,
//    completions - succeeded) pods active (Indexed: one pod per missing index, named
//    "<job>-<index>-<random>", with the completion-index annotation, label and env var
//    JOB_COMPLETION_INDEX), each from spec.template with the controller reference; events
//    SuccessfulCreate / SuccessfulDelete;
//  - counts succeeded / failed / ready / active pods into status (its own pods: the
//    controller reference), a failed pod's replacement waiting an exponential back-off
//    (10 s doubling, at most 6 min, from the latest failure);
//  - finishes: Complete (with SuccessCriteriaMet, completionTime, event Completed) when
//    `completions` pods succeeded (no completions: one succeeded and none active); Failed (with
//    FailureTarget; BackoffLimitExceeded when failed > backoffLimit, DeadlineExceeded after
//    activeDeadlineSeconds) deleting the active pods; a finished Job is deleted
//    ttlSecondsAfterFinished after it finished;
//  - suspends: spec.suspend deletes the active pods and sets the Suspended condition.
//
// Not done: podFailurePolicy, successPolicy, backoffLimitPerIndex, pod tracking finalizers
// (pods are counted while they exist), restartPolicy OnFailure restarts counted as failures.
//
// Threading: a Controller with `workers` threads; handlers only enqueue.
#pragma once

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/expectations.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

class JobController {
 public:
  JobController(const kube::KubeClient* client, InformerSet* informers, EventRecorder* events,
                Clock* clock, int workers = 2);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& key);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  Expectations expectations_;
  Controller controller_;
};

}  // namespace trimtab::cluster::runtime
