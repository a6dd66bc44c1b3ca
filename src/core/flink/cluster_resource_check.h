// Upstream's cluster resource check (ScalingExecutor.scalingWouldExceedClusterResources with the
// operator's ClusterResourceManager): before a scaling is executed, would the TaskManagers it
// needs fit on the cluster's nodes? The operator builds the view of the nodes (allocatable and
// used cpu and memory, kubernetes.operator.cluster.resource-view.refresh-interval); this file is
// the pure arithmetic.
//
//   TaskManagers before = ceil(slots used / slots per TaskManager)  (the JobManager's metric)
//   slots after         = max new parallelism when the job's current max parallelism equals the
//                         slots used (slot sharing), else the sum of new parallelisms
//   fits                = release `before` TaskManagers from the nodes (first node that holds
//                         one), then place `after` ones first-fit; all must fit.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/scaling_types.h"

namespace trimtab::core::flink {

// One node as the resource view sees it (allocatable from the Node, used from metrics.k8s.io).
struct NodeResources {
  std::string name;
  double cpu_allocatable = 0;  // cores
  double cpu_used = 0;
  double memory_allocatable = 0;  // bytes
  double memory_used = 0;
};

struct ClusterResourceView {
  std::vector<NodeResources> nodes;
};

// Upstream's ResourceCheckUtils.estimateNumTaskSlotsAfterRescale. `slots_used` is the job's
// NUM_TASK_SLOTS_USED; vertices without a summary keep their parallelism.
int EstimateTaskSlotsAfterRescale(const JobTopology& topology, const ScalingSummaries& summaries,
                                  int slots_used);

// Upstream's ClusterResourceManager.trySchedule on a copy of `view`: true when `new_instances`
// TaskManagers of `cpu` cores and `memory_bytes` fit once `current_instances` are released.
bool TrySchedule(ClusterResourceView view, int current_instances, int new_instances, double cpu,
                 int64_t memory_bytes);

// Why executing `summaries` would exceed the cluster, or nullopt when it fits or cannot be
// judged (TaskManager cpu or memory unknown). With no slot metric (`slots_used` absent) upstream
// blocks: "JM metrics not ready yet".
std::optional<std::string> ClusterResourceBlock(const ClusterResourceView& view,
                                                const JobTopology& topology,
                                                const ScalingSummaries& summaries,
                                                std::optional<int> slots_used,
                                                int slots_per_task_manager,
                                                std::optional<double> tm_cpu,
                                                std::optional<int64_t> tm_memory_bytes);

}  // namespace trimtab::core::flink
