// QueueController: the part of Volcano's queue controller (vc-controller-manager) the local
// cluster needs. Per Queue it keeps
//
//   spec.parent       "root" when empty (every queue but root hangs from root, as upstream)
//   status.state      Volcano's queue state machine without bus Commands: "" becomes Open;
//                     Closing becomes Closed once no PodGroup names the queue; Open and Closed
//                     stay; anything else is Unknown. The root queue is always Open.
//   status.pending/inqueue/running/unknown/completed
//                     how many PodGroups naming the queue are in each phase
//
// Closing a queue from kubectl (what `vcctl queue operate -a close` does through a Command):
//   kubectl patch queue q --subresource=status --type=merge -p '{"status":{"state":"Closing"}}'
// (Closed right away when the queue is empty, else once its PodGroups are gone); "Closed"
// closes at once; "Open" reopens. A queue that is not Open admits no new PodGroups.
// status.allocated belongs to the scheduler (written at session close).
//
// Both informers belong to the caller and must not be started before this is constructed
// (handlers are added in the constructor). Writes are merge patches of the status subresource
// and of spec.parent, only when something differs. The counts of one queue are written at most
// once per `kCountsInterval` of cluster time (a burst of PodGroups, each a change, makes one
// write a second, not one per PodGroup; the state follows the same write).
//
// Threading: one worker (a runtime Controller); handlers only enqueue.
#pragma once

#include <map>

#include <string>

#include "adapters/kube/informer.h"
#include "adapters/kube/kube_client.h"
#include "cluster/runtime/controller.h"

namespace trimtab::cluster::volcano {

// The state Volcano's queue controller moves `current` to when `pod_groups` PodGroups name the
// queue (see above).
std::string NextQueueState(const std::string& queue, const std::string& current, int pod_groups);

class QueueController {
 public:
  QueueController(const kube::KubeClient* client, Clock* clock, kube::Informer* queues,
                  kube::Informer* pod_groups, std::string default_queue);
  ~QueueController();  // Stop()s

  void Start();
  void Stop();

 private:
  static constexpr Duration kCountsInterval = std::chrono::seconds(1);

  runtime::Result Sync(const std::string& queue);
  void EnqueueQueueOf(const Json& pod_group);

  const kube::KubeClient* client_;
  Clock* clock_;
  kube::Informer* queues_;
  kube::Informer* pod_groups_;
  const std::string default_queue_;
  runtime::Controller controller_;
  // When each queue's status was last written (the controller's one worker only).
  std::map<std::string, TimePoint> last_write_;
};

}  // namespace trimtab::cluster::volcano
