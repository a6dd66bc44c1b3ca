// JSON codecs of the Flink autoscaler values: state (persisted), input and result (the
// `trimtab eval flink` document, docs/eval-flink.md), decision log. Decoders are strict: unknown
// fields and wrong types fail with the field path.
//
// Times are RFC 3339 strings (fractional seconds allowed) or integers (Unix milliseconds) on
// input and RFC 3339 with millisecond precision on output. Non-finite numbers are written as
// the strings "Infinity" / "-Infinity".
#pragma once

#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/flink/autoscaler.h"

namespace trimtab::core::flink {

Json ToJson(const AutoscalerState& s);
StatusOr<AutoscalerState> AutoscalerStateFromJson(const Json& j, const std::string& path);

// Input document: {topology, configuration, samples, now, jobStatus?, jobRunningSince?,
// resources?}; `state` is read separately by the caller (it may be absent).
StatusOr<AutoscalerInput> AutoscalerInputFromJson(const Json& j, const std::string& path);
Json ToJson(const AutoscalerInput& in);

Json ToJson(const AutoscalerResult& r);

// Helpers shared by the codecs and the eval command.
std::string FormatTime(TimePoint t);
StatusOr<TimePoint> TimeFromJson(const Json& j, const std::string& path);
Json NumberToJson(double v);

}  // namespace trimtab::core::flink
