// computeReplicasForMetrics: evaluates every spec.metrics entry with the replica calculator,
// builds each status.currentMetrics entry, and combines the proposals as upstream does —
// the largest proposal wins (ties keep the earlier metric), and if every metric failed, or some
// failed while the rest would scale down, the result is unusable (replicas -1) with the first
// failed metric's ScalingActive=False condition.
//
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/hpa/decision.h"
#include "core/hpa/observation.h"
#include "core/hpa/replica_calculator.h"
#include "core/hpa/spec.h"

namespace trimtab::core::hpa {

struct MetricsEvaluation {
  int32_t replicas = -1;  // -1: no usable proposal
  std::string metric;     // description of the winning metric
  std::optional<TimePoint> timestamp;
  std::vector<MetricProposal> proposals;
  Condition scaling_active;
  std::string error;  // aggregated error, "" when every metric succeeded
};

MetricsEvaluation ComputeReplicasForMetrics(const HpaSpec& spec, int32_t spec_replicas,
                                            int32_t status_replicas, const Observations& observed,
                                            const Tolerances& tolerances, TimePoint now,
                                            const ReplicaCalculatorOptions& options);

}  // namespace trimtab::core::hpa
