// SlotPool: the TaskManagers registered with a simulated JobManager and the slots jobs hold on
// them. Slot sharing as Flink's default: a job needs as many slots as its largest vertex
// parallelism, and subtask i of every vertex runs in the job's i-th slot. Slots are handed out
// in TaskManager registration order.
//
// Thread-safety: not thread-safe; owned by FlinkCluster and used under its lock.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"

namespace trimtab::sim::flink {

struct TaskManagerInfo {
  std::string id;        // ResourceID: the pod name in native Kubernetes mode
  std::string host;      // IP or host name (endpoint of its subtasks)
  int data_port = 6121;
  int slots = 1;
  TimePoint registered_at;
};

class SlotPool {
 public:
  // When set, Allocate() registers TaskManagers made by `factory` (index 1, 2, ...) until enough
  // slots are free: a resource manager whose TaskManagers start instantly.
  using Provisioner = std::function<TaskManagerInfo(int index, TimePoint now)>;
  void SetProvisioner(Provisioner factory) { provisioner_ = std::move(factory); }

  struct TaskManager {
    TaskManagerInfo info;
    std::vector<std::string> owners;  // per slot: job id or ""
    TimePoint idle_since;             // when its last slot was freed (or registration)
  };

  // False when a TaskManager with that id is already registered.
  bool Register(const TaskManagerInfo& info);
  // Removes the TaskManager; returns the jobs that held slots on it.
  std::vector<std::string> Unregister(const std::string& id);

  int total_slots() const;
  int free_slots() const;
  int slots_of(const std::string& job_id) const;
  // Gives `job_id` exactly `n` slots (keeping the ones it has when it already holds some);
  // false, changing nothing, when not enough are free.
  bool Allocate(const std::string& job_id, int n, TimePoint now);
  void Release(const std::string& job_id, TimePoint now);
  // The TaskManager of the job's i-th slot (nullptr when it holds fewer).
  const TaskManagerInfo* SlotTaskManager(const std::string& job_id, int slot) const;

  const std::vector<TaskManager>& task_managers() const { return tms_; }
  const TaskManager* Find(const std::string& id) const;
  // TaskManagers with no slot in use since at least `timeout`, newest first.
  std::vector<std::string> IdleSince(TimePoint now, Duration timeout) const;

 private:
  std::vector<TaskManager> tms_;
  Provisioner provisioner_;
  int provisioned_ = 0;
};

}  // namespace trimtab::sim::flink
