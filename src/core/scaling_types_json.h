// JSON codecs for core/scaling_types.h. Encoding is stable (sorted keys via std::map, absent
// optionals omitted) so the same input gives byte-identical output. Decoders reject unknown
// fields and name the field path in errors.
#pragma once

#include "common/json.h"
#include "common/status.h"
#include "core/scaling_types.h"

namespace trimtab::core {

Json ToJson(const EvaluatedMetric& m);
Json ToJson(const MetricMap& m);
Json ToJson(const EvaluatedMetrics& m);
Json ToJson(const JobTopology& t);
Json ToJson(const ScalingSummaries& s);

StatusOr<MetricMap> MetricMapFromJson(const Json& j, const std::string& path);
StatusOr<EvaluatedMetrics> EvaluatedMetricsFromJson(const Json& j, const std::string& path);
StatusOr<JobTopology> JobTopologyFromJson(const Json& j, const std::string& path);
StatusOr<ScalingSummaries> ScalingSummariesFromJson(const Json& j, const std::string& path);

}  // namespace trimtab::core
