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
//  4. bindings go to the binders: `bind_workers` threads POST pods/binding (event Scheduled
//     "Successfully assigned ns/p to n"), the bindings of one group in order on one thread,
//     while the cycle goes on; a pod counts as assumed on its node from the decision until the
//     cache shows it bound (or its binding failed: logged, the pod is offered again);
//     unschedulable pods get PodScheduled=False (reason/message from the decision) and a
//     FailedScheduling warning event, and wait: 1 s doubling to 10 s per attempt, and at least
//     until the cluster changed (node added/changed, pod deleted or finished) or 5 minutes passed
//     (kube-scheduler's unschedulable-pods flush).
//
// A cycle serves only the schedulers with something to do: a change that concerns them (a pod
// of theirs added or changed, their request_cycle; a node change or a freed pod concerns all),
// a back-off or retry_after that ended; a scheduler whose NextCycleIn is positive (a batch
// scheduler between sessions) waits for it. A cycle that serves none reads nothing. Cycles run
// at most once per `min_cycle_gap` of real time: a burst of pod creations (each one a trigger) is
// served by one cycle, not one cycle per pod, since every cycle reads the whole cache (the
// cache's shared objects, not copies).
//
// Threading: one cycle thread (a Controller with one worker), `bind_workers` binder threads;
// informer handlers only enqueue.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
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
  // How long a pod whose binding succeeded stays assumed while the cache does not show it bound.
  Duration assume_timeout = std::chrono::seconds(30);
  // Bindings in flight at once.
  int bind_workers = 8;
  // Real time from the end of one cycle to the start of the next (not the cluster clock: a pure
  // throttle, it changes no decision).
  std::chrono::milliseconds min_cycle_gap{20};
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
  // Requests a cycle for every scheduler.
  void Trigger();

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
    TimePoint at;           // when the binding succeeded (assume_timeout runs from here)
    bool in_flight = true;  // the binding is not done yet
    kube::ObjectPtr pod;    // as the deciding cycle saw it (null if unknown)
  };
  // Bindings for the binders: one group, in order.
  struct BindBatch {
    Scheduler* scheduler = nullptr;
    std::vector<PodBindingDecision> bindings;
    std::vector<kube::ObjectPtr> pods;  // bindings[i]'s pod as the cycle saw it (null if unknown)
  };

  Result Cycle();
  void OnPodChange(const Json* old_pod, const Json* new_pod);
  void ClusterChanged();
  // Requests a cycle for schedulers_[index] (what its SchedulerContext::request_cycle does).
  void TriggerFor(size_t index);
  // The index of the scheduler serving `scheduler_name`, or schedulers_.size().
  size_t OwnerOf(std::string_view scheduler_name) const;
  bool Eligible(const Json& pod, TimePoint now, Duration* wait);
  void BinderLoop();
  void Bind(Scheduler& scheduler, const PodBindingDecision& b, const kube::ObjectPtr& pod);
  void MarkUnschedulable(Scheduler& scheduler, const PodUnschedulableDecision& u, const Json* pod,
                         TimePoint now);

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
  std::map<std::string, Backoff> backoff_;  // guarded by mu_; pod uid -> state
  std::map<std::string, Assumed> assumed_;  // guarded by mu_; pod uid -> binding just made
  // Per scheduler: something changed for it since its last Schedule (guarded by mu_), and when
  // its pods' back-offs or its retry_after want it again (cycle thread only).
  std::vector<char> dirty_;
  std::vector<std::optional<TimePoint>> wake_at_;

  std::mutex bind_mu_;
  std::condition_variable bind_cv_;
  std::deque<BindBatch> bind_queue_;  // guarded by bind_mu_
  bool binders_stopping_ = false;     // guarded by bind_mu_
  std::vector<std::thread> binders_;
  std::chrono::steady_clock::time_point last_cycle_end_;  // cycle thread only
};

}  // namespace trimtab::cluster::runtime
