#include "core/scheduling/session_close.h"

#include <nlohmann/json.hpp>

namespace trimtab::core::scheduling {
namespace {

PodGroupPhase NewPhase(const JobInfo& job, const std::vector<TaskInfo>& tasks,
                       const std::string& session) {
  bool unschedulable = false;
  for (const Condition& c : job.conditions) {
    if (c.type == "Unschedulable" && c.status == "True" && c.transition_id == session) {
      unschedulable = true;
    }
  }
  if (job.Count(TaskStatus::kRunning) != 0 && unschedulable) return PodGroupPhase::kUnknown;
  int scheduled = job.ScheduledTaskNum();
  const int completed = job.Count(TaskStatus::kSucceeded) + job.Count(TaskStatus::kFailed);
  for (int id : job.tasks) {
    if (tasks[id].status == TaskStatus::kReleasing && tasks[id].node >= 0) ++scheduled;
  }
  if (scheduled >= job.min_available) {
    return scheduled == completed ? PodGroupPhase::kCompleted : PodGroupPhase::kRunning;
  }
  return job.phase == PodGroupPhase::kInqueue ? PodGroupPhase::kInqueue : PodGroupPhase::kPending;
}

bool SameConditions(const std::vector<Condition>& a, const Json& input) {
  const size_t n = input.is_array() ? input.size() : 0;
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    const Json& c = input[i];
    auto str = [&](const char* k) {
      auto it = c.find(k);
      return it != c.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (a[i].type != str("type") || a[i].status != str("status") || a[i].reason != str("reason") ||
        a[i].message != str("message")) {
      return false;
    }
  }
  return true;
}

int StatusInt(const Json& status, const char* key) {
  auto it = status.is_object() ? status.find(key) : status.end();
  return status.is_object() && it != status.end() && it->is_number_integer() ? it->get<int>() : 0;
}

}  // namespace

void CloseSession(Session& ssn) {
  SessionResult& result = ssn.result();
  auto& tasks = ssn.tasks();
  // PodGroups.
  for (JobInfo& job : ssn.jobs()) {
    PodGroupOutcome out;
    out.ns = job.ns;
    out.name = job.name;
    out.uid = job.uid;
    out.queue = job.queue_name;
    out.previous_phase = PodGroupPhaseName(job.input_phase);
    const PodGroupPhase phase = NewPhase(job, tasks, ssn.uid());
    job.phase = phase;
    out.phase = PodGroupPhaseName(phase);
    out.running = job.Count(TaskStatus::kRunning);
    out.succeeded = job.Count(TaskStatus::kSucceeded);
    out.failed = job.Count(TaskStatus::kFailed);
    out.conditions = job.conditions;
    out.events = job.events;
    const Json conds = job.input_status.is_object() && job.input_status.contains("conditions")
                           ? job.input_status["conditions"]
                           : Json::array();
    out.changed = job.input_phase_name != out.phase ||
                  StatusInt(job.input_status, "running") != out.running ||
                  StatusInt(job.input_status, "succeeded") != out.succeeded ||
                  StatusInt(job.input_status, "failed") != out.failed ||
                  !SameConditions(out.conditions, conds);
    if (phase == PodGroupPhase::kPending || phase == PodGroupPhase::kInqueue ||
        phase == PodGroupPhase::kUnknown) {
      if (!job.tasks.empty()) {
        out.events.push_back(
            {"Warning", "Unschedulable",
             std::to_string(job.Count(TaskStatus::kPending)) + "/" +
                 std::to_string(job.tasks.size()) + " tasks in gang unschedulable: " +
                 JobFitError(job, tasks, ssn.node_names())});
      }
    }
    // Pods that are not placed, with their PodScheduled reason.
    const std::string base = job.job_fit_errors.empty() ? "all nodes are unavailable"
                                                        : job.job_fit_errors;
    for (int id : job.tasks) {
      const TaskInfo& t = tasks[id];
      if (t.status != TaskStatus::kPending && t.status != TaskStatus::kAllocated &&
          t.status != TaskStatus::kPipelined) {
        continue;
      }
      Unschedulable u;
      u.pod = t.ref;
      TaskSchedulingReason(job, t, ssn.node_names(), &u.reason, &u.message);
      if (u.message.empty()) u.message = base;
      if (t.status == TaskStatus::kPipelined && t.eviction_occurred && t.node >= 0) {
        u.nominated_node = ssn.node_names()[t.node];
      }
      result.unschedulable.push_back(std::move(u));
      if (t.status == TaskStatus::kPipelined) result.pipelined.push_back(t.ref);
    }
    result.pod_groups.push_back(std::move(out));
  }
  // Queues.
  const auto& queues = ssn.queues();
  std::vector<Resources> allocated(queues.size());
  const int root = ssn.snapshot().FindQueue("root");
  for (const JobInfo& job : ssn.jobs()) {
    for (int id : job.tasks) {
      const TaskInfo& t = tasks[id];
      if (!AllocatedStatus(t.status)) continue;
      allocated[job.queue].Add(t.resreq);
      // With a root queue, parents include their children (hierarchical queues).
      int q = job.queue;
      for (int guard = 0; root >= 0 && q != root && guard < 64; ++guard) {
        const std::string& parent = queues[q].parent.empty() ? "root" : queues[q].parent;
        q = ssn.snapshot().FindQueue(parent);
        if (q < 0) break;
        allocated[q].Add(t.resreq);
      }
    }
  }
  result.queues.resize(queues.size());
  for (const QueueInfo& q : queues) {
    QueueOutcome& out = result.queues[q.id];
    out.name = q.name;
    out.state = q.state;
    out.allocated = ResourcesToJson(allocated[q.id], ssn.names());
    if (out.deserved.is_null()) out.deserved = Json::object();
    for (const PodGroupOutcome& g : result.pod_groups) {
      if (g.queue != q.name) continue;
      if (g.phase == "Pending") out.pending++;
      else if (g.phase == "Inqueue") out.inqueue++;
      else if (g.phase == "Running") out.running++;
      else if (g.phase == "Unknown") out.unknown++;
      else if (g.phase == "Completed") out.completed++;
    }
    Resources before;
    ResourceNameTable names = ssn.names();
    const Json& status = q.input_status;
    bool alloc_changed = true;
    if (status.is_object() && status.contains("allocated")) {
      alloc_changed = !ResourcesFromJson(status["allocated"], "status.allocated", &names, &before).ok() ||
                      !(before == allocated[q.id]);
    }
    out.changed = alloc_changed || StatusInt(status, "pending") != out.pending ||
                  StatusInt(status, "inqueue") != out.inqueue ||
                  StatusInt(status, "running") != out.running ||
                  StatusInt(status, "unknown") != out.unknown ||
                  StatusInt(status, "completed") != out.completed;
  }
}

}  // namespace trimtab::core::scheduling
