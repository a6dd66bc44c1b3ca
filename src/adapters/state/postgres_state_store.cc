#include "adapters/state/postgres_state_store.h"

#include <pqxx/pqxx>

namespace trimtab::adapters {
namespace {

constexpr const char kCreateTable[] =
    "CREATE TABLE IF NOT EXISTS trimtab_autoscaler_state ("
    " job_key TEXT NOT NULL, state_type TEXT NOT NULL, state_value TEXT NOT NULL,"
    " update_time BIGINT NOT NULL, PRIMARY KEY (job_key, state_type))";

// libpq's messages end in a newline and may span lines; one line reads better in a Status.
std::string OneLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

}  // namespace

struct PostgresStateStore::Connection {
  explicit Connection(const std::string& options) : c(options) {}
  pqxx::connection c;
};

PostgresStateStore::PostgresStateStore(PostgresStateStoreOptions options)
    : options_(std::move(options)) {}

PostgresStateStore::~PostgresStateStore() = default;

StatusOr<std::unique_ptr<PostgresStateStore>> PostgresStateStore::Create(
    PostgresStateStoreOptions options) {
  if (options.connection.empty()) {
    return InvalidArgumentError("postgresql state store: empty connection string");
  }
  std::unique_ptr<PostgresStateStore> store(new PostgresStateStore(std::move(options)));
  TRIMTAB_ASSIGN_OR_RETURN(Connection * c, store->Open());
  try {
    pqxx::work tx(c->c);
    tx.exec0(kCreateTable);
    tx.commit();
  } catch (const std::exception& e) {
    return store->Error("create table", e);
  }
  return store;
}

Status PostgresStateStore::Error(const std::string& what, const std::exception& e) {
  if (connection_ && !connection_->c.is_open()) connection_.reset();  // reconnect next time
  return UnavailableError(Describe() + ": " + what + ": " + OneLine(e.what()));
}

StatusOr<PostgresStateStore::Connection*> PostgresStateStore::Open() {
  if (connection_ && connection_->c.is_open()) return connection_.get();
  connection_.reset();
  try {
    auto c = std::make_unique<Connection>(options_.connection);
    const auto text = [](const char* s) { return std::string(s ? s : ""); };
    server_ = text(c->c.hostname()) + ":" + text(c->c.port()) + "/" + text(c->c.dbname());
    connection_ = std::move(c);
  } catch (const std::exception& e) {
    // libpq's message names host and port but never the password.
    return UnavailableError("postgresql state store: cannot connect: " + OneLine(e.what()));
  }
  return connection_.get();
}

StatusOr<std::vector<WriteBackStateStore::Row>> PostgresStateStore::LoadRows(
    const std::string& job_key) {
  TRIMTAB_ASSIGN_OR_RETURN(Connection * c, Open());
  try {
    pqxx::read_transaction tx(c->c);
    pqxx::result r = tx.exec_params(
        "SELECT state_type, state_value FROM trimtab_autoscaler_state WHERE job_key = $1",
        job_key);
    std::vector<Row> rows;
    for (const auto& row : r) rows.push_back({row[0].c_str(), row[1].c_str()});
    return rows;
  } catch (const std::exception& e) {
    return Error("load " + job_key, e);
  }
}

Status PostgresStateStore::ReplaceRows(const std::string& job_key,
                                       const std::map<core::StateType, std::string>& documents) {
  TRIMTAB_ASSIGN_OR_RETURN(Connection * c, Open());
  const Clock* clock = options_.clock ? options_.clock : RealClock::Default();
  const int64_t now = ToUnixMillis(clock->Now());
  try {
    pqxx::work tx(c->c);
    tx.exec_params("DELETE FROM trimtab_autoscaler_state WHERE job_key = $1", job_key);
    for (const auto& [type, value] : documents) {
      tx.exec_params(
          "INSERT INTO trimtab_autoscaler_state (job_key, state_type, state_value, update_time) "
          "VALUES ($1, $2, $3, $4)",
          job_key, std::string(core::StateTypeName(type)), value, now);
    }
    tx.commit();
  } catch (const std::exception& e) {
    return Error("flush " + job_key, e);
  }
  return Status::Ok();
}

StatusOr<std::vector<std::string>> PostgresStateStore::LoadJobKeys() {
  TRIMTAB_ASSIGN_OR_RETURN(Connection * c, Open());
  try {
    pqxx::read_transaction tx(c->c);
    pqxx::result r =
        tx.exec("SELECT job_key FROM trimtab_autoscaler_state GROUP BY job_key "
                "ORDER BY job_key COLLATE \"C\"");
    std::vector<std::string> keys;
    for (const auto& row : r) keys.push_back(row[0].c_str());
    return keys;
  } catch (const std::exception& e) {
    return Error("list job keys", e);
  }
}

}  // namespace trimtab::adapters
