// QueueHeadroom: what the queue-capacity executor plugin (src/plugins/queue_capacity) needs to
// know about the Volcano queue a job's PodGroup is charged to and the nodes it may run on. The
// operator fills it (ExecutorContext::queue) from the Queue objects, the nodes and the pods
// bound to them when the job's TaskManagers are in a Volcano queue; the core does no
// Kubernetes I/O.
//
// Amounts are per dimension: cpu in cores, memory in bytes; an absent value means "not given"
// (for a capability: unlimited in that dimension).
//
// Thread-safety: a value type.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace trimtab::core {

struct ResourceAmounts {
  std::optional<double> cpu;
  std::optional<double> memory_bytes;

  friend bool operator==(const ResourceAmounts&, const ResourceAmounts&) = default;
};

struct QueueHeadroom {
  std::string queue;              // the queue the job's PodGroup names
  std::string error;              // the facts could not be read (why); the rest is then unset
  bool exists = false;            // the Queue object was found
  std::string state = "Open";     // status.state (Open when the scheduler has not set it)
  ResourceAmounts capability;     // spec.capability (a dimension <= 0 or absent: unlimited)
  ResourceAmounts deserved;       // spec.deserved
  ResourceAmounts guarantee;      // spec.guarantee.resource
  ResourceAmounts allocated;      // status.allocated (this job's running pods included)
  ResourceAmounts others_guarantee;  // sum of every other queue's guarantee
  ResourceAmounts cluster_total;  // sum of the allocatable of ready, schedulable nodes
  // Per ready, schedulable node: allocatable minus the requests of the pods bound to it that are
  // not finished. nullopt: unknown (the nodes could not be listed).
  std::optional<std::vector<ResourceAmounts>> node_free;
  // Why node_free is unset, when it is (the list that failed and the API server's answer, e.g.
  // a namespace-scoped install that may not list pods across the cluster); "" otherwise.
  std::string node_free_unknown;
  ResourceAmounts task_manager;   // what one TaskManager pod requests
  int slots_per_task_manager = 1;
  int task_managers = 0;          // this job's TaskManager pods now
};

}  // namespace trimtab::core
