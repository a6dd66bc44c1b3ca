// Controller: the work loop shared by the runtime's controllers (kube-controller-manager style).
// Informer handlers Enqueue() object keys ("ns/name"); `workers` threads take keys from a
// rate-limited WorkQueue and call `sync(key)`, which reads the informer caches, acts through the
// API and says what happens next:
//
//   Result::Done()          forget the key (until the next informer event)
//   Result::After(d)        look again after d of clock time (waiting for minReadySeconds, a
//                           progress deadline, a back-off...)
//   Result::Retry(error)    something failed: retry with per-key exponential back-off
//
// A key is never synced by two workers at once (WorkQueue guarantee).
//
// Usage:
//   Controller c("replicaset", clock, 2, [this](const std::string& key) { return Sync(key); });
//   informer->AddEventHandler({.on_add = [&](const Json& o) { c.Enqueue(kube::ObjectKey(o)); }});
//   c.Start(); ... c.Stop();
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kube/workqueue.h"
#include "common/clock.h"

namespace trimtab::cluster::runtime {

struct Result {
  enum class Kind { kDone, kAfter, kRetry };
  Kind kind = Kind::kDone;
  Duration after{0};
  std::string error;

  static Result Done() { return {}; }
  static Result After(Duration d) { return {Kind::kAfter, d, ""}; }
  static Result Retry(std::string error) { return {Kind::kRetry, Duration{0}, std::move(error)}; }
  // The earlier of two wake-ups (Done is "never"; Retry wins).
  static Result Earliest(const Result& a, const Result& b);
};

class Controller {
 public:
  using SyncFn = std::function<Result(const std::string& key)>;

  Controller(std::string name, Clock* clock, int workers, SyncFn sync);
  ~Controller();  // Stop()s

  void Start();
  // Shuts the queue down and joins the workers (a sync in progress finishes first).
  void Stop();

  void Enqueue(const std::string& key) { queue_.Add(key); }
  void EnqueueAfter(const std::string& key, Duration d) { queue_.AddAfter(key, d); }
  const std::string& name() const { return name_; }

 private:
  void Work();

  const std::string name_;
  kube::WorkQueue queue_;
  const int workers_;
  SyncFn sync_;
  std::vector<std::thread> threads_;
};

}  // namespace trimtab::cluster::runtime
