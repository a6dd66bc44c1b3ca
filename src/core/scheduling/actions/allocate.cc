// allocate: places pending tasks, one gang at a time. Queues in QueueOrder (an overused queue
// drops out), the best job of the best queue takes a turn: its pending tasks (BestEffort and
// gated ones excepted) in TaskOrder, each on the best-scoring feasible node — a node where the
// request fits Idle (Allocate), else one where it fits FutureIdle (Pipeline). The turn ends as
// soon as the job is ready. A ready job's placements are committed (binds); a job that is only
// pipelined keeps its placements for this session, uncommitted; any other job's placements are
// discarded — all or nothing. Jobs with tasks left go back to their queue, queues back to the
// heap, so queues interleave by their updated share. A job that has not started yet takes its
// turn only when its whole minResources fits its queue and the nodes (gang_start.h).
#include <map>

#include "core/scheduling/actions/actions.h"
#include "core/scheduling/actions/gang_start.h"
#include "core/scheduling/plugin_args.h"
#include "core/scheduling/priority_queue.h"
#include "core/scheduling/statement.h"

namespace trimtab::core::scheduling {
namespace {

class AllocateAction final : public Action {
 public:
  std::string_view name() const override { return "allocate"; }

  void Execute(Session& ssn) override {
    auto& jobs = ssn.jobs();
    auto& queues = ssn.queues();
    auto& tasks = ssn.tasks();
    const bool has_enqueue = ssn.config().HasAction("enqueue");
    PriorityQueue queue_heap(
        [&](int l, int r) { return ssn.QueueOrderLess(queues[l], queues[r]); });
    std::map<int, PriorityQueue> jobs_by_queue;
    std::map<int, PriorityQueue> tasks_by_job;
    for (JobInfo& job : jobs) {
      if (job.IsPending()) {
        if (has_enqueue) continue;
        job.phase = PodGroupPhase::kInqueue;  // no enqueue action: Pending jobs are admitted here
      }
      if (ValidateResult v = ssn.JobValid(job); !v.pass) {
        if (ssn.logging()) ssn.Log("allocate: " + job.key + " skipped: " + v.message);
        continue;
      }
      PriorityQueue task_heap(
          [&](int l, int r) { return ssn.TaskOrderLess(tasks[l], tasks[r]); });
      for (int id : job.tasks) {
        const TaskInfo& t = tasks[id];
        if (t.status != TaskStatus::kPending || t.sch_gated || t.best_effort) continue;
        task_heap.Push(id);
      }
      if (task_heap.Empty()) continue;
      tasks_by_job.emplace(job.id, std::move(task_heap));
      auto it = jobs_by_queue.find(job.queue);
      if (it == jobs_by_queue.end()) {
        it = jobs_by_queue
                 .emplace(job.queue, PriorityQueue([&](int l, int r) {
                            return ssn.JobOrderLess(jobs[l], jobs[r]);
                          }))
                 .first;
        queue_heap.Push(job.queue);
      }
      it->second.Push(job.id);
    }

    while (!queue_heap.Empty()) {
      const int q = queue_heap.Pop();
      const QueueInfo& queue = queues[q];
      if (ssn.Overused(queue)) {
        if (ssn.logging()) ssn.Log("allocate: queue " + queue.name + " is overused, skipped");
        continue;
      }
      auto jit = jobs_by_queue.find(q);
      if (jit == jobs_by_queue.end() || jit->second.Empty()) continue;
      JobInfo& job = jobs[jit->second.Pop()];
      if (!MayStart(ssn, job)) {
        queue_heap.Push(q);
        continue;
      }
      PriorityQueue& task_heap = tasks_by_job.at(job.id);
      Statement stmt(ssn);
      const bool kept = AllocateTasks(ssn, queue, job, task_heap, &stmt);
      if (kept && ssn.JobReady(job)) {
        const size_t before = ssn.result().binds.size();
        stmt.Commit();
        if (ssn.logging()) {
          ssn.Log("allocate: " + job.key + " ready (" + std::to_string(job.ReadyTaskNum()) + "/" +
                  std::to_string(job.min_available) + "), committed " +
                  std::to_string(ssn.result().binds.size() - before) + " binds");
        }
        if (!task_heap.Empty()) jit->second.Push(job.id);
      } else if (kept && ssn.logging()) {
        ssn.Log("allocate: " + job.key + " pipelined (" +
                std::to_string(job.ReadyTaskNum() + job.WaitingTaskNum()) + "/" +
                std::to_string(job.min_available) +
                "): placements kept for this session, nothing bound");
      }
      queue_heap.Push(q);
    }
  }

 private:
  // The start rule (gang_start.h): a job with nothing placed yet starts only when its whole
  // minResources fits; otherwise it sits out the session with the reason on its group.
  static bool MayStart(Session& ssn, JobInfo& job) {
    if (!GangNotStarted(job)) return true;
    const Resources need = GangStartNeed(job);
    std::string why;
    if (GangStartFits(ssn, job, need, &why)) return true;
    job.job_fit_errors = "the whole gang (minResources <" + ssn.Res(job.min_resources) +
                         ">) does not fit: " + why;
    if (ssn.logging()) ssn.Log("allocate: " + job.key + " not started: " + job.job_fit_errors);
    return false;
  }

  // allocateResourcesForTasks. Returns whether the statement is kept (ready or pipelined);
  // otherwise it was discarded.
  static bool AllocateTasks(Session& ssn, const QueueInfo& queue, JobInfo& job,
                            PriorityQueue& task_heap, Statement* stmt) {
    auto& tasks = ssn.tasks();
    int placed = 0;
    while (!task_heap.Empty()) {
      TaskInfo& task = tasks[task_heap.Pop()];
      if (!ssn.Allocatable(queue, task)) {
        if (ssn.logging()) {
          ssn.Log("allocate: " + ssn.TaskName(task) + ": queue " + queue.name +
                  " cannot take it (not allocatable), skipped");
        }
        continue;
      }
      if (!task.role.empty() && RoleFailed(job, tasks, task)) {
        FitErrors fe;
        fe.error = "Task " + task.ref.name + " with role spec " + task.role +
                   " has already predicated failed, skip";
        job.fit_errors[task.id] = std::move(fe);
        continue;
      }
      FitErrors errors;
      std::vector<int> feasible = ssn.PredicateNodes(task, &errors);
      if (feasible.empty()) {
        const std::string message = errors.Message();
        job.fit_errors[task.id] = std::move(errors);
        if (ssn.logging()) ssn.Log("allocate: " + ssn.TaskName(task) + ": " + message);
        if (NeedContinueAllocating(job, tasks)) continue;
        break;
      }
      const int node = ssn.BestNode(task, feasible);
      if (node < 0) continue;
      const NodeInfo& n = ssn.nodes()[node];
      if (task.resreq.LessEqual(n.idle)) {
        stmt->Allocate(task, node);
        ++placed;
      } else if (task.resreq.LessEqual(n.FutureIdle())) {
        stmt->Pipeline(task, node, false);
        ++placed;
        if (ssn.logging()) {
          ssn.Log("allocate: " + ssn.TaskName(task) + " pipelined on " + n.name +
                  " (resources being released)");
        }
      }
      if (ssn.JobReady(job)) break;
    }
    if (ssn.JobReady(job) || ssn.JobPipelined(job)) return true;
    if (ssn.logging()) {
      ssn.Log("allocate: " + job.key + " discarded: " +
              std::to_string(job.ReadyTaskNum() + job.WaitingTaskNum()) + "/" +
              std::to_string(job.min_available) + " tasks placed (" + std::to_string(placed) +
              " this turn), all undone");
    }
    stmt->Discard();
    return false;
  }

  // TaskHasFitErrors: another task of the same role already found no node.
  static bool RoleFailed(const JobInfo& job, const std::vector<TaskInfo>& tasks,
                         const TaskInfo& task) {
    for (const auto& [id, errors] : job.fit_errors) {
      if (tasks[id].role == task.role) return true;
    }
    return false;
  }
};

}  // namespace

ActionPtr NewAllocateAction(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  bool cache = true;
  TRIMTAB_RETURN_IF_ERROR(a.Bool("enablePredicateErrorCache", &cache));
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Action>(new AllocateAction());
}

}  // namespace trimtab::core::scheduling
