#include "core/flink/config_values.h"

#include <cctype>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>

#include "common/number_format.h"

namespace trimtab::core::flink {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Status Invalid(std::string_view key, std::string_view what, std::string_view value,
               std::string_view hint) {
  return InvalidArgumentError(std::string(key) + ": invalid " + std::string(what) + " \"" +
                              std::string(value) + "\"" + (hint.empty() ? "" : ": ") +
                              std::string(hint));
}

// Splits "<digits[.digits]><spaces><unit>" into number text and unit text.
bool SplitNumberUnit(std::string_view s, std::string_view* number, std::string_view* unit) {
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return false;
  *number = s.substr(0, i);
  *unit = TrimSpaces(s.substr(i));
  return true;
}

// ISO-8601 subset as java.time.Duration prints it: PT[nH][nM][n[.n]S], optionally PnD.
std::optional<double> ParseIsoDurationMs(std::string_view s) {
  std::string u = Lower(s);
  if (u.size() < 3 || u[0] != 'p') return std::nullopt;
  double total_ms = 0;
  bool in_time = false;
  bool any = false;
  size_t i = 1;
  while (i < u.size()) {
    if (u[i] == 't') {
      in_time = true;
      ++i;
      continue;
    }
    size_t start = i;
    while (i < u.size() && (std::isdigit(static_cast<unsigned char>(u[i])) || u[i] == '.')) ++i;
    if (start == i || i >= u.size()) return std::nullopt;
    double v = std::strtod(u.substr(start, i - start).c_str(), nullptr);
    char unit = u[i++];
    if (!in_time && unit == 'd') {
      total_ms += v * 86400000.0;
    } else if (in_time && unit == 'h') {
      total_ms += v * 3600000.0;
    } else if (in_time && unit == 'm') {
      total_ms += v * 60000.0;
    } else if (in_time && unit == 's') {
      total_ms += v * 1000.0;
    } else {
      return std::nullopt;
    }
    any = true;
  }
  if (!any) return std::nullopt;
  return total_ms;
}

}  // namespace

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

StatusOr<Millis> ParseFlinkDuration(std::string_view key, std::string_view value) {
  std::string_view s = TrimSpaces(value);
  constexpr std::string_view kHint =
      "expected <number> <unit> with unit ms, s, min, h or d (e.g. \"30 s\", \"5 min\")";
  if (s.empty()) return Invalid(key, "duration", value, kHint);
  if (auto iso = ParseIsoDurationMs(s)) return Millis(static_cast<int64_t>(std::llround(*iso)));
  std::string_view number, unit;
  if (!SplitNumberUnit(s, &number, &unit) || number.find('.') != std::string_view::npos) {
    return Invalid(key, "duration", value, kHint);
  }
  errno = 0;
  char* end = nullptr;
  std::string num(number);
  long long n = std::strtoll(num.c_str(), &end, 10);
  if (errno != 0 || end != num.c_str() + num.size()) return Invalid(key, "duration", value, kHint);
  const std::string u = Lower(unit);
  double factor_ms;
  if (u.empty() || u == "ms" || u == "milli" || u == "millis" || u == "millisecond" ||
      u == "milliseconds") {
    factor_ms = 1;
  } else if (u == "ns" || u == "nano" || u == "nanos" || u == "nanosecond" ||
             u == "nanoseconds") {
    factor_ms = 1e-6;
  } else if (u == "us" || u == "µs" || u == "micro" || u == "micros" || u == "microsecond" ||
             u == "microseconds") {
    factor_ms = 1e-3;
  } else if (u == "s" || u == "sec" || u == "secs" || u == "second" || u == "seconds") {
    factor_ms = 1000;
  } else if (u == "m" || u == "min" || u == "mins" || u == "minute" || u == "minutes") {
    factor_ms = 60000;
  } else if (u == "h" || u == "hour" || u == "hours") {
    factor_ms = 3600000;
  } else if (u == "d" || u == "day" || u == "days") {
    factor_ms = 86400000;
  } else {
    return Invalid(key, "duration", value, kHint);
  }
  return Millis(static_cast<int64_t>(std::floor(static_cast<double>(n) * factor_ms)));
}

std::string FormatFlinkDuration(Millis d) {
  const int64_t ms = d.count();
  if (ms == 0) return "0 ms";
  if (ms % 86400000 == 0) return std::to_string(ms / 86400000) + " d";
  if (ms % 3600000 == 0) return std::to_string(ms / 3600000) + " h";
  if (ms % 60000 == 0) return std::to_string(ms / 60000) + " min";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

StatusOr<bool> ParseFlinkBool(std::string_view key, std::string_view value) {
  const std::string v = Lower(TrimSpaces(value));
  if (v == "true") return true;
  if (v == "false") return false;
  return Invalid(key, "boolean", value, "expected true or false");
}

StatusOr<double> ParseFlinkDouble(std::string_view key, std::string_view value) {
  std::string v(TrimSpaces(value));
  if (v.empty()) return Invalid(key, "number", value, "");
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (errno != 0 || end != v.c_str() + v.size() || std::isnan(d)) {
    return Invalid(key, "number", value, "");
  }
  return d;
}

StatusOr<int64_t> ParseFlinkInt(std::string_view key, std::string_view value) {
  std::string v(TrimSpaces(value));
  if (v.empty()) return Invalid(key, "integer", value, "");
  errno = 0;
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (errno != 0 || end != v.c_str() + v.size()) return Invalid(key, "integer", value, "");
  return static_cast<int64_t>(n);
}

StatusOr<int64_t> ParseFlinkMemorySize(std::string_view key, std::string_view value) {
  std::string_view s = TrimSpaces(value);
  constexpr std::string_view kHint = "expected <number> <unit> with unit b, k, m, g or t";
  std::string_view number, unit;
  if (!SplitNumberUnit(s, &number, &unit) || number.find('.') != std::string_view::npos) {
    return Invalid(key, "memory size", value, kHint);
  }
  const std::string u = Lower(unit);
  int64_t factor;
  if (u.empty() || u == "b" || u == "bytes") {
    factor = 1;
  } else if (u == "k" || u == "kb" || u == "kibibytes") {
    factor = int64_t{1} << 10;
  } else if (u == "m" || u == "mb" || u == "mebibytes") {
    factor = int64_t{1} << 20;
  } else if (u == "g" || u == "gb" || u == "gibibytes") {
    factor = int64_t{1} << 30;
  } else if (u == "t" || u == "tb" || u == "tebibytes") {
    factor = int64_t{1} << 40;
  } else {
    return Invalid(key, "memory size", value, kHint);
  }
  TRIMTAB_ASSIGN_OR_RETURN(int64_t n, ParseFlinkInt(key, number));
  if (n > std::numeric_limits<int64_t>::max() / factor) {
    return Invalid(key, "memory size", value, "too large");
  }
  return n * factor;
}

std::vector<std::string> ParseFlinkList(std::string_view value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(';', start);
    if (end == std::string_view::npos) end = value.size();
    std::string_view item = TrimSpaces(value.substr(start, end - start));
    if (!item.empty()) out.emplace_back(item);
    start = end + 1;
  }
  return out;
}

std::string FormatLogNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // %.6g prints a whole number below 10^6 in magnitude as a plain integer (counts, parallelism,
  // rounded rates), and integer formatting is cheaper still. -0 keeps its sign below.
  if (std::abs(v) < 1e6 && v == std::trunc(v) && !(v == 0 && std::signbit(v))) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v));
    return std::string(buf, r.ptr);
  }
  return FormatGeneral(v, 6);  // printf's %.6g, without the locale and format-string work
}

StatusOr<std::map<std::string, std::string>> ParseFlinkMap(std::string_view key,
                                                           std::string_view value) {
  // Split into entries at "," outside quotes.
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

}  // namespace trimtab::core::flink
