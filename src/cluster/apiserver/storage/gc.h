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
// updates of deleting objects) and every `period`. A pass decodes only the objects written since
// the previous pass: what it needs of each (uid, owner references, deletion, finalizers) is kept
// by key with the object's mod revision, so a pass over N unchanged objects costs a list, not N
// decodes.
//
// Threading: owns one ScanLoop thread; Start/Stop from the owner. Passes never overlap (the loop
// thread, or PassForTest while the loop is not running).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cluster/apiserver/storage/object_service.h"
#include "cluster/apiserver/storage/scan_loop.h"

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
  // What a pass reads of one object.
  struct Facts {
    std::string uid;
    std::vector<std::pair<std::string, bool>> owners;  // ownerReferences: uid, blockOwnerDeletion
    bool deleting = false;
    bool orphan = false;      // the orphan finalizer
    bool foreground = false;  // the foregroundDeletion finalizer
  };
  struct Cached {
    int64_t mod_revision = 0;
    std::optional<Facts> facts;  // nullopt: not decodable or without a uid
  };

  bool Pass();

  ObjectService* objects_;
  ScanLoop loop_;
  std::unordered_map<std::string, Cached> cache_;  // by store key; the pass's thread only
};

}  // namespace trimtab::cluster
