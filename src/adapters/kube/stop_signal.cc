#include "adapters/kube/stop_signal.h"

#include <algorithm>

namespace trimtab::kube {

void StopSignal::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  cv_.notify_all();
}

bool StopSignal::stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_;
}

bool StopSignal::WaitFor(Clock* clock, Duration d, std::chrono::milliseconds poll) {
  return WaitUntil(clock, clock->Now() + d, poll);
}

bool StopSignal::WaitUntil(Clock* clock, TimePoint deadline, std::chrono::milliseconds poll) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopped_) {
    const Duration left = deadline - clock->Now();
    if (left <= Duration::zero()) return true;
    cv_.wait_for(lock, std::min<Duration>(left, std::chrono::duration_cast<Duration>(poll)));
  }
  return false;
}

}  // namespace trimtab::kube
