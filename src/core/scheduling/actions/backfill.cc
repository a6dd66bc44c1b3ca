// backfill: places BestEffort tasks (no cpu, memory or scalar request), which allocate skips,
// including BestEffort tasks allocate pipelined (they are un-pipelined first). Queues, jobs and
// tasks in their orders; the plugins' predicates only (a BestEffort pod needs no room but a pod
// slot); the best-scoring node; placed at once, bound when the job is ready.
#include <map>

#include "core/scheduling/actions/actions.h"
#include "core/scheduling/plugin_args.h"
#include "core/scheduling/priority_queue.h"
#include "core/scheduling/statement.h"

namespace trimtab::core::scheduling {
namespace {

class BackfillAction final : public Action {
 public:
  std::string_view name() const override { return "backfill"; }

  void Execute(Session& ssn) override {
    auto& tasks = ssn.tasks();
    for (int id : PickUpPendingTasks(ssn)) {
      TaskInfo& task = tasks[id];
      JobInfo& job = ssn.jobs()[task.job];
      FitErrors errors;
      std::vector<int> feasible = ssn.PredicateNodes(task, &errors, /*check_resources=*/false);
      if (feasible.empty()) {
        if (ssn.logging()) ssn.Log("backfill: " + ssn.TaskName(task) + ": " + errors.Message());
        job.fit_errors[task.id] = std::move(errors);
        continue;
      }
      int node = feasible[0];
      if (feasible.size() > 1) {
        std::vector<double> scores;
        ssn.ScoreNodes(task, feasible, &scores);
        double best = 0;
        node = -1;
        for (size_t k = 0; k < feasible.size(); ++k) {
          if (node < 0 || scores[k] > best || (scores[k] == best && feasible[k] < node)) {
            node = feasible[k];
            best = scores[k];
          }
        }
      }
      ssn.AllocateNow(task, node);
      if (ssn.logging()) {
        ssn.Log("backfill: " + ssn.TaskName(task) + " (BestEffort) placed on " +
                ssn.node_names()[node]);
      }
    }
  }

 private:
  static std::vector<int> PickUpPendingTasks(Session& ssn) {
    auto& jobs = ssn.jobs();
    auto& queues = ssn.queues();
    auto& tasks = ssn.tasks();
    PriorityQueue queue_heap(
        [&](int l, int r) { return ssn.QueueOrderLess(queues[l], queues[r]); });
    std::map<int, PriorityQueue> jobs_by_queue;
    std::map<int, PriorityQueue> tasks_by_job;
    auto task_heap = [&](int job) -> PriorityQueue& {
      auto it = tasks_by_job.find(job);
      if (it == tasks_by_job.end()) {
        it = tasks_by_job
                 .emplace(job, PriorityQueue([&](int l, int r) {
                            return ssn.TaskOrderLess(tasks[l], tasks[r]);
                          }))
                 .first;
      }
      return it->second;
    };
    for (JobInfo& job : jobs) {
      if (job.IsPending()) continue;
      if (!ssn.JobValid(job).pass) continue;
      for (int id : job.tasks) {
        TaskInfo& t = tasks[id];
        if (!t.best_effort) continue;
        if (t.status == TaskStatus::kPending && !t.sch_gated) {
          task_heap(job.id).Push(id);
        } else if (t.status == TaskStatus::kPipelined) {
          Statement(ssn).UnPipeline(t);
          task_heap(job.id).Push(id);
        }
      }
      if (!tasks_by_job.count(job.id)) continue;
      auto it = jobs_by_queue.find(job.queue);
      if (it == jobs_by_queue.end()) {
        queue_heap.Push(job.queue);
        it = jobs_by_queue
                 .emplace(job.queue, PriorityQueue([&](int l, int r) {
                            return ssn.JobOrderLess(jobs[l], jobs[r]);
                          }))
                 .first;
      }
      it->second.Push(job.id);
    }
    std::vector<int> out;
    while (!queue_heap.Empty()) {
      PriorityQueue& js = jobs_by_queue.at(queue_heap.Pop());
      while (!js.Empty()) {
        PriorityQueue& ts = tasks_by_job.at(js.Pop());
        while (!ts.Empty()) out.push_back(ts.Pop());
      }
    }
    return out;
  }
};

}  // namespace

ActionPtr NewBackfillAction(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  bool cache = true;
  TRIMTAB_RETURN_IF_ERROR(a.Bool("enablePredicateErrorCache", &cache));
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Action>(new BackfillAction());
}

}  // namespace trimtab::core::scheduling
