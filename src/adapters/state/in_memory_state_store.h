// InMemoryStateStore: AutoscalerStateStore kept in process memory (the standalone autoscaler's
// default, upstream's MEMORY store, and the store of `trimtab simulate` and tests).
//
// "Durable" here means: in the InMemoryStateBacking, which several store instances can share, so
// that a test or the simulator can "restart" the autoscaler by opening a new store over the same
// backing, with the same write-back semantics as SqliteStateStore (only flushed state survives).
//
// Thread-safety: safe for concurrent use; the backing is shared safely between stores.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/chain/state_store.h"

namespace trimtab::adapters {

// Serialized documents per job key and state type.
using StateDocuments = std::map<std::string, std::map<core::StateType, std::string>>;

struct InMemoryStateBacking {
  std::mutex mu;
  StateDocuments durable;  // guarded by mu
};

class InMemoryStateStore final : public core::AutoscalerStateStore {
 public:
  explicit InMemoryStateStore(
      std::shared_ptr<InMemoryStateBacking> backing = std::make_shared<InMemoryStateBacking>())
      : backing_(std::move(backing)) {}

  Status Put(const std::string& job_key, core::StateType type, const Json& value) override;
  Status Get(const std::string& job_key, core::StateType type, Json* out) override;
  Status Remove(const std::string& job_key, core::StateType type) override;
  Status ClearAll(const std::string& job_key) override;
  Status Flush(const std::string& job_key) override;
  StatusOr<std::vector<std::string>> ListJobKeys() override;

 private:
  // The job's view, loaded from the backing on first use. REQUIRES: mu_ held.
  std::map<core::StateType, std::string>& View(const std::string& job_key);

  std::shared_ptr<InMemoryStateBacking> backing_;
  std::mutex mu_;
  StateDocuments views_;  // guarded by mu_
};

}  // namespace trimtab::adapters
