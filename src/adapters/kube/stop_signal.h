// StopSignal: a stop flag that long-running loops (informer, leader election) wait on instead of
// sleeping, so Stop() ends a wait at once. Waits are measured on a Clock; because a ManualClock
// does not announce its moves, a wait re-reads the clock at least every `poll` of real time.
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "common/clock.h"

namespace trimtab::kube {

class StopSignal {
 public:
  void Stop();
  bool stopped() const;
  // Waits until `d` of clock time has passed (true) or Stop() was called (false).
  bool WaitFor(Clock* clock, Duration d,
               std::chrono::milliseconds poll = std::chrono::milliseconds(20));
  // Waits until `deadline` on the clock (true) or Stop() (false).
  bool WaitUntil(Clock* clock, TimePoint deadline,
                 std::chrono::milliseconds poll = std::chrono::milliseconds(20));

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;  // guarded by mu_
};

}  // namespace trimtab::kube
