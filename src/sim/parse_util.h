// Small readers shared by the simulator's file formats (job specs, workloads, scenarios).
// Durations are written as a number of seconds (`90`, `2.5`) or a string in Flink's
// ("30 s", "5 min", "2 d") or Go's ("1h30m", "300ms") notation.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::sim {

// Reads `field` as a duration in seconds; leaves *out alone when the field is absent.
Status OptionalSeconds(JsonReader& r, std::string_view field, double* out);
Status RequiredSeconds(JsonReader& r, std::string_view field, double* out);
// Parses one duration value (number of seconds or a duration string) at `path`.
StatusOr<double> ParseSecondsValue(const Json& value, const std::string& path);

// Range checks that name the field: value > 0, value >= 0, lo <= value <= hi.
Status CheckPositive(const std::string& path, double value);
Status CheckNonNegative(const std::string& path, double value);
Status CheckRange(const std::string& path, double value, double lo, double hi);

}  // namespace trimtab::sim
