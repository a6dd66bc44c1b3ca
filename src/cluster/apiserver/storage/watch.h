// WatchHub: serves `?watch=true` requests as streams of newline-terminated JSON events
// ({"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}), as kube-apiserver does.
//
// Each watch subscribes to the Store from its start revision (history replay + live events, no
// gaps, no duplicates); the subscription callback only queues, and one dispatcher thread decodes
// each event once, applies the watch's namespace and label/field selectors (an object entering
// the selection is ADDED, leaving it DELETED), encodes (JSON or single-row Tables) and writes to
// the watcher's HTTP stream. The dispatcher also ends watches at their timeout (timeoutSeconds,
// else a random 30-60 min like the apiserver) and sends BOOKMARKs to watchers that asked.
//
// A start revision older than the store's compacted revision is answered inside the stream with
// an ERROR event carrying a 410 Expired Status ("too old resource version: R (C)"), then the
// stream ends.
//
// Threading: Start may be called from any thread (HTTP I/O threads); the dispatcher thread is
// owned by the hub. Stop() ends every watch.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adapters/http/server.h"
#include "cluster/apiserver/storage/object_service.h"
#include "cluster/apiserver/surface/table.h"
#include "common/deep_stack_thread.h"

namespace trimtab::cluster {

struct WatchRequest {
  ResourceType type;
  std::string ns;  // "" = all namespaces (or cluster-scoped)
  LabelSelector labels;
  FieldSelector fields;
  std::string resource_version;  // "", "0" or a revision
  bool send_initial_events = false;  // sendInitialEvents=true (ends with a marked BOOKMARK)
  bool bookmarks = false;            // allowWatchBookmarks=true
  std::chrono::seconds timeout{0};   // 0 = server default
  bool table = false;                // Accept asked for meta.k8s.io Table
  TableRowObject table_rows = TableRowObject::kMetadata;
};

struct WatchHubOptions {
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(60)};
  std::chrono::seconds min_default_timeout{1800};  // default timeout is random in [min, 2*min)
};

class WatchHub {
 public:
  WatchHub(ObjectService* objects, WatchHubOptions options);
  ~WatchHub();  // Stop()s
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Serves one watch on `stream` (called from the HTTP stream callback).
  void Start(WatchRequest request, std::shared_ptr<http::ResponseStream> stream);
  void Stop();
  // Number of open watches.
  size_t ActiveForTest() const;

  class Session;

 private:
  void Loop();
  void Dispatch(const std::shared_ptr<Session>& session,
                const std::shared_ptr<const StoreEvent>& event);
  void Enqueue(std::shared_ptr<Session> session, std::shared_ptr<const StoreEvent> event);
  void Housekeeping();

  ObjectService* objects_;
  const WatchHubOptions options_;

  mutable std::mutex queue_mu_;  // never held while calling into the store or a stream
  std::condition_variable queue_cv_;
  std::deque<std::pair<std::shared_ptr<Session>, std::shared_ptr<const StoreEvent>>>
      queue_;              // guarded by queue_mu_
  bool stopping_ = false;  // guarded by queue_mu_

  mutable std::mutex sessions_mu_;
  std::vector<std::weak_ptr<Session>> sessions_;  // guarded by sessions_mu_

  // Dispatcher-thread state: the last decoded event (events fan out to many sessions in a row).
  int64_t decoded_revision_ = -1;
  std::string decoded_key_;
  std::shared_ptr<const Json> decoded_;  // from ObjectService::DecodeShared
  // decoded_->dump(), made by the first watcher that needs it: every plain (non-Table) watcher
  // of the event sends the same object text. Empty until then.
  std::string decoded_dump_;
  std::chrono::steady_clock::time_point next_bookmark_;
  DeepStackThread thread_;  // the fan-out (Loop)
};

}  // namespace trimtab::cluster
