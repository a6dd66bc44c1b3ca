// preempt: task-by-task preemption within a queue (Volcano's actions/preempt, without the
// optional topology-aware dry run).
//
// Preemptors are the jobs that are not Pending, valid and starving. Queue by queue
// (QueueOrder), job by job (JobOrder), a job's pending tasks (TaskOrder) take turns while the
// job starves. A task tries the nodes its predicates allow (only unresolvable failures rule a
// node out), best score first; on a node the candidates are its Bound or Running, preemptable
// tasks of OTHER jobs of the SAME queue (a BestEffort preemptor only takes BestEffort tasks),
// the plugins' Preemptable vote picks the victims, and unless FutureIdle plus the victims
// covers the request the node is skipped. Victims are evicted in victim order until the task
// fits (queue Allocatable, request <= FutureIdle, predicates pass); it is then pipelined there
// and that node's evictions kept, otherwise they are undone and the next node is tried. After
// the job's turn its evictions and pipelines are committed if the job is pipelined (its gang
// complete), else all undone.
//
// A second pass per queue lets the still-pending tasks of those jobs evict tasks of their own
// job (whatever the plugins allow: priority takes only lower task priority), committed task by
// task, stopping at the first task that finds no room.
//
// Pods with preemptionPolicy Never never preempt; nor does a pod whose nominated node (from an
// earlier preemption) already passes the predicates or still holds a terminating pod of lower
// priority — its room is on the way.
//
// Arguments: enablePredicateErrorCache, enableTopologyAwarePreemption (true is refused),
// topologyAwarePreemptWorkerNum, minCandidateNodesPercentage, minCandidateNodesAbsolute,
// maxCandidateNodesAbsolute (accepted; they only tune the topology-aware mode).
#include <algorithm>
#include <map>

#include "core/scheduling/actions/actions.h"
#include "core/scheduling/plugin_args.h"
#include "core/scheduling/priority_queue.h"
#include "core/scheduling/statement.h"

namespace trimtab::core::scheduling {
namespace {

// Which tasks a preemptor may take (before the plugins vote).
enum class Scope { kOtherJobsOfQueue, kOwnJob };

class PreemptAction final : public Action {
 public:
  std::string_view name() const override { return "preempt"; }

  void Execute(Session& ssn) override {
    auto& jobs = ssn.jobs();
    auto& queues = ssn.queues();
    auto& tasks = ssn.tasks();
    auto task_less = [&](int l, int r) { return ssn.TaskOrderLess(tasks[l], tasks[r]); };
    PriorityQueue queue_heap([&](int l, int r) { return ssn.QueueOrderLess(queues[l], queues[r]); });
    std::map<int, PriorityQueue> preemptors;        // queue -> starving jobs
    std::map<int, PriorityQueue> preemptor_tasks;   // job -> pending tasks
    std::map<int, std::vector<int>> under_request;  // queue -> starving jobs, in job order
    for (JobInfo& job : jobs) {
      if (job.IsPending()) continue;
      if (ValidateResult v = ssn.JobValid(job); !v.pass) continue;
      if (!ssn.JobStarving(job)) continue;
      auto it = preemptors.find(job.queue);
      if (it == preemptors.end()) {
        it = preemptors
                 .emplace(job.queue, PriorityQueue([&](int l, int r) {
                            return ssn.JobOrderLess(jobs[l], jobs[r]);
                          }))
                 .first;
        queue_heap.Push(job.queue);
      }
      it->second.Push(job.id);
      under_request[job.queue].push_back(job.id);
      PriorityQueue heap(task_less);
      for (int id : job.tasks) {
        if (tasks[id].status == TaskStatus::kPending && !tasks[id].sch_gated) heap.Push(id);
      }
      preemptor_tasks.emplace(job.id, std::move(heap));
    }

    while (!queue_heap.Empty()) {
      const QueueInfo& queue = queues[queue_heap.Pop()];
      // Between jobs of the queue.
      PriorityQueue& job_heap = preemptors.at(queue.id);
      while (!job_heap.Empty()) {
        JobInfo& job = jobs[job_heap.Pop()];
        PriorityQueue& task_heap = preemptor_tasks.at(job.id);
        Statement stmt(ssn);
        while (ssn.JobStarving(job) && !task_heap.Empty()) {
          Preempt(ssn, queue, tasks[task_heap.Pop()], Scope::kOtherJobsOfQueue, &stmt);
        }
        Finish(ssn, job, &stmt);
      }
      // Within each starving job.
      for (int jid : under_request[queue.id]) {
        PriorityQueue heap(task_less);
        for (int id : jobs[jid].tasks) {
          if (tasks[id].status == TaskStatus::kPending && !tasks[id].sch_gated) heap.Push(id);
        }
        while (!heap.Empty()) {
          Statement stmt(ssn);
          if (!Preempt(ssn, queue, tasks[heap.Pop()], Scope::kOwnJob, &stmt)) {
            stmt.Discard();
            break;
          }
          stmt.Commit();
        }
      }
    }
  }

 private:
  // Commit iff the job is pipelined, with a log line either way.
  static void Finish(Session& ssn, JobInfo& job, Statement* stmt) {
    if (ssn.JobPipelined(job)) {
      const size_t before = ssn.result().evictions.size();
      const bool had_ops = !stmt->Empty();
      stmt->Commit();
      if (had_ops && ssn.logging()) {
        ssn.Log("preempt: " + job.key + " (priority " + std::to_string(job.priority) +
                ") pipelined; evicted " + Evicted(ssn, before));
      }
    } else {
      const bool had_ops = !stmt->Empty();
      const int placed = job.ReadyTaskNum() + job.WaitingTaskNum();
      stmt->Discard();
      if (had_ops && ssn.logging()) {
        ssn.Log("preempt: " + job.key + " would not be pipelined (" + std::to_string(placed) +
                "/" + std::to_string(job.min_available) + "), evictions undone");
      }
    }
  }

  static std::string Evicted(Session& ssn, size_t from) {
    std::string out;
    const auto& ev = ssn.result().evictions;
    for (size_t i = from; i < ev.size(); ++i) {
      out += (out.empty() ? "" : ", ") + ev[i].pod.ns + "/" + ev[i].pod.name;
    }
    return out.empty() ? "nothing" : out;
  }

  // taskEligibleToPreempt.
  static bool Eligible(Session& ssn, const TaskInfo& task) {
    if (task.preempt_never) {
      if (ssn.logging()) ssn.Log("preempt: " + ssn.TaskName(task) + " has preemptionPolicy Never");
      return false;
    }
    if (task.nominated_node.empty()) return true;
    const int n = ssn.snapshot().FindNode(task.nominated_node);
    if (n < 0) return false;
    const NodeInfo& node = ssn.nodes()[n];
    NodeFitError err;
    if (ssn.PredicateFnAll(task, node, &err)) return false;  // its room is on the way
    if (err.unresolvable) return true;
    for (int id : node.tasks) {
      const TaskInfo& t = ssn.tasks()[id];
      if (t.deleting && t.priority < task.priority) return false;
    }
    return true;
  }

  static bool Candidate(Session& ssn, const TaskInfo& preemptor, const TaskInfo& t, Scope scope) {
    if (!PreemptableStatus(t.status) || !t.preemptable || t.job < 0) return false;
    if (preemptor.best_effort && !t.best_effort) return false;
    if (scope == Scope::kOwnJob) return t.job == preemptor.job;
    return t.job != preemptor.job && ssn.jobs()[t.job].queue == ssn.jobs()[preemptor.job].queue;
  }

  // preemptorFitsOnNode.
  static bool Fits(const Session& ssn, const QueueInfo& queue, const TaskInfo& task,
                   const NodeInfo& node) {
    if (!ssn.Allocatable(queue, task)) return false;
    if (!task.resreq.LessEqual(node.FutureIdle())) return false;
    NodeFitError err;
    return ssn.PredicateFnAll(task, node, &err);
  }

  // pmpt.preempt + normalPreempt: true when `preemptor` was pipelined; its node's evictions
  // and the pipeline are appended to `stmt`.
  static bool Preempt(Session& ssn, const QueueInfo& queue, TaskInfo& preemptor, Scope scope,
                      Statement* stmt) {
    if (!Eligible(ssn, preemptor)) return false;
    auto& tasks = ssn.tasks();
    std::vector<int> nodes = ssn.PredicateNodesForPreempt(preemptor);
    if (nodes.empty()) return false;
    std::vector<double> scores;
    ssn.ScoreNodes(preemptor, nodes, &scores);
    std::vector<size_t> order(nodes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    // Best score first; Volcano takes equal scores in any order, here by node name.
    std::sort(order.begin(), order.end(), [&](size_t l, size_t r) {
      if (scores[l] != scores[r]) return scores[l] > scores[r];
      return nodes[l] < nodes[r];
    });
    const JobInfo& job = ssn.jobs()[preemptor.job];
    for (size_t k : order) {
      const NodeInfo& node = ssn.nodes()[nodes[k]];
      std::vector<int> candidates;
      for (int id : node.tasks) {
        if (Candidate(ssn, preemptor, tasks[id], scope)) candidates.push_back(id);
      }
      const std::vector<int> victims =
          candidates.empty() ? candidates : ssn.Preemptable(preemptor, candidates);
      // ValidateVictims: FutureIdle plus every victim must cover the request.
      Resources room = node.FutureIdle();
      for (int id : victims) room.Add(tasks[id].resreq);
      if (!preemptor.resreq.LessEqual(room)) continue;
      PriorityQueue victim_heap([&](int l, int r) {
        return ssn.VictimLess(tasks[l], tasks[r], preemptor);
      });
      for (int id : victims) victim_heap.Push(id);
      Statement node_stmt(ssn);
      Resources preempted;
      bool fits = Fits(ssn, queue, preemptor, node);
      while (!fits && !victim_heap.Empty()) {
        TaskInfo& victim = tasks[victim_heap.Pop()];
        node_stmt.Evict(victim, "preempt", job.key,
                        "preempted by " + job.key + " for " + preemptor.ref.name +
                            " (priority " + std::to_string(preemptor.priority) + ")");
        preempted.Add(victim.resreq);
        fits = Fits(ssn, queue, preemptor, node);
      }
      if (!fits) {
        node_stmt.Discard();
        continue;
      }
      if (ssn.logging()) {
        std::string names;
        for (int id : node_stmt.Tasks()) {
          names += (names.empty() ? "" : ", ") + ssn.TaskName(tasks[id]);
        }
        ssn.Log("preempt: " + ssn.TaskName(preemptor) + " pipelined on " + node.name +
                (names.empty() ? std::string(" without evictions")
                               : " after evicting " + names) +
                (scope == Scope::kOwnJob ? " (own job)" : ""));
      }
      node_stmt.Pipeline(preemptor, node.id, !preempted.IsEmpty());
      stmt->Merge(node_stmt);
      return true;
    }
    return false;
  }
};

}  // namespace

ActionPtr NewPreemptAction(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  bool cache = true, topology_aware = false;
  int workers = 16, min_pct = 10, min_abs = 1, max_abs = 100;
  TRIMTAB_RETURN_IF_ERROR(a.Bool("enablePredicateErrorCache", &cache));
  TRIMTAB_RETURN_IF_ERROR(a.Bool("enableTopologyAwarePreemption", &topology_aware));
  TRIMTAB_RETURN_IF_ERROR(a.Int("topologyAwarePreemptWorkerNum", &workers));
  TRIMTAB_RETURN_IF_ERROR(a.Int("minCandidateNodesPercentage", &min_pct));
  TRIMTAB_RETURN_IF_ERROR(a.Int("minCandidateNodesAbsolute", &min_abs));
  TRIMTAB_RETURN_IF_ERROR(a.Int("maxCandidateNodesAbsolute", &max_abs));
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  if (topology_aware) {
    return InvalidArgumentError(a.FieldPath("enableTopologyAwarePreemption") +
                                ": topology-aware preemption is not supported by this engine");
  }
  return std::unique_ptr<Action>(new PreemptAction());
}

}  // namespace trimtab::core::scheduling
