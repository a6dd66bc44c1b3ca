#include "adapters/kube/workqueue.h"

#include <algorithm>
#include <cmath>

namespace trimtab::kube {

Duration ExponentialBackoffLimiter::When(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  const int exp = failures_[key]++;
  // 2^exp overflows long before 62 doublings; past the cap the answer is the cap.
  if (exp >= 62) return max_;
  const double backoff = static_cast<double>(base_.count()) * std::ldexp(1.0, exp);
  if (backoff >= static_cast<double>(max_.count())) return max_;
  return Duration(static_cast<Duration::rep>(backoff));
}

void ExponentialBackoffLimiter::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  failures_.erase(key);
}

int ExponentialBackoffLimiter::NumRequeues(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

TokenBucketLimiter::TokenBucketLimiter(Clock* clock, double qps, int burst)
    : clock_(clock), qps_(qps), burst_(burst), tokens_(burst), last_(clock->Now()) {}

Duration TokenBucketLimiter::When(const std::string&) {
  std::lock_guard<std::mutex> lock(mu_);
  const TimePoint now = clock_->Now();
  if (now > last_) {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return Duration::zero();
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

Duration MaxOfLimiter::When(const std::string& key) {
  Duration longest = Duration::zero();
  for (auto& l : limiters_) longest = std::max(longest, l->When(key));
  return longest;
}

void MaxOfLimiter::Forget(const std::string& key) {
  for (auto& l : limiters_) l->Forget(key);
}

int MaxOfLimiter::NumRequeues(const std::string& key) {
  int most = 0;
  for (auto& l : limiters_) most = std::max(most, l->NumRequeues(key));
  return most;
}

std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(Clock* clock) {
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ExponentialBackoffLimiter>(std::chrono::milliseconds(5),
                                                                 std::chrono::seconds(1000)));
  limiters.push_back(std::make_unique<TokenBucketLimiter>(clock, 10.0, 100));
  return std::make_unique<MaxOfLimiter>(std::move(limiters));
}

WorkQueue::WorkQueue(WorkQueueOptions options)
    : clock_(options.clock),
      limiter_(options.rate_limiter ? std::move(options.rate_limiter)
                                    : DefaultControllerRateLimiter(options.clock)),
      poll_interval_(options.poll_interval) {
  if (options.metrics != nullptr) {
    metric_labels_ = {options.name};
    depth_metric_ = &options.metrics->Gauge("workqueue_depth",
                                            "Keys waiting in the work queue to be processed.",
                                            {"name"});
    adds_metric_ = &options.metrics->Counter("workqueue_adds_total",
                                             "Keys added to the work queue.", {"name"});
    retries_metric_ = &options.metrics->Counter(
        "workqueue_retries_total", "Keys re-queued with rate limiting after a failure.", {"name"});
    depth_metric_->Set(metric_labels_, 0);
    adds_metric_->Inc(metric_labels_, 0);
    retries_metric_->Inc(metric_labels_, 0);
  }
}

void WorkQueue::DepthChangedLocked() {
  if (depth_metric_) depth_metric_->Set(metric_labels_, static_cast<double>(queue_.size()));
}

WorkQueue::~WorkQueue() { ShutDown(); }

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_) return;
  if (!dirty_.insert(key).second) return;  // already queued
  if (adds_metric_) adds_metric_->Inc(metric_labels_);
  if (processing_.count(key) != 0) return;  // re-queued by Done()
  queue_.push_back(key);
  DepthChangedLocked();
  cv_.notify_one();
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  AddLocked(key);
}

void WorkQueue::AddAfter(const std::string& key, Duration delay) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shutting_down_) return;
  if (delay <= Duration::zero()) {
    AddLocked(key);
    return;
  }
  const TimePoint ready = clock_->Now() + delay;
  if (const auto it = waiting_at_.find(key); it != waiting_at_.end()) {
    if (ready >= it->second) return;  // already due earlier
    auto range = waiting_.equal_range(it->second);
    for (auto w = range.first; w != range.second; ++w) {
      if (w->second == key) {
        waiting_.erase(w);
        break;
      }
    }
  }
  waiting_.emplace(ready, key);
  waiting_at_[key] = ready;
  cv_.notify_all();  // a blocked Get() may need a shorter wait
}

void WorkQueue::AddRateLimited(const std::string& key) {
  if (retries_metric_) retries_metric_->Inc(metric_labels_);
  AddAfter(key, limiter_->When(key));
}

void WorkQueue::Forget(const std::string& key) { limiter_->Forget(key); }

int WorkQueue::NumRequeues(const std::string& key) { return limiter_->NumRequeues(key); }

void WorkQueue::PromoteDueLocked() {
  if (waiting_.empty()) return;
  const TimePoint now = clock_->Now();
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    const std::string key = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    waiting_at_.erase(key);
    AddLocked(key);
  }
}

std::optional<std::string> WorkQueue::PopLocked() {
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  DepthChangedLocked();
  processing_.insert(key);
  dirty_.erase(key);
  return key;
}

std::optional<std::string> WorkQueue::Get() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    PromoteDueLocked();
    if (!queue_.empty()) return PopLocked();
    if (shutting_down_) return std::nullopt;
    if (waiting_.empty()) {
      cv_.wait(lock);
    } else {
      const Duration until = waiting_.begin()->first - clock_->Now();
      const auto wait = std::min<Duration>(std::max<Duration>(until, Duration::zero()),
                                           std::chrono::duration_cast<Duration>(poll_interval_));
      cv_.wait_for(lock, wait);
    }
  }
}

std::optional<std::string> WorkQueue::TryGet() {
  std::lock_guard<std::mutex> lock(mu_);
  PromoteDueLocked();
  return PopLocked();
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  processing_.erase(key);
  if (dirty_.count(key) != 0) {
    queue_.push_back(key);
    DepthChangedLocked();
    cv_.notify_one();
  }
  if (draining_ && processing_.empty()) cv_.notify_all();
}

void WorkQueue::ShutDown() {
  std::lock_guard<std::mutex> lock(mu_);
  shutting_down_ = true;
  waiting_.clear();
  waiting_at_.clear();
  cv_.notify_all();
}

void WorkQueue::ShutDownWithDrain() {
  std::unique_lock<std::mutex> lock(mu_);
  shutting_down_ = true;
  draining_ = true;
  waiting_.clear();
  waiting_at_.clear();
  cv_.notify_all();
  cv_.wait(lock, [&] { return processing_.empty(); });
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shutting_down_;
}

size_t WorkQueue::Len() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

size_t WorkQueue::NumWaiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_.size();
}

std::optional<TimePoint> WorkQueue::NextReadyTime() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (waiting_.empty()) return std::nullopt;
  return waiting_.begin()->first;
}

}  // namespace trimtab::kube
