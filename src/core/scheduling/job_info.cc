#include "core/scheduling/job_info.h"

#include <algorithm>
#include <map>
#include <set>

namespace trimtab::core::scheduling {

const char* TaskStatusName(TaskStatus s) {
  switch (s) {
    case TaskStatus::kPending: return "Pending";
    case TaskStatus::kAllocated: return "Allocated";
    case TaskStatus::kPipelined: return "Pipelined";
    case TaskStatus::kBinding: return "Binding";
    case TaskStatus::kBound: return "Bound";
    case TaskStatus::kRunning: return "Running";
    case TaskStatus::kReleasing: return "Releasing";
    case TaskStatus::kSucceeded: return "Succeeded";
    case TaskStatus::kFailed: return "Failed";
    case TaskStatus::kUnknown: return "Unknown";
  }
  return "Unknown";
}

const char* PodGroupPhaseName(PodGroupPhase p) {
  switch (p) {
    case PodGroupPhase::kPending: return "Pending";
    case PodGroupPhase::kInqueue: return "Inqueue";
    case PodGroupPhase::kRunning: return "Running";
    case PodGroupPhase::kUnknown: return "Unknown";
    case PodGroupPhase::kCompleted: return "Completed";
  }
  return "Pending";
}

namespace {

// "3 Insufficient cpu, 1 node(s) were unschedulable" (Go's sorted "%v %v" histogram).
std::string Histogram(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, n] : counts) parts.push_back(std::to_string(n) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out;
}

// Counts per role of the tasks whose status `pick` selects; pending BestEffort tasks count
// when `best_effort_pending` (getJobAllocatedRoles / CheckTaskPipelined).
std::map<std::string, int> RoleCounts(const JobInfo& job, const std::vector<TaskInfo>& tasks,
                                      bool (*pick)(TaskStatus), bool best_effort_pending) {
  std::map<std::string, int> counts;
  for (int id : job.tasks) {
    const TaskInfo& t = tasks[id];
    if (pick(t.status) ||
        (best_effort_pending && t.status == TaskStatus::kPending && t.best_effort)) {
      counts[t.role]++;
    }
  }
  return counts;
}

bool RolesAtLeast(const JobInfo& job, const std::map<std::string, int>& counts) {
  for (const auto& [role, min] : job.task_min_available) {
    auto it = counts.find(role);
    if ((it == counts.end() ? 0 : it->second) < min) return false;
  }
  return true;
}

bool ValidStatus(TaskStatus s) {
  return AllocatedStatus(s) || s == TaskStatus::kSucceeded || s == TaskStatus::kPipelined ||
         s == TaskStatus::kPending;
}
bool ReadyStatus(TaskStatus s) { return AllocatedStatus(s) || s == TaskStatus::kSucceeded; }
bool PipelinedStatus(TaskStatus s) {
  return AllocatedStatus(s) || s == TaskStatus::kSucceeded || s == TaskStatus::kPipelined;
}

}  // namespace

std::string FitErrors::Message() const {
  std::string err = error.empty() ? "0/" + std::to_string(nodes.size()) + " nodes are unavailable"
                                  : error;
  if (nodes.empty()) return err;
  std::map<std::string, int> counts;
  for (const NodeFitError& n : nodes) {
    for (const std::string& r : n.reasons) counts[r]++;
  }
  return err + ": " + Histogram(counts) + ".";
}

bool CheckTaskValid(const JobInfo& job, const std::vector<TaskInfo>& tasks) {
  if (job.task_min_available.empty() || job.min_available < job.task_min_available_total) {
    return true;
  }
  std::map<std::string, int> counts = RoleCounts(job, tasks, ValidStatus, false);
  for (const auto& [role, min] : job.task_min_available) {
    if (min == 0) continue;
    auto it = counts.find(role);
    if (it == counts.end() || it->second < min) return false;
  }
  return true;
}

bool CheckTaskReady(const JobInfo& job, const std::vector<TaskInfo>& tasks) {
  if (job.task_min_available.empty() || job.min_available < job.task_min_available_total) {
    return true;
  }
  return RolesAtLeast(job, RoleCounts(job, tasks, ReadyStatus, true));
}

bool CheckTaskPipelined(const JobInfo& job, const std::vector<TaskInfo>& tasks) {
  if (job.task_min_available.empty() || job.min_available < job.task_min_available_total) {
    return true;
  }
  return RolesAtLeast(job, RoleCounts(job, tasks, PipelinedStatus, true));
}

bool CheckTaskStarving(const JobInfo& job, const std::vector<TaskInfo>& tasks) {
  if (job.min_available < job.task_min_available_total) return true;
  if (job.task_min_available.empty()) return false;
  return !RolesAtLeast(job, RoleCounts(job, tasks, PipelinedStatus, false));
}

bool NeedContinueAllocating(const JobInfo& job, const std::vector<TaskInfo>& tasks) {
  // A gang that needs every pod stops at the first pod that fits nowhere.
  if (job.min_available == static_cast<int32_t>(job.tasks.size())) return false;
  std::set<std::string> failed_roles;
  for (const auto& [task, errors] : job.fit_errors) failed_roles.insert(tasks[task].role);
  std::map<std::string, int> pending;
  for (int id : job.tasks) {
    if (tasks[id].status == TaskStatus::kPending) pending[tasks[id].role]++;
  }
  if (job.min_available < job.task_min_available_total) {
    int left = 0;
    for (const auto& [role, n] : pending) {
      if (!failed_roles.count(role)) left += n;
    }
    return job.ReadyTaskNum() + left >= job.min_available;
  }
  std::map<std::string, int> allocated = RoleCounts(job, tasks, ReadyStatus, true);
  for (const std::string& role : failed_roles) {
    auto min = job.task_min_available.find(role);
    if (min == job.task_min_available.end() || min->second == 0) continue;
    if (allocated[role] < min->second) return false;
  }
  return true;
}

void TaskSchedulingReason(const JobInfo& job, const TaskInfo& task,
                          const std::vector<std::string>& node_names, std::string* reason,
                          std::string* message) {
  TaskStatus status = task.has_last_tx ? task.last_tx_status : task.status;
  int node = task.has_last_tx ? task.last_tx_node : task.node;
  const std::string pod = task.ref.ns + "/" + task.ref.name;
  const std::string node_name = node >= 0 ? node_names[node] : "";
  *message = job.job_fit_errors;
  switch (status) {
    case TaskStatus::kAllocated:
      *reason = "Schedulable";
      *message = "Pod " + pod + " can possibly be assigned to " + node_name +
                 ", once minAvailable is satisfied";
      return;
    case TaskStatus::kPipelined:
      *reason = "Unschedulable";
      *message = "Pod " + pod + " can possibly be assigned to " + node_name +
                 ", once resource is released and minAvailable is satisfied";
      return;
    case TaskStatus::kPending: {
      *reason = "Unschedulable";
      auto it = job.fit_errors.find(task.id);
      if (it != job.fit_errors.end()) *message = it->second.Message();
      return;
    }
    default:
      *reason = TaskStatusName(status);
      return;
  }
}

std::string JobFitError(const JobInfo& job, const std::vector<TaskInfo>& tasks,
                        const std::vector<std::string>& node_names) {
  std::map<std::string, int> counts;
  for (int s = 0; s < kTaskStatusCount; ++s) {
    if (job.count[s] > 0) counts[TaskStatusName(static_cast<TaskStatus>(s))] += job.count[s];
  }
  counts["minAvailable"] = job.min_available;
  std::string msg = std::string(job.IsReady() ? "pod group is ready" : "pod group is not ready") +
                    ", " + Histogram(counts);
  std::map<std::string, int> pending;
  for (int id : job.tasks) {
    if (tasks[id].status != TaskStatus::kPending) continue;
    std::string reason, message;
    TaskSchedulingReason(job, tasks[id], node_names, &reason, &message);
    pending[reason]++;
  }
  if (!pending.empty()) msg += "; Pending: " + Histogram(pending);
  if (!job.job_fit_errors.empty()) {
    msg += ". Origin reason is: " + job.job_fit_errors;
  } else {
    // Volcano takes the first task of a map walk; here the first task by namespace/name.
    for (int id : job.tasks) {
      auto it = job.fit_errors.find(id);
      if (it == job.fit_errors.end()) continue;
      msg += ". Origin reason is " + tasks[id].ref.name + ": " + it->second.Message();
      break;
    }
  }
  return msg;
}

}  // namespace trimtab::core::scheduling
