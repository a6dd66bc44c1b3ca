// What the default scheduler's filter and score plugins compute, as reusable functions of a pod
// and a NodeInfo (so a gang scheduler filters nodes the same way):
//
//   PodRequests            NodeResourcesFit's request of a pod: per resource the larger of the
//                          sum over containers and the largest init container, plus overhead;
//                          a request defaults to the limit when only the limit is set
//   NonZeroPodRequests     the same with 100m cpu / 200Mi memory for containers that request
//                          none (used for scoring only)
//   CheckNodeFit           the filters, in the default plugin order, stopping at the first
//                          failing one: NodeUnschedulable, TaintToleration (NoSchedule and
//                          NoExecute), NodeAffinity (nodeSelector and required node affinity),
//                          NodeResourcesFit ("Too many pods", "Insufficient <resource>")
//   LeastAllocatedScore    NodeResourcesFit's LeastAllocated score (cpu and memory, weight 1)
//   FitErrorMessage        "0/4 nodes are available: 1 Insufficient memory, 3 Insufficient cpu."
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cluster/runtime/scheduler.h"

namespace trimtab::cluster::runtime {

ResourceList PodRequests(const Json& pod);
ResourceList NonZeroPodRequests(const Json& pod);
// status.allocatable of a Node (quantities that fail to parse are left out).
ResourceList NodeAllocatable(const Json& node);

// The reasons `node` cannot take `pod` (empty = it fits).
std::vector<std::string> CheckNodeFit(const Json& pod, const NodeInfo& node);

// 0..100, higher = more free capacity left after placing `pod`.
int64_t LeastAllocatedScore(const Json& pod, const NodeInfo& node);

// The scheduler's FitError text for `reasons_by_node` (node -> reasons) over `node_count` nodes.
std::string FitErrorMessage(size_t node_count,
                            const std::map<std::string, std::vector<std::string>>& reasons_by_node);

// Whether `pod` tolerates `taint` (a Node spec.taints entry).
bool ToleratesTaint(const Json& pod, const Json& taint);
// nodeSelector and requiredDuringSchedulingIgnoredDuringExecution node affinity.
bool MatchesNodeAffinity(const Json& pod, const Json& node);

}  // namespace trimtab::cluster::runtime
