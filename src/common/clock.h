// Clock: the one source of "now" for every component, so that tests and simulations can drive
// time by hand (ManualClock) and `trimtab local --speed N` can run everything on one accelerated
// clock.
//
// Time is std::chrono::system_clock::time_point (wall time; what Kubernetes timestamps carry).
//
// Thread-safety: every implementation is safe for concurrent use.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"

namespace trimtab {

using TimePoint = std::chrono::system_clock::time_point;
using Duration = std::chrono::system_clock::duration;
using Millis = std::chrono::milliseconds;
using Seconds = std::chrono::seconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
  // Blocks the calling thread for `d` of this clock's time (returns at once for d <= 0).
  virtual void SleepFor(Duration d) = 0;
};

// The process wall clock.
class RealClock final : public Clock {
 public:
  TimePoint Now() const override;
  void SleepFor(Duration d) override;
  static RealClock* Default();
};

// A clock that moves only when told to. SleepFor blocks until another thread advances the clock
// past the wake-up time.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint start = TimePoint{}) : now_(start) {}
  TimePoint Now() const override;
  void SleepFor(Duration d) override;
  void Advance(Duration d);
  void Set(TimePoint t);
  // Blocks until at least `n` threads are inside SleepFor, so a test can advance time knowing
  // the sleepers have computed their wake-up times.
  void WaitForSleepersForTest(int n);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  TimePoint now_;    // guarded by mu_
  int sleepers_ = 0;  // guarded by mu_
};

// A clock running `speed` times faster than the wall clock from the moment it is created; the
// virtual epoch starts at the wall time of creation. Used by `trimtab local --speed N`.
class ScaledClock final : public Clock {
 public:
  explicit ScaledClock(double speed);
  TimePoint Now() const override;
  void SleepFor(Duration d) override;
  double speed() const { return speed_; }

 private:
  double speed_;
  TimePoint wall_start_;
  std::chrono::steady_clock::time_point steady_start_;
};

// Milliseconds since the Unix epoch.
int64_t ToUnixMillis(TimePoint t);
TimePoint FromUnixMillis(int64_t ms);

// RFC 3339 in UTC with second precision, as Kubernetes writes metav1.Time: 2024-05-01T12:00:00Z.
std::string FormatRfc3339(TimePoint t);
// RFC 3339 with optional fractional seconds and a Z or ±hh:mm offset.
StatusOr<TimePoint> ParseRfc3339(std::string_view text);

}  // namespace trimtab
