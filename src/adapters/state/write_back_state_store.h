// WriteBackStateStore: the write-back view every database-backed AutoscalerStateStore shares
// (core/chain/state_store.h): a job's rows are read into a view on first use, Put / Get / Remove /
// ClearAll work on that view, and Flush hands the whole view of a changed job to the database in
// one transaction. A database store implements only the three calls below; SqliteStateStore and
// PostgresStateStore are the two.
//
// Rows whose state type is unknown or whose value is not valid JSON are discarded when loaded
// (warning logged naming `describe()`), and the job is marked changed so the next flush rewrites
// it without them, as upstream discards undecodable state.
//
// Thread-safety: safe for concurrent use; the database calls run under the store's one mutex, so
// an implementation needs no locking of its own.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/chain/state_store.h"

namespace trimtab::adapters {

class WriteBackStateStore : public core::AutoscalerStateStore {
 public:
  // One stored row: the state type's persisted name and the JSON text.
  struct Row {
    std::string state_type;
    std::string state_value;
  };

  Status Put(const std::string& job_key, core::StateType type, const Json& value) final;
  Status Get(const std::string& job_key, core::StateType type, Json* out) final;
  Status Remove(const std::string& job_key, core::StateType type) final;
  Status ClearAll(const std::string& job_key) final;
  Status Flush(const std::string& job_key) final;
  StatusOr<std::vector<std::string>> ListJobKeys() final;

 protected:
  // The database side, each called with the store's mutex held.
  // Every row of the job (empty when it has none).
  virtual StatusOr<std::vector<Row>> LoadRows(const std::string& job_key) = 0;
  // Replaces all rows of the job by `documents` (none: the job is gone) in one transaction.
  virtual Status ReplaceRows(const std::string& job_key,
                             const std::map<core::StateType, std::string>& documents) = 0;
  // Job keys with at least one row, sorted.
  virtual StatusOr<std::vector<std::string>> LoadJobKeys() = 0;
  // "sqlite state store <file>", for log lines.
  virtual std::string Describe() const = 0;

 private:
  struct View {
    std::map<core::StateType, std::string> documents;
    bool dirty = false;
  };
  // The job's view, loaded on first use. REQUIRES: mu_ held.
  StatusOr<View*> ViewOf(const std::string& job_key);

  std::mutex mu_;
  std::map<std::string, View> views_;  // guarded by mu_
};

}  // namespace trimtab::adapters
