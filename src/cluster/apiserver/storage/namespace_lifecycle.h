// LifecycleController: the deletion lifecycles that kube-controller-manager and the
// apiextensions server drive, for the local API server.
//
//   namespaces  a deleting namespace (phase Terminating) has every namespaced object in it
//               deleted (CRs included, found through the registry); once nothing is left the
//               `kubernetes` spec finalizer is removed (as PUT .../finalize would) and the
//               namespace disappears (watchers see DELETED)
//   CRDs        a deleting CRD has all its custom resources deleted, then loses the
//               customresourcecleanup finalizer; it then leaves storage and the registry
//   pods        a pod deleted gracefully (bound to a node) is removed once its
//               deletionTimestamp passes, standing in for the kubelet's final delete
//
// Threading: owns one ScanLoop thread; Start/Stop from the owner.
#pragma once

#include "cluster/apiserver/storage/object_service.h"
#include "cluster/apiserver/storage/scan_loop.h"

namespace trimtab::cluster {

class LifecycleController {
 public:
  explicit LifecycleController(ObjectService* objects,
                               std::chrono::milliseconds period = std::chrono::seconds(2));
  Status Start() { return loop_.Start(); }
  void Stop() { loop_.Stop(); }
  bool PassForTest() { return Pass(); }
  void WaitForPassForTest() { loop_.RunPassForTest(); }

 private:
  bool Pass();
  bool FinishNamespace(const ResourceType& ns_type, const Json& ns);
  bool FinishCrd(const ResourceType& crd_type, const Json& crd);
  bool FinishPods();

  ObjectService* objects_;
  ScanLoop loop_;
};

}  // namespace trimtab::cluster
