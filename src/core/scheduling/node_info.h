// NodeInfo: a Ready node as the session sees it (Volcano's pkg/scheduler/api/node_info.go) with
// its resource accounting:
//   idle       = allocatable - used          (used counts every task placed on the node,
//                                             releasing ones included, pipelined ones not)
//   releasing  = sum of Releasing tasks      (pods being deleted or evicted)
//   pipelined  = sum of Pipelined tasks      (placed this session on resources still in use)
//   FutureIdle = idle + releasing - pipelined
// plus what kube-scheduler's scorers read (requested incl. session placements, pod count).
//
// Thread-safety: owned by one session.
#pragma once

#include <string>
#include <vector>

#include "core/scheduling/placement.h"
#include "core/scheduling/resources.h"

namespace trimtab::core::scheduling {

struct NodeInfo {
  int id = -1;
  std::string name;
  NodePlacementFacts facts;
  Resources allocatable;
  Resources idle;
  Resources used;
  Resources releasing;
  Resources pipelined;
  // kube-scheduler's NodeInfo view (nodeorder's scorers and the pod-count predicate): every
  // pod on the node, plus what the session allocates or pipelines (predicates' event handler).
  Resources k8s_requested;           // actual requests
  double nonzero_cpu = 0;            // requests with kube-scheduler defaults (100m)
  double nonzero_memory = 0;         // (200Mi) for containers that request nothing
  int pod_count = 0;
  std::vector<int> tasks;  // task ids on the node (any status), for victim selection

  Resources FutureIdle() const {
    Resources r = idle;
    r.Add(releasing).Sub(pipelined);
    return r;
  }
};

}  // namespace trimtab::core::scheduling
