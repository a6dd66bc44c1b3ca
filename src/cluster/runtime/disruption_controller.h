// DisruptionController: kube-controller-manager's disruption controller, writing the status of
// PodDisruptionBudgets that the API server's eviction subresource checks (handlers_pods.cc).
//
// For each budget: expectedPods = the active pods its selector matches (upstream counts the
// scale of their controllers; the same once a workload has all its pods), currentHealthy = the
// Ready ones, desiredHealthy from minAvailable (a count, or a percentage of expectedPods rounded
// up) or maxUnavailable (expectedPods minus the count, or minus the percentage rounded up),
// disruptionsAllowed = max(0, currentHealthy - desiredHealthy), the DisruptionAllowed condition
// (SufficientPods / InsufficientPods), observedGeneration, and disruptedPods (pods the eviction
// subresource counted, kept until they are gone or 2 minutes passed).
//
// Threading: a Controller with one worker; handlers only enqueue.
#pragma once

#include "cluster/runtime/controller.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

class DisruptionController {
 public:
  DisruptionController(const kube::KubeClient* client, InformerSet* informers, Clock* clock);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& key);
  void EnqueueNamespace(const Json& pod);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  Clock* clock_;
  Controller controller_;
};

// The healthy pods a budget requires of `expected` pods (its minAvailable / maxUnavailable).
int64_t DesiredHealthy(const Json& budget, int64_t expected);

}  // namespace trimtab::cluster::runtime
