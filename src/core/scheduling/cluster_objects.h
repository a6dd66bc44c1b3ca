// ClusterObjects: the input of one scheduling session, as plain Kubernetes objects in their JSON
// form, exactly what an informer lists: v1 Node and Pod, scheduling.volcano.sh/v1beta1 PodGroup
// and Queue, scheduling.k8s.io/v1 PriorityClass. The session reads them (snapshot.h) and never
// changes them; what it decides comes back as a SessionResult (session_result.h).
//
// Fields the session reads:
//   Node          metadata.name/labels, spec.unschedulable, spec.taints, status.allocatable,
//                 status.conditions (Ready)
//   Pod           metadata.namespace/name/uid/creationTimestamp/deletionTimestamp/labels/
//                 annotations (scheduling.k8s.io/group-name, volcano.sh/preemptable,
//                 volcano.sh/task-spec, volcano.sh/task-priority), spec.schedulerName,
//                 spec.nodeName, spec.priority, spec.priorityClassName, spec.preemptionPolicy,
//                 spec.containers[].resources.requests, spec.initContainers, spec.overhead,
//                 spec.nodeSelector, spec.affinity.nodeAffinity, spec.tolerations,
//                 spec.schedulingGates, status.phase, status.nominatedNodeName
//   PodGroup      metadata (namespace, name, uid, creationTimestamp, annotations),
//                 spec.minMember/minTaskMember/queue/priorityClassName/minResources,
//                 status.phase/conditions
//   Queue         metadata.name/uid/creationTimestamp, spec.weight/capability/guarantee/
//                 deserved/reclaimable/priority/parent, status.state
//   PriorityClass metadata.name, value, globalDefault
//
// Thread-safety: a value type.
#pragma once

#include <vector>

// Json is held by value: the complete type is needed.
#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab::core::scheduling {

struct ClusterObjects {
  std::vector<Json> nodes;
  std::vector<Json> pods;
  std::vector<Json> pod_groups;
  std::vector<Json> queues;
  std::vector<Json> priority_classes;
};

}  // namespace trimtab::core::scheduling
