// SqliteStateStore: AutoscalerStateStore in a SQLite file, for the standalone autoscaler
// (upstream's JDBC store, one table, plain JSON values):
//
//   CREATE TABLE trimtab_autoscaler_state (
//     job_key     TEXT    NOT NULL,
//     state_type  TEXT    NOT NULL,   -- core::StateTypeName: "scalingHistory", ...
//     state_value TEXT    NOT NULL,   -- JSON
//     update_time INTEGER NOT NULL,   -- Unix millis of the flush that wrote it
//     PRIMARY KEY (job_key, state_type))
//
// Write-back: a job's rows are read into a view on first use; Put/Remove/ClearAll change the
// view; Flush writes the job's changed view in one transaction. Rows whose value is not valid
// JSON or whose state type is unknown are discarded (warning logged; removed at the next flush of
// that job), as upstream discards undecodable state.
//
// Thread-safety: safe for concurrent use (one connection behind a mutex).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "common/clock.h"
#include "core/chain/state_store.h"

struct sqlite3;

namespace trimtab::adapters {

struct SqliteStateStoreOptions {
  std::string path;                 // database file; created if missing
  const Clock* clock = nullptr;     // for update_time; nullptr = RealClock::Default()
};

class SqliteStateStore final : public core::AutoscalerStateStore {
 public:
  // Opens (creating if needed) the database and the table. Errors name the file.
  static StatusOr<std::unique_ptr<SqliteStateStore>> Create(SqliteStateStoreOptions options);
  ~SqliteStateStore() override;

  Status Put(const std::string& job_key, core::StateType type, const Json& value) override;
  Status Get(const std::string& job_key, core::StateType type, Json* out) override;
  Status Remove(const std::string& job_key, core::StateType type) override;
  Status ClearAll(const std::string& job_key) override;
  Status Flush(const std::string& job_key) override;
  StatusOr<std::vector<std::string>> ListJobKeys() override;

 private:
  struct View {
    std::map<core::StateType, std::string> documents;
    bool dirty = false;
  };

  SqliteStateStore(SqliteStateStoreOptions options, sqlite3* db)
      : options_(std::move(options)), db_(db) {}
  // The job's view, loaded on first use. REQUIRES: mu_ held.
  StatusOr<View*> ViewOf(const std::string& job_key);
  Status Exec(const std::string& sql);  // REQUIRES: mu_ held
  Status Error(const std::string& what) const;

  SqliteStateStoreOptions options_;
  std::mutex mu_;
  sqlite3* db_;                              // guarded by mu_
  std::map<std::string, View> views_;        // guarded by mu_
};

}  // namespace trimtab::adapters
