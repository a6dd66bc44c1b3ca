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
// Write-back and undecodable rows: write_back_state_store.h (shared with PostgresStateStore).
//
// Thread-safety: safe for concurrent use (one connection behind the view's mutex).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "adapters/state/write_back_state_store.h"
#include "common/clock.h"

struct sqlite3;

namespace trimtab::adapters {

struct SqliteStateStoreOptions {
  std::string path;                 // database file; created if missing
  const Clock* clock = nullptr;     // for update_time; nullptr = RealClock::Default()
};

class SqliteStateStore final : public WriteBackStateStore {
 public:
  // Opens (creating if needed) the database and the table. Errors name the file.
  static StatusOr<std::unique_ptr<SqliteStateStore>> Create(SqliteStateStoreOptions options);
  ~SqliteStateStore() override;

 protected:
  StatusOr<std::vector<Row>> LoadRows(const std::string& job_key) override;
  Status ReplaceRows(const std::string& job_key,
                     const std::map<core::StateType, std::string>& documents) override;
  StatusOr<std::vector<std::string>> LoadJobKeys() override;
  std::string Describe() const override { return "sqlite state store " + options_.path; }

 private:
  SqliteStateStore(SqliteStateStoreOptions options, sqlite3* db)
      : options_(std::move(options)), db_(db) {}
  Status Exec(const std::string& sql);
  Status Error(const std::string& what) const;

  SqliteStateStoreOptions options_;
  sqlite3* db_;  // used under the view's mutex (write_back_state_store.h)
};

}  // namespace trimtab::adapters
