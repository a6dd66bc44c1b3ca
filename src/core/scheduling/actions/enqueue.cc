// enqueue: admission. Pending jobs wait in per-queue heaps (JobOrder) under a heap of queues
// (QueueOrder); the best queue's best job is admitted (phase Inqueue, plugins account its
// minResources) when it has no minResources or JobEnqueueable allows it; the queue goes back
// either way, so a rejected job does not block the jobs behind it.
#include <map>

#include "core/scheduling/actions/actions.h"
#include "core/scheduling/plugin_args.h"
#include "core/scheduling/priority_queue.h"

namespace trimtab::core::scheduling {
namespace {

class EnqueueAction final : public Action {
 public:
  std::string_view name() const override { return "enqueue"; }

  void Execute(Session& ssn) override {
    auto& jobs = ssn.jobs();
    auto& queues = ssn.queues();
    PriorityQueue queue_heap(
        [&](int l, int r) { return ssn.QueueOrderLess(queues[l], queues[r]); });
    std::map<int, PriorityQueue> by_queue;
    std::vector<bool> pushed(queues.size(), false);
    for (const JobInfo& job : jobs) {
      if (!pushed[job.queue]) {
        pushed[job.queue] = true;
        queue_heap.Push(job.queue);
      }
      if (!job.IsPending()) continue;
      auto it = by_queue.find(job.queue);
      if (it == by_queue.end()) {
        it = by_queue
                 .emplace(job.queue, PriorityQueue([&](int l, int r) {
                            return ssn.JobOrderLess(jobs[l], jobs[r]);
                          }))
                 .first;
      }
      it->second.Push(job.id);
    }
    while (!queue_heap.Empty()) {
      const int q = queue_heap.Pop();
      auto it = by_queue.find(q);
      if (it == by_queue.end() || it->second.Empty()) continue;
      JobInfo& job = jobs[it->second.Pop()];
      if (!job.has_min_resources || ssn.JobEnqueueable(job)) {
        ssn.JobEnqueued(job);
        job.phase = PodGroupPhase::kInqueue;
        if (ssn.logging()) {
          ssn.Log("enqueue: " + job.key + " admitted to queue " + queues[q].name +
                  (job.has_min_resources ? " (minResources <" + ssn.Res(job.min_resources) + ">)"
                                         : " (no minResources)"));
        }
      } else if (ssn.logging()) {
        ssn.Log("enqueue: " + job.key + " stays Pending in queue " + queues[q].name);
      }
      queue_heap.Push(q);
    }
  }
};

}  // namespace

ActionPtr NewEnqueueAction(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Action>(new EnqueueAction());
}

}  // namespace trimtab::core::scheduling
