// Durations as the two ecosystems trimtab talks to write them.
//
//   Go / Kubernetes (time.ParseDuration): "1h30m", "300ms", "1.5s", "-2m", "0", units ns us µs
//   ms s m h, any number of decimal number+unit terms, optional sign. FormatGoDuration prints what
//   time.Duration.String() prints: "1h30m0s", "300ms", "1.5µs", "0s".
//
//   Flink (TimeUtils.parseDuration): one integer followed by an optional unit, whitespace allowed
//   between them and around: "30 s", "5 min", "1h", "500ms", "2 d"; a plain number is
//   milliseconds. Units are case-insensitive: d day, h hour, min m minute, s sec second,
//   ms milli millisecond, µs micro microsecond, ns nano nanosecond, each also with a plural "s".
//   FormatFlinkDuration prints the largest exact unit ("5 min", "90 s", "250 ms").
//
// Values are std::chrono::nanoseconds (what both languages use at their finest).
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "common/status.h"

namespace trimtab {

StatusOr<std::chrono::nanoseconds> ParseGoDuration(std::string_view text);
std::string FormatGoDuration(std::chrono::nanoseconds d);

StatusOr<std::chrono::nanoseconds> ParseFlinkDuration(std::string_view text);
std::string FormatFlinkDuration(std::chrono::nanoseconds d);

}  // namespace trimtab
