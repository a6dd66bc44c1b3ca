// Snapshot: the session's jobs, tasks, nodes and queues built from the cluster objects, as
// Volcano's cache snapshot builds them (pkg/scheduler/cache/cache.go Snapshot):
//
//   * nodes: every Node whose Ready condition is not False/Unknown (a node without conditions
//     counts as Ready); total resource = the sum of their allocatable. A node without
//     allocatable `pods` gets 110 (the kubelet default), so hand-written inputs need not say it.
//   * every pod bound to a known node and not Succeeded/Failed counts on that node (used, pod
//     count), whichever scheduler placed it;
//   * a pod is a task of job ns/G iff it has annotation scheduling.k8s.io/group-name: G and its
//     spec.schedulerName is one of SessionOptions::scheduler_names; the PodGroup ns/G must exist
//     (else the pod is skipped: "PodGroup ns/G not found") and its queue must exist (else the
//     group and its pods are skipped: "queue q not found", Volcano ignores such jobs);
//   * job priority = value of the PodGroup's priorityClassName, else of the globalDefault
//     PriorityClass, else 0 (a priorityClassName that does not exist falls back the same way
//     and is noted in the log); task priority = spec.priority, else the pod's class resolved
//     the same way (what the API server's Priority admission would have written), overridden
//     by annotation volcano.sh/task-priority;
//   * jobs sorted by namespace/name, nodes and queues by name, tasks by namespace/name: every
//     map Volcano iterates in random order is iterated in this order here.
//
// Errors name the object and field: `pods[3] (ns/p): spec.containers[0].resources.requests.cpu: ...`.
//
// Thread-safety: built once per session, then owned by it.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/scheduling/cluster_objects.h"
#include "core/scheduling/job_info.h"
#include "core/scheduling/node_info.h"
#include "core/scheduling/queue_info.h"
#include "core/scheduling/resources.h"
#include "core/scheduling/session.h"
#include "core/scheduling/session_result.h"

namespace trimtab::core::scheduling {

inline constexpr char kGroupNameAnnotation[] = "scheduling.k8s.io/group-name";
inline constexpr char kPreemptableKey[] = "volcano.sh/preemptable";
inline constexpr char kSlaWaitingTimeKey[] = "volcano.sh/sla-waiting-time";
inline constexpr char kTaskSpecKey[] = "volcano.sh/task-spec";
inline constexpr char kTaskPriorityAnnotation[] = "volcano.sh/task-priority";

struct Snapshot {
  ResourceNameTable names;
  std::vector<TaskInfo> tasks;  // session tasks first (job >= 0), then foreign pods (job -1)
  std::vector<JobInfo> jobs;
  std::vector<NodeInfo> nodes;
  std::vector<QueueInfo> queues;
  std::vector<std::string> node_names;  // node_names[i] == nodes[i].name
  std::deque<PodPlacement> placements;  // tasks point into it
  Resources total_resource;
  std::vector<Skipped> skipped;
  std::vector<std::string> notes;  // log lines about the input (fallback priorities, ...)
  int32_t default_priority = 0;    // the globalDefault PriorityClass's value, else 0

  int FindNode(std::string_view name) const;
  int FindQueue(std::string_view name) const;
};

StatusOr<Snapshot> BuildSnapshot(const ClusterObjects& objects, const SessionOptions& options);
StatusOr<Snapshot> BuildSnapshot(const ClusterObjectRefs& objects, const SessionOptions& options);

// Parses an RFC 3339 timestamp into unix seconds; "" -> 0. Errors name `path`.
StatusOr<int64_t> ParseTimestamp(const Json& value, const std::string& path);

}  // namespace trimtab::core::scheduling
