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
constexpr uint64_t kDay = 24 * kHour;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

char ToLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string Trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

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

namespace {

struct FlinkUnit {
  uint64_t nanos;
  std::string_view symbol;                // printed by FormatFlinkDuration; no plural form
  std::string_view extra_symbol;          // another singular-only label, or ""
  std::array<std::string_view, 2> words;  // labels that also accept a plural "s"
};

// Flink's TimeUnit: abbreviations are singular only ("ms" is milliseconds, never "m"s); the
// word labels take a plural.
constexpr std::array<FlinkUnit, 7> kFlinkUnits = {{
    {kDay, "d", "", {"day", ""}},
    {kHour, "h", "", {"hour", ""}},
    {kMin, "min", "m", {"minute", ""}},
    {kSec, "s", "", {"sec", "second"}},
    {kMs, "ms", "", {"milli", "millisecond"}},
    {kUs, "\xC2\xB5s", "", {"micro", "microsecond"}},
    {kNs, "ns", "", {"nano", "nanosecond"}},
}};

uint64_t FlinkUnitNanos(const std::string& label) {
  for (const FlinkUnit& unit : kFlinkUnits) {
    if (label == unit.symbol || (!unit.extra_symbol.empty() && label == unit.extra_symbol)) {
      return unit.nanos;
    }
    for (std::string_view w : unit.words) {
      if (!w.empty() && (label == w || label == std::string(w) + "s")) return unit.nanos;
    }
  }
  return 0;
}

}  // namespace

StatusOr<nanoseconds> ParseFlinkDuration(std::string_view text) {
  const std::string trimmed = Trim(text);
  if (trimmed.empty()) {
    return InvalidArgumentError("duration: argument is an empty- or whitespace-only string");
  }
  size_t pos = 0;
  while (pos < trimmed.size() && IsDigit(trimmed[pos])) ++pos;
  if (pos == 0) {
    return InvalidArgumentError("duration \"" + trimmed + "\": text does not start with a number");
  }
  const std::string number = trimmed.substr(0, pos);
  std::string label = Trim(std::string_view(trimmed).substr(pos));
  for (char& c : label) c = ToLower(c);
  uint64_t value = 0;
  for (char c : number) {
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10) {
      return InvalidArgumentError("duration \"" + trimmed + "\": the value '" + number +
                                  "' cannot be represented as 64bit number (numeric overflow)");
    }
    value = value * 10 + digit;
  }
  const uint64_t unit = label.empty() ? kMs : FlinkUnitNanos(label);
  if (unit == 0) {
    return InvalidArgumentError(
        "duration \"" + trimmed + "\": time interval unit label '" + label +
        "' does not match any of the recognized units: DAYS: (d | day | days), HOURS: (h | hour "
        "| hours), MINUTES: (min | m | minute | minutes), SECONDS: (s | sec | secs | second | "
        "seconds), MILLISECONDS: (ms | milli | millis | millisecond | milliseconds), "
        "MICROSECONDS: (µs | micro | micros | microsecond | microseconds), NANOSECONDS: (ns | "
        "nano | nanos | nanosecond | nanoseconds)");
  }
  if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / unit) {
    return InvalidArgumentError("duration \"" + trimmed +
                                "\": out of range (limit is about 292 years)");
  }
  return nanoseconds(static_cast<int64_t>(value * unit));
}

std::string FormatFlinkDuration(nanoseconds d) {
  const int64_t count = d.count();
  if (count == 0) return "0 ms";
  const bool neg = count < 0;
  const uint64_t u = neg ? static_cast<uint64_t>(-(count + 1)) + 1 : static_cast<uint64_t>(count);
  for (const FlinkUnit& unit : kFlinkUnits) {
    if (u % unit.nanos == 0) {
      return (neg ? "-" : "") + std::to_string(u / unit.nanos) + " " +
             std::string(unit.symbol);
    }
  }
  return std::to_string(count) + " ns";  // unreachable: every value is a whole number of ns
}

}  // namespace trimtab
