// FakeKubeServer: a small scripted Kubernetes API server on loopback for client-side tests
// (KubeClient, Informer, LeaderElector). It speaks the wire protocol those clients use and
// nothing more:
//
//   paths     /api/v1/... and /apis/<group>/<version>/..., namespaced
//             (/namespaces/<ns>/<resource>[/<name>[/<sub>]]) and cluster/all-namespace forms
//   verbs     GET, LIST (labelSelector, fieldSelector, limit/continue), POST, PUT (optimistic
//             concurrency on resourceVersion, /status subresource), PATCH (merge-patch and
//             json-patch add/replace/remove/test), DELETE (preconditions), WATCH (from a
//             resourceVersion, bookmarks on request, 410 as an ERROR event once history is
//             compacted past the requested version)
//   errors    metav1.Status bodies with the apiserver's reasons
//
// Any resource name is accepted; every object lives in one store with a global resourceVersion
// counter. Watch filtering applies selectors to the new object only (no synthetic
// ADDED/DELETED when an object enters or leaves a selection).
//
// Fault injection: FailNext() makes matching requests fail with a given status; CloseWatches()
// ends every open watch stream (a disconnect); CompactHistory() forgets events so older
// resourceVersions get 410; SendBookmarks() emits a BOOKMARK on every watch that asked for them.
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::testing {

class FakeKubeServer {
 public:
  static StatusOr<std::unique_ptr<FakeKubeServer>> Create();
  ~FakeKubeServer();

  std::string base_url() const;

  // Stores `object` directly (as a create would, with a new resourceVersion) under the
  // collection `collection_path` ("/api/v1/namespaces/ns/pods"). Returns the stored object.
  Json Seed(const std::string& collection_path, Json object);
  // The stored object at `item_path`, or null.
  Json Lookup(const std::string& item_path) const;
  int64_t CurrentResourceVersion() const;

  // The next `count` requests whose method matches (or "" for any) and whose path starts with
  // `path_prefix` get `http_status` with a Status of `reason`.
  void FailNext(const std::string& method, const std::string& path_prefix, int http_status,
                const std::string& reason, int count = 1);
  void CloseWatches();
  void CompactHistory();
  void SendBookmarks();

  // "METHOD target" of every request served, in order.
  std::vector<std::string> Requests() const;
  size_t OpenWatchCount() const;
  // The Authorization header of the most recent request ("" when none).
  std::string LastAuthorization() const;

  class Impl;

 private:
  explicit FakeKubeServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trimtab::testing
