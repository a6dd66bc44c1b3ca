#include "cluster/apiserver/surface/resource_registry.h"

namespace trimtab::cluster {
namespace {
std::string Key(const std::string& group, const std::string& version, const std::string& plural) {
  return group + "/" + version + "/" + plural;
}
}  // namespace

void ResourceRegistry::Put(ResourceType type) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = Key(type.group, type.version, type.plural);
    types_[key] = std::make_shared<const ResourceType>(std::move(type));
    ++revision_;
  }
  Notify();
}

void ResourceRegistry::RemoveGroupResource(const std::string& group, const std::string& plural) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = types_.begin(); it != types_.end();) {
      if (it->second->group == group && it->second->plural == plural) {
        it = types_.erase(it);
      } else {
        ++it;
      }
    }
    ++revision_;
  }
  Notify();
}

std::optional<ResourceType> ResourceRegistry::Find(const std::string& group,
                                                   const std::string& version,
                                                   const std::string& plural) const {
  std::shared_ptr<const ResourceType> type = FindShared(group, version, plural);
  if (!type) return std::nullopt;
  return *type;
}

std::shared_ptr<const ResourceType> ResourceRegistry::FindShared(const std::string& group,
                                                                 const std::string& version,
                                                                 const std::string& plural) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = types_.find(Key(group, version, plural));
  return it == types_.end() ? nullptr : it->second;
}

bool ResourceRegistry::Contains(const std::string& group, const std::string& version,
                                const std::string& plural) const {
  std::lock_guard<std::mutex> lock(mu_);
  return types_.count(Key(group, version, plural)) > 0;
}

std::optional<ResourceType> ResourceRegistry::FindByKind(const std::string& group,
                                                         const std::string& version,
                                                         const std::string& kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, type] : types_) {
    if (type->group == group && type->version == version && type->kind == kind) return *type;
  }
  return std::nullopt;
}

std::vector<ResourceType> ResourceRegistry::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ResourceType> out;
  out.reserve(types_.size());
  for (const auto& [key, type] : types_) out.push_back(*type);
  return out;
}

uint64_t ResourceRegistry::revision() const {
  std::lock_guard<std::mutex> lock(mu_);
  return revision_;
}

void ResourceRegistry::AddListener(RegistryListener listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listeners_.push_back(std::move(listener));
}

void ResourceRegistry::Notify() {
  std::vector<RegistryListener> listeners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    listeners = listeners_;
  }
  for (const auto& l : listeners) l();
}

}  // namespace trimtab::cluster
