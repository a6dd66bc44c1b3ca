#include "adapters/state/sqlite_state_store.h"

#include <sqlite3.h>


namespace trimtab::adapters {
namespace {

// Finalizes a statement when it goes out of scope.
class Statement {
 public:
  Statement() = default;
  ~Statement() {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt** out() { return &stmt_; }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

std::string Column(sqlite3_stmt* stmt, int i) {
  const unsigned char* text = sqlite3_column_text(stmt, i);
  return text ? reinterpret_cast<const char*>(text) : std::string();
}

}  // namespace

StatusOr<std::unique_ptr<SqliteStateStore>> SqliteStateStore::Create(
    SqliteStateStoreOptions options) {
  if (options.path.empty()) return InvalidArgumentError("sqlite state store: empty path");
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(options.path.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    if (db) sqlite3_close(db);
    return UnavailableError("sqlite state store " + options.path + ": cannot open: " + message);
  }
  std::unique_ptr<SqliteStateStore> store(new SqliteStateStore(std::move(options), db));
  sqlite3_busy_timeout(db, 5000);
  TRIMTAB_RETURN_IF_ERROR(store->Exec(
      "CREATE TABLE IF NOT EXISTS trimtab_autoscaler_state ("
      " job_key TEXT NOT NULL, state_type TEXT NOT NULL, state_value TEXT NOT NULL,"
      " update_time INTEGER NOT NULL, PRIMARY KEY (job_key, state_type))"));
  return store;
}

SqliteStateStore::~SqliteStateStore() {
  if (db_ != nullptr) sqlite3_close(db_);
}

Status SqliteStateStore::Error(const std::string& what) const {
  return UnavailableError("sqlite state store " + options_.path + ": " + what + ": " +
                          sqlite3_errmsg(db_));
}

Status SqliteStateStore::Exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    return UnavailableError("sqlite state store " + options_.path + ": " + text);
  }
  return Status::Ok();
}

StatusOr<std::vector<WriteBackStateStore::Row>> SqliteStateStore::LoadRows(
    const std::string& job_key) {
  Statement stmt;
  if (sqlite3_prepare_v2(db_,
                         "SELECT state_type, state_value FROM trimtab_autoscaler_state "
                         "WHERE job_key = ?1",
                         -1, stmt.out(), nullptr) != SQLITE_OK) {
    return Error("load " + job_key);
  }
  sqlite3_bind_text(stmt.get(), 1, job_key.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<Row> rows;
  int rc;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    rows.push_back({Column(stmt.get(), 0), Column(stmt.get(), 1)});
  }
  if (rc != SQLITE_DONE) return Error("load " + job_key);
  return rows;
}

Status SqliteStateStore::ReplaceRows(const std::string& job_key,
                                     const std::map<core::StateType, std::string>& documents) {
  const Clock* clock = options_.clock ? options_.clock : RealClock::Default();
  const int64_t now = ToUnixMillis(clock->Now());
  TRIMTAB_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  auto fail = [&](const std::string& what) {
    Status error = Error(what);
    Exec("ROLLBACK").IgnoreError();
    return error;
  };
  {
    Statement del;
    if (sqlite3_prepare_v2(db_, "DELETE FROM trimtab_autoscaler_state WHERE job_key = ?1", -1,
                           del.out(), nullptr) != SQLITE_OK) {
      return fail("flush " + job_key);
    }
    sqlite3_bind_text(del.get(), 1, job_key.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(del.get()) != SQLITE_DONE) return fail("flush " + job_key);
  }
  Statement ins;
  if (sqlite3_prepare_v2(db_,
                         "INSERT INTO trimtab_autoscaler_state "
                         "(job_key, state_type, state_value, update_time) VALUES (?1, ?2, ?3, ?4)",
                         -1, ins.out(), nullptr) != SQLITE_OK) {
    return fail("flush " + job_key);
  }
  for (const auto& [type, value] : documents) {
    sqlite3_reset(ins.get());
    std::string type_name(core::StateTypeName(type));
    sqlite3_bind_text(ins.get(), 1, job_key.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins.get(), 2, type_name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins.get(), 3, value.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(ins.get(), 4, now);
    if (sqlite3_step(ins.get()) != SQLITE_DONE) return fail("flush " + job_key);
  }
  return Exec("COMMIT");
}

StatusOr<std::vector<std::string>> SqliteStateStore::LoadJobKeys() {
  Statement stmt;
  if (sqlite3_prepare_v2(db_,
                         "SELECT DISTINCT job_key FROM trimtab_autoscaler_state ORDER BY job_key",
                         -1, stmt.out(), nullptr) != SQLITE_OK) {
    return Error("list job keys");
  }
  std::vector<std::string> keys;
  int rc;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) keys.push_back(Column(stmt.get(), 0));
  if (rc != SQLITE_DONE) return Error("list job keys");
  return keys;
}

}  // namespace trimtab::adapters
