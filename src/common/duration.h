// Durations as Go and Kubernetes write them (Flink's durations are in common/flink_values.h).
//
//   Go / Kubernetes (time.ParseDuration): "1h30m", "300ms", "1.5s", "-2m", "0", units ns us µs
//   ms s m h, any number of decimal number+unit terms, optional sign. FormatGoDuration prints what
//   time.Duration.String() prints: "1h30m0s", "300ms", "1.5µs", "0s".
//
// Values are std::chrono::nanoseconds (Go's resolution).
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

}  // namespace trimtab
