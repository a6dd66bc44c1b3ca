// ScanLoop: runs a controller's reconcile pass on its own thread whenever relevant store events
// arrive (debounced) and at a fixed period, like a level-triggered controller with a resync.
// The garbage collector and the lifecycle controller (namespaces, CRDs, pod grace periods) are
// built on it.
//
// A pass returns true when it left work waiting (finalizers, grace periods); the loop then runs
// again after `retry_delay` even without events.
//
// Threading: Start/Stop from the owner; the pass runs on the loop thread only. The event filter
// runs under the store lock (see Store::Watch), so it must be cheap.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/store/store.h"

namespace trimtab::cluster {

struct ScanLoopOptions {
  std::string name;  // for logs
  std::chrono::milliseconds period{std::chrono::seconds(10)};
  std::chrono::milliseconds debounce{std::chrono::milliseconds(10)};
  std::chrono::milliseconds retry_delay{std::chrono::milliseconds(250)};
};

class ScanLoop {
 public:
  using Filter = std::function<bool(const StoreEvent&)>;
  using Pass = std::function<bool()>;

  ScanLoop(Store* store, ScanLoopOptions options, Filter filter, Pass pass);
  ~ScanLoop();  // Stop()s
  ScanLoop(const ScanLoop&) = delete;
  ScanLoop& operator=(const ScanLoop&) = delete;

  Status Start();
  void Stop();
  // Requests a pass as soon as possible.
  void Trigger();
  // Blocks until a pass that started after this call has finished (tests).
  void RunPassForTest();

 private:
  void Loop();

  Store* store_;
  const ScanLoopOptions options_;
  Filter filter_;
  Pass pass_;
  uint64_t watch_id_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  bool dirty_ = true;       // guarded by mu_
  bool stopping_ = false;   // guarded by mu_
  uint64_t started_ = 0;    // guarded by mu_; passes begun
  uint64_t passes_ = 0;     // guarded by mu_; passes completed
  std::thread thread_;
};

}  // namespace trimtab::cluster
