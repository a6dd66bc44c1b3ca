// PodGarbageCollector: kube-controller-manager's pod GC for orphaned pods: a pod bound to a node
// that no longer exists is deleted at once (gracePeriodSeconds=0); its controller replaces it.
// In the local cluster that happens when `trimtab local` restarts with fewer nodes.
//
// Threading: a Controller with one worker; handlers only enqueue.
#pragma once

#include "cluster/runtime/controller.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

class PodGarbageCollector {
 public:
  PodGarbageCollector(const kube::KubeClient* client, InformerSet* informers, Clock* clock);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& key);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  Controller controller_;
};

}  // namespace trimtab::cluster::runtime
