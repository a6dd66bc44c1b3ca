#include "adapters/kube/object_store.h"

#include <mutex>

#include <nlohmann/json.hpp>

namespace trimtab::kube {
namespace {

std::string LabelIndexKey(std::string_view ns, std::string_view key, std::string_view value) {
  std::string out;
  out.reserve(ns.size() + key.size() + value.size() + 2);
  out.append(ns).append(1, '\n').append(key).append(1, '\n').append(value);
  return out;
}

// The labels of `object` as (key, value) views into it.
template <typename Fn>
void ForEachLabel(const Json& object, Fn fn) {
  if (!object.is_object()) return;
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return;
  const auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return;
  for (const auto& [k, v] : labels->items()) {
    if (v.is_string()) fn(k, v.template get_ref<const std::string&>());
  }
}

template <typename Fn>
void ForEachOwnerUid(const Json& object, Fn fn) {
  if (!object.is_object()) return;
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return;
  const auto refs = meta->find("ownerReferences");
  if (refs == meta->end() || !refs->is_array()) return;
  for (const Json& ref : *refs) {
    if (!ref.is_object()) continue;
    const auto uid = ref.find("uid");
    if (uid != ref.end() && uid->is_string() && !uid->get_ref<const std::string&>().empty()) {
      fn(uid->get_ref<const std::string&>());
    }
  }
}

void EraseFromBucket(std::unordered_map<std::string, std::set<std::string>>* index,
                     const std::string& bucket, const std::string& key) {
  const auto it = index->find(bucket);
  if (it == index->end()) return;
  it->second.erase(key);
  if (it->second.empty()) index->erase(it);
}

// The first and past-the-end keys of namespace `ns` ("ns/..." sorts between "ns/" and "ns0").
std::pair<std::string, std::string> NamespaceRange(std::string_view ns) {
  std::string first(ns), last(ns);
  first.push_back('/');
  last.push_back('/' + 1);
  return {first, last};
}

}  // namespace

StatusOr<Json> ObjectStore::Get(const GroupVersionResource& gvr, std::string_view ns,
                                std::string_view name) const {
  if (!(gvr == gvr_)) {
    return InvalidArgumentError("cache for " + gvr_.String() + " cannot serve " + gvr.String());
  }
  const std::string key = ObjectKey(gvr_.namespaced ? ns : std::string_view(), name);
  ObjectPtr object = GetShared(key);
  if (!object) return NotFoundError(gvr_.String() + " \"" + key + "\" not found in cache");
  return *object;
}

StatusOr<std::vector<Json>> ObjectStore::List(const GroupVersionResource& gvr, std::string_view ns,
                                              const ReadOptions& options) const {
  if (!(gvr == gvr_)) {
    return InvalidArgumentError("cache for " + gvr_.String() + " cannot serve " + gvr.String());
  }
  std::vector<Json> out;
  for (const ObjectPtr& object : ListShared(ns, options)) out.push_back(*object);
  return out;
}

std::optional<Json> ObjectStore::GetByKey(const std::string& key) const {
  ObjectPtr object = GetShared(key);
  if (!object) return std::nullopt;
  return *object;
}

std::vector<std::string> ObjectStore::Keys() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<std::string> keys;
  keys.reserve(objects_.size());
  for (const auto& [key, object] : objects_) keys.push_back(key);
  return keys;
}

size_t ObjectStore::Size() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return objects_.size();
}

ObjectPtr ObjectStore::GetShared(std::string_view key) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  const auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

bool ObjectStore::MatchesLocked(const Json& object, std::string_view ns,
                                const ReadOptions& options) const {
  if (gvr_.namespaced && !ns.empty() && ObjectNamespace(object) != ns) return false;
  if (!options.labels.Empty() && !options.labels.Matches(ObjectLabels(object))) return false;
  if (!options.fields.Empty() &&
      !options.fields.Matches(SelectableFields(object, options.fields))) {
    return false;
  }
  return true;
}

const std::set<std::string>* ObjectStore::LabelCandidatesLocked(std::string_view ns,
                                                                const LabelSelector& selector,
                                                                bool* none) const {
  *none = false;
  const std::set<std::string>* best = nullptr;
  for (const LabelRequirement& r : selector.requirements()) {
    if (r.op != SelectorOp::kEquals && r.op != SelectorOp::kDoubleEquals) continue;
    if (r.values.size() != 1) continue;
    const auto it = by_label_.find(LabelIndexKey(ns, r.key, r.values.front()));
    if (it == by_label_.end()) {
      *none = true;  // nothing carries a required label
      return nullptr;
    }
    if (!best || it->second.size() < best->size()) best = &it->second;
  }
  return best;
}

std::vector<ObjectPtr> ObjectStore::ListShared(std::string_view ns,
                                               const ReadOptions& options) const {
  std::vector<ObjectPtr> out;
  if (options.labels.IsNothing()) return out;
  std::shared_lock<std::shared_mutex> lock(mu_);
  const bool in_namespace = gvr_.namespaced && !ns.empty();
  if (in_namespace && !options.labels.Empty()) {
    bool none = false;
    if (const std::set<std::string>* keys = LabelCandidatesLocked(ns, options.labels, &none)) {
      for (const std::string& key : *keys) {
        const auto it = objects_.find(key);
        if (it != objects_.end() && MatchesLocked(*it->second, ns, options)) {
          out.push_back(it->second);
        }
      }
      return out;
    }
    if (none) return out;
  }
  auto begin = objects_.begin(), end = objects_.end();
  if (in_namespace) {
    const auto [first, last] = NamespaceRange(ns);
    begin = objects_.lower_bound(first);
    end = objects_.lower_bound(last);
  }
  for (auto it = begin; it != end; ++it) {
    if (MatchesLocked(*it->second, ns, options)) out.push_back(it->second);
  }
  return out;
}

std::vector<ObjectPtr> ObjectStore::ListOwnedBy(std::string_view owner_uid) const {
  std::vector<ObjectPtr> out;
  std::shared_lock<std::shared_mutex> lock(mu_);
  const auto bucket = by_owner_.find(std::string(owner_uid));
  if (bucket == by_owner_.end()) return out;
  out.reserve(bucket->second.size());
  for (const std::string& key : bucket->second) {
    const auto it = objects_.find(key);
    if (it != objects_.end()) out.push_back(it->second);
  }
  return out;
}

void ObjectStore::IndexLocked(const std::string& key, const Json& object) {
  ForEachOwnerUid(object, [&](const std::string& uid) { by_owner_[uid].insert(key); });
  if (!gvr_.namespaced) return;  // label lookups are per namespace
  const std::string ns = ObjectNamespace(object);
  ForEachLabel(object, [&](const std::string& k, const std::string& v) {
    by_label_[LabelIndexKey(ns, k, v)].insert(key);
  });
}

void ObjectStore::UnindexLocked(const std::string& key, const Json& object) {
  ForEachOwnerUid(object, [&](const std::string& uid) { EraseFromBucket(&by_owner_, uid, key); });
  if (!gvr_.namespaced) return;
  const std::string ns = ObjectNamespace(object);
  ForEachLabel(object, [&](const std::string& k, const std::string& v) {
    EraseFromBucket(&by_label_, LabelIndexKey(ns, k, v), key);
  });
}

ObjectPtr ObjectStore::Upsert(ObjectPtr fresh) {
  std::string key = ObjectKey(*fresh);
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto [it, inserted] = objects_.try_emplace(std::move(key), fresh);
  ObjectPtr previous;
  if (!inserted) {
    previous = std::move(it->second);
    UnindexLocked(it->first, *previous);
    it->second = fresh;
  }
  IndexLocked(it->first, *fresh);
  return previous;
}

ObjectPtr ObjectStore::Remove(const std::string& key) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) return nullptr;
  ObjectPtr previous = std::move(it->second);
  UnindexLocked(key, *previous);
  objects_.erase(it);
  return previous;
}

std::map<std::string, ObjectPtr> ObjectStore::ReplaceAll(std::map<std::string, ObjectPtr> objects) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  std::map<std::string, ObjectPtr> previous;
  for (auto& [key, object] : objects_) previous.emplace(key, std::move(object));
  objects_.clear();
  by_owner_.clear();
  by_label_.clear();
  for (auto& [key, object] : objects) {
    if (!object) continue;
    IndexLocked(key, *object);
    objects_.emplace(key, std::move(object));
  }
  return previous;
}

}  // namespace trimtab::kube
