// VolcanoStatusWriter: carries out, through the API, what a scheduling session decided besides
// the bindings (which the scheduling loop does): what Volcano's scheduler cache writes at
// session close and on eviction.
//
//   PodGroup status   phase, conditions, running/succeeded/failed, with a normal update (the
//                     CRD has no status subresource) on the cached object's resourceVersion; a
//                     409 re-reads the PodGroup and tries again (back-off on repeat)
//   PodGroup events   Warning Unschedulable "N/M tasks in gang unschedulable: ...", Normal
//                     Scheduled, ... as the session lists them (the EventRecorder aggregates
//                     repeats); a PodGroup the session skipped (its queue does not exist) gets
//                     a Warning Unschedulable event with the session's reason
//   Queue allocated   merge patch of status.allocated through the status subresource
//   pending pods      PodScheduled=False with the session's reason and message plus a Warning
//                     FailedScheduling event, only when the condition changes
//   evictions         Warning Evict "Pod is evicted, because of <why>" on the pod, Normal Evict
//                     "<why>" on its PodGroup, then the eviction subresource with the pod's uid
//                     as precondition; a pod is evicted once (while it exists)
//
// Apply() only records the latest desired state per object and queues its key; the writes run
// on the writer's own worker (a runtime Controller), so the scheduling loop never waits on the
// network. A newer Apply for the same object replaces what was not written yet.
//
// Thread-safety: Apply from any thread; Start/Stop from the owner.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "adapters/kube/kube_client.h"
#include "adapters/kube/object_store.h"
#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "core/scheduling/session_result.h"

namespace trimtab::cluster::volcano {

struct StatusWriterCaches {
  const kube::ObjectStore* pods = nullptr;
  const kube::ObjectStore* pod_groups = nullptr;
  const kube::ObjectStore* queues = nullptr;
};

class VolcanoStatusWriter {
 public:
  // `component` is the events' source ("volcano").
  VolcanoStatusWriter(const kube::KubeClient* client, Clock* clock,
                      runtime::EventRecorder* events, std::string component,
                      StatusWriterCaches caches);
  ~VolcanoStatusWriter();  // Stop()s

  void Start();
  void Stop();

  // Queues the writes `result` asks for (see above).
  void Apply(const core::scheduling::SessionResult& result);

 private:
  runtime::Result Sync(const std::string& key);
  runtime::Result WritePodGroup(const std::string& ns_name);
  runtime::Result WriteQueue(const std::string& name);
  runtime::Result WritePodCondition(const std::string& ns_name);
  runtime::Result Evict(const std::string& ns_name);
  Json InvolvedPodGroup(const std::string& ns, const std::string& name) const;

  const kube::KubeClient* client_;
  Clock* clock_;
  runtime::EventRecorder* events_;
  const std::string component_;
  const StatusWriterCaches caches_;
  runtime::Controller controller_;

  std::mutex mu_;
  // Desired state not written yet, by key (guarded by mu_).
  std::map<std::string, core::scheduling::PodGroupOutcome> pod_groups_;
  std::map<std::string, core::scheduling::QueueOutcome> queues_;
  std::map<std::string, core::scheduling::Unschedulable> pods_;
  std::map<std::string, core::scheduling::Eviction> evictions_;
  std::set<std::string> evicted_;  // uids already evicted (guarded by mu_)
};

}  // namespace trimtab::cluster::volcano
