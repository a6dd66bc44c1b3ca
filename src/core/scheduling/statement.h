// Statement: a transaction of session operations (Volcano's framework/statement.go). Each
// operation changes the session at once (task status, node accounting, plugins' event
// handlers); Discard undoes them in reverse order, Commit makes them decisions:
//   Allocate  task Pending -> Allocated on a node; Commit: a bind (task -> Binding)
//   Pipeline  task Pending -> Pipelined on a node whose resources are being released;
//             Commit: nothing to carry out (listed in SessionResult::pipelined)
//   Evict     task Running/Bound -> Releasing; Commit: an eviction; Discard: back to Running
//
// Thread-safety: one session thread.
#pragma once

#include <string>
#include <vector>

#include "core/scheduling/framework.h"

namespace trimtab::core::scheduling {

class Statement {
 public:
  explicit Statement(Session& ssn) : ssn_(ssn) {}

  void Allocate(TaskInfo& task, int node);
  void Pipeline(TaskInfo& task, int node, bool eviction_occurred);
  // `action` and `preemptor_job` describe the eviction in the result.
  void Evict(TaskInfo& task, std::string action, std::string preemptor_job, std::string message);
  // Undoes one Pipeline right away (backfill re-places pipelined BestEffort tasks).
  void UnPipeline(TaskInfo& task);

  // Moves `other`'s operations (already applied to the session) to the end of this one.
  void Merge(Statement& other);

  void Commit();
  void Discard();
  bool Empty() const { return ops_.empty(); }
  bool HasEvictions() const;
  // The tasks operated on, in order (for logs).
  std::vector<int> Tasks() const;

 private:
  enum class Op { kEvict, kPipeline, kAllocate };
  struct Operation {
    Op op;
    int task;
    std::string action, preemptor, message;
  };
  void UnAllocate(TaskInfo& task);
  void UnEvict(TaskInfo& task);

  Session& ssn_;
  std::vector<Operation> ops_;
};

}  // namespace trimtab::core::scheduling
