// Parsers for Flink configuration values as they appear in a Flink configuration map (every
// value is a string): durations ("30 s", "5 min", "1h", "250ms", "PT1H"; a plain number means
// milliseconds), booleans, numbers, memory sizes ("2g", "512 mb", plain bytes) and lists
// (";"-separated) and maps ("k1:v1,k2:v2").
//
// Errors name the key: `ParseFlinkDuration("job.autoscaler.metrics.window", "5 parsecs")` fails
// with "job.autoscaler.metrics.window: invalid duration \"5 parsecs\" ...".
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace trimtab::core::flink {

using Millis = std::chrono::milliseconds;

// Flink TimeUtils syntax: <number><optional spaces><unit>, units (case-insensitive) ns/nano(s),
// us/micro(s), ms/milli(s), s/sec(s)/second(s), m/min(s)/minute(s), h/hour(s), d/day(s); no unit
// = milliseconds. ISO-8601 "PT..." durations (as Java's Duration.toString prints) are accepted
// too. Negative values are rejected.
StatusOr<Millis> ParseFlinkDuration(std::string_view key, std::string_view value);
// Formats as Flink prints durations: the largest exact unit ("5 min", "90 s", "250 ms", "0 ms").
std::string FormatFlinkDuration(Millis d);
// A number for decision logs: printf's %.6g ("0.829167", "3.1e+06"), "NaN", "Infinity",
// "-Infinity" (as Java prints doubles that are not finite).
std::string FormatLogNumber(double v);

// "true"/"false", case-insensitive.
StatusOr<bool> ParseFlinkBool(std::string_view key, std::string_view value);
StatusOr<double> ParseFlinkDouble(std::string_view key, std::string_view value);
StatusOr<int64_t> ParseFlinkInt(std::string_view key, std::string_view value);
// Flink MemorySize: <number><optional spaces><unit>, unit b/bytes, k/kb/kibibytes, m/mb/...,
// g/gb, t/tb (all binary, 1k = 1024); no unit = bytes.
StatusOr<int64_t> ParseFlinkMemorySize(std::string_view key, std::string_view value);
// ";"-separated list (Flink's list syntax without quoting); empty items are dropped, items are
// trimmed.
std::vector<std::string> ParseFlinkList(std::string_view value);
// Flink's map syntax: entries separated by ",", key and value by the first ":" of the entry;
// keys and values are trimmed; a quoted key or value ('...' or "...") is taken as it is inside
// the quotes, so it may contain "," or ":". Empty entries are dropped. Errors name the key: an
// entry without ":" or with an empty key, a key given twice, an unclosed quote.
//   ParseFlinkMap("kubernetes.scheduler.volcano.config", "queue:q1, priorityClassName:high")
//     -> {{"priorityClassName", "high"}, {"queue", "q1"}}
StatusOr<std::map<std::string, std::string>> ParseFlinkMap(std::string_view key,
                                                           std::string_view value);

std::string_view TrimSpaces(std::string_view s);

}  // namespace trimtab::core::flink
