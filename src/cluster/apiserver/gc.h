// GarbageCollector: ownerReference garbage collection, as kube-controller-manager's garbage
// collector does it for the local API server.
//
//   Background  an object whose owners (by uid) are all gone is deleted; one whose owners are
//               partly gone loses the dangling references
//   Foreground  an owner deleting with the `foregroundDeletion` finalizer gets its dependents
//               deleted; the finalizer is removed once no dependent with blockOwnerDeletion=true
//               is left, and the owner then disappears
//   Orphan      an owner deleting with the `orphan` finalizer: its dependents lose their
//               reference to it, then the finalizer is removed
//
// Each pass reads one consistent snapshot of every object; passes run after deletions (and
// updates of deleting objects) and every `period`.
//
// Threading: owns one ScanLoop thread; Start/Stop from the owner.
#pragma once

#include <memory>

#include "cluster/apiserver/object_service.h"
#include "cluster/apiserver/scan_loop.h"

namespace trimtab::cluster {

class GarbageCollector {
 public:
  explicit GarbageCollector(ObjectService* objects,
                            std::chrono::milliseconds period = std::chrono::seconds(10));
  Status Start() { return loop_.Start(); }
  void Stop() { loop_.Stop(); }
  // Runs one full pass and returns whether work was left waiting.
  bool PassForTest() { return Pass(); }
  void WaitForPassForTest() { loop_.RunPassForTest(); }

 private:
  bool Pass();

  ObjectService* objects_;
  ScanLoop loop_;
};

}  // namespace trimtab::cluster
