// The one conversion from Flink's metrics, as the REST collector reads them per subtask and job
// (sim::JobMetrics, src/sim/metrics.h), to the autoscaler's raw sample
// (core::flink::RawSample, src/core/flink/metric_window.h). The simulator's Flink policies use
// it every decision; the operator's Flink REST collector (src/adapters/flink/metrics_collector.h)
// fills the same RawSample fields from the REST aggregates with the same mapping, so both paths
// feed the decision core identical samples.
//
// Mapping (upstream collector semantics, reference notes §C.2):
//   busyTimeMsPerSecond        min / max / avg over subtasks (the REST aggregation)
//   accumulatedBusyTime        sum over subtasks
//   numRecordsIn / Out         sum over subtasks (sources: records read from the partitions)
//   numRecordsInPerSecond      sum over subtasks (non-sources: TPR numerator; sources: observed TPR)
//   numRecordsOutPerSecond     sum over subtasks
//   pendingRecords             sources: sum over subtasks (Kafka lag)
//   backPressuredTimeMsPerSecond  avg over subtasks
//   job: gcTimeMsPerSecond, heapUsed, heapMax (per TaskManager: the REST max over TaskManagers,
//        which equals the model's per-TaskManager value), taskSlotsTotal / taskSlotsAvailable,
//        lastCheckpointDurationMs (once a checkpoint has completed).
//
// Thread-safety: pure functions.
#pragma once

#include <optional>

#include "common/clock.h"
#include "core/flink/metric_window.h"
#include "sim/metrics.h"

namespace trimtab::sim {

// The wall-clock instant of simulated time `seconds`: 2024-01-01T00:00:00Z + seconds (whole
// milliseconds). Decision cores need absolute times; this epoch keeps reports reproducible.
TimePoint SimTimePoint(double seconds);

// One collected sample at `time` from a metric snapshot. A restarting job (no vertex metrics)
// gives a sample with job metrics only; callers skip the cycle then.
core::flink::RawSample ToAutoscalerSample(const JobMetrics& metrics, TimePoint time);

// Flink's job status name for the autoscaler ("RUNNING", "RESTARTING").
const char* FlinkJobStatus(const JobMetrics& metrics);

// When the job last became RUNNING (job details timestamps.RUNNING); nullopt while restarting.
std::optional<TimePoint> JobRunningSince(const JobMetrics& metrics);

}  // namespace trimtab::sim
