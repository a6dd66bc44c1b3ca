#include "common/duration.h"

#include <array>
#include <cstdint>
#include <limits>
#include <utility>

namespace trimtab {
namespace {

using std::chrono::nanoseconds;

constexpr uint64_t kNs = 1;
constexpr uint64_t kUs = 1000 * kNs;
constexpr uint64_t kMs = 1000 * kUs;
constexpr uint64_t kSec = 1000 * kMs;
constexpr uint64_t kMin = 60 * kSec;
constexpr uint64_t kHour = 60 * kMin;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

uint64_t GoUnit(std::string_view u) {
  if (u == "ns") return kNs;
  if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") return kUs;  // µ (U+00B5), μ (U+03BC)
  if (u == "ms") return kMs;
  if (u == "s") return kSec;
  if (u == "m") return kMin;
  if (u == "h") return kHour;
  return 0;
}

// Appends the decimal fraction of `v` with `prec` digits, trimming trailing zeros (Go's fmtFrac),
// and returns v / 10^prec.
uint64_t AppendFraction(std::string* out, uint64_t v, int prec) {
  std::string digits;
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const int digit = static_cast<int>(v % 10);
    print = print || digit != 0;
    if (print) digits.insert(digits.begin(), static_cast<char>('0' + digit));
    v /= 10;
  }
  if (print) *out += "." + digits;
  return v;
}

}  // namespace

StatusOr<nanoseconds> ParseGoDuration(std::string_view text) {
  const std::string orig(text);
  auto invalid = [&]() { return InvalidArgumentError("time: invalid duration \"" + orig + "\""); };
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return nanoseconds(0);
  if (s.empty()) return invalid();
  // Magnitude limit: 2^63-1 positive, 2^63 negative.
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (neg ? 1 : 0);
  uint64_t total = 0;
  while (!s.empty()) {
    if (!IsDigit(s[0]) && s[0] != '.') return invalid();
    uint64_t whole = 0;
    bool pre = false;
    while (!s.empty() && IsDigit(s[0])) {
      const uint64_t digit = static_cast<uint64_t>(s[0] - '0');
      if (whole > (limit - digit) / 10) return invalid();
      whole = whole * 10 + digit;
      pre = true;
      s.remove_prefix(1);
    }
    uint64_t frac = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      while (!s.empty() && IsDigit(s[0])) {
        post = true;
        // Like Go, stop accumulating once the fraction would pass 2^63; later digits are
        // below the precision that matters.
        const uint64_t next = frac * 10 + static_cast<uint64_t>(s[0] - '0');
        if (!overflow && frac <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / 10 &&
            next <= (uint64_t{1} << 63)) {
          frac = next;
          scale *= 10;
        } else {
          overflow = true;
        }
        s.remove_prefix(1);
      }
    }
    if (!pre && !post) return invalid();
    size_t n = 0;
    while (n < s.size() && s[n] != '.' && !IsDigit(s[n])) ++n;
    if (n == 0) return InvalidArgumentError("time: missing unit in duration \"" + orig + "\"");
    const std::string_view unit_text = s.substr(0, n);
    s.remove_prefix(n);
    const uint64_t unit = GoUnit(unit_text);
    if (unit == 0) {
      return InvalidArgumentError("time: unknown unit \"" + std::string(unit_text) +
                                  "\" in duration \"" + orig + "\"");
    }
    if (whole > limit / unit) return invalid();
    uint64_t v = whole * unit;
    if (frac > 0) {
      v += static_cast<uint64_t>(static_cast<double>(frac) * (static_cast<double>(unit) / scale));
      if (v > limit) return invalid();
    }
    if (v > limit - total) return invalid();
    total += v;
  }
  if (neg) {
    if (total == limit) return nanoseconds(std::numeric_limits<int64_t>::min());
    return nanoseconds(-static_cast<int64_t>(total));
  }
  return nanoseconds(static_cast<int64_t>(total));
}

std::string FormatGoDuration(nanoseconds d) {
  const int64_t count = d.count();
  if (count == 0) return "0s";
  const bool neg = count < 0;
  uint64_t u = neg ? static_cast<uint64_t>(-(count + 1)) + 1 : static_cast<uint64_t>(count);
  std::string body;
  if (u < kSec) {
    // Sub-second: one unit with a fraction, e.g. "1.5ms", "300µs", "12ns".
    if (u < kUs) {
      body = std::to_string(u) + "ns";
    } else if (u < kMs) {
      std::string frac;
      const uint64_t whole = AppendFraction(&frac, u, 3);
      body = std::to_string(whole) + frac + "\xC2\xB5s";
    } else {
      std::string frac;
      const uint64_t whole = AppendFraction(&frac, u, 6);
      body = std::to_string(whole) + frac + "ms";
    }
  } else {
    std::string frac;
    u = AppendFraction(&frac, u, 9);  // u is now whole seconds
    body = std::to_string(u % 60) + frac + "s";
    u /= 60;
    if (u > 0) {
      body = std::to_string(u % 60) + "m" + body;
      u /= 60;
      if (u > 0) body = std::to_string(u) + "h" + body;
    }
  }
  return neg ? "-" + body : body;
}

}  // namespace trimtab
