#include "cluster/apiserver/storage/decoded_cache.h"

#include <utility>

namespace trimtab::cluster {

std::shared_ptr<const Json> DecodedCache::Find(std::string_view key, int64_t mod_revision,
                                               std::string_view api_version) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.mod_revision != mod_revision ||
      it->second.api_version != api_version) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return it->second.object;
}

void DecodedCache::Put(std::string_view key, int64_t mod_revision, std::string_view api_version,
                       std::shared_ptr<const Json> object) {
  if (capacity_ == 0 || object == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    // A reader of an older revision (a LIST at a past revision, a slow watch) must not push
    // out the entry of the current one.
    if (it->second.mod_revision > mod_revision) return;
    it->second.mod_revision = mod_revision;
    it->second.api_version = std::string(api_version);
    it->second.object = std::move(object);
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return;
  }
  while (entries_.size() >= capacity_ && !lru_.empty()) {
    entries_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.emplace_front(key);
  Entry entry{.mod_revision = mod_revision,
              .api_version = std::string(api_version),
              .object = std::move(object),
              .lru = lru_.begin()};
  entries_.emplace(std::string(key), std::move(entry));
}

void DecodedCache::Erase(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  lru_.erase(it->second.lru);
  entries_.erase(it);
}

size_t DecodedCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

int64_t DecodedCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

int64_t DecodedCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

}  // namespace trimtab::cluster
