// StatusRecorder: writes the status of a FlinkDeployment / FlinkSessionJob with optimistic
// locking, upstream's StatusRecorder semantics (notes §B.10):
//
//  1. The last status written per resource uid is cached; writing an equal status is a no-op.
//  2. A write replaces the status subresource guarded by metadata.resourceVersion, always the
//     whole status (never half-written).
//  3. On a 409 the object is read again: when the stored status is the one we last wrote (only
//     spec or metadata changed meanwhile) the new resourceVersion is adopted and the write retried
//     (up to 3 times); otherwise the status was modified by someone else and the write fails with
//     kConflict ("Status have been modified externally ..."), the cache entry is dropped and the
//     caller requeues to start over from the server's state.
//
// The object passed in is updated with the resourceVersion of the write, so later writes of the
// same pass lock on it.
//
// Usage:
//   StatusRecorder recorder(client, FlinkDeploymentsResource());
//   recorder.Seed(object);                                   // first sight in this pass
//   TRIMTAB_RETURN_IF_ERROR(recorder.Write(&object, EncodeFlinkDeploymentStatus(status)));
//
// Thread-safety: safe for concurrent use; writes for one resource must not race (the work queue
// serialises them).
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "adapters/kube/kube_client.h"

namespace trimtab::op {

class StatusRecorder {
 public:
  StatusRecorder(const kube::KubeClient* client, kube::GroupVersionResource gvr)
      : client_(client), gvr_(std::move(gvr)) {}

  // Records the status read at the start of a pass as "last written" when nothing is cached for
  // the uid (after an operator restart the stored status is ours).
  void Seed(const Json& object);
  // Writes `status`; see the header comment.
  Status Write(Json* object, const Json& status);
  void Forget(const std::string& uid);

  int64_t WritesForTest() const;

 private:
  const kube::KubeClient* client_;
  kube::GroupVersionResource gvr_;
  mutable std::mutex mu_;
  std::map<std::string, Json> last_written_;  // uid -> status; guarded by mu_
  int64_t writes_ = 0;                        // guarded by mu_
};

}  // namespace trimtab::op
