// resource-gate: lets a scale-up through only when the job's TaskManagers are actually busy.
// A lag spike with idle CPUs points at a bottleneck outside the job (a slow sink, a throttled
// external service); more parallelism would only add restarts. Reads TM_CPU_AVG (average CPU load
// of the TaskManagers, 0..1, declared through RequiredMetrics so the collector fetches it).
//
//   TM_CPU_AVG >= cpuThreshold  -> approve
//   TM_CPU_AVG <  cpuThreshold  -> veto
//   TM_CPU_AVG unknown          -> veto (never scale on a missing measurement)
//   decision without scale-up   -> approve, unless gateScaleDowns is set
//
// Config (all optional):
//   {"cpuThreshold": 0.6,      // (0, 1]
//    "useCurrent": false,      // false: window average (current if no average); true: latest
//    "gateScaleDowns": false}  // true: gate every decision, not only scale-ups
//
// Thread-safety: immutable after construction.
#pragma once

#include <memory>
#include <string>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_plugin.h"
#include "core/chain/plugin_registry.h"

namespace trimtab::plugins {

inline constexpr const char kResourceGateType[] = "resource-gate";

struct ResourceGateOptions {
  double cpu_threshold = 0.6;   // minimum TM_CPU_AVG for a scale-up, in (0, 1]
  bool use_current = false;     // read the latest value instead of the window average
  bool gate_scale_downs = false;  // also gate decisions that only scale down
};

class ResourceGate final : public core::ExecutorPlugin {
 public:
  ResourceGate(core::PluginIdentity identity, ResourceGateOptions options)
      : ExecutorPlugin(std::move(identity)), options_(options) {}

  StatusOr<core::ExecutorResult> Execute(const core::ExecutorContext& context,
                                         const core::ScalingSummaries& summaries,
                                         core::CycleState& cycle, Json& plugin_state) override;
  std::vector<core::MetricRequirement> RequiredMetrics() const override;

 private:
  ResourceGateOptions options_;
};

// config.cc: typed options from JSON (unknown fields rejected) and registration.
StatusOr<ResourceGateOptions> ParseResourceGateOptions(const Json& config, const std::string& path);
Status RegisterResourceGate(core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
