#include "plugins/resource_gate/resource_gate.h"


#include "common/number_format.h"
#include "core/chain/plugin_metric_names.h"
#include "core/chain/slot_math.h"

namespace trimtab::plugins {
namespace {

}  // namespace

StatusOr<core::ExecutorResult> ResourceGate::Execute(const core::ExecutorContext& context,
                                                     const core::ScalingSummaries& summaries,
                                                     core::CycleState& cycle, Json& plugin_state) {
  if (!options_.gate_scale_downs && !core::HasScaleUp(summaries)) {
    return core::ExecutorResult::Approve("no scale-up to gate");
  }
  std::optional<double> cpu;
  if (const core::EvaluatedMetric* m = context.metrics.global.Find(core::kMetricTaskManagerCpuAvg)) {
    cpu = options_.use_current ? m->current : (m->average ? m->average : m->current);
  }
  if (!cpu) {
    return core::ExecutorResult::Veto(std::string("metric ") + core::kMetricTaskManagerCpuAvg +
                                      " is unavailable");
  }
  std::string comparison = "TaskManager CPU " + FormatFixed(*cpu, 2);
  if (*cpu >= options_.cpu_threshold) {
    return core::ExecutorResult::Approve(comparison + " >= threshold " +
                                         FormatFixed(options_.cpu_threshold, 2));
  }
  return core::ExecutorResult::Veto(comparison + " is below threshold " +
                                    FormatFixed(options_.cpu_threshold, 2));
}

std::vector<core::MetricRequirement> ResourceGate::RequiredMetrics() const {
  return {core::TaskManagerCpuRequirement()};
}

}  // namespace trimtab::plugins
