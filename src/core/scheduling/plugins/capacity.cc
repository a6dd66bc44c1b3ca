// capacity: queues with an explicit share (Volcano's pkg/scheduler/plugins/capacity, flat
// queues). Each queue with jobs gets
//   realCapability = min(capability, (total - sum of all guarantees)+ + own guarantee)
//   deserved       = max(min(spec.deserved, realCapability), guarantee)   (no water-filling)
//   share          = max over deserved's dimensions of allocated / deserved, or 1 when the
//                    queue has no deserved (best effort: after every queue below its share)
// and registers:
//   QueueOrder     queue priority (higher first), then lower share, then a queue with a
//                  deserved before one without
//   Allocatable    queue Open and allocated + request <= realCapability on requested dims
//   JobEnqueueable queue Open; a group with minResources is admitted while minResources +
//                  allocated + inqueue - elastic <= realCapability on its dimensions, else an
//                  event "queue resource quota insufficient: insufficient cpu"; JobEnqueued
//                  adds minResources to inqueue
//   Preemptive     queue Open, allocated + request <= realCapability, and on at least one
//                  requested dimension (ignoring those zero on both sides) allocated + request
//                  <= deserved: the queue may reclaim
//   Reclaimable    in victim order, a victim whose request shares a dimension with the
//                  reclaimer's, whose queue keeps its guarantee without it, and which either
//                  requests nothing the queue has a deserved for, or comes from a queue whose
//                  allocated exceeds deserved on a dimension it requests; each victim taken
//                  lowers its queue's allocated for the next
//   gang eviction  gangreclaim: the same guarantee and deserved checks; gangpreempt: all
// No Overused: reclaim's "queue is overused" check comes from other plugins (proportion).
// Hierarchical queues (enableHierarchy) are refused by the session; `ancestorReclaimLevel`
// only matters with them and the DRA switches have nothing to act on here.
#include <cmath>
#include <deque>
#include <map>

#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"
#include "core/scheduling/priority_queue.h"

namespace trimtab::core::scheduling {
namespace {

struct QueueAttr : QueueUsage {
  int queue = -1;
  double share = 0;
  bool has_deserved = false;  // deserved names some resource (not best effort)
  Resources deserved, guarantee, real_capability;
  bool deserved_named[kMaxResourceDims] = {};  // scalar dimensions deserved has (even as 0)
};

// Dimensions both request (Resource.ResourceNames: >= 0.1); `pods` counts only when asked.
bool Intersects(const Resources& a, const Resources& b, int dims, bool with_pods) {
  for (int d = 0; d < dims; ++d) {
    if (d == kPods && !with_pods) continue;
    if (a[d] >= kMinResource && b[d] >= kMinResource) return true;
  }
  return false;
}

// LessEqualPartlyWithDimensionZeroFiltered: on some dimension `req` asks for (pods ignored),
// not zero on both sides, l <= r within 0.1.
bool LessEqualOnSomeDimension(const Resources& l, const Resources& r, const Resources& req,
                              int dims) {
  for (int d = 0; d < dims; ++d) {
    if (d == kPods || req[d] <= 0) continue;
    if (l[d] < kMinResource && r[d] < kMinResource) continue;
    if (l[d] < r[d] || std::abs(l[d] - r[d]) < kMinResource) return true;
  }
  return false;
}

// GreaterPartlyWithRelevantDimensions: on some dimension `req` asks for that the queue has a
// deserved for (cpu/memory >= 0.1, scalars named), allocated > deserved.
bool ExceedsDeserved(const QueueAttr& a, const Resources& allocated, const Resources& req,
                     int dims) {
  for (int d = 0; d < dims; ++d) {
    if (d == kPods || req[d] <= 0) continue;
    const bool relevant =
        d == kCpu || d == kMemory ? a.deserved[d] >= kMinResource : a.deserved_named[d];
    if (relevant && allocated[d] > a.deserved[d]) return true;
  }
  return false;
}

class CapacityPlugin final : public Plugin {
 public:
  std::string_view name() const override { return "capacity"; }

  void OnSessionOpen(Session& ssn) override {
    dims_ = ssn.names().size();
    BuildAttrs(ssn);
    RegisterOrdersAndAdmission(ssn);
    RegisterEviction(ssn);
    auto update = [this, &ssn](const TaskInfo& t, int sign) {
      if (t.job < 0) return;
      QueueAttr* a = attrs_[ssn.jobs()[t.job].queue];
      if (!a) return;
      if (sign > 0) {
        a->allocated.Add(t.resreq);
      } else {
        a->allocated.Sub(t.resreq);
      }
      UpdateShare(*a);
    };
    ssn.AddEventHandler({[update](const TaskInfo& t) { update(t, +1); },
                         [update](const TaskInfo& t) { update(t, -1); }});
  }

 private:
  void BuildAttrs(Session& ssn) {
    const Resources total = ssn.total_resource();
    Resources total_guarantee;
    for (const QueueInfo& q : ssn.queues()) {
      if (q.has_guarantee) total_guarantee.Add(q.guarantee);
    }
    attrs_.assign(ssn.queues().size(), nullptr);
    for (const JobInfo& job : ssn.jobs()) {
      if (!attrs_[job.queue]) {
        const QueueInfo& q = ssn.queues()[job.queue];
        storage_.emplace_back();
        QueueAttr& a = storage_.back();
        a.queue = q.id;
        if (q.has_guarantee) a.guarantee = q.guarantee;
        a.real_capability = QueueRealCapability(q, total, total_guarantee);
        if (q.has_deserved) a.deserved = q.deserved_spec;
        for (int d = 0; d < kMaxResourceDims; ++d) {
          a.deserved_named[d] = q.deserved_named[d] || q.guarantee_named[d];
        }
        attrs_[job.queue] = &a;
      }
      attrs_[job.queue]->AddJob(ssn, job);
    }
    for (QueueAttr& a : storage_) {
      a.deserved.MinDimension(a.real_capability);
      a.deserved.MaxDimension(a.guarantee);
      a.has_deserved = !a.deserved.IsEmpty();
      UpdateShare(a);
      ssn.SetQueueDeserved(a.queue, a.deserved);
      if (ssn.logging()) {
        ssn.Log("capacity: queue " + ssn.queues()[a.queue].name + " deserved <" +
                ssn.Res(a.deserved) + "> realCapability <" + ssn.Res(a.real_capability) +
                "> guarantee <" + ssn.Res(a.guarantee) + "> allocated <" + ssn.Res(a.allocated) +
                "> inqueue <" + ssn.Res(a.inqueue) + "> elastic <" + ssn.Res(a.elastic) + ">");
      }
    }
  }

  void UpdateShare(QueueAttr& a) const {
    if (!a.has_deserved) {
      a.share = 1;
      return;
    }
    double res = 0;
    for (int d = 0; d < dims_; ++d) {
      if (a.deserved[d] < kMinResource) continue;
      const double s = a.allocated[d] / a.deserved[d];
      if (s > res) res = s;
    }
    a.share = res;
  }

  void RegisterOrdersAndAdmission(Session& ssn) {
    ssn.AddQueueOrderFn(name(), [this](const QueueInfo& l, const QueueInfo& r) {
      if (l.priority != r.priority) return l.priority > r.priority ? -1 : 1;
      const QueueAttr* la = attrs_[l.id];
      const QueueAttr* ra = attrs_[r.id];
      if (!la || !ra) return 0;
      if (la->share != ra->share) return la->share < ra->share ? -1 : 1;
      if (la->has_deserved == ra->has_deserved) return 0;
      return la->has_deserved ? -1 : 1;
    });
    ssn.AddAllocatableFn(name(), [this, &ssn](const QueueInfo& q, const TaskInfo& t) {
      if (!q.IsOpen()) return false;
      const QueueAttr* a = attrs_[q.id];
      if (!a) return false;
      Resources future = a->allocated;
      future.Add(t.resreq);
      return future.LessEqualOnRequested(a->real_capability, t.resreq, ssn.names());
    });
    ssn.AddJobEnqueueableFn(name(), [this, &ssn](const JobInfo& job) {
      const QueueInfo& q = ssn.queues()[job.queue];
      if (!q.IsOpen()) {
        ssn.jobs()[job.id].events.push_back({"Normal", "Unschedulable", QueueNotOpenMessage(q)});
        if (ssn.logging()) {
          ssn.Log("capacity: " + job.key + " rejected: queue " + q.name + " is " + q.state);
        }
        return static_cast<int>(kReject);
      }
      if (!job.has_min_resources) return static_cast<int>(kPermit);
      const QueueAttr* a = attrs_[job.queue];
      Resources r = job.min_resources;
      r.Add(a->allocated).Add(a->inqueue).Sub(a->elastic);
      std::vector<std::string> failed;
      if (r.LessEqualOnRequested(a->real_capability, job.min_resources, ssn.names(), &failed)) {
        return static_cast<int>(kPermit);
      }
      const std::string msg = AdmissionRefusal(ssn, job, a->real_capability, failed);
      ssn.jobs()[job.id].events.push_back({"Normal", "Unschedulable", msg});
      if (ssn.logging()) {
        ssn.Log("capacity: " + job.key + " rejected: " + msg + " (minResources <" +
                ssn.Res(job.min_resources) + "> + allocated <" + ssn.Res(a->allocated) +
                "> + inqueue <" + ssn.Res(a->inqueue) + "> - elastic <" + ssn.Res(a->elastic) +
                "> > realCapability <" + ssn.Res(a->real_capability) + ">)");
      }
      return static_cast<int>(kReject);
    });
    ssn.AddJobEnqueuedFn(name(), [this](const JobInfo& job) {
      if (!job.has_min_resources || !attrs_[job.queue]) return;
      attrs_[job.queue]->inqueue.Add(job.min_resources);
    });
    ssn.AddPreemptiveFn(name(), [this, &ssn](const QueueInfo& q, const TaskInfo& t) {
      if (!q.IsOpen()) return false;
      const QueueAttr* a = attrs_[q.id];
      if (!a) return false;
      Resources future = a->allocated;
      future.Add(t.resreq);
      if (!future.LessEqualOnRequested(a->real_capability, t.resreq, ssn.names())) return false;
      const bool preemptive = LessEqualOnSomeDimension(future, a->deserved, t.resreq, dims_);
      if (!preemptive && ssn.logging()) {
        ssn.Log("capacity: queue " + q.name + " may not reclaim for " + ssn.TaskName(t) +
                ": allocated + request <" + ssn.Res(future) + "> exceeds deserved <" +
                ssn.Res(a->deserved) + "> on every requested dimension");
      }
      return preemptive;
    });
  }

  // The guarantee and deserved tests of one victim, against its queue's running allocation.
  bool Takes(const QueueAttr& a, Resources& allocated, const TaskInfo& victim) const {
    Resources without = allocated;
    without.Sub(victim.resreq);
    if (!a.guarantee.LessEqual(without)) return false;  // would fall below its guarantee
    if (Intersects(victim.resreq, a.deserved, dims_, true) &&
        !ExceedsDeserved(a, allocated, victim.resreq, dims_)) {
      return false;
    }
    allocated = without;
    return true;
  }

  void RegisterEviction(Session& ssn) {
    ssn.AddReclaimableFn(name(), [this, &ssn](const TaskInfo& reclaimer,
                                              const std::vector<int>& candidates) {
      std::vector<int> victims;
      if (reclaimer.job < 0 || !attrs_[ssn.jobs()[reclaimer.job].queue]) {
        return std::make_pair(victims, static_cast<int>(kReject));
      }
      auto& tasks = ssn.tasks();
      PriorityQueue order(
          [&](int l, int r) { return ssn.VictimLess(tasks[l], tasks[r], reclaimer); });
      for (int id : candidates) order.Push(id);
      std::map<int, Resources> allocations;
      while (!order.Empty()) {
        const TaskInfo& t = tasks[order.Pop()];
        if (t.job < 0) continue;
        const int q = ssn.jobs()[t.job].queue;
        const QueueAttr* a = attrs_[q];
        if (!a) continue;
        if (!Intersects(t.resreq, reclaimer.resreq, dims_, false)) continue;
        auto [it, fresh] = allocations.emplace(q, Resources());
        if (fresh) it->second = a->allocated;
        if (Takes(*a, it->second, t)) victims.push_back(t.id);
      }
      return std::make_pair(victims, static_cast<int>(kPermit));
    });
    ssn.AddUnifiedEvictableFn(name(), [this, &ssn](const EvictionContext& ctx,
                                                   const std::vector<int>& candidates) {
      if (!ctx.reclaim) return std::make_pair(candidates, static_cast<int>(kPermit));
      std::vector<int> victims;
      std::map<int, Resources> allocations;
      for (int id : candidates) {
        const TaskInfo& t = ssn.tasks()[id];
        if (t.job < 0) continue;
        const int q = ssn.jobs()[t.job].queue;
        const QueueAttr* a = attrs_[q];
        if (!a) continue;
        auto [it, fresh] = allocations.emplace(q, Resources());
        if (fresh) it->second = a->allocated;
        if (Takes(*a, it->second, t)) victims.push_back(id);
      }
      return std::make_pair(victims, static_cast<int>(kPermit));
    });
  }

  int dims_ = 0;
  std::deque<QueueAttr> storage_;
  std::vector<QueueAttr*> attrs_;  // by queue id; null for queues without jobs
};

}  // namespace

PluginPtr NewCapacityPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  int ancestor_reclaim_level = 0;
  bool dra = false, dra_capacity = false;
  TRIMTAB_RETURN_IF_ERROR(a.Int("ancestorReclaimLevel", &ancestor_reclaim_level));
  TRIMTAB_RETURN_IF_ERROR(a.Bool("capacity.DynamicResourceAllocationEnable", &dra));
  TRIMTAB_RETURN_IF_ERROR(a.Bool("capacity.DRAConsumableCapacityEnable", &dra_capacity));
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Plugin>(new CapacityPlugin());
}

}  // namespace trimtab::core::scheduling
