// reclaim: task-by-task eviction across queues, so a queue gets back toward what it deserves
// (Volcano's actions/reclaim).
//
// Every queue with a job that is not Pending and valid joins a heap (QueueOrder); starving
// jobs are the reclaimers. A queue the plugins call Overused is skipped. Its starving jobs
// (JobOrder) take turns; a job's pending tasks (TaskOrder) go one by one while the job starves:
// a task with preemptionPolicy Never, or for which the queue is not Preemptive (not entitled to
// more), is skipped. The task tries the nodes its predicates allow (only unresolvable failures
// rule a node out), in scan order; on a node the candidates are its Running (not merely Bound),
// preemptable tasks of jobs of OTHER queues that are reclaimable (spec.reclaimable not false);
// the plugins' Reclaimable vote picks the victims; unless FutureIdle plus the victims covers the
// request the node is skipped. Victims are evicted in victim order until the request fits
// FutureIdle (checked before each eviction); the task is then pipelined there and the node's
// evictions kept, else they are undone and the next node tried. After the job's turn
// everything is committed if the job is pipelined, else undone.
//
// Arguments: enablePredicateErrorCache (accepted; there is no error cache here).
#include <map>

#include "core/scheduling/actions/actions.h"
#include "core/scheduling/plugin_args.h"
#include "core/scheduling/priority_queue.h"
#include "core/scheduling/statement.h"

namespace trimtab::core::scheduling {
namespace {

class ReclaimAction final : public Action {
 public:
  std::string_view name() const override { return "reclaim"; }

  void Execute(Session& ssn) override {
    auto& jobs = ssn.jobs();
    auto& queues = ssn.queues();
    auto& tasks = ssn.tasks();
    PriorityQueue queue_heap([&](int l, int r) { return ssn.QueueOrderLess(queues[l], queues[r]); });
    std::vector<bool> pushed(queues.size(), false);
    std::map<int, PriorityQueue> reclaimers;       // queue -> starving jobs
    std::map<int, PriorityQueue> reclaimer_tasks;  // job -> pending tasks
    for (JobInfo& job : jobs) {
      if (job.IsPending()) continue;
      if (ValidateResult v = ssn.JobValid(job); !v.pass) continue;
      if (!pushed[job.queue]) {
        pushed[job.queue] = true;
        queue_heap.Push(job.queue);
      }
      if (!ssn.JobStarving(job)) continue;
      auto it = reclaimers.find(job.queue);
      if (it == reclaimers.end()) {
        it = reclaimers
                 .emplace(job.queue, PriorityQueue([&](int l, int r) {
                            return ssn.JobOrderLess(jobs[l], jobs[r]);
                          }))
                 .first;
      }
      it->second.Push(job.id);
      PriorityQueue heap([&](int l, int r) { return ssn.TaskOrderLess(tasks[l], tasks[r]); });
      for (int id : job.tasks) {
        if (tasks[id].status == TaskStatus::kPending && !tasks[id].sch_gated) heap.Push(id);
      }
      reclaimer_tasks.emplace(job.id, std::move(heap));
    }

    while (!queue_heap.Empty()) {
      const QueueInfo& queue = queues[queue_heap.Pop()];
      if (ssn.Overused(queue)) {
        if (ssn.logging()) ssn.Log("reclaim: queue " + queue.name + " is overused, skipped");
        continue;
      }
      auto jit = reclaimers.find(queue.id);
      if (jit == reclaimers.end()) continue;
      PriorityQueue& job_heap = jit->second;
      while (!job_heap.Empty()) {
        JobInfo& job = jobs[job_heap.Pop()];
        PriorityQueue& task_heap = reclaimer_tasks.at(job.id);
        Statement stmt(ssn);
        while (ssn.JobStarving(job) && !task_heap.Empty()) {
          TaskInfo& task = tasks[task_heap.Pop()];
          if (task.preempt_never) {
            if (ssn.logging()) {
              ssn.Log("reclaim: " + ssn.TaskName(task) + " has preemptionPolicy Never");
            }
            continue;
          }
          if (!ssn.Preemptive(queue, task)) {
            if (ssn.logging()) {
              ssn.Log("reclaim: queue " + queue.name + " cannot reclaim for " +
                      ssn.TaskName(task) + " (not preemptive)");
            }
            continue;
          }
          ReclaimForTask(ssn, queue, job, task, &stmt);
        }
        const bool had_ops = !stmt.Empty();
        if (ssn.JobPipelined(job)) {
          const size_t before = ssn.result().evictions.size();
          stmt.Commit();
          if (had_ops && ssn.logging()) {
            std::string names;
            const auto& ev = ssn.result().evictions;
            for (size_t i = before; i < ev.size(); ++i) {
              names += (names.empty() ? "" : ", ") + ev[i].pod.ns + "/" + ev[i].pod.name;
            }
            ssn.Log("reclaim: " + job.key + " (queue " + queue.name + ") pipelined; evicted " +
                    (names.empty() ? "nothing" : names));
          }
        } else {
          const int placed = job.ReadyTaskNum() + job.WaitingTaskNum();
          stmt.Discard();
          if (had_ops && ssn.logging()) {
            ssn.Log("reclaim: " + job.key + " would not be pipelined (" + std::to_string(placed) +
                    "/" + std::to_string(job.min_available) + "), evictions undone");
          }
        }
        if (!job_heap.Empty()) queue_heap.Push(queue.id);
      }
    }
  }

 private:
  static void ReclaimForTask(Session& ssn, const QueueInfo& queue, const JobInfo& job,
                             TaskInfo& task, Statement* stmt) {
    auto& tasks = ssn.tasks();
    auto& jobs = ssn.jobs();
    for (int n : ssn.PredicateNodesForPreempt(task)) {
      const NodeInfo& node = ssn.nodes()[n];
      std::vector<int> candidates;
      for (int id : node.tasks) {
        const TaskInfo& t = tasks[id];
        if (t.status != TaskStatus::kRunning || !t.preemptable || t.job < 0) continue;
        const int q = jobs[t.job].queue;
        if (q == job.queue || !ssn.queues()[q].reclaimable) continue;
        candidates.push_back(id);
      }
      if (candidates.empty()) continue;
      const std::vector<int> victims = ssn.Reclaimable(task, candidates);
      Resources available = node.FutureIdle();
      {
        Resources room = available;
        for (int id : victims) room.Add(tasks[id].resreq);
        if (!task.resreq.LessEqual(room)) continue;  // ValidateVictims
      }
      PriorityQueue victim_heap(
          [&](int l, int r) { return ssn.VictimLess(tasks[l], tasks[r], task); });
      for (int id : victims) victim_heap.Push(id);
      Statement node_stmt(ssn);
      bool evicted = false;
      while (!victim_heap.Empty() && !task.resreq.LessEqual(available)) {
        TaskInfo& victim = tasks[victim_heap.Pop()];
        node_stmt.Evict(victim, "reclaim", job.key,
                        "reclaimed by " + job.key + " of queue " + queue.name + " for " +
                            task.ref.name);
        available.Add(victim.resreq);
        evicted = true;
      }
      if (!task.resreq.LessEqual(available)) {
        node_stmt.Discard();
        continue;
      }
      if (ssn.logging()) {
        std::string names;
        for (int id : node_stmt.Tasks()) {
          names += (names.empty() ? "" : ", ") + ssn.TaskName(tasks[id]);
        }
        ssn.Log("reclaim: " + ssn.TaskName(task) + " pipelined on " + node.name +
                (names.empty() ? std::string(" without evictions") : " after evicting " + names));
      }
      node_stmt.Pipeline(task, node.id, evicted);
      stmt->Merge(node_stmt);
      return;
    }
  }
};

}  // namespace

ActionPtr NewReclaimAction(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  bool cache = true;
  TRIMTAB_RETURN_IF_ERROR(a.Bool("enablePredicateErrorCache", &cache));
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Action>(new ReclaimAction());
}

}  // namespace trimtab::core::scheduling
