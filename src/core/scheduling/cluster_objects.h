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
// ClusterObjectRefs is the same input without copies: pointers to objects the caller keeps alive
// and unchanged for the call (the local cluster hands the session its informer caches' shared
// objects). RefsOf views a ClusterObjects.
//
// Thread-safety: value types.
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

struct ClusterObjectRefs {
  std::vector<const Json*> nodes;
  std::vector<const Json*> pods;
  std::vector<const Json*> pod_groups;
  std::vector<const Json*> queues;
  std::vector<const Json*> priority_classes;
};

inline ClusterObjectRefs RefsOf(const ClusterObjects& objects) {
  auto refs = [](const std::vector<Json>& list) {
    std::vector<const Json*> out;
    out.reserve(list.size());
    for (const Json& o : list) out.push_back(&o);
    return out;
  };
  return {refs(objects.nodes), refs(objects.pods), refs(objects.pod_groups), refs(objects.queues),
          refs(objects.priority_classes)};
}

}  // namespace trimtab::core::scheduling
