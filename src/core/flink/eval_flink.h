// The library entry point of `trimtab eval flink` (docs/eval-flink.md): one JSON document in
// (topology, configuration, samples, now, optional jobStatus / jobRunningSince / resources /
// state), one JSON document out (per-vertex evaluated metrics, proposed and final parallelism,
// scaling summaries, the decision log and the new state). No I/O: the CLI reads and prints.
//
// Errors name the field ("input.samples[1].vertices.map.busyTimeMsPerSecond: ...",
// "configuration: job.autoscaler.metrics.window: invalid duration ...").
#pragma once

#include "common/json.h"
#include "common/status.h"

namespace trimtab::core::flink {

StatusOr<Json> EvaluateFlinkDocument(const Json& document);

}  // namespace trimtab::core::flink
