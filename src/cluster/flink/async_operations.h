// AsyncOperations: Flink's cache of asynchronous REST operations (savepoint, stop-with-savepoint,
// checkpoint trigger, savepoint disposal), notes flink-rest-and-sim.md §1.2:
//
//   1. a trigger registers (kind, job, trigger id) unless that key exists (a retried request
//      with the same client triggerId is acknowledged again without a second operation);
//   2. polling returns {"status":{"id":"IN_PROGRESS"},"operation":null} until completion, then
//      {"status":{"id":"COMPLETED"},"operation":{...}};
//   3. completed results are kept for rest.async.store-duration (5 min), then forgotten (404).
//
// Savepoint and stop-with-savepoint share one kind: both are polled on the savepoints URL.
//
// Thread-safety: not thread-safe; owned by FlinkCluster and used under its lock.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "common/clock.h"
#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab::sim::flink {

class AsyncOperations {
 public:
  enum class Kind { kSavepoint, kCheckpoint, kDisposal };

  // False when the key is already registered (idempotent retry).
  bool Register(Kind kind, const std::string& job_id, const std::string& trigger_id, TimePoint now);
  bool Contains(Kind kind, const std::string& job_id, const std::string& trigger_id) const;
  // Completes an in-progress operation with its `operation` body; ignored when unknown or done.
  void Complete(Kind kind, const std::string& job_id, const std::string& trigger_id, Json operation, TimePoint now);
  // The AsynchronousOperationResult body, or nullopt when unknown or expired.
  std::optional<Json> Result(Kind kind, const std::string& job_id, const std::string& trigger_id) const;
  // Forgets completed operations older than `retention`.
  void Expire(TimePoint now, Duration retention);

 private:
  struct Operation {
    bool done = false;
    Json operation;
    TimePoint completed_at;
  };
  std::map<std::tuple<Kind, std::string, std::string>, Operation> ops_;
};

// A failure-cause object as Flink's SerializedThrowable serializer writes it:
// {"class": ..., "stack-trace": ..., "serialized-throwable": "<base64>"}.
Json FailureCause(const std::string& exception_class, const std::string& message);

}  // namespace trimtab::sim::flink
