// The Flink configuration vocabulary: how the values of a Flink configuration map (every value is
// a string) are written, read once here for the decision core, the operator, the simulated Flink
// cluster and the command line.
//
//   durations      Flink's TimeUtils: one integer, optional spaces, an optional unit; no unit is
//                  milliseconds. Units (case-insensitive): d day(s), h hour(s), min m minute(s),
//                  s sec(s) second(s), ms milli(s) millisecond(s), µs micro(s) microsecond(s),
//                  ns nano(s) nanosecond(s). ISO-8601 durations as java.time.Duration prints
//                  them ("PT5M", "PT1.5S", "P1D") are accepted too. Negative values are not.
//   memory sizes   Flink's MemorySize: one integer, optional spaces, an optional binary unit:
//                  b bytes, k kb kibibytes, m mb mebibytes, g gb gibibytes, t tb tebibytes.
//   booleans       true / false, case-insensitive.
//   lists          ";"-separated, items trimmed, empty items dropped.
//   maps           "k1:v1,k2:v2"; a quoted key or value ('...' or "...") may hold "," or ":".
//   overrides      pipeline.jobvertex-parallelism-overrides: "<vertex id>:<parallelism>,...",
//                  each parallelism an integer >= 1, each vertex once.
//
// Every parser takes the configuration key and names it in its error:
//   ParseFlinkDuration("job.autoscaler.metrics.window", "5 parsecs")
//     -> "job.autoscaler.metrics.window: invalid duration \"5 parsecs\": unknown unit ..."
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

namespace trimtab {

StatusOr<std::chrono::nanoseconds> ParseFlinkDuration(std::string_view key, std::string_view value);
// The same, truncated to whole milliseconds (what most options are counted in).
StatusOr<std::chrono::milliseconds> ParseFlinkDurationMillis(std::string_view key,
                                                             std::string_view value);
// As Flink prints durations: the largest exact unit ("5 min", "90 s", "250 ms", "0 ms").
std::string FormatFlinkDuration(std::chrono::nanoseconds d);

StatusOr<bool> ParseFlinkBool(std::string_view key, std::string_view value);
StatusOr<double> ParseFlinkDouble(std::string_view key, std::string_view value);
StatusOr<int64_t> ParseFlinkInt(std::string_view key, std::string_view value);
// Bytes.
StatusOr<int64_t> ParseFlinkMemorySize(std::string_view key, std::string_view value);

std::vector<std::string> ParseFlinkList(std::string_view value);
// Errors: an entry without ":" or with an empty key, a key given twice, an unclosed quote.
StatusOr<std::map<std::string, std::string>> ParseFlinkMap(std::string_view key,
                                                           std::string_view value);

// Vertex id -> parallelism. Errors: an entry that is not <vertex>:<integer >= 1>, a vertex
// given twice. Whether an id must be Flink's 32 hex digits is the reader's business (the
// JobManager requires it; the decision core keys vertices by any id).
using FlinkParallelismOverrides = std::map<std::string, int>;
StatusOr<FlinkParallelismOverrides> ParseFlinkParallelismOverrides(std::string_view key,
                                                                   std::string_view value);
// "<vertex>:<p>,..." in vertex order; the empty map is "".
std::string FormatFlinkParallelismOverrides(const FlinkParallelismOverrides& overrides);

// Leading and trailing white space removed.
std::string_view TrimSpaces(std::string_view s);

}  // namespace trimtab
