// Informer: keeps an ObjectStore in sync with the API server for one resource type by list +
// watch, and tells event handlers about changes (client-go's Reflector + SharedInformer, reduced
// to what the operator needs).
//
// Protocol, as client-go's Reflector.ListAndWatch:
//  1. LIST (paged by `page_size`), replace the store, remember the list's resourceVersion.
//     Handlers see OnAdd for new keys, OnUpdate for keys whose resourceVersion changed and
//     OnDelete for keys that vanished while no watch was running.
//  2. WATCH from that resourceVersion with allowWatchBookmarks and a random timeoutSeconds in
//     [min_watch_timeout, 2*min_watch_timeout). ADDED/MODIFIED/DELETED update the store and call
//     handlers; BOOKMARK only advances the resourceVersion.
//  3. A watch that ends normally is restarted from the last resourceVersion at once. A transport
//     failure or an ERROR event restarts it after a backoff (initial 800 ms, doubling, capped at
//     30 s, jittered; reset by a watch that delivered events). HTTP 410 or an ERROR event with
//     code 410 ("too old resource version") goes back to step 1. A failed LIST is retried with the
//     same backoff.
//  4. Every `resync_period` (0 = never) OnUpdate(obj, obj) is called for every cached object.
//
// Handlers run on the informer's threads, one call at a time, and must return quickly (typically
// they enqueue a key on a WorkQueue). The object passed is a snapshot; the store already holds it.
//
// Usage:
//   auto informer = Informer::Create(client, {.gvr = PodsResource(), .namespace_name = "ns"});
//   (*informer)->AddEventHandler({.on_add = [&](const Json& o) { queue.Add(ObjectKey(o)); }});
//   std::thread t([&] { (*informer)->Run(); });
//   (*informer)->WaitForSync(std::chrono::seconds(30));
//   ...
//   (*informer)->Stop(); t.join();
//
// Thread-safety: AddEventHandler before Run(); everything else from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "adapters/kube/kube_client.h"
#include "adapters/kube/object_store.h"
#include "adapters/kube/stop_signal.h"
#include "common/clock.h"

namespace trimtab::kube {

struct EventHandler {
  std::function<void(const Json& object)> on_add;
  std::function<void(const Json& old_object, const Json& new_object)> on_update;
  std::function<void(const Json& object)> on_delete;
};

struct InformerOptions {
  GroupVersionResource gvr;
  std::string namespace_name;  // "" = all namespaces (or a cluster-scoped resource)
  std::string label_selector;  // server-side filters (string forms)
  std::string field_selector;
  Duration resync_period{0};
  int64_t page_size = 500;
  Clock* clock = RealClock::Default();
  Duration initial_backoff = std::chrono::milliseconds(800);
  Duration max_backoff = std::chrono::seconds(30);
  bool jitter = true;  // tests turn it off to get exact backoff times
  std::chrono::seconds min_watch_timeout{300};
  // How often waits re-read the clock (see stop_signal.h).
  std::chrono::milliseconds poll_interval{20};
};

class Informer {
 public:
  // `client` must outlive the informer.
  static StatusOr<std::unique_ptr<Informer>> Create(const KubeClient* client,
                                                    InformerOptions options);
  ~Informer();

  void AddEventHandler(EventHandler handler);

  // Lists and watches until Stop(). Blocks.
  void Run();
  void Stop();

  bool HasSynced() const;
  // True once the first LIST has been applied; false on timeout (real time) or Stop().
  bool WaitForSync(std::chrono::milliseconds timeout) const;

  const ObjectStore& store() const { return store_; }
  // The resourceVersion the next watch would start from.
  std::string LastResourceVersion() const;

  // Counters for tests and metrics.
  int64_t ListCount() const { return lists_.load(); }
  int64_t WatchCount() const { return watches_.load(); }
  // True while Run() waits out a backoff (tests advance a ManualClock only then).
  bool BackingOffForTest() const { return backing_off_.load(); }

 private:
  Informer(const KubeClient* client, InformerOptions options);

  Status ListAndReplace();
  // Runs one watch; returns OK when it ended normally, the error otherwise. Sets
  // *relist when the server said the resourceVersion is too old; *progress when events arrived.
  Status WatchOnce(bool* relist, bool* progress);
  void ResyncLoop(TimePoint first);
  Duration NextBackoff();
  // Waits `d` on the clock with backing_off_ set; false when stopped.
  bool Backoff(Duration d);
  void Dispatch(const std::function<void(const EventHandler&)>& call);

  const KubeClient* client_;
  InformerOptions options_;
  ObjectStore store_;
  StopSignal stop_;
  std::vector<EventHandler> handlers_;
  std::mutex handler_mu_;  // serializes handler calls

  mutable std::mutex mu_;
  mutable std::condition_variable synced_cv_;
  bool synced_ = false;                               // guarded by mu_
  std::string resource_version_;                      // guarded by mu_
  std::shared_ptr<http::Cancellation> watch_cancel_;  // guarded by mu_
  int failures_ = 0;                                  // guarded by mu_
  std::mt19937_64 rng_{std::random_device{}()};       // guarded by mu_

  std::atomic<int64_t> lists_{0};
  std::atomic<int64_t> watches_{0};
  std::atomic<bool> backing_off_{false};
};

}  // namespace trimtab::kube
