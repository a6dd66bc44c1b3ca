// ObjectStore: the informer's local cache of one resource type, keyed "ns/name". It implements
// Reader, so controllers read from it exactly as from the live client; Reader reads return
// copies.
//
// The cached objects are immutable and shared: an update replaces an object's pointer, never
// the object, so the *Shared reads hand out the cached objects themselves (no copy) and a
// reader may keep them as long as it likes. Hot paths (a scheduling cycle over every pod, a
// controller picking the few objects it owns) use those, and the indexes:
//  - by namespace: keys are "ns/name", so a namespace is one contiguous range of the map;
//  - by owner: the uid of every ownerReferences entry -> the keys of the objects it owns;
//  - by label: "ns", key and value of every label -> keys, so a selector with an equality
//    requirement reads only the objects carrying that label (the full selector is still
//    checked on each).
//
// Thread-safety: all methods are safe for concurrent use (one reader/writer lock).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "adapters/kube/reader.h"

namespace trimtab::kube {

// A cached object; never modified once in a store.
using ObjectPtr = std::shared_ptr<const Json>;

class ObjectStore final : public Reader {
 public:
  explicit ObjectStore(GroupVersionResource gvr) : gvr_(std::move(gvr)) {}

  // Reader (copies). kInvalidArgument for a resource this store does not hold.
  StatusOr<Json> Get(const GroupVersionResource& gvr, std::string_view ns,
                     std::string_view name) const override;
  StatusOr<std::vector<Json>> List(const GroupVersionResource& gvr, std::string_view ns,
                                   const ReadOptions& options) const override;

  // By key ("ns/name"), a copy.
  std::optional<Json> GetByKey(const std::string& key) const;
  std::vector<std::string> Keys() const;
  size_t Size() const;
  const GroupVersionResource& gvr() const { return gvr_; }

  // Shared reads (no copies; see the header comment). Sorted by key like List.
  ObjectPtr GetShared(std::string_view key) const;  // null when absent
  // `ns` "" = all namespaces (and the only choice for a cluster-scoped resource).
  std::vector<ObjectPtr> ListShared(std::string_view ns = {},
                                    const ReadOptions& options = {}) const;
  // The objects with an ownerReferences entry of uid `owner_uid` (controller or not).
  std::vector<ObjectPtr> ListOwnedBy(std::string_view owner_uid) const;

  // Writers (used by the informer). Upsert and Remove return the previous object, if any.
  // REQUIRES: `object` non-null and not modified afterwards.
  ObjectPtr Upsert(ObjectPtr object);
  ObjectPtr Remove(const std::string& key);
  // Replaces everything; returns the previous contents.
  std::map<std::string, ObjectPtr> ReplaceAll(std::map<std::string, ObjectPtr> objects);

 private:
  // REQUIRES: mu_ held exclusively.
  void IndexLocked(const std::string& key, const Json& object);
  void UnindexLocked(const std::string& key, const Json& object);
  // The candidate keys of a selector in `ns` from the label index: the smallest bucket of its
  // equality requirements; null when it has none (scan the namespace instead).
  // REQUIRES: mu_ held.
  const std::set<std::string>* LabelCandidatesLocked(std::string_view ns,
                                                     const LabelSelector& selector,
                                                     bool* none) const;
  bool MatchesLocked(const Json& object, std::string_view ns, const ReadOptions& options) const;

  GroupVersionResource gvr_;
  mutable std::shared_mutex mu_;
  std::map<std::string, ObjectPtr, std::less<>> objects_;  // guarded by mu_
  // guarded by mu_: owner uid -> keys; "ns\n" + label key + "\n" + value -> keys.
  std::unordered_map<std::string, std::set<std::string>> by_owner_;
  std::unordered_map<std::string, std::set<std::string>> by_label_;
};

}  // namespace trimtab::kube
