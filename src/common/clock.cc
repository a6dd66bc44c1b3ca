#include "common/clock.h"

#include <cstdio>
#include <ctime>
#include <thread>

namespace trimtab {

TimePoint RealClock::Now() const { return std::chrono::system_clock::now(); }

void RealClock::SleepFor(Duration d) {
  if (d > Duration::zero()) std::this_thread::sleep_for(d);
}

RealClock* RealClock::Default() {
  static RealClock clock;
  return &clock;
}

TimePoint ManualClock::Now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

void ManualClock::SleepFor(Duration d) {
  std::unique_lock<std::mutex> lock(mu_);
  const TimePoint wake = now_ + d;
  ++sleepers_;
  cv_.notify_all();
  cv_.wait(lock, [&] { return now_ >= wake; });
  --sleepers_;
}

void ManualClock::WaitForSleepersForTest(int n) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return sleepers_ >= n; });
}

void ManualClock::Advance(Duration d) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    now_ += d;
  }
  cv_.notify_all();
}

void ManualClock::Set(TimePoint t) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    now_ = t;
  }
  cv_.notify_all();
}

ScaledClock::ScaledClock(double speed)
    : speed_(speed > 0 ? speed : 1.0),
      wall_start_(std::chrono::system_clock::now()),
      steady_start_(std::chrono::steady_clock::now()) {}

TimePoint ScaledClock::Now() const {
  const auto elapsed = std::chrono::steady_clock::now() - steady_start_;
  const auto scaled = std::chrono::duration_cast<Duration>(
      std::chrono::duration<double, Duration::period>(elapsed.count() * speed_ *
                                                      std::chrono::steady_clock::period::num /
                                                      std::chrono::steady_clock::period::den *
                                                      Duration::period::den /
                                                      Duration::period::num));
  return wall_start_ + scaled;
}

void ScaledClock::SleepFor(Duration d) {
  if (d <= Duration::zero()) return;
  std::this_thread::sleep_for(std::chrono::duration<double, Duration::period>(d.count() / speed_));
}

int64_t ToUnixMillis(TimePoint t) {
  return std::chrono::duration_cast<Millis>(t.time_since_epoch()).count();
}

TimePoint FromUnixMillis(int64_t ms) {
  return TimePoint(std::chrono::duration_cast<Duration>(Millis(ms)));
}

std::string FormatRfc3339(TimePoint t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(
      std::chrono::floor<std::chrono::seconds>(t));
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

namespace {

bool ParseDigits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

StatusOr<TimePoint> ParseRfc3339(std::string_view s) {
  auto bad = [&] {
    return InvalidArgumentError("invalid RFC 3339 time \"" + std::string(s) +
                                "\" (want e.g. 2024-05-01T12:00:00Z)");
  };
  int year, month, day, hour, minute, second;
  if (s.size() < 20 || !ParseDigits(s, 0, 4, &year) || s[4] != '-' ||
      !ParseDigits(s, 5, 2, &month) || s[7] != '-' || !ParseDigits(s, 8, 2, &day) ||
      (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !ParseDigits(s, 11, 2, &hour) ||
      s[13] != ':' || !ParseDigits(s, 14, 2, &minute) || s[16] != ':' ||
      !ParseDigits(s, 17, 2, &second)) {
    return bad();
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return bad();
  }
  size_t pos = 19;
  int64_t nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 9) {
        nanos = nanos * 10 + (s[pos] - '0');
        ++digits;
      }
      ++pos;
    }
    if (digits == 0) return bad();
    for (; digits < 9; ++digits) nanos *= 10;
  }
  int offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!ParseDigits(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !ParseDigits(s, pos + 4, 2, &om)) {
      return bad();
    }
    offset_minutes = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return bad();
  }
  if (pos != s.size()) return bad();
  const std::chrono::year_month_day ymd{std::chrono::year(year), std::chrono::month(month),
                                        std::chrono::day(day)};
  if (!ymd.ok()) return bad();
  const auto days = std::chrono::sys_days(ymd);
  // The clock counts nanoseconds in 64 bits (years 1678 to 2262): a time outside is refused
  // rather than overflowing (issue 27, found by fuzz_eval_flink).
  constexpr auto kMaxDays =
      std::chrono::floor<std::chrono::days>(Duration::max()) - std::chrono::days(2);
  if (days.time_since_epoch() > kMaxDays || days.time_since_epoch() < -kMaxDays) {
    return InvalidArgumentError("RFC 3339 time \"" + std::string(s) +
                                "\" is out of range (years 1678 to 2262)");
  }
  auto tp = std::chrono::time_point_cast<Duration>(days) + std::chrono::hours(hour) +
            std::chrono::minutes(minute - offset_minutes) + std::chrono::seconds(second);
  tp += std::chrono::duration_cast<Duration>(std::chrono::nanoseconds(nanos));
  return tp;
}

}  // namespace trimtab
