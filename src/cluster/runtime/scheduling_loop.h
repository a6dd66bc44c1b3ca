// SchedulingLoop: kube-scheduler's queue and binding cycle for the local cluster. It watches pods
// and nodes (shared informers) and, whenever something relevant changes or a back-off ends, runs
// a cycle:
//
//  1. pending pods: no spec.nodeName, not being deleted, not terminal, no schedulingGates, not
//     just bound by an earlier cycle (assumed), not in back-off;
//  2. each pod goes to the first registered Scheduler that Serves() its spec.schedulerName; pods
//     naming a scheduler nobody serves simply stay Pending (no condition, no event), as with
//     an absent scheduler in a real cluster;
//  3. each scheduler with pods (or that RunsWithoutPending) gets Schedule(snapshot, its pods):
//     the snapshot holds the nodes, the bound pods and the pods assumed by earlier bindings of
//     this and previous cycles;
//  4. bindings are POSTed to pods/binding (event Scheduled "Successfully assigned ns/p to n");
//     unschedulable pods get PodScheduled=False (reason/message from the decision) and a
//     FailedScheduling warning event, and wait: 1 s doubling to 10 s per attempt, and at least
//     until the cluster changed (node added/changed, pod deleted or finished) or 5 minutes passed
//     (kube-scheduler's unschedulable-pods flush).
//
// Threading: one cycle thread (a Controller with one worker); informer handlers only enqueue.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"
#include "cluster/runtime/scheduler.h"

namespace trimtab::cluster::runtime {

struct SchedulingLoopOptions {
  Duration initial_backoff = std::chrono::seconds(1);
  Duration max_backoff = std::chrono::seconds(10);
  Duration unschedulable_flush = std::chrono::minutes(5);
  Duration assume_timeout = std::chrono::seconds(30);
};

class SchedulingLoop {
 public:
  // `schedulers` in priority order (the first that serves a schedulerName wins).
  SchedulingLoop(const kube::KubeClient* client, InformerSet* informers, EventRecorder* events,
                 Clock* clock, std::vector<std::shared_ptr<Scheduler>> schedulers,
                 SchedulingLoopOptions options = {});
  ~SchedulingLoop();

  // Starts the schedulers and the cycle thread. REQUIRES: informers not started yet (handlers
  // are registered in the constructor), started before the first cycle runs.
  Status Start();
  void Stop();
  // Requests a cycle (also what SchedulerContext::request_cycle does).
  void Trigger() { controller_.Enqueue(kCycleKey); }

 private:
  static constexpr const char* kCycleKey = "cycle";
  struct Backoff {
    int attempts = 0;
    TimePoint last_attempt;
    TimePoint retry_at;
    uint64_t cluster_generation = 0;
  };
  struct Assumed {
    std::string node;
    TimePoint at;
    Json pod;
  };

  Result Cycle();
  void OnPodChange(const Json* old_pod, const Json* new_pod);
  void ClusterChanged();
  bool Eligible(const Json& pod, TimePoint now, Duration* wait);
  void Bind(Scheduler& scheduler, const PodBindingDecision& b, const std::map<std::string, Json>& by_uid);
  void MarkUnschedulable(Scheduler& scheduler, const PodUnschedulableDecision& u,
                         const std::map<std::string, Json>& by_uid, TimePoint now);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  std::vector<std::shared_ptr<Scheduler>> schedulers_;
  const SchedulingLoopOptions options_;
  Controller controller_;
  std::vector<Scheduler*> started_;

  std::atomic<uint64_t> cluster_generation_{0};
  std::mutex mu_;
  std::map<std::string, Backoff> backoff_;   // guarded by mu_; pod uid -> state
  std::map<std::string, Assumed> assumed_;   // guarded by mu_; pod uid -> binding just made
};

}  // namespace trimtab::cluster::runtime
