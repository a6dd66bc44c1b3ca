// WorkQueue: the rate-limited work queue controllers pull object keys from, with client-go's
// semantics (k8s.io/client-go/util/workqueue):
//
//  1. A key is queued at most once: Add() of a key that is already waiting is a no-op (dirty set).
//  2. A key being processed (between Get() and Done()) is never handed to a second worker; if it
//     is added meanwhile, it is queued again when Done() is called (processing set).
//  3. AddAfter() holds a key until the clock reaches its time; an earlier AddAfter() of the same
//     key moves it forward, a later one does not.
//  4. AddRateLimited() = AddAfter(key, limiter.When(key)); the default limiter is the maximum of a
//     per-key exponential backoff (5 ms * 2^failures, capped at 1000 s) and an overall token
//     bucket (10 qps, burst 100). Forget() resets the key's backoff; NumRequeues() reports it.
//  5. After ShutDown(), Add()s are dropped and delayed keys discarded; keys already queued are
//     still handed out, then Get() returns nullopt to every worker.
//
// Metrics (WorkQueueOptions::metrics, as client-go's workqueue metrics): workqueue_depth (keys
// ready to be handed out), workqueue_adds_total (keys queued, a key already waiting not counted)
// and workqueue_retries_total (AddRateLimited calls), labelled with the queue's name.
//
// Time comes from a Clock, so tests drive backoff with ManualClock. A ManualClock does not
// notify anyone when it moves, so a Get() blocked on delayed keys re-checks the clock at least
// every `poll_interval` of real time; a test that advances the clock before calling Get() sees
// the key at once.
//
// Usage (a worker):
//   while (std::optional<std::string> key = queue->Get()) {
//     Status s = Reconcile(*key);
//     if (s.ok()) queue->Forget(*key); else queue->AddRateLimited(*key);
//     queue->Done(*key);
//   }
//
// Thread-safety: every method is safe for concurrent use.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/clock.h"
#include "common/metrics_registry.h"

namespace trimtab::kube {

// Decides how long a key waits before its next attempt.
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  virtual Duration When(const std::string& key) = 0;
  virtual void Forget(const std::string& key) = 0;
  virtual int NumRequeues(const std::string& key) = 0;
};

// base * 2^(failures so far), capped at max_delay (client-go ItemExponentialFailureRateLimiter).
class ExponentialBackoffLimiter final : public RateLimiter {
 public:
  ExponentialBackoffLimiter(Duration base_delay, Duration max_delay)
      : base_(base_delay), max_(max_delay) {}
  Duration When(const std::string& key) override;
  void Forget(const std::string& key) override;
  int NumRequeues(const std::string& key) override;

 private:
  std::mutex mu_;
  Duration base_;
  Duration max_;
  std::unordered_map<std::string, int> failures_;  // guarded by mu_
};

// Token bucket over all keys (client-go BucketRateLimiter on golang.org/x/time/rate): each call
// reserves one token; the delay is how long until that token exists.
class TokenBucketLimiter final : public RateLimiter {
 public:
  TokenBucketLimiter(Clock* clock, double qps, int burst);
  Duration When(const std::string& key) override;
  void Forget(const std::string&) override {}
  int NumRequeues(const std::string&) override { return 0; }

 private:
  std::mutex mu_;
  Clock* clock_;
  double qps_;
  double burst_;
  double tokens_;    // guarded by mu_; negative = reserved ahead
  TimePoint last_;   // guarded by mu_
};

// The largest delay of several limiters (client-go MaxOfRateLimiter).
class MaxOfLimiter final : public RateLimiter {
 public:
  explicit MaxOfLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
      : limiters_(std::move(limiters)) {}
  Duration When(const std::string& key) override;
  void Forget(const std::string& key) override;
  int NumRequeues(const std::string& key) override;

 private:
  std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// client-go DefaultControllerRateLimiter: max(exponential 5 ms..1000 s, bucket 10 qps / 100).
std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(Clock* clock);

struct WorkQueueOptions {
  Clock* clock = RealClock::Default();
  // nullptr: DefaultControllerRateLimiter(clock).
  std::unique_ptr<RateLimiter> rate_limiter;
  // Upper bound on how long a blocked Get() goes without re-reading the clock while delayed
  // keys are pending (see header comment).
  std::chrono::milliseconds poll_interval{20};
  // Where to count adds, retries and depth (not owned; null = not counted), and the queue's
  // `name` label there.
  MetricsRegistry* metrics = nullptr;
  std::string name;
};

class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueOptions options = {});
  ~WorkQueue();

  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void Add(const std::string& key);
  void AddAfter(const std::string& key, Duration delay);
  void AddRateLimited(const std::string& key);
  void Forget(const std::string& key);
  int NumRequeues(const std::string& key);

  // Blocks until a key is ready or the queue shuts down (nullopt).
  std::optional<std::string> Get();
  // Non-blocking: a ready key (delayed keys whose time has come included), or nullopt.
  std::optional<std::string> TryGet();
  // REQUIRES: `key` was returned by Get()/TryGet() and Done() was not called for it since.
  void Done(const std::string& key);

  void ShutDown();
  // ShutDown, then wait until every key handed out has been Done().
  void ShutDownWithDrain();
  bool ShuttingDown() const;

  // Keys ready to be handed out (not counting delayed or in-process keys).
  size_t Len() const;
  // Keys waiting for their AddAfter() time.
  size_t NumWaiting() const;
  // The earliest time a delayed key becomes ready, if any.
  std::optional<TimePoint> NextReadyTime() const;

 private:
  void AddLocked(const std::string& key);
  void PromoteDueLocked();
  void DepthChangedLocked();
  std::optional<std::string> PopLocked();

  Clock* clock_;
  std::unique_ptr<RateLimiter> limiter_;
  std::chrono::milliseconds poll_interval_;
  MetricFamily* depth_metric_ = nullptr;    // the three are set together, with metrics
  MetricFamily* adds_metric_ = nullptr;
  MetricFamily* retries_metric_ = nullptr;
  LabelValues metric_labels_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;                       // guarded by mu_
  std::unordered_set<std::string> dirty_;               // guarded by mu_
  std::unordered_set<std::string> processing_;          // guarded by mu_
  std::multimap<TimePoint, std::string> waiting_;       // guarded by mu_
  std::unordered_map<std::string, TimePoint> waiting_at_;  // guarded by mu_
  bool shutting_down_ = false;                          // guarded by mu_
  bool draining_ = false;                               // guarded by mu_
};

}  // namespace trimtab::kube
