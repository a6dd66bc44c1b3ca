#include "cluster/store/store.h"

#include <sqlite3.h>

#include <spdlog/spdlog.h>

namespace trimtab::cluster {
namespace {

constexpr std::string_view kCompactedPrefix = "too old resource version";

Status SqlError(sqlite3* db, std::string_view what) {
  return UnavailableError("store: " + std::string(what) + ": " + sqlite3_errmsg(db));
}

Status Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return UnavailableError("store: " + std::string(sql).substr(0, 60) + ": " + msg);
  }
  return Status::Ok();
}

// A prepared statement that finalizes itself.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return stmt_ != nullptr; }
  sqlite3_stmt* get() { return stmt_; }
  void BindText(int i, std::string_view s) {
    sqlite3_bind_text(stmt_, i, s.empty() ? "" : s.data(), static_cast<int>(s.size()),
                      SQLITE_TRANSIENT);
  }
  void BindInt(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  Status error(std::string_view what) const { return SqlError(db_, what); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

std::string ColumnText(sqlite3_stmt* s, int i) {
  const void* p = sqlite3_column_blob(s, i);
  int n = sqlite3_column_bytes(s, i);
  return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

// The smallest string greater than every string starting with `prefix` ("" = no bound).
std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto c = static_cast<unsigned char>(end.back());
    if (c < 0xff) {
      end.back() = static_cast<char>(c + 1);
      return end;
    }
    end.pop_back();
  }
  return end;
}

Status CompactedError(int64_t requested, int64_t compacted) {
  return FailedPreconditionError(std::string(kCompactedPrefix) + ": " + std::to_string(requested) +
                                 " (" + std::to_string(compacted) + ")");
}

}  // namespace

bool IsCompacted(const Status& status) {
  return status.code() == StatusCode::kFailedPrecondition &&
         status.message().rfind(kCompactedPrefix, 0) == 0;
}

Store::Store(StoreOptions options) : options_(std::move(options)) {}

namespace {
// Reports one store call to StoreOptions::observe when it returns.
class ObservedCall {
 public:
  ObservedCall(const StoreOptions& options, std::string_view operation, std::string_view key)
      : options_(options), operation_(operation), key_(key),
        start_(std::chrono::steady_clock::now()) {}
  ~ObservedCall() {
    if (options_.observe) {
      options_.observe(operation_, key_, std::chrono::steady_clock::now() - start_);
    }
  }

 private:
  const StoreOptions& options_;
  std::string_view operation_;
  std::string_view key_;
  std::chrono::steady_clock::time_point start_;
};
}  // namespace

Store::~Store() {
  {
    std::lock_guard<std::mutex> lock(compact_mu_);
    stopping_ = true;
  }
  compact_cv_.notify_all();
  if (compactor_.joinable()) compactor_.join();
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3_finalize(insert_);
  if (db_) sqlite3_close(db_);
}

StatusOr<std::unique_ptr<Store>> Store::Open(StoreOptions options) {
  std::unique_ptr<Store> store(new Store(std::move(options)));
  TRIMTAB_RETURN_IF_ERROR(store->Init());
  if (store->options_.compact_interval.count() > 0) {
    store->compactor_ = std::thread([s = store.get()] { s->CompactLoop(); });
  }
  return store;
}

Status Store::Init() {
  std::lock_guard<std::mutex> lock(mu_);
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(options_.path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    Status s = SqlError(db_, "open " + options_.path);
    sqlite3_close(db_);
    db_ = nullptr;
    return s;
  }
  sqlite3_busy_timeout(db_, 1000);
  TRIMTAB_RETURN_IF_ERROR(Exec(db_, "PRAGMA locking_mode=EXCLUSIVE"));
  TRIMTAB_RETURN_IF_ERROR(Exec(db_, "PRAGMA journal_mode=WAL"));
  TRIMTAB_RETURN_IF_ERROR(
      Exec(db_, options_.sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL"));
  Status schema = Exec(db_,
                       "CREATE TABLE IF NOT EXISTS kv ("
                       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                       " name TEXT NOT NULL,"
                       " created INTEGER NOT NULL,"
                       " deleted INTEGER NOT NULL,"
                       " create_revision INTEGER NOT NULL,"
                       " prev_revision INTEGER NOT NULL,"
                       " value BLOB NOT NULL);"
                       "CREATE INDEX IF NOT EXISTS kv_name_id ON kv(name, id);"
                       "CREATE INDEX IF NOT EXISTS kv_prev ON kv(prev_revision);"
                       "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER);");
  if (!schema.ok()) {
    if (sqlite3_errcode(db_) == SQLITE_BUSY || sqlite3_errcode(db_) == SQLITE_LOCKED) {
      return UnavailableError("store: " + options_.path + " is in use by another process");
    }
    return schema;
  }
  if (sqlite3_prepare_v2(db_,
                         "INSERT INTO kv(name, created, deleted, create_revision, prev_revision,"
                         " value) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                         -1, &insert_, nullptr) != SQLITE_OK) {
    return SqlError(db_, "prepare insert");
  }
  return LoadState();
}

// REQUIRES: mu_ held (called from Init).
Status Store::LoadState() {
  {
    Stmt seq(db_, "SELECT seq FROM sqlite_sequence WHERE name = 'kv'");
    if (!seq.ok()) return seq.error("read revision");
    if (sqlite3_step(seq.get()) == SQLITE_ROW) revision_ = sqlite3_column_int64(seq.get(), 0);
  }
  {
    Stmt meta(db_, "SELECT value FROM meta WHERE key = 'compact_revision'");
    if (!meta.ok()) return meta.error("read compact revision");
    if (sqlite3_step(meta.get()) == SQLITE_ROW) {
      compact_revision_ = sqlite3_column_int64(meta.get(), 0);
    }
  }
  Stmt rows(db_,
            "SELECT k.id, k.name, k.created, k.create_revision, k.value FROM kv k"
            " JOIN (SELECT MAX(id) AS id FROM kv GROUP BY name) m ON k.id = m.id"
            " WHERE k.deleted = 0");
  if (!rows.ok()) return rows.error("load state");
  int rc;
  while ((rc = sqlite3_step(rows.get())) == SQLITE_ROW) {
    KeyValue kv;
    kv.mod_revision = sqlite3_column_int64(rows.get(), 0);
    kv.key = ColumnText(rows.get(), 1);
    bool created = sqlite3_column_int64(rows.get(), 2) != 0;
    kv.create_revision = created ? kv.mod_revision : sqlite3_column_int64(rows.get(), 3);
    kv.value = ColumnText(rows.get(), 4);
    std::string key = kv.key;
    current_.emplace(std::move(key), std::move(kv));
  }
  if (rc != SQLITE_DONE) return rows.error("load state");
  spdlog::debug("store: opened {} at revision {} with {} keys", options_.path, revision_,
                current_.size());
  return Status::Ok();
}

int64_t Store::Revision() const {
  std::lock_guard<std::mutex> lock(mu_);
  return revision_;
}

int64_t Store::CompactRevision() const {
  std::lock_guard<std::mutex> lock(mu_);
  return compact_revision_;
}

StatusOr<KeyValue> Store::Get(std::string_view key) const {
  ObservedCall observed(options_, "get", key);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = current_.find(key);
  if (it == current_.end()) return NotFoundError("store: key " + std::string(key) + " not found");
  return it->second;
}

int64_t Store::Count(std::string_view prefix) const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t n = 0;
  for (auto it = current_.lower_bound(prefix);
       it != current_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    ++n;
  }
  return n;
}

StatusOr<ListResult> Store::List(std::string_view prefix, std::string_view start_after,
                                 int64_t limit, int64_t revision) const {
  ObservedCall observed(options_, "list", prefix);
  std::lock_guard<std::mutex> lock(mu_);
  ListResult out;
  if (revision == 0 || revision == revision_) {
    out.revision = revision_;
    auto it = start_after.empty() || start_after < prefix ? current_.lower_bound(prefix)
                                                          : current_.upper_bound(start_after);
    for (; it != current_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      if (limit > 0 && static_cast<int64_t>(out.items.size()) == limit) {
        out.more = true;
        out.remaining = 0;
        for (; it != current_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
          ++out.remaining;
        }
        break;
      }
      out.items.push_back(it->second);
    }
    if (!out.more) out.remaining = 0;
    return out;
  }
  if (revision > revision_) {
    return InvalidArgumentError("store: revision " + std::to_string(revision) +
                                " is in the future (current " + std::to_string(revision_) + ")");
  }
  if (revision < compact_revision_) return CompactedError(revision, compact_revision_);
  out.revision = revision;
  std::string lower(start_after.empty() || start_after < prefix ? prefix : start_after);
  std::string upper = PrefixEnd(prefix);
  Stmt q(db_,
         "SELECT k.id, k.name, k.created, k.create_revision, k.value FROM kv k"
         " JOIN (SELECT MAX(id) AS id FROM kv WHERE id <= ?1 AND name >= ?2 AND"
         "  (?3 = '' OR name < ?3) GROUP BY name) m ON k.id = m.id"
         " WHERE k.deleted = 0 AND k.name > ?4 ORDER BY k.name LIMIT ?5");
  if (!q.ok()) return q.error("list");
  q.BindInt(1, revision);
  q.BindText(2, prefix);
  q.BindText(3, upper);
  q.BindText(4, start_after.empty() || start_after < prefix ? std::string_view() : start_after);
  q.BindInt(5, limit > 0 ? limit + 1 : -1);
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
    if (limit > 0 && static_cast<int64_t>(out.items.size()) == limit) {
      out.more = true;
      break;
    }
    KeyValue kv;
    kv.mod_revision = sqlite3_column_int64(q.get(), 0);
    kv.key = ColumnText(q.get(), 1);
    bool created = sqlite3_column_int64(q.get(), 2) != 0;
    kv.create_revision = created ? kv.mod_revision : sqlite3_column_int64(q.get(), 3);
    kv.value = ColumnText(q.get(), 4);
    out.items.push_back(std::move(kv));
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return q.error("list");
  if (!out.more) out.remaining = 0;
  return out;
}

StatusOr<KeyValue> Store::AppendLocked(const std::string& key, const std::string& value,
                                       bool created, bool deleted, int64_t create_revision,
                                       int64_t prev_revision,
                                       std::optional<std::string> prev_value) {
  sqlite3_reset(insert_);
  sqlite3_clear_bindings(insert_);
  sqlite3_bind_text(insert_, 1, key.c_str(), static_cast<int>(key.size()), SQLITE_STATIC);
  sqlite3_bind_int64(insert_, 2, created ? 1 : 0);
  sqlite3_bind_int64(insert_, 3, deleted ? 1 : 0);
  sqlite3_bind_int64(insert_, 4, created ? 0 : create_revision);
  sqlite3_bind_int64(insert_, 5, prev_revision);
  sqlite3_bind_blob(insert_, 6, value.c_str(), static_cast<int>(value.size()), SQLITE_STATIC);
  int rc = sqlite3_step(insert_);
  sqlite3_reset(insert_);
  if (rc != SQLITE_DONE) return SqlError(db_, "write " + key);
  revision_ = sqlite3_last_insert_rowid(db_);

  auto event = std::make_shared<StoreEvent>();
  event->type = deleted ? StoreEvent::Type::kDelete : StoreEvent::Type::kPut;
  event->created = created;
  event->prev_value = std::move(prev_value);
  event->kv.key = key;
  event->kv.mod_revision = revision_;
  event->kv.create_revision = created ? revision_ : create_revision;
  event->kv.value = value;
  if (deleted) {
    current_.erase(key);
  } else {
    current_[key] = event->kv;
  }
  std::shared_ptr<const StoreEvent> shared = std::move(event);
  for (auto& [id, w] : watchers_) {
    if (key.compare(0, w.prefix.size(), w.prefix) == 0) w.callback(shared);
  }
  return shared->kv;
}

StatusOr<KeyValue> Store::Create(std::string key, std::string value) {
  ObservedCall observed(options_, "create", key);
  std::lock_guard<std::mutex> lock(mu_);
  if (current_.count(key)) return AlreadyExistsError("store: key " + key + " already exists");
  return AppendLocked(key, value, /*created=*/true, /*deleted=*/false, 0, 0, std::nullopt);
}

StatusOr<KeyValue> Store::CurrentAtRevisionLocked(const std::string& key,
                                                 int64_t expected_revision) const {
  auto it = current_.find(key);
  if (it == current_.end()) return NotFoundError("store: key " + key + " not found");
  if (expected_revision != 0 && expected_revision != it->second.mod_revision) {
    return ConflictError("store: key " + key + " is at revision " +
                         std::to_string(it->second.mod_revision) + ", not " +
                         std::to_string(expected_revision));
  }
  return it->second;
}

StatusOr<KeyValue> Store::Update(std::string key, std::string value, int64_t expected_revision) {
  ObservedCall observed(options_, "update", key);
  std::lock_guard<std::mutex> lock(mu_);
  TRIMTAB_ASSIGN_OR_RETURN(KeyValue prev, CurrentAtRevisionLocked(key, expected_revision));
  return AppendLocked(key, value, false, false, prev.create_revision, prev.mod_revision,
                      std::move(prev.value));
}

StatusOr<KeyValue> Store::Delete(std::string key, int64_t expected_revision) {
  ObservedCall observed(options_, "delete", key);
  std::lock_guard<std::mutex> lock(mu_);
  TRIMTAB_ASSIGN_OR_RETURN(KeyValue prev, CurrentAtRevisionLocked(key, expected_revision));
  std::string last = prev.value;
  return AppendLocked(key, last, false, true, prev.create_revision, prev.mod_revision,
                      std::move(prev.value));
}

StatusOr<uint64_t> Store::Watch(std::string prefix, int64_t after_revision,
                                WatchCallback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  if (after_revision < compact_revision_) return CompactedError(after_revision, compact_revision_);
  if (after_revision < revision_) {
    std::string upper = PrefixEnd(prefix);
    Stmt q(db_,
           "SELECT k.id, k.name, k.created, k.deleted, k.create_revision, k.value, p.value"
           " FROM kv k LEFT JOIN kv p ON p.id = k.prev_revision"
           " WHERE k.id > ?1 AND k.name >= ?2 AND (?3 = '' OR k.name < ?3) ORDER BY k.id");
    if (!q.ok()) return q.error("watch history");
    q.BindInt(1, after_revision);
    q.BindText(2, prefix);
    q.BindText(3, upper);
    std::vector<std::shared_ptr<const StoreEvent>> history;
    int rc;
    while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
      auto e = std::make_shared<StoreEvent>();
      e->kv.mod_revision = sqlite3_column_int64(q.get(), 0);
      e->kv.key = ColumnText(q.get(), 1);
      e->created = sqlite3_column_int64(q.get(), 2) != 0;
      e->type = sqlite3_column_int64(q.get(), 3) != 0 ? StoreEvent::Type::kDelete
                                                      : StoreEvent::Type::kPut;
      e->kv.create_revision = e->created ? e->kv.mod_revision : sqlite3_column_int64(q.get(), 4);
      e->kv.value = ColumnText(q.get(), 5);
      if (sqlite3_column_type(q.get(), 6) != SQLITE_NULL) e->prev_value = ColumnText(q.get(), 6);
      history.push_back(std::move(e));
    }
    if (rc != SQLITE_DONE) return q.error("watch history");
    for (auto& e : history) callback(e);
  }
  uint64_t id = next_watch_id_++;
  watchers_.emplace(id, Watcher{std::move(prefix), std::move(callback)});
  return id;
}

void Store::Unwatch(uint64_t id) {
  WatchCallback doomed;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = watchers_.find(id);
  if (it == watchers_.end()) return;
  doomed = std::move(it->second.callback);
  watchers_.erase(it);
}

Status Store::Compact(int64_t revision) {
  std::lock_guard<std::mutex> lock(mu_);
  return CompactLocked(revision);
}

Status Store::CompactLocked(int64_t revision) {
  revision = std::min(revision, revision_);
  if (revision <= compact_revision_) return Status::Ok();
  TRIMTAB_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE"));
  Stmt del(db_,
           "DELETE FROM kv WHERE id IN (SELECT prev_revision FROM kv WHERE id <= ?1 AND"
           " prev_revision > 0) OR (deleted = 1 AND id <= ?1)");
  Stmt meta(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES('compact_revision', ?1)");
  bool ok = del.ok() && meta.ok();
  if (ok) {
    del.BindInt(1, revision);
    meta.BindInt(1, revision);
    ok = sqlite3_step(del.get()) == SQLITE_DONE && sqlite3_step(meta.get()) == SQLITE_DONE;
  }
  if (!ok) {
    Status s = SqlError(db_, "compact");
    Exec(db_, "ROLLBACK").IgnoreError();
    return s;
  }
  TRIMTAB_RETURN_IF_ERROR(Exec(db_, "COMMIT"));
  compact_revision_ = revision;
  sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  return Status::Ok();
}

int64_t Store::LogRowsForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt q(db_, "SELECT COUNT(*) FROM kv");
  if (!q.ok() || sqlite3_step(q.get()) != SQLITE_ROW) return -1;
  return sqlite3_column_int64(q.get(), 0);
}

void Store::CompactLoop() {
  int64_t previous_pass = Revision();
  std::unique_lock<std::mutex> lock(compact_mu_);
  while (!compact_cv_.wait_for(lock, options_.compact_interval, [&] { return stopping_; })) {
    lock.unlock();
    int64_t now = Revision();
    int64_t target = std::min(previous_pass, now - options_.compact_min_retain);
    if (target > 0) {
      Status s = Compact(target);
      if (!s.ok()) spdlog::warn("store: background compaction failed: {}", s.ToString());
    }
    previous_pass = now;
    lock.lock();
  }
}

}  // namespace trimtab::cluster
