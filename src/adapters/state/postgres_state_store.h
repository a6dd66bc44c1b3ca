// PostgresStateStore: AutoscalerStateStore in a PostgreSQL database, for the standalone
// autoscaler (`trimtab autoscale --state-store postgresql:...`; upstream's JDBC store). Same table
// and semantics as SqliteStateStore, so state moves between the two with a plain copy of rows:
//
//   CREATE TABLE IF NOT EXISTS trimtab_autoscaler_state (
//     job_key     TEXT   NOT NULL,
//     state_type  TEXT   NOT NULL,   -- core::StateTypeName: "scalingHistory", ...
//     state_value TEXT   NOT NULL,   -- JSON
//     update_time BIGINT NOT NULL,   -- Unix millis of the flush that wrote it
//     PRIMARY KEY (job_key, state_type))
//
// Write-back and undecodable rows: write_back_state_store.h. A flush is one transaction (delete
// the job's rows, insert the view). The connection is libpqxx's; a broken connection is opened
// again on the next call (the failed call returns kUnavailable, so the autoscaler skips that
// cycle and keeps the overrides it has). The password comes the way libpq takes it: in the
// connection string, PGPASSWORD, or ~/.pgpass; errors never repeat the connection string.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto store, PostgresStateStore::Create(
//       {.connection = "host=db.internal dbname=trimtab user=autoscaler"}));
//
// Thread-safety: safe for concurrent use (one connection behind the view's mutex).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "adapters/state/write_back_state_store.h"
#include "common/clock.h"

namespace trimtab::adapters {

struct PostgresStateStoreOptions {
  // libpq connection string ("host=... port=... dbname=... user=...") or URI
  // ("postgresql://user@host:5432/dbname").
  std::string connection;
  const Clock* clock = nullptr;  // for update_time; nullptr = RealClock::Default()
};

class PostgresStateStore final : public WriteBackStateStore {
 public:
  // Connects and creates the table when missing. Errors (kUnavailable) name the server as
  // host:port/dbname, never the password.
  static StatusOr<std::unique_ptr<PostgresStateStore>> Create(PostgresStateStoreOptions options);
  ~PostgresStateStore() override;

 protected:
  StatusOr<std::vector<Row>> LoadRows(const std::string& job_key) override;
  Status ReplaceRows(const std::string& job_key,
                     const std::map<core::StateType, std::string>& documents) override;
  StatusOr<std::vector<std::string>> LoadJobKeys() override;
  std::string Describe() const override { return "postgresql state store " + server_; }

 private:
  explicit PostgresStateStore(PostgresStateStoreOptions options);
  struct Connection;  // the libpqxx connection (kept out of this header)
  // The open connection, (re)connecting when there is none or it broke.
  StatusOr<Connection*> Open();
  Status Error(const std::string& what, const std::exception& e);

  PostgresStateStoreOptions options_;
  std::string server_;  // host:port/dbname once connected
  std::unique_ptr<Connection> connection_;  // used under the view's mutex
};

}  // namespace trimtab::adapters
