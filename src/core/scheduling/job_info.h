// TaskInfo and JobInfo: a pod and its PodGroup as the session sees them (Volcano's
// pkg/scheduler/api/job_info.go). Tasks, jobs, nodes and queues live in vectors owned by the
// Snapshot and refer to each other by index, so the hot loops need no maps.
//
// Task status (B.2 of the notes), from the pod at snapshot time:
//   phase Running -> Running (Releasing when deletionTimestamp is set)
//   phase Pending -> Pending without spec.nodeName, Bound with it (Releasing when deleting)
//   Succeeded / Failed / Unknown -> the same; anything else -> Unknown.
// and during the session: Allocated (placed), Pipelined (placed on releasing resources),
// Binding (committed), Releasing (evicted).
//
// Derived job counters (all O(1) from per-status counts):
//   ready    = Bound + Binding + Running + Allocated + Succeeded
//   waiting  = Pipelined
//   valid    = Allocated-set + Succeeded + Pipelined + Pending
//   JobReady (gang) = ready + pending BestEffort >= minMember (+ per-role minimums)
//
// Thread-safety: owned by one session.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/json.h"
#include "core/scheduling/placement.h"
#include "core/scheduling/resources.h"
#include "core/scheduling/session_result.h"

namespace trimtab::core::scheduling {

enum class TaskStatus : uint8_t {
  kPending,
  kAllocated,
  kPipelined,
  kBinding,
  kBound,
  kRunning,
  kReleasing,
  kSucceeded,
  kFailed,
  kUnknown,
};
inline constexpr int kTaskStatusCount = 10;
const char* TaskStatusName(TaskStatus s);

// Volcano's AllocatedStatus: Bound, Binding, Running, Allocated.
inline bool AllocatedStatus(TaskStatus s) {
  return s == TaskStatus::kBound || s == TaskStatus::kBinding || s == TaskStatus::kRunning ||
         s == TaskStatus::kAllocated;
}
// ScheduledStatus: Running, Bound, Failed, Succeeded.
inline bool ScheduledStatus(TaskStatus s) {
  return s == TaskStatus::kRunning || s == TaskStatus::kBound || s == TaskStatus::kFailed ||
         s == TaskStatus::kSucceeded;
}
// PreemptableStatus: Bound, Running.
inline bool PreemptableStatus(TaskStatus s) {
  return s == TaskStatus::kBound || s == TaskStatus::kRunning;
}

// Why a task did not fit one node: up to a few reasons, e.g. {"Insufficient cpu"}.
struct NodeFitError {
  int node = -1;
  std::vector<std::string> reasons;
  bool unresolvable = false;  // a reason preemption cannot fix (affinity, taint, cordon)
};

// All nodes' errors for one task (Volcano's FitErrors).
struct FitErrors {
  std::vector<NodeFitError> nodes;
  std::string error;  // overrides "0/N nodes are unavailable"
  // "0/4 nodes are unavailable: 3 Insufficient cpu, 1 node(s) were unschedulable."
  std::string Message() const;
};

struct TaskInfo {
  int id = -1;
  int job = -1;  // index in Snapshot::jobs
  PodRef ref;
  std::string role;         // volcano.sh/task-spec (annotation, then label)
  int32_t priority = 0;     // spec.priority (volcano.sh/task-priority overrides)
  int64_t creation = 0;     // metadata.creationTimestamp, unix seconds
  int64_t name_index = -1;  // the number after the last '-' of the name, -1 when none
  Resources resreq;         // requests incl. init containers, overhead, pods: 1
  double nonzero_cpu = 0;     // kube-scheduler's non-zero requests (100m / 200Mi defaults)
  double nonzero_memory = 0;  // for the nodeorder scorers
  bool best_effort = false; // resreq.IsEmpty()
  bool preemptable = true;  // volcano.sh/preemptable (pod annotation, then label)
  bool sch_gated = false;   // spec.schedulingGates not empty
  bool preempt_never = false;  // spec.preemptionPolicy: Never
  bool critical = false;    // system-cluster-critical / system-node-critical / kube-system
  bool deleting = false;    // metadata.deletionTimestamp set: the pod is terminating
  std::string priority_class;  // spec.priorityClassName
  std::string nominated_node;  // status.nominatedNodeName
  const PodPlacement* placement = nullptr;  // never null after the snapshot

  // Mutable session state.
  TaskStatus status = TaskStatus::kPending;
  int node = -1;
  bool eviction_occurred = false;
  // The state before the last discarded statement (Volcano's LastTransaction), for reasons.
  bool has_last_tx = false;
  TaskStatus last_tx_status = TaskStatus::kPending;
  int last_tx_node = -1;
};

enum class PodGroupPhase : uint8_t { kPending, kInqueue, kRunning, kUnknown, kCompleted };
const char* PodGroupPhaseName(PodGroupPhase p);

struct JobInfo {
  int id = -1;
  std::string ns, name, uid;
  std::string key;  // "ns/name"
  int queue = -1;   // index in Snapshot::queues
  std::string queue_name;
  int32_t min_available = 0;                    // spec.minMember
  std::map<std::string, int32_t> task_min_available;  // spec.minTaskMember
  int32_t task_min_available_total = 0;
  int32_t priority = 0;  // from spec.priorityClassName
  int64_t creation = 0;
  bool has_min_resources = false;
  Resources min_resources;
  bool preemptable = false;       // volcano.sh/preemptable on the group (default false)
  bool preemptable_set = false;   // the annotation/label was given
  int64_t sla_waiting_seconds = -1;  // volcano.sh/sla-waiting-time on the group; -1 = none
  PodGroupPhase phase = PodGroupPhase::kPending;  // status.phase (updated in session)
  PodGroupPhase input_phase = PodGroupPhase::kPending;
  std::string input_phase_name;  // as written ("" when absent)
  std::vector<Condition> conditions;  // status.conditions (updated at close)
  Json input_status;

  std::vector<int> tasks;  // task ids, in snapshot order
  std::array<int, kTaskStatusCount> count{};
  int pending_best_effort = 0;
  Resources allocated;     // sum over tasks in an allocated status
  Resources total_request;

  // Fit errors of the tasks that failed in this session (task id -> errors).
  std::map<int, FitErrors> fit_errors;
  std::string job_fit_errors;  // job-level reason (e.g. not enqueued)
  std::vector<PodGroupEvent> events;  // recorded by plugins (RecordPodGroupEvent)

  int Count(TaskStatus s) const { return count[static_cast<int>(s)]; }
  int ReadyTaskNum() const {
    return Count(TaskStatus::kBound) + Count(TaskStatus::kBinding) + Count(TaskStatus::kRunning) +
           Count(TaskStatus::kAllocated) + Count(TaskStatus::kSucceeded);
  }
  int WaitingTaskNum() const { return Count(TaskStatus::kPipelined); }
  int AllocatedTaskNum() const {
    return Count(TaskStatus::kBound) + Count(TaskStatus::kBinding) + Count(TaskStatus::kRunning) +
           Count(TaskStatus::kAllocated);
  }
  int ValidTaskNum() const {
    return AllocatedTaskNum() + Count(TaskStatus::kSucceeded) + Count(TaskStatus::kPipelined) +
           Count(TaskStatus::kPending);
  }
  int ScheduledTaskNum() const {
    return Count(TaskStatus::kRunning) + Count(TaskStatus::kBound) + Count(TaskStatus::kFailed) +
           Count(TaskStatus::kSucceeded);
  }
  bool IsReady() const { return ReadyTaskNum() + pending_best_effort >= min_available; }
  bool IsPipelined() const {
    return WaitingTaskNum() + ReadyTaskNum() + pending_best_effort >= min_available;
  }
  bool IsStarving() const { return WaitingTaskNum() + ReadyTaskNum() < min_available; }
  bool IsPending() const { return phase == PodGroupPhase::kPending; }
  bool HasPendingTasks() const { return Count(TaskStatus::kPending) > 0; }
};

// Per-role checks (minTaskMember). Each is true when minMember < the roles' total, as Volcano.
bool CheckTaskValid(const JobInfo& job, const std::vector<TaskInfo>& tasks);
bool CheckTaskReady(const JobInfo& job, const std::vector<TaskInfo>& tasks);
bool CheckTaskPipelined(const JobInfo& job, const std::vector<TaskInfo>& tasks);
bool CheckTaskStarving(const JobInfo& job, const std::vector<TaskInfo>& tasks);
// Whether allocation should go on after a task of the job found no node (NeedContinueAllocating).
bool NeedContinueAllocating(const JobInfo& job, const std::vector<TaskInfo>& tasks);

// "pod group is not ready, 3 Pending, 5 minAvailable; Pending: 3 Unschedulable. Origin reason
// is p-0: 0/2 nodes are unavailable: 2 Insufficient cpu." (Volcano's JobInfo.FitError()).
std::string JobFitError(const JobInfo& job, const std::vector<TaskInfo>& tasks,
                        const std::vector<std::string>& node_names);
// The PodScheduled reason/message of one pending task (TaskSchedulingReason).
void TaskSchedulingReason(const JobInfo& job, const TaskInfo& task,
                          const std::vector<std::string>& node_names, std::string* reason,
                          std::string* message);

}  // namespace trimtab::core::scheduling
