// proportion: weighted fair share between queues by water-filling. Each queue with jobs gets
// `deserved` = its weight's part of what is left, clamped to its real capability and to what
// its jobs request and raised to its guarantee, round after round until nothing is left or
// nothing changes. Queues are ordered by priority, then by share (allocated / deserved); a
// queue is overused once allocated reaches deserved in every dimension; a task fits its queue
// while allocated + request <= deserved on the dimensions it requests; a group with
// minResources is admitted while minResources + allocated + inqueue - elastic fits the queue's
// real capability (Volcano's pkg/scheduler/plugins/proportion).
#include <deque>
#include <map>

#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {
namespace {

struct QueueAttr : QueueUsage {
  int queue = -1;
  int32_t weight = 1;
  double share = 0;
  Resources deserved, guarantee, real_capability;
};

class ProportionPlugin final : public Plugin {
 public:
  std::string_view name() const override { return "proportion"; }

  void OnSessionOpen(Session& ssn) override {
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
        a.weight = q.weight;
        if (q.has_guarantee) a.guarantee = q.guarantee;
        a.real_capability = QueueRealCapability(q, total, total_guarantee);
        attrs_[job.queue] = &a;
      }
      attrs_[job.queue]->AddJob(ssn, job);
    }
    WaterFill(total);
    for (QueueAttr& a : storage_) {
      UpdateShare(a);
      ssn.SetQueueDeserved(a.queue, a.deserved);
      if (ssn.logging()) {
        ssn.Log("proportion: queue " + ssn.queues()[a.queue].name + " weight " +
                std::to_string(a.weight) + " deserved <" + ssn.Res(a.deserved) +
                "> allocated <" + ssn.Res(a.allocated) + "> request <" + ssn.Res(a.request) +
                "> inqueue <" + ssn.Res(a.inqueue) + "> elastic <" + ssn.Res(a.elastic) + ">");
      }
    }
    Register(ssn);
  }

 private:
  void WaterFill(const Resources& total) {
    Resources remaining = total;
    std::vector<bool> meet(storage_.size(), false);
    while (true) {
      int64_t total_weight = 0;
      for (size_t i = 0; i < storage_.size(); ++i) {
        if (!meet[i]) total_weight += storage_[i].weight;
      }
      if (total_weight == 0) break;
      const Resources old_remaining = remaining;
      Resources increased, decreased;
      for (size_t i = 0; i < storage_.size(); ++i) {
        if (meet[i]) continue;
        QueueAttr& a = storage_[i];
        const Resources old = a.deserved;
        Resources part = remaining;
        part.Multi(static_cast<double>(a.weight) / static_cast<double>(total_weight));
        a.deserved.Add(part);
        a.deserved.MinDimension(a.real_capability);
        a.deserved.MinDimension(a.request);
        a.deserved.MaxDimension(a.guarantee);
        if (a.request.LessEqual(a.deserved) || a.deserved == old) meet[i] = true;
        for (int d = 0; d < kMaxResourceDims; ++d) {
          if (a.deserved[d] > old[d]) {
            increased[d] += a.deserved[d] - old[d];
          } else {
            decreased[d] += old[d] - a.deserved[d];
          }
        }
      }
      remaining.Add(decreased);
      remaining = Resources::ExceededPart(remaining, increased);
      if (remaining.IsEmpty() || remaining == old_remaining) break;
    }
  }

  static void UpdateShare(QueueAttr& a) {
    double res = 0;
    for (int d = 0; d < kMaxResourceDims; ++d) {
      if (a.deserved[d] < kMinResource) continue;
      const double s = a.allocated[d] / a.deserved[d];
      if (s > res) res = s;
    }
    a.share = res;
  }

  void Register(Session& ssn) {
    ssn.AddQueueOrderFn(name(), [this](const QueueInfo& l, const QueueInfo& r) {
      if (l.priority != r.priority) return r.priority > l.priority ? 1 : -1;
      const double ls = attrs_[l.id] ? attrs_[l.id]->share : 0;
      const double rs = attrs_[r.id] ? attrs_[r.id]->share : 0;
      if (ls == rs) return 0;
      return ls < rs ? -1 : 1;
    });
    ssn.AddReclaimableFn(name(), [this, &ssn](const TaskInfo&, const std::vector<int>& candidates) {
      std::vector<int> victims;
      std::map<int, Resources> allocations;
      for (int id : candidates) {
        const TaskInfo& t = ssn.tasks()[id];
        if (t.job < 0) continue;
        const int q = ssn.jobs()[t.job].queue;
        if (!attrs_[q]) continue;
        auto [it, fresh] = allocations.emplace(q, Resources());
        if (fresh) it->second = attrs_[q]->allocated;
        if (!it->second.LessEqual(attrs_[q]->deserved)) {
          it->second.Sub(t.resreq);
          victims.push_back(id);
        }
      }
      return std::make_pair(victims, static_cast<int>(kPermit));
    });
    ssn.AddOverusedFn(name(), [this, &ssn](const QueueInfo& q) {
      const QueueAttr* a = attrs_[q.id];
      if (!a) return false;
      const bool overused = a->deserved.LessEqual(a->allocated);
      if (overused && ssn.logging()) {
        ssn.Log("proportion: queue " + q.name + " is overused: deserved <" + ssn.Res(a->deserved) +
                "> <= allocated <" + ssn.Res(a->allocated) + ">");
      }
      return overused;
    });
    auto allocatable = [this, &ssn](const QueueInfo& q, const TaskInfo& t) {
      if (!q.IsOpen()) return false;
      const QueueAttr* a = attrs_[q.id];
      if (!a) return false;
      Resources future = a->allocated;
      future.Add(t.resreq);
      return future.LessEqualOnRequested(a->deserved, t.resreq, ssn.names());
    };
    ssn.AddAllocatableFn(name(), allocatable);
    ssn.AddPreemptiveFn(name(), allocatable);
    ssn.AddJobEnqueueableFn(name(), [this, &ssn](const JobInfo& job) {
      const QueueInfo& q = ssn.queues()[job.queue];
      if (!q.IsOpen()) {
        ssn.jobs()[job.id].events.push_back({"Normal", "Unschedulable", QueueNotOpenMessage(q)});
        if (ssn.logging()) ssn.Log("proportion: " + job.key + " rejected: queue " + q.name + " is " + q.state);
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
      JobInfo& mj = ssn.jobs()[job.id];
      mj.events.push_back({"Normal", "Unschedulable", msg});
      if (ssn.logging()) {
        ssn.Log("proportion: " + job.key + " rejected: " + msg + " (minResources <" +
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

  std::deque<QueueAttr> storage_;
  std::vector<QueueAttr*> attrs_;  // by queue id; null for queues without jobs
};

}  // namespace

PluginPtr NewProportionPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Plugin>(new ProportionPlugin());
}

}  // namespace trimtab::core::scheduling
