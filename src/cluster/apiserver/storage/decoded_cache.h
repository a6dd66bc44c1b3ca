// DecodedCache: the local API server's cache of decoded objects, so that a GET, a LIST or a watch
// event that reads a revision already decoded copies (or shares) the object instead of parsing
// its stored JSON again. kube-apiserver's watch cache keeps decoded objects for the same reason.
//
// An entry holds what ObjectService::Decode makes of one stored value: the JSON parsed, converted
// to the version it is read as, with apiVersion, kind and metadata.resourceVersion set. It is
// identified by (storage key, mod_revision, apiVersion). The store never writes two values under
// one revision (every create, update and delete gets a new global revision, and a tombstone's
// revision is the delete's), so an entry whose revision matches the KeyValue being read is
// exactly the decode of that value: a read after a write carries the write's revision and can
// never match the entry of the revision before it. There is nothing to invalidate for
// correctness; Erase (after a delete) only frees memory early, and an entry of an older revision
// is replaced by the next Put for its key.
//
// Bounded: at most `capacity` entries (one per key), the least recently used evicted first.
//
// Thread-safety: safe for concurrent use. The objects handed out are immutable and shared; a
// caller that needs to change one copies it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "common/json.h"

namespace trimtab::cluster {

class DecodedCache {
 public:
  explicit DecodedCache(size_t capacity) : capacity_(capacity) {}
  DecodedCache(const DecodedCache&) = delete;
  DecodedCache& operator=(const DecodedCache&) = delete;

  // The entry of `key` when it was decoded from revision `mod_revision` as `api_version`;
  // null otherwise (absent, another revision, another version).
  std::shared_ptr<const Json> Find(std::string_view key, int64_t mod_revision,
                                   std::string_view api_version);
  // Remembers `object` as the decode of `key` at `mod_revision` as `api_version`, replacing the
  // key's entry unless that one is of a newer revision. `object` must not be null.
  void Put(std::string_view key, int64_t mod_revision, std::string_view api_version,
           std::shared_ptr<const Json> object);
  // Drops the entry of `key` (the key was deleted).
  void Erase(std::string_view key);

  size_t size() const;
  size_t capacity() const { return capacity_; }
  int64_t hits() const;
  int64_t misses() const;

 private:
  struct Entry {
    int64_t mod_revision = 0;
    std::string api_version;
    std::shared_ptr<const Json> object;
    std::list<std::string>::iterator lru;  // position in lru_
  };

  const size_t capacity_;
  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> entries_;  // guarded by mu_
  std::list<std::string> lru_;                         // most recently used first; guarded by mu_
  int64_t hits_ = 0;                                   // guarded by mu_
  int64_t misses_ = 0;                                 // guarded by mu_
};

}  // namespace trimtab::cluster
