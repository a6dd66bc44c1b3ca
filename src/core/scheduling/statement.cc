#include "core/scheduling/statement.h"

namespace trimtab::core::scheduling {

void Statement::Allocate(TaskInfo& task, int node) {
  ssn_.UpdateTaskStatus(task, TaskStatus::kAllocated);
  ssn_.AddTaskToNode(task, node);
  ssn_.FireAllocate(task);
  ops_.push_back({Op::kAllocate, task.id, {}, {}, {}});
}

void Statement::Pipeline(TaskInfo& task, int node, bool eviction_occurred) {
  ssn_.UpdateTaskStatus(task, TaskStatus::kPipelined);
  task.eviction_occurred = eviction_occurred;
  ssn_.AddTaskToNode(task, node);
  ssn_.FireAllocate(task);
  ops_.push_back({Op::kPipeline, task.id, {}, {}, {}});
}

void Statement::Evict(TaskInfo& task, std::string action, std::string preemptor_job,
                      std::string message) {
  // The node keeps the task, now as releasing (node.UpdateTask = remove + add).
  const int node = task.node;
  ssn_.RemoveTaskFromNode(task);
  ssn_.UpdateTaskStatus(task, TaskStatus::kReleasing);
  if (node >= 0) ssn_.AddTaskToNode(task, node);
  ssn_.FireDeallocate(task);
  ops_.push_back({Op::kEvict, task.id, std::move(action), std::move(preemptor_job),
                  std::move(message)});
}

void Statement::UnPipeline(TaskInfo& task) {
  ssn_.RemoveTaskFromNode(task);
  ssn_.UpdateTaskStatus(task, TaskStatus::kPending);
  ssn_.FireDeallocate(task);
  task.node = -1;
}

void Statement::UnAllocate(TaskInfo& task) {
  ssn_.RemoveTaskFromNode(task);
  ssn_.UpdateTaskStatus(task, TaskStatus::kPending);
  ssn_.FireDeallocate(task);
  task.node = -1;
}

void Statement::UnEvict(TaskInfo& task) {
  // Volcano puts an un-evicted task back as Running whatever it was before.
  const int node = task.node;
  ssn_.RemoveTaskFromNode(task);
  ssn_.UpdateTaskStatus(task, TaskStatus::kRunning);
  if (node >= 0) ssn_.AddTaskToNode(task, node);
  ssn_.FireAllocate(task);
}

void Statement::Discard() {
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    TaskInfo& task = ssn_.tasks()[it->task];
    // Remember the tentative placement for the pod's reason (GenerateLastTxContext).
    task.has_last_tx = true;
    task.last_tx_status = task.status;
    task.last_tx_node = task.node;
    switch (it->op) {
      case Op::kEvict:
        UnEvict(task);
        break;
      case Op::kPipeline:
        UnPipeline(task);
        break;
      case Op::kAllocate:
        UnAllocate(task);
        break;
    }
  }
  ops_.clear();
}

void Statement::Commit() {
  SessionResult& result = ssn_.result();
  for (const Operation& op : ops_) {
    TaskInfo& task = ssn_.tasks()[op.task];
    task.has_last_tx = false;
    switch (op.op) {
      case Op::kEvict:
        result.evictions.push_back({task.ref, ssn_.node_names()[task.node], op.action,
                                    op.preemptor, op.message});
        break;
      case Op::kPipeline:
        break;
      case Op::kAllocate:
        ssn_.UpdateTaskStatus(task, TaskStatus::kBinding);
        result.binds.push_back({task.ref, ssn_.node_names()[task.node]});
        break;
    }
  }
  ops_.clear();
}

void Statement::Merge(Statement& other) {
  for (Operation& op : other.ops_) ops_.push_back(std::move(op));
  other.ops_.clear();
}

bool Statement::HasEvictions() const {
  for (const Operation& op : ops_) {
    if (op.op == Op::kEvict) return true;
  }
  return false;
}

std::vector<int> Statement::Tasks() const {
  std::vector<int> out;
  for (const Operation& op : ops_) out.push_back(op.task);
  return out;
}

}  // namespace trimtab::core::scheduling
