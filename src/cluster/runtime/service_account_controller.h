// ServiceAccountController: kube-controller-manager's serviceaccounts controller: every active
// namespace has a ServiceAccount "default" (created when the namespace appears, re-created
// when deleted). Tokens are not issued.
//
// Threading: a Controller with one worker; handlers only enqueue.
#pragma once

#include "cluster/runtime/controller.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

class ServiceAccountController {
 public:
  ServiceAccountController(const kube::KubeClient* client, InformerSet* informers, Clock* clock);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& ns);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  Controller controller_;
};

}  // namespace trimtab::cluster::runtime
