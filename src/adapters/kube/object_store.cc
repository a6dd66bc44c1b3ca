#include "adapters/kube/object_store.h"

#include <mutex>

#include <nlohmann/json.hpp>

namespace trimtab::kube {

StatusOr<Json> ObjectStore::Get(const GroupVersionResource& gvr, std::string_view ns,
                                std::string_view name) const {
  if (!(gvr == gvr_)) {
    return InvalidArgumentError("cache for " + gvr_.String() + " cannot serve " + gvr.String());
  }
  const std::string key = ObjectKey(gvr_.namespaced ? ns : std::string_view(), name);
  std::shared_lock<std::shared_mutex> lock(mu_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) {
    return NotFoundError(gvr_.String() + " \"" + key + "\" not found in cache");
  }
  return it->second;
}

StatusOr<std::vector<Json>> ObjectStore::List(const GroupVersionResource& gvr, std::string_view ns,
                                              const ReadOptions& options) const {
  if (!(gvr == gvr_)) {
    return InvalidArgumentError("cache for " + gvr_.String() + " cannot serve " + gvr.String());
  }
  std::vector<Json> out;
  std::shared_lock<std::shared_mutex> lock(mu_);
  for (const auto& [key, object] : objects_) {
    if (gvr_.namespaced && !ns.empty() && ObjectNamespace(object) != ns) continue;
    if (!options.labels.Matches(ObjectLabels(object))) continue;
    if (!options.fields.Empty() &&
        !options.fields.Matches(SelectableFields(object, options.fields))) {
      continue;
    }
    out.push_back(object);
  }
  return out;
}

std::optional<Json> ObjectStore::GetByKey(const std::string& key) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  return it->second;
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

std::optional<Json> ObjectStore::Upsert(const Json& object) {
  const std::string key = ObjectKey(object);
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto [it, inserted] = objects_.try_emplace(key, object);
  if (inserted) return std::nullopt;
  Json previous = std::move(it->second);
  it->second = object;
  return previous;
}

std::optional<Json> ObjectStore::Remove(const std::string& key) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  Json previous = std::move(it->second);
  objects_.erase(it);
  return previous;
}

std::map<std::string, Json> ObjectStore::ReplaceAll(std::map<std::string, Json> objects) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  std::swap(objects_, objects);
  return objects;
}

}  // namespace trimtab::kube
