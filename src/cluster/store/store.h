// Store: the revisioned key-value store under the local API server, kept in one SQLite table in
// the spirit of kine: every write appends a row, and the row id is the global revision that the
// API server reports as resourceVersion.
//
//   kv(id INTEGER PRIMARY KEY AUTOINCREMENT  -- revision
//      name TEXT                             -- key, e.g. /registry/apps/deployments/default/web
//      created INTEGER, deleted INTEGER      -- this row created / deleted (tombstone) the key
//      create_revision INTEGER               -- revision that created the key (0 on the create row)
//      prev_revision INTEGER                 -- the row this one supersedes (0 on creates)
//      value BLOB)                           -- object bytes; a tombstone repeats the last value
//
// The current state of every key is also held in memory (loaded at Open), so Get and List at the
// current revision never touch SQLite; List at an older revision (continue tokens) reads the log.
// Watches replay the log after a revision and then receive live events in commit order with no
// gap and no duplicate. Compaction deletes superseded rows and tombstones up to a revision;
// reading or watching from before the compacted revision fails (see IsCompacted) and the API
// server answers 410 Gone.
//
// Durability: WAL journal, synchronous=NORMAL by default: a commit survives a crash of the
// process (the WAL is written before a call returns) but the last commits may be lost on power
// failure; `sync_full` switches to synchronous=FULL (fsync per commit). The database is opened
// in exclusive locking mode, so a second process cannot open the same file.
//
// Threading: every method is safe for concurrent use. Watch callbacks run on the writing thread
// while the store lock is held, in revision order: they must be quick, must not block and must
// not call back into the store.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace trimtab::cluster {

struct KeyValue {
  std::string key;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;  // for a deletion: the revision of the delete
  std::string value;
};

struct StoreEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  KeyValue kv;           // kDelete: the last value of the key, with the delete revision
  bool created = false;  // kPut that created the key
  // The value before this event, when still known (absent after compaction of that row).
  std::optional<std::string> prev_value;
};

using WatchCallback = std::function<void(std::shared_ptr<const StoreEvent>)>;

struct StoreOptions {
  // SQLite database file. ":memory:" gives a store without durability (tests).
  std::string path = ":memory:";
  // synchronous=FULL (fsync on every commit) instead of NORMAL.
  bool sync_full = false;
  // Background compaction period; each pass compacts up to the revision of the previous pass,
  // keeping at least compact_min_retain revisions. Zero disables the background pass.
  std::chrono::milliseconds compact_interval{std::chrono::minutes(5)};
  int64_t compact_min_retain = 1000;
  // Instrumentation: called after every Get, List, Create, Update and Delete with the operation
  // ("get", "list", "create", "update", "delete"), the key (List: the prefix) and the time the
  // call took, lock wait included. Null = none; must be quick and must not call the store.
  std::function<void(std::string_view operation, std::string_view key,
                     std::chrono::duration<double> took)>
      observe;
};

struct ListResult {
  std::vector<KeyValue> items;
  int64_t revision = 0;     // the revision the list reflects
  bool more = false;        // more keys follow the last item
  int64_t remaining = -1;   // how many, when known (-1 otherwise)
};

class Store {
 public:
  static StatusOr<std::unique_ptr<Store>> Open(StoreOptions options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // The revision of the last write (0 for an empty store).
  int64_t Revision() const;
  // Revisions at or before this one may have been compacted away.
  int64_t CompactRevision() const;

  // NotFound when absent.
  StatusOr<KeyValue> Get(std::string_view key) const;
  // Keys with `prefix`, in key order, strictly after `start_after` (""= from the start), at most
  // `limit` (0 = all). `revision` 0 reads the current state; otherwise the state as of that
  // revision (compacted -> IsCompacted error; in the future -> InvalidArgument).
  StatusOr<ListResult> List(std::string_view prefix, std::string_view start_after, int64_t limit,
                            int64_t revision) const;
  // How many live keys have `prefix`.
  int64_t Count(std::string_view prefix) const;

  // AlreadyExists when the key exists.
  StatusOr<KeyValue> Create(std::string key, std::string value);
  // NotFound when absent; Conflict when expected_revision != 0 and differs from the key's
  // mod_revision.
  StatusOr<KeyValue> Update(std::string key, std::string value, int64_t expected_revision);
  // Returns the last value with the delete revision. Same errors as Update.
  StatusOr<KeyValue> Delete(std::string key, int64_t expected_revision);

  // Calls `callback` for every event on keys with `prefix` after `after_revision`: first the
  // logged ones (synchronously, before Watch returns), then live ones. Returns the watch id for
  // Unwatch. IsCompacted error when after_revision < CompactRevision().
  StatusOr<uint64_t> Watch(std::string prefix, int64_t after_revision, WatchCallback callback);
  // After it returns the callback is not running and will not run again.
  void Unwatch(uint64_t id);

  // Deletes superseded rows and tombstones at or before `revision` (clamped to Revision()).
  Status Compact(int64_t revision);
  // Rows in the log (tests and benchmarks).
  int64_t LogRowsForTest() const;

 private:
  explicit Store(StoreOptions options);
  Status Init();
  Status LoadState();
  // REQUIRES: mu_ held. Appends a row and updates memory and watchers.
  // The current value of `key`: NotFound when absent, Conflict when `expected_revision` is
  // non-zero and not the key's mod revision. REQUIRES: mu_ held.
  StatusOr<KeyValue> CurrentAtRevisionLocked(const std::string& key,
                                             int64_t expected_revision) const;
  StatusOr<KeyValue> AppendLocked(const std::string& key, const std::string& value, bool created,
                                  bool deleted, int64_t create_revision, int64_t prev_revision,
                                  std::optional<std::string> prev_value);
  Status CompactLocked(int64_t revision);
  void CompactLoop();

  const StoreOptions options_;
  mutable std::mutex mu_;
  sqlite3* db_ = nullptr;                     // guarded by mu_
  sqlite3_stmt* insert_ = nullptr;            // guarded by mu_
  std::map<std::string, KeyValue, std::less<>> current_;  // guarded by mu_
  int64_t revision_ = 0;                      // guarded by mu_
  int64_t compact_revision_ = 0;              // guarded by mu_
  struct Watcher {
    std::string prefix;
    WatchCallback callback;
  };
  std::map<uint64_t, Watcher> watchers_;  // guarded by mu_
  uint64_t next_watch_id_ = 1;            // guarded by mu_

  std::mutex compact_mu_;
  std::condition_variable compact_cv_;
  bool stopping_ = false;  // guarded by compact_mu_
  std::thread compactor_;
};

// True when `status` says the requested revision has been compacted ("too old resource
// version: R (C)"); the API server turns it into 410 Gone / Expired.
bool IsCompacted(const Status& status);

}  // namespace trimtab::cluster
