// Reads the facts the queue-capacity executor plugin decides on (core/chain/queue_headroom.h)
// for a job whose TaskManagers are in Volcano queue `queue`:
//
//   Queue <queue>            spec.capability, spec.deserved, spec.guarantee.resource,
//                            status.allocated, status.state (scheduling.volcano.sh/v1beta1)
//   every Queue              the other queues' guarantees
//   nodes                    allocatable cpu / memory of the Ready nodes that are not cordoned
//   pods                     requests of the pods bound to those nodes that are not finished
//
// One Get and three Lists per call (the autoscaler calls it once per cycle of a job in a queue).
// A missing queue gives exists = false; a failed read gives `error` (the plugin then vetoes).
// The pods are listed in all namespaces (free room counts every tenant's pods); when that List
// (or the nodes') is refused, as for an operator installed for some namespaces only, node_free
// stays unset with the reason in node_free_unknown (cluster_total is still set when the nodes
// could be read), and the reason is logged as a warning once.
//
// Thread-safety: safe for concurrent use (the client is).
#pragma once

#include <string>

#include "adapters/kube/kube_client.h"
#include "core/chain/queue_headroom.h"
#include "operator/decorators/step_decorator.h"

namespace trimtab::op {

struct QueueJobShape {
  decorators::PodRequests task_manager;  // one TaskManager pod's requests
  int slots_per_task_manager = 1;
  int task_managers = 0;                 // the job's TaskManager pods now
};

core::QueueHeadroom ReadQueueHeadroom(const kube::KubeClient& client, const std::string& queue,
                                      const QueueJobShape& job);

// The nodes' part alone, for a job outside a Volcano queue (ExecutorContext::cluster, the
// scale-guard plugin): the shape, cluster_total and node_free (unset, with node_free_unknown,
// when a List fails); two Lists per call.
core::QueueHeadroom ReadNodeHeadroom(const kube::KubeClient& client, const QueueJobShape& job);

}  // namespace trimtab::op
