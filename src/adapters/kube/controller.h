// Controller: the one controller work loop (kube-controller-manager and controller-runtime
// style) under the local cluster's controllers and the operator's Flink controllers. Informer
// handlers Enqueue() object keys ("ns/name"); `workers` threads take keys from a rate-limited
// WorkQueue and run the Reconciler, whose ReconcileResult (adapters/kube/reconciler.h) says what
// happens to the key next. A key is never reconciled by two workers at once (WorkQueue
// guarantee). An exception escaping a pass is a Retry.
//
// After every pass `on_pass` (when set) gets a PassReport: the key, the result, how many times
// the key had been retried before the pass and how long the pass took, so an owner can count
// passes, failures and retries under its own metric names and log failures its own way.
//
// A Controller runs once: Stop() shuts its queue down for good; build a new one to run again
// (as the operator does when it regains leadership).
//
// Usage:
//   kube::Controller c({.name = "replicaset-controller", .clock = clock, .workers = 2},
//                      [this](const std::string& key) { return Sync(key); });
//   informer->AddEventHandler({.on_add = [&](const Json& o) { c.Enqueue(kube::ObjectKey(o)); }});
//   c.Start(); ... c.Stop();
//
// Thread-safety: all methods are safe for concurrent use; Start/Stop from the owner.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kube/reconciler.h"
#include "adapters/kube/workqueue.h"
#include "common/clock.h"
#include "common/metrics_registry.h"

namespace trimtab::kube {

// What one pass did (for ControllerOptions::on_pass).
struct PassReport {
  const std::string& key;
  const ReconcileResult& result;
  int requeues_before = 0;  // the key's back-off count when the pass started (0 = first try)
  std::chrono::steady_clock::duration elapsed{};
};

struct ControllerOptions {
  // Names the loop in logs ("replicaset-controller", "flinkdeploymentcontroller").
  std::string name;
  Clock* clock = RealClock::Default();
  // Worker threads (at least 1).
  int workers = 1;
  // Back-off of Retry results; nullptr = per-key exponential 5 ms .. 1000 s without an overall
  // token bucket (the local cluster's choice: a small cluster, a local API server).
  std::unique_ptr<RateLimiter> rate_limiter;
  // The queue's workqueue_* metrics (WorkQueueOptions::metrics; not owned, null = none) and
  // their `name` label ("" = `name` above).
  MetricsRegistry* metrics = nullptr;
  std::string queue_name;
  // Called on the worker thread after every pass; null = Retry and Terminal results are logged
  // at debug level by the loop itself.
  std::function<void(const PassReport&)> on_pass;
};

class Controller {
 public:
  using SyncFn = std::function<ReconcileResult(const std::string& key)>;

  // `reconciler` is not owned and must outlive the controller.
  Controller(ControllerOptions options, Reconciler* reconciler);
  Controller(ControllerOptions options, SyncFn sync);
  // The local cluster's short form: a name, a clock, workers and a sync function.
  Controller(std::string name, Clock* clock, int workers, SyncFn sync);
  ~Controller();  // Stop()s

  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  void Start();
  // Shuts the queue down and joins the workers (a pass in progress finishes first).
  void Stop();

  void Enqueue(const std::string& key) { queue_.Add(key); }
  void EnqueueAfter(const std::string& key, Duration d) { queue_.AddAfter(key, d); }
  const std::string& name() const { return options_.name; }

 private:
  void Work();

  ControllerOptions options_;
  SyncFn sync_;
  WorkQueue queue_;
  std::vector<std::thread> threads_;
};

}  // namespace trimtab::kube
