#include "cluster/apiserver/storage/namespace_lifecycle.h"

#include <set>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/apiserver/storage/object_meta.h"

namespace trimtab::cluster {
namespace {

bool Interesting(const StoreEvent& e) {
  if (e.type == StoreEvent::Type::kDelete) return false;
  return e.kv.value.find("\"deletionTimestamp\"") != std::string::npos;
}

// One type per group/plural (the storage version), for listing and deleting.
std::vector<ResourceType> StorageTypes(const ResourceRegistry& registry) {
  std::map<std::string, ResourceType> by_resource;
  for (auto& t : registry.List()) {
    if (t.aggregated) continue;
    std::string key = t.group + "/" + t.plural;
    auto it = by_resource.find(key);
    if (it == by_resource.end() || (t.storage_version && !it->second.storage_version)) {
      by_resource[key] = std::move(t);
    }
  }
  std::vector<ResourceType> out;
  for (auto& [k, t] : by_resource) out.push_back(std::move(t));
  return out;
}

}  // namespace

LifecycleController::LifecycleController(ObjectService* objects, std::chrono::milliseconds period)
    : objects_(objects),
      loop_(objects->store(), ScanLoopOptions{.name = "lifecycle controller", .period = period},
            Interesting, [this] { return Pass(); }) {}

bool LifecycleController::Pass() {
  bool waiting = false;
  for (const auto& type : StorageTypes(*objects_->registry())) {
    bool is_ns = type.group.empty() && type.plural == "namespaces";
    bool is_crd = type.group == "apiextensions.k8s.io" && type.plural == "customresourcedefinitions";
    if (!is_ns && !is_crd) continue;
    auto list = objects_->List(type, "", ListOptions{});
    if (!list.ok()) return true;
    for (const auto& object : list->items) {
      if (!IsDeleting(object)) continue;
      waiting |= is_ns ? FinishNamespace(type, object) : FinishCrd(type, object);
    }
  }
  waiting |= FinishPods();
  return waiting;
}

bool LifecycleController::FinishNamespace(const ResourceType& ns_type, const Json& ns) {
  std::string name = MetaString(ns, "name");
  bool remaining = false;
  for (const auto& type : StorageTypes(*objects_->registry())) {
    if (!type.namespaced) continue;
    auto list = objects_->List(type, name, ListOptions{});
    if (!list.ok()) {
      remaining = true;
      continue;
    }
    for (const auto& object : list->items) {
      remaining = true;
      if (IsDeleting(object)) continue;
      auto r = objects_->Delete(type, name, MetaString(object, "name"),
                                DeleteOptions{.propagation = "Background"});
      if (!r.ok() && r.error().code != 404) {
        spdlog::warn("namespace {}: deleting {} {} failed: {}", name, type.plural,
                     MetaString(object, "name"), r.error().message);
      }
    }
  }
  if (remaining) return true;  // look again once the deletions (and finalizers) settle
  auto r = objects_->Modify(
      ns_type, "", name,
      [](const Json& current) -> ApiResult<Json> {
        Json next = current;
        Json kept = Json::array();
        if (current.contains("spec") && current["spec"].contains("finalizers")) {
          for (const auto& f : current["spec"]["finalizers"]) {
            if (f != kNamespaceFinalizer) kept.push_back(f);
          }
        }
        next["spec"]["finalizers"] = kept;
        return next;
      },
      "finalize", WriteOptions{});
  if (!r.ok() && r.error().code != 404) {
    spdlog::warn("namespace {}: finalize failed: {}", name, r.error().message);
    return true;
  }
  return false;
}

bool LifecycleController::FinishCrd(const ResourceType& crd_type, const Json& crd) {
  if (!HasFinalizer(crd, kCrdCleanupFinalizer)) return false;
  std::string name = MetaString(crd, "name");
  const Json& spec = crd.at("spec");
  std::string group = spec.value("group", "");
  std::string plural = spec.value("names", Json::object()).value("plural", "");
  bool remaining = false;
  for (const auto& type : StorageTypes(*objects_->registry())) {
    if (type.group != group || type.plural != plural) continue;
    auto list = objects_->List(type, "", ListOptions{});
    if (!list.ok()) return true;
    for (const auto& object : list->items) {
      remaining = true;
      if (IsDeleting(object)) continue;
      auto r = objects_->Delete(type, MetaString(object, "namespace"), MetaString(object, "name"),
                                DeleteOptions{.propagation = "Background"});
      if (!r.ok() && r.error().code != 404) {
        spdlog::warn("crd {}: deleting {} failed: {}", name, MetaString(object, "name"),
                     r.error().message);
      }
    }
  }
  if (remaining) return true;
  auto r = objects_->Modify(
      crd_type, "", name,
      [](const Json& current) -> ApiResult<Json> {
        Json next = current;
        RemoveFinalizer(&next, kCrdCleanupFinalizer);
        return next;
      },
      "", WriteOptions{});
  return !r.ok() && r.error().code != 404;
}

bool LifecycleController::FinishPods() {
  auto type = objects_->registry()->Find("", "v1", "pods");
  if (!type) return false;
  // Only terminating pods matter; the others (nearly all) are not decoded.
  ListOptions options;
  options.stored_text_filter = [](std::string_view stored) {
    return stored.find("deletionTimestamp") != std::string_view::npos;
  };
  auto list = objects_->List(*type, "", options);
  if (!list.ok()) return true;
  bool waiting = false;
  TimePoint now = objects_->clock()->Now();
  for (const auto& pod : list->items) {
    if (!IsDeleting(pod) || HasFinalizers(pod)) continue;
    auto deadline = ParseRfc3339(MetaString(pod, "deletionTimestamp"));
    if (deadline.ok() && *deadline > now) {
      waiting = true;
      continue;
    }
    auto r = objects_->Delete(*type, MetaString(pod, "namespace"), MetaString(pod, "name"),
                              DeleteOptions{.grace_period_seconds = 0});
    if (!r.ok() && r.error().code != 404) waiting = true;
  }
  return waiting;
}

}  // namespace trimtab::cluster
