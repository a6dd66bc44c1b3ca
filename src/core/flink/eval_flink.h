// The library entry point of `trimtab eval flink` (docs/eval-flink.md): one JSON document in
// (topology, configuration, samples, now, optional jobStatus / jobRunningSince / resources /
// state), one JSON document out (per-vertex evaluated metrics, proposed and final parallelism,
// scaling summaries, the decision log and the new state). No I/O: the CLI reads and prints.
//
// With `evaluatedMetrics` the cycle starts at the decide stage (cycle::TakeEvaluated). With a
// `chain` (docs/plugins.md format) the caller builds the executor chain and passes it as `chain`:
// the cycle then runs as the operator runs it (RunAutoscalerCycleWithChain), with the plugins'
// states from `pluginStates`, and the output gains `chain` and `pluginStates`.
//
// Errors name the field ("input.samples[1].vertices.map.busyTimeMsPerSecond: ...",
// "configuration: job.autoscaler.metrics.window: invalid duration ..."); a document with a
// `chain` and no `chain` argument is an error naming input.chain.
#pragma once

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_chain.h"

namespace trimtab::core::flink {

StatusOr<Json> EvaluateFlinkDocument(const Json& document, const ExecutorChain* chain = nullptr);

}  // namespace trimtab::core::flink
