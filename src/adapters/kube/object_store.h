// ObjectStore: the informer's local cache of one resource type, keyed "ns/name". It implements
// Reader, so controllers read from it exactly as from the live client; reads return copies.
//
// Thread-safety: all methods are safe for concurrent use (one reader/writer lock).
#pragma once

#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "adapters/kube/reader.h"

namespace trimtab::kube {

class ObjectStore final : public Reader {
 public:
  explicit ObjectStore(GroupVersionResource gvr) : gvr_(std::move(gvr)) {}

  // Reader. kInvalidArgument for a resource this store does not hold.
  StatusOr<Json> Get(const GroupVersionResource& gvr, std::string_view ns,
                     std::string_view name) const override;
  StatusOr<std::vector<Json>> List(const GroupVersionResource& gvr, std::string_view ns,
                                   const ReadOptions& options) const override;

  // By key ("ns/name").
  std::optional<Json> GetByKey(const std::string& key) const;
  std::vector<std::string> Keys() const;
  size_t Size() const;
  const GroupVersionResource& gvr() const { return gvr_; }

  // Writers (used by the informer). Upsert returns the previous object, if any.
  std::optional<Json> Upsert(const Json& object);
  std::optional<Json> Remove(const std::string& key);
  // Replaces everything; returns the previous contents.
  std::map<std::string, Json> ReplaceAll(std::map<std::string, Json> objects);

 private:
  GroupVersionResource gvr_;
  mutable std::shared_mutex mu_;
  std::map<std::string, Json> objects_;  // guarded by mu_
};

}  // namespace trimtab::kube
