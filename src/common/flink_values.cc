#include "common/flink_values.h"

#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

namespace trimtab {
namespace {

using std::chrono::nanoseconds;

constexpr int64_t kNs = 1;
constexpr int64_t kUs = 1000 * kNs;
constexpr int64_t kMs = 1000 * kUs;
constexpr int64_t kSec = 1000 * kMs;
constexpr int64_t kMin = 60 * kSec;
constexpr int64_t kHour = 60 * kMin;
constexpr int64_t kDay = 24 * kHour;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Status Invalid(std::string_view key, std::string_view what, std::string_view value,
               std::string_view why) {
  return InvalidArgumentError(std::string(key) + ": invalid " + std::string(what) + " \"" +
                              std::string(value) + "\"" + (why.empty() ? "" : ": ") +
                              std::string(why));
}

// Splits "<digits><spaces><unit>" into its digits and its trimmed unit; false without digits.
bool SplitNumberUnit(std::string_view s, std::string_view* digits, std::string_view* unit) {
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i == 0) return false;
  *digits = s.substr(0, i);
  *unit = TrimSpaces(s.substr(i));
  return true;
}

// A run of decimal digits as a non-negative int64; nullopt on overflow.
std::optional<int64_t> Digits(std::string_view digits) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return n;
}

struct TimeUnit {
  int64_t nanos;
  std::string_view symbol;                // printed by FormatFlinkDuration; singular only
  std::string_view other_symbol;          // another singular-only label, or ""
  std::array<std::string_view, 2> words;  // labels that also take a plural "s"
};

// Flink's TimeUtils.TimeUnit, largest first.
constexpr std::array<TimeUnit, 7> kTimeUnits = {{
    {kDay, "d", "", {"day", ""}},
    {kHour, "h", "", {"hour", ""}},
    {kMin, "min", "m", {"minute", ""}},
    {kSec, "s", "", {"sec", "second"}},
    {kMs, "ms", "", {"milli", "millisecond"}},
    {kUs, "\xC2\xB5s", "", {"micro", "microsecond"}},
    {kNs, "ns", "", {"nano", "nanosecond"}},
}};

int64_t TimeUnitNanos(std::string_view label) {
  for (const TimeUnit& unit : kTimeUnits) {
    if (label == unit.symbol || (!unit.other_symbol.empty() && label == unit.other_symbol)) {
      return unit.nanos;
    }
    for (std::string_view w : unit.words) {
      if (w.empty()) continue;
      if (label == w || (label.size() == w.size() + 1 && label.starts_with(w) &&
                         label.back() == 's')) {
        return unit.nanos;
      }
    }
  }
  return 0;
}

// ISO-8601 as java.time.Duration prints it: P[nD][T[nH][nM][n[.n]S]]; whole days, hours and
// minutes, seconds with up to nine decimals. nullopt when `s` is not of that form.
std::optional<nanoseconds> ParseIsoDuration(std::string_view s) {
  const std::string u = Lower(s);
  if (u.size() < 3 || u[0] != 'p') return std::nullopt;
  int64_t total = 0;
  bool in_time = false;
  bool any = false;
  size_t i = 1;
  while (i < u.size()) {
    if (u[i] == 't' && !in_time) {
      in_time = true;
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < u.size() && IsDigit(u[i])) ++i;
    std::optional<int64_t> whole = Digits(std::string_view(u).substr(start, i - start));
    if (!whole) return std::nullopt;
    int64_t fraction_nanos = 0;
    if (i < u.size() && u[i] == '.') {
      const size_t fraction_start = ++i;
      while (i < u.size() && IsDigit(u[i])) ++i;
      const size_t n = i - fraction_start;
      if (n == 0 || n > 9) return std::nullopt;
      fraction_nanos = *Digits(std::string_view(u).substr(fraction_start, n));
      for (size_t pad = n; pad < 9; ++pad) fraction_nanos *= 10;
    }
    if (i >= u.size()) return std::nullopt;
    const char unit = u[i++];
    int64_t scale = 0;
    if (!in_time && unit == 'd') scale = kDay;
    if (in_time && unit == 'h') scale = kHour;
    if (in_time && unit == 'm') scale = kMin;
    if (in_time && unit == 's') scale = kSec;
    if (scale == 0 || (fraction_nanos != 0 && scale != kSec)) return std::nullopt;
    if (*whole > (std::numeric_limits<int64_t>::max() - total - fraction_nanos) / scale) {
      return std::nullopt;
    }
    total += *whole * scale + fraction_nanos;
    any = true;
  }
  if (!any) return std::nullopt;
  return nanoseconds(total);
}

}  // namespace

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

StatusOr<nanoseconds> ParseFlinkDuration(std::string_view key, std::string_view value) {
  const std::string_view s = TrimSpaces(value);
  if (s.empty()) return Invalid(key, "duration", value, "empty");
  if (auto iso = ParseIsoDuration(s)) return *iso;
  std::string_view digits, label;
  if (!SplitNumberUnit(s, &digits, &label)) {
    return Invalid(key, "duration", value,
                   "expected a whole number and a unit (\"30 s\", \"5 min\", \"PT5M\")");
  }
  const int64_t unit = label.empty() ? kMs : TimeUnitNanos(Lower(label));
  if (unit == 0) {
    return Invalid(key, "duration", value,
                   "unknown unit '" + std::string(label) +
                       "' (d day, h hour, min m minute, s sec second, ms milli millisecond, "
                       "\xC2\xB5s micro microsecond, ns nano nanosecond; words may be plural)");
  }
  std::optional<int64_t> n = Digits(digits);
  if (!n || *n > std::numeric_limits<int64_t>::max() / unit) {
    return Invalid(key, "duration", value, "out of range (the limit is about 292 years)");
  }
  return nanoseconds(*n * unit);
}

StatusOr<std::chrono::milliseconds> ParseFlinkDurationMillis(std::string_view key,
                                                             std::string_view value) {
  TRIMTAB_ASSIGN_OR_RETURN(nanoseconds d, ParseFlinkDuration(key, value));
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

std::string FormatFlinkDuration(nanoseconds d) {
  const int64_t count = d.count();
  if (count == 0) return "0 ms";
  const bool negative = count < 0;
  const uint64_t u =
      negative ? static_cast<uint64_t>(-(count + 1)) + 1 : static_cast<uint64_t>(count);
  for (const TimeUnit& unit : kTimeUnits) {
    const auto nanos = static_cast<uint64_t>(unit.nanos);
    if (u % nanos == 0) {
      return (negative ? "-" : "") + std::to_string(u / nanos) + " " + std::string(unit.symbol);
    }
  }
  return std::to_string(count) + " ns";  // unreachable: kNs divides every count
}

StatusOr<bool> ParseFlinkBool(std::string_view key, std::string_view value) {
  const std::string v = Lower(TrimSpaces(value));
  if (v == "true") return true;
  if (v == "false") return false;
  return Invalid(key, "boolean", value, "expected true or false");
}

StatusOr<double> ParseFlinkDouble(std::string_view key, std::string_view value) {
  const std::string v(TrimSpaces(value));
  if (v.empty()) return Invalid(key, "number", value, "");
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (errno != 0 || end != v.c_str() + v.size() || std::isnan(d)) {
    return Invalid(key, "number", value, "");
  }
  return d;
}

StatusOr<int64_t> ParseFlinkInt(std::string_view key, std::string_view value) {
  const std::string v(TrimSpaces(value));
  if (v.empty()) return Invalid(key, "integer", value, "");
  errno = 0;
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (errno != 0 || end != v.c_str() + v.size()) return Invalid(key, "integer", value, "");
  return static_cast<int64_t>(n);
}

StatusOr<int64_t> ParseFlinkMemorySize(std::string_view key, std::string_view value) {
  constexpr std::string_view kHint = "expected a whole number and a unit b, k, m, g or t";
  std::string_view digits, label;
  if (!SplitNumberUnit(TrimSpaces(value), &digits, &label)) {
    return Invalid(key, "memory size", value, kHint);
  }
  const std::string u = Lower(label);
  int shift = 0;
  if (u.empty() || u == "b" || u == "bytes") {
    shift = 0;
  } else if (u == "k" || u == "kb" || u == "kibibytes") {
    shift = 10;
  } else if (u == "m" || u == "mb" || u == "mebibytes") {
    shift = 20;
  } else if (u == "g" || u == "gb" || u == "gibibytes") {
    shift = 30;
  } else if (u == "t" || u == "tb" || u == "tebibytes") {
    shift = 40;
  } else {
    return Invalid(key, "memory size", value, kHint);
  }
  std::optional<int64_t> n = Digits(digits);
  if (!n || *n > (std::numeric_limits<int64_t>::max() >> shift)) {
    return Invalid(key, "memory size", value, "too large");
  }
  return *n << shift;
}

std::vector<std::string> ParseFlinkList(std::string_view value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(';', start);
    if (end == std::string_view::npos) end = value.size();
    const std::string_view item = TrimSpaces(value.substr(start, end - start));
    if (!item.empty()) out.emplace_back(item);
    start = end + 1;
  }
  return out;
}

StatusOr<std::map<std::string, std::string>> ParseFlinkMap(std::string_view key,
                                                           std::string_view value) {
  // Entries are split at "," outside quotes; an entry's key ends at its first ":" outside quotes.
  std::vector<std::string> entries;
  std::string current;
  char quote = 0;
  for (char c : value) {
    if (quote != 0) {
      if (c == quote) quote = 0;
      current += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      current += c;
    } else if (c == ',') {
      entries.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (quote != 0) {
    return InvalidArgumentError(std::string(key) + ": unclosed quote in map \"" +
                                std::string(value) + "\"");
  }
  entries.push_back(std::move(current));
  const auto unquote = [](std::string_view t) {
    t = TrimSpaces(t);
    if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front()) {
      t = t.substr(1, t.size() - 2);
    }
    return std::string(t);
  };
  std::map<std::string, std::string> out;
  for (const std::string& raw : entries) {
    const std::string_view entry = TrimSpaces(raw);
    if (entry.empty()) continue;
    size_t colon = std::string_view::npos;
    char q = 0;
    for (size_t i = 0; i < entry.size() && colon == std::string_view::npos; ++i) {
      if (q != 0) {
        if (entry[i] == q) q = 0;
      } else if (entry[i] == '\'' || entry[i] == '"') {
        q = entry[i];
      } else if (entry[i] == ':') {
        colon = i;
      }
    }
    if (colon == std::string_view::npos) {
      return InvalidArgumentError(std::string(key) + ": map entry \"" + std::string(entry) +
                                  "\" has no \":\" (expected key:value,key:value)");
    }
    const std::string k = unquote(entry.substr(0, colon));
    const std::string v = unquote(entry.substr(colon + 1));
    if (k.empty()) {
      return InvalidArgumentError(std::string(key) + ": map entry \"" + std::string(entry) +
                                  "\" has an empty key");
    }
    if (!out.emplace(k, v).second) {
      return InvalidArgumentError(std::string(key) + ": map key \"" + k + "\" is given twice");
    }
  }
  return out;
}

StatusOr<FlinkParallelismOverrides> ParseFlinkParallelismOverrides(std::string_view key,
                                                                   std::string_view value) {
  FlinkParallelismOverrides out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string_view::npos) end = value.size();
    const std::string_view entry = TrimSpaces(value.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) continue;
    const size_t colon = entry.find(':');
    const std::string_view vertex =
        colon == std::string_view::npos ? entry : TrimSpaces(entry.substr(0, colon));
    const std::string_view number =
        colon == std::string_view::npos ? std::string_view() : TrimSpaces(entry.substr(colon + 1));
    int p = 0;
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), p);
    if (colon == std::string_view::npos || vertex.empty() || number.empty() ||
        ec != std::errc() || ptr != number.data() + number.size() || p < 1) {
      return InvalidArgumentError(std::string(key) + ": entry \"" + std::string(entry) +
                                  "\" is not <vertex id>:<parallelism >= 1>");
    }
    if (!out.emplace(std::string(vertex), p).second) {
      return InvalidArgumentError(std::string(key) + ": vertex \"" + std::string(vertex) +
                                  "\" is given twice");
    }
  }
  return out;
}

std::string FormatFlinkParallelismOverrides(const FlinkParallelismOverrides& overrides) {
  std::string out;
  for (const auto& [vertex, p] : overrides) {
    if (!out.empty()) out += ',';
    out += vertex + ":" + std::to_string(p);
  }
  return out;
}

}  // namespace trimtab
