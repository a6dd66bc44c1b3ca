// Scheduler: the extension point for pod placement in the local cluster. The scheduling loop
// (scheduling_loop.h) hands each registered Scheduler the pending pods whose spec.schedulerName
// it serves, together with a snapshot of the nodes and what runs on them; the scheduler answers
// with bindings and unschedulable verdicts, which the loop carries out through the API
// (pods/binding, PodScheduled condition, Scheduled / FailedScheduling events).
//
// The default scheduler (default_scheduler.h) serves "default-scheduler" and "". A gang scheduler
// (Volcano-like PodGroups and Queues) plugs in beside it: it sees every pending pod of its
// schedulerName at once, can keep informers on its own kinds through SchedulerContext::client,
// asks for a new cycle when those change (request_cycle), and places a whole gang by returning
// all of its bindings in one decision, or none of them. The loop carries bindings out on a small
// pool of binder threads without waiting for them (kube-scheduler's asynchronous binding cycle):
// the bindings of one group (PodBindingDecision::group, e.g. a gang) are POSTed in order by one
// binder, different groups at once; until a binding is done the pod counts as assumed on its
// node. The API has no multi-object transaction, so a pod deleted meanwhile fails alone (it is
// logged, the others stay bound, as with Volcano, and the failed pod is offered again).
//
// Usage (a gang scheduler):
//   class GangScheduler final : public Scheduler {
//     std::string_view name() const override { return "volcano"; }
//     bool Serves(std::string_view s) const override { return s == "volcano"; }
//     SchedulingDecision Schedule(const ClusterSnapshot& snapshot,
//                                 const std::vector<kube::ObjectPtr>& pending) override {
//       ClusterSnapshot what_if = snapshot;   // place members one by one with CheckNodeFit(),
//       ... what_if.Assume(pod, node) ...     // then return all bindings or only verdicts
//     }
//   };
//   RuntimeOptions{.schedulers = {[](const RuntimeContext&) { return std::make_shared<...>(); }}}
//
// Thread-safety: the loop calls Start/Schedule/Stop from its one thread; request_cycle may be
// called from any thread.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// NodeInfo holds Json by value, so this header needs the complete type.
#include <nlohmann/json.hpp>

#include "adapters/kube/kube_client.h"
#include "adapters/kube/object_store.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::kube {
class EventRecorder;
}  // namespace trimtab::kube

namespace trimtab::cluster::runtime {

using EventRecorder = kube::EventRecorder;

// Resource amounts by resource name, in milli-units as Quantity::MilliValue gives them ("cpu"
// 1500 = 1.5 cores, "memory" in milli-bytes, "pods" 1000 per pod, extended resources likewise).
using ResourceList = std::map<std::string, int64_t, std::less<>>;

// A node as a scheduler sees it during one cycle. The objects are the informer cache's shared,
// immutable ones (kube::ObjectPtr), so a snapshot and its copies cost pointers, not objects.
struct NodeInfo {
  std::string name;
  kube::ObjectPtr node;                // the Node object; never null
  ResourceList allocatable;            // status.allocatable
  ResourceList requested;              // sum of the requests of the pods below (node_fit.h)
  ResourceList nonzero_requested;      // the same with scheduler defaults for missing requests
  std::vector<kube::ObjectPtr> pods;   // non-terminal pods bound to (or assumed on) the node
};

// The nodes of the cluster (sorted by name) with the pods placed on them.
class ClusterSnapshot {
 public:
  ClusterSnapshot() = default;
  // Builds the snapshot from Node objects and pods; pods without spec.nodeName, terminal pods
  // and pods on unknown nodes are ignored.
  static ClusterSnapshot Of(const std::vector<kube::ObjectPtr>& nodes,
                            const std::vector<kube::ObjectPtr>& pods);
  // The same from copies (tests, callers without a cache).
  ClusterSnapshot(const std::vector<Json>& nodes, const std::vector<Json>& pods);

  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  const NodeInfo* Find(std::string_view node) const;
  // Accounts `pod` on `node` (what-if placement). No-op for an unknown node.
  void Assume(const kube::ObjectPtr& pod, std::string_view node);
  void Assume(const Json& pod, std::string_view node);  // a copy of `pod`

 private:
  std::vector<NodeInfo> nodes_;
};

// One pod to bind.
struct PodBindingDecision {
  std::string ns;
  std::string name;
  std::string uid;
  std::string node;
  // Bindings with the same non-empty group are carried out in the order given, one after the
  // other; "" = a group of its own.
  std::string group;
};

// One pod that cannot be placed now.
struct PodUnschedulableDecision {
  std::string ns;
  std::string name;
  std::string uid;
  std::string reason = "Unschedulable";  // the PodScheduled=False condition reason
  std::string message;                   // "0/4 nodes are available: 4 Insufficient cpu."
};

struct SchedulingDecision {
  // Carried out asynchronously (in order within a group): POST pods/binding, then a Scheduled
  // event; a failed binding is logged and its pod offered again at the next cycle.
  std::vector<PodBindingDecision> bindings;
  // PodScheduled=False with reason/message plus a FailedScheduling event; the pod is offered
  // again after a back-off (1 s doubling to 10 s) once the cluster changed, or after 5 minutes.
  std::vector<PodUnschedulableDecision> unschedulable;
  // Pods in neither list stay pending and are offered again at the next cycle: on any cluster
  // change, or after `retry_after` when set.
  std::optional<Duration> retry_after;
};

struct SchedulerContext {
  const kube::KubeClient* client = nullptr;  // for the scheduler's own objects
  Clock* clock = nullptr;                    // the runtime clock
  EventRecorder* events = nullptr;           // extra events (e.g. about PodGroups)
  std::function<void()> request_cycle;       // asks the loop for a cycle soon
  // The runtime's pod cache: every pod, bound, pending and finished ones included (a gang
  // scheduler counts a group's running and succeeded members). Read-only.
  const kube::ObjectStore* pods = nullptr;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Reported as the events' source component ("default-scheduler").
  virtual std::string_view name() const = 0;
  // Whether pods with this spec.schedulerName belong to this scheduler.
  virtual bool Serves(std::string_view scheduler_name) const = 0;
  // Called once before the first cycle (start informers on own kinds here).
  virtual Status Start(const SchedulerContext& context) { return Status::Ok(); }
  virtual void Stop() {}
  // Decides for `pending`: this scheduler's pods without a node, not being deleted, without
  // scheduling gates and not in back-off; higher spec.priority first, then older first. Never
  // empty, unless RunsWithoutPending(). Must not block on the network.
  virtual SchedulingDecision Schedule(const ClusterSnapshot& snapshot,
                                      const std::vector<kube::ObjectPtr>& pending) = 0;
  // True: Schedule is called on every cycle, with no pending pods too (a batch scheduler whose
  // session also keeps the status of its own objects, as Volcano's runs every second).
  virtual bool RunsWithoutPending() const { return false; }
  // How long from `now` until this scheduler wants its next Schedule call (a batch scheduler
  // with a fixed session period). While positive, a cycle leaves this scheduler and its pods
  // alone and the loop comes back when it is over; the default: at once.
  virtual Duration NextCycleIn(TimePoint now) const { return Duration::zero(); }
};

}  // namespace trimtab::cluster::runtime
