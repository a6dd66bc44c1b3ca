#include "core/scheduling/actions/gang_eviction.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/scheduling/actions/gang_start.h"
#include "core/scheduling/priority_queue.h"

namespace trimtab::core::scheduling {
namespace {

struct Bundle {
  bool whole = false;
  int job = -1;
  std::vector<int> tasks;
  Resources local, global;
};

Resources Sum(const std::vector<TaskInfo>& all, const std::vector<int>& ids) {
  Resources r;
  for (int id : ids) r.Add(all[id].resreq);
  return r;
}

// CreateJobBundles (without sub-groups; roles honoured).
std::vector<Bundle> JobBundles(Session& ssn, const JobInfo& job, std::vector<int> local) {
  auto& tasks = ssn.tasks();
  std::sort(local.begin(), local.end(), [&](int l, int r) {
    if (tasks[l].priority != tasks[r].priority) return tasks[l].priority < tasks[r].priority;
    return tasks[l].ref.uid < tasks[r].ref.uid;
  });
  int surplus = job.ReadyTaskNum() - job.min_available;
  if (surplus < 0) return {Bundle{false, job.id, local, Sum(tasks, local), Resources()}};
  const bool roles = job.min_available >= job.task_min_available_total;
  std::map<std::string, int> role_surplus;
  if (roles) {
    std::map<std::string, int> ready;
    for (int id : job.tasks) {
      const TaskInfo& t = tasks[id];
      if (AllocatedStatus(t.status) || t.status == TaskStatus::kSucceeded ||
          (t.status == TaskStatus::kPending && t.best_effort)) {
        ready[t.role]++;
      }
    }
    for (const auto& [role, min] : job.task_min_available) role_surplus[role] = ready[role] - min;
  }
  std::vector<int> safe, whole;
  for (int id : local) {
    const TaskInfo& t = tasks[id];
    bool role_safe = true, has_role_min = false;
    if (roles && job.task_min_available.count(t.role)) {
      has_role_min = true;
      role_safe = role_surplus[t.role] > 0;
    }
    if (surplus > 0 && role_safe) {
      safe.push_back(id);
      --surplus;
      if (has_role_min) role_surplus[t.role]--;
    } else {
      whole.push_back(id);
    }
  }
  std::vector<Bundle> out;
  if (!safe.empty()) out.push_back({false, job.id, safe, Sum(tasks, safe), Resources()});
  if (!whole.empty()) {
    out.push_back({true, job.id, whole, Sum(tasks, whole), Sum(tasks, job.tasks)});
  }
  return out;
}

double ScoreAgainstNeed(const Resources& res, const Resources& need, bool cap) {
  double score = 0;
  for (int d = 0; d < kMaxResourceDims; ++d) {
    const double n = need[d];
    if (n < kMinResource) continue;
    double v = res[d];
    if (cap && v > n) v = n;
    score += v / n;
  }
  return score;
}

double Roi(const Bundle& b, const Resources& need) {
  const double global = ScoreAgainstNeed(b.global, need, false);
  if (global == 0) return std::numeric_limits<double>::infinity();
  return ScoreAgainstNeed(b.local, need, true) / global;
}

void SortBundles(Session& ssn, std::vector<Bundle>& bundles, const Resources& need,
                 const GangEvictionOptions& options, const QueueInfo& preemptor_queue) {
  auto& jobs = ssn.jobs();
  auto& queues = ssn.queues();
  auto& tasks = ssn.tasks();
  std::stable_sort(bundles.begin(), bundles.end(), [&](const Bundle& l, const Bundle& r) {
    if (l.whole != r.whole) return !l.whole;
    if (!options.reclaim) {
      if (l.job != r.job) {
        // Victim jobs in reverse job order.
        const bool ij = !ssn.JobOrderLess(jobs[l.job], jobs[r.job]);
        const bool ji = !ssn.JobOrderLess(jobs[r.job], jobs[l.job]);
        if (ij != ji) return ij;
      }
    } else {
      const int lq = jobs[l.job].queue, rq = jobs[r.job].queue;
      if (lq != rq) {
        const bool ij = ssn.VictimQueueOrderLess(queues[lq], queues[rq], preemptor_queue);
        const bool ji = ssn.VictimQueueOrderLess(queues[rq], queues[lq], preemptor_queue);
        if (ij != ji) return ij;
      }
    }
    const double li = Roi(l, need), ri = Roi(r, need);
    if (li != ri) return li > ri;
    if (jobs[l.job].key != jobs[r.job].key) return jobs[l.job].key < jobs[r.job].key;
    const std::string lf = l.tasks.empty() ? "" : tasks[l.tasks[0]].ref.uid;
    const std::string rf = r.tasks.empty() ? "" : tasks[r.tasks[0]].ref.uid;
    if (lf != rf) return lf < rf;
    return l.tasks.size() < r.tasks.size();
  });
}

std::vector<Bundle> SelectBundles(Session& ssn, const QueueInfo& queue, const JobInfo& job,
                                  const Resources& need, const GangEvictionOptions& options) {
  auto& tasks = ssn.tasks();
  auto& jobs = ssn.jobs();
  std::map<int, std::vector<int>> by_job;
  for (const NodeInfo& node : ssn.nodes()) {
    for (int id : node.tasks) {
      const TaskInfo& t = tasks[id];
      if (t.job < 0 || t.job == job.id || !t.preemptable) continue;
      const JobInfo& vj = jobs[t.job];
      if (vj.preemptable_set && !vj.preemptable) continue;  // IsJobPreemptableForGangEviction
      if (options.reclaim) {
        if (t.status != TaskStatus::kRunning || vj.queue == job.queue) continue;
        if (!ssn.queues()[vj.queue].reclaimable) continue;
      } else {
        if (!PreemptableStatus(t.status) || vj.queue != job.queue) continue;
        if (job.priority <= vj.priority) continue;
      }
      by_job[t.job].push_back(id);
    }
  }
  std::vector<Bundle> bundles;
  for (auto& [jid, local] : by_job) {
    for (Bundle& b : JobBundles(ssn, jobs[jid], std::move(local))) bundles.push_back(std::move(b));
  }
  if (bundles.empty()) return {};
  SortBundles(ssn, bundles, need, options, queue);
  std::vector<int> ordered;
  for (const Bundle& b : bundles) ordered.insert(ordered.end(), b.tasks.begin(), b.tasks.end());
  const std::vector<int> allowed =
      ssn.UnifiedEvictable(EvictionContext{options.reclaim, job.id}, ordered);
  if (allowed.empty()) return {};
  std::vector<Bundle> valid;
  for (Bundle& b : bundles) {
    std::vector<int> approved;
    for (int id : b.tasks) {
      if (std::find(allowed.begin(), allowed.end(), id) != allowed.end()) approved.push_back(id);
    }
    if (b.whole) {
      if (approved.size() == b.tasks.size()) valid.push_back(b);
    } else if (!approved.empty()) {
      b.local = Sum(tasks, approved);
      b.tasks = std::move(approved);
      valid.push_back(b);
    }
  }
  SortBundles(ssn, valid, need, options, queue);
  std::vector<Bundle> selected;
  for (Bundle& b : valid) {
    if (b.whole && !options.allow_whole_bundle) continue;
    selected.push_back(std::move(b));
  }
  return selected;
}

// The pending tasks the job needs placed (CollectPendingTasksForGangEviction), in TaskOrder.
std::vector<int> PendingTasks(Session& ssn, const JobInfo& job) {
  auto& tasks = ssn.tasks();
  PriorityQueue heap([&](int l, int r) { return ssn.TaskOrderLess(tasks[l], tasks[r]); });
  for (int id : job.tasks) {
    const TaskInfo& t = tasks[id];
    if (t.status == TaskStatus::kPending && !t.sch_gated && !t.best_effort) heap.Push(id);
  }
  std::vector<int> out;
  while (!heap.Empty()) out.push_back(heap.Pop());
  return out;
}

// BuildNominationPlanInDomain + runSimulateTrialAtHyperNode: evict the victims, pipeline every
// pending task; keep the operations in `stmt` only when the job ends up pipelined.
bool Simulate(Session& ssn, const QueueInfo& queue, JobInfo& job, const std::vector<int>& pending,
              const std::vector<int>& victims, const std::string& action, Statement* stmt) {
  auto& tasks = ssn.tasks();
  Statement trial(ssn);
  for (int id : victims) {
    trial.Evict(tasks[id], action, job.key,
                action + "ed by " + job.key + " (job priority " + std::to_string(job.priority) + ")");
  }
  // A job that has not started needs room for its whole minResources (gang_start.h).
  if (GangNotStarted(job) && !GangStartFits(ssn, job, GangStartNeed(job), nullptr)) {
    trial.Discard();
    return false;
  }
  for (int id : pending) {
    TaskInfo& task = tasks[id];
    if (!ssn.Allocatable(queue, task)) {
      trial.Discard();
      return false;
    }
    std::vector<int> feasible;
    for (const NodeInfo& n : ssn.nodes()) {
      if (!task.resreq.LessEqual(n.FutureIdle())) continue;
      if (!ssn.PredicateForPreempt(task, n)) continue;
      feasible.push_back(n.id);
    }
    const int node = feasible.empty() ? -1 : ssn.BestNode(task, feasible);
    if (node < 0) {
      trial.Discard();
      return false;
    }
    trial.Pipeline(task, node, !victims.empty());
  }
  if (trial.Empty() || !ssn.JobPipelined(job)) {
    trial.Discard();
    return false;
  }
  // The plan is the trial itself: hand its operations to the caller's statement.
  stmt->Merge(trial);
  return true;
}

}  // namespace

bool EvictForJob(Session& ssn, const QueueInfo& queue, JobInfo& job,
                 const GangEvictionOptions& options, Statement* stmt) {
  auto& tasks = ssn.tasks();
  const std::vector<int> pending = PendingTasks(ssn, job);
  if (pending.empty()) return false;
  Resources need = Sum(tasks, pending);
  if (GangNotStarted(job)) need.MaxDimension(GangStartNeed(job));
  if (options.reclaim) {
    TaskInfo total = tasks[pending[0]];
    total.resreq = need;
    if (!ssn.Preemptive(queue, total)) return false;
  }
  const std::vector<Bundle> bundles = SelectBundles(ssn, queue, job, need, options);
  if (bundles.empty()) return false;
  Resources idle;
  for (const NodeInfo& n : ssn.nodes()) idle.Add(n.idle).Add(n.releasing);
  std::vector<int> victims;
  Resources freed;
  for (const Bundle& b : bundles) {
    victims.insert(victims.end(), b.tasks.begin(), b.tasks.end());
    freed.Add(b.local);
    Resources available = idle;
    available.Add(freed);
    if (!need.LessEqual(available)) continue;
    if (Simulate(ssn, queue, job, pending, victims, options.reclaim ? "gangreclaim" : "gangpreempt",
                 stmt)) {
      return true;
    }
  }
  return false;
}

void RunGangEviction(Session& ssn, const GangEvictionOptions& options) {
  auto& jobs = ssn.jobs();
  auto& queues = ssn.queues();
  const char* action = options.reclaim ? "gangreclaim" : "gangpreempt";
  PriorityQueue queue_heap([&](int l, int r) { return ssn.QueueOrderLess(queues[l], queues[r]); });
  std::map<int, PriorityQueue> preemptors;
  std::vector<bool> pushed(queues.size(), false);
  for (JobInfo& job : jobs) {
    if (job.IsPending() || !ssn.JobValid(job).pass) continue;
    if (!pushed[job.queue]) {
      pushed[job.queue] = true;
      queue_heap.Push(job.queue);
    }
    if (!ssn.JobStarving(job)) continue;
    auto it = preemptors.find(job.queue);
    if (it == preemptors.end()) {
      it = preemptors
               .emplace(job.queue, PriorityQueue([&](int l, int r) {
                          return ssn.JobOrderLess(jobs[l], jobs[r]);
                        }))
               .first;
    }
    it->second.Push(job.id);
  }
  while (!queue_heap.Empty()) {
    const QueueInfo& queue = queues[queue_heap.Pop()];
    if (options.reclaim && ssn.Overused(queue)) continue;
    auto it = preemptors.find(queue.id);
    if (it == preemptors.end()) continue;
    while (!it->second.Empty()) {
      JobInfo& job = jobs[it->second.Pop()];
      Statement stmt(ssn);
      const bool found = EvictForJob(ssn, queue, job, options, &stmt);
      if (ssn.JobPipelined(job)) {
        const size_t before = ssn.result().evictions.size();
        stmt.Commit();
        if (found && ssn.logging()) {
          std::string victims;
          for (size_t i = before; i < ssn.result().evictions.size(); ++i) {
            victims += (victims.empty() ? "" : ", ") + ssn.result().evictions[i].pod.ns + "/" +
                       ssn.result().evictions[i].pod.name;
          }
          ssn.Log(std::string(action) + ": " + job.key + " (priority " +
                  std::to_string(job.priority) + ") pipelined after evicting " +
                  (victims.empty() ? "nothing" : victims));
        }
      } else {
        stmt.Discard();
        if (ssn.logging()) {
          ssn.Log(std::string(action) + ": " + job.key + ": no set of victims lets the gang fit");
        }
      }
    }
  }
}

}  // namespace trimtab::core::scheduling
