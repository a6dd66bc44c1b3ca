// Names of the custom evaluated metrics that the built-in executor plugins read, and their
// declarations for the metric collector (metric_requirements.h). docs/plugins.md lists them.
//
//   TM_CPU_AVG   job-wide (EvaluatedMetrics::global): average CPU load of the job's TaskManagers,
//                0..1 (Flink TaskManager metric Status.JVM.CPU.Load, averaged over TaskManagers);
//                read by resource-gate.
//
// The plugins also read built-in metrics: LAG and TARGET_DATA_RATE of sources (source-aligned,
// restart-cost-gate), TRUE_PROCESSING_RATE and EXPECTED_PROCESSING_RATE (restart-cost-gate), and
// the job-wide RESTART_TIME (restart-cost-gate with observedRestartTime).
#pragma once

#include "core/chain/metric_requirements.h"

namespace trimtab::core {

inline constexpr const char kMetricTaskManagerCpuAvg[] = "TM_CPU_AVG";

// TM_CPU_AVG as a requirement: TaskManager scope, Flink REST "Status.JVM.CPU.Load", average.
inline MetricRequirement TaskManagerCpuRequirement() {
  return MetricRequirement{.name = kMetricTaskManagerCpuAvg,
                           .scope = MetricScope::kTaskManager,
                           .source = MetricSourceKind::kFlinkRest,
                           .query = "Status.JVM.CPU.Load",
                           .aggregation = MetricAggregation::kAvg};
}

}  // namespace trimtab::core
