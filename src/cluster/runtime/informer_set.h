// InformerSet: one shared Informer per resource for all of the runtime's components (client-go's
// SharedInformerFactory), so the kubelet, the scheduler and the controllers watch each resource
// once. Components ask for informers and add their handlers before Start(); Start() runs every
// informer on its own thread and waits for the first LIST of each.
//
// Informers run on the real clock (their waits are transport back-offs, not cluster time).
//
// Thread-safety: Get() and AddEventHandler on the result before Start(); reads of the caches
// from any thread afterwards.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kube/informer.h"
#include "adapters/kube/kube_client.h"

namespace trimtab::cluster::runtime {

class InformerSet {
 public:
  explicit InformerSet(const kube::KubeClient* client) : client_(client) {}
  ~InformerSet();  // Stop()s

  // The informer of `gvr` (all namespaces), created on first use.
  kube::Informer* Get(const kube::GroupVersionResource& gvr);
  // The cache of `gvr`; REQUIRES: Get(gvr) was called before Start().
  const kube::ObjectStore& Store(const kube::GroupVersionResource& gvr);

  Status Start(std::chrono::milliseconds sync_timeout);
  void Stop();

 private:
  const kube::KubeClient* client_;
  std::map<std::string, std::unique_ptr<kube::Informer>> informers_;  // by gvr.String()
  std::vector<std::thread> threads_;
};

}  // namespace trimtab::cluster::runtime
