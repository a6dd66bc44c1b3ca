#include "cluster/apiserver/gc.h"

#include <map>
#include <set>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/apiserver/object_meta.h"

namespace trimtab::cluster {
namespace {

struct Node {
  const ResourceType& type;  // in the pass's `types` map (one copy per kind, not per object)
  Json object;
  std::string uid;
  std::string ns;
  std::string name;
};

// Cheap pre-filter on raw bytes: deletions and objects being deleted or owned.
bool Interesting(const StoreEvent& e) {
  if (e.type == StoreEvent::Type::kDelete) return true;
  const std::string& v = e.kv.value;
  return v.find("\"deletionTimestamp\"") != std::string::npos ||
         (e.created && v.find("\"ownerReferences\"") != std::string::npos);
}

std::vector<Json> OwnerRefs(const Json& object) {
  std::vector<Json> out;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return out;
  auto refs = meta->find("ownerReferences");
  if (refs == meta->end() || !refs->is_array()) return out;
  for (const auto& r : *refs) {
    if (r.is_object() && r.contains("uid") && r["uid"].is_string()) out.push_back(r);
  }
  return out;
}

}  // namespace

GarbageCollector::GarbageCollector(ObjectService* objects, std::chrono::milliseconds period)
    : objects_(objects),
      loop_(objects->store(), ScanLoopOptions{.name = "garbage collector", .period = period},
            Interesting, [this] { return Pass(); }) {}

bool GarbageCollector::Pass() {
  auto all = objects_->store()->List(kRegistryPrefix, "", 0, 0);
  if (!all.ok()) {
    spdlog::warn("garbage collector: list failed: {}", all.status().ToString());
    return true;
  }
  // Snapshot: every object by uid, and dependents by owner uid.
  std::map<std::string, std::optional<ResourceType>> types;  // "group/plural" -> type
  std::map<std::string, Node> by_uid;
  std::multimap<std::string, std::string> dependents;  // owner uid -> dependent uid
  for (const auto& kv : all->items) {
    auto parsed = ParseObjectKey(kv.key);
    if (!parsed) continue;
    std::string gr = parsed->group + "/" + parsed->plural;
    auto it = types.find(gr);
    if (it == types.end()) it = types.emplace(gr, objects_->TypeForKey(kv.key)).first;
    if (!it->second) continue;
    auto object = objects_->Decode(kv, *it->second);
    if (!object) continue;
    std::string uid = MetaString(*object, "uid");
    if (uid.empty()) continue;
    for (const auto& ref : OwnerRefs(*object)) dependents.emplace(ref["uid"].get<std::string>(), uid);
    by_uid.emplace(uid, Node{*it->second, std::move(*object), uid, parsed->ns, parsed->name});
  }

  bool waiting = false;
  DeleteOptions background{.propagation = "Background"};
  // A dependent of an owner deleted in the foreground is deleted in the foreground itself when
  // it has dependents of its own (as upstream's garbage collector does), so the owner goes
  // only after the whole tree: a Deployment after its pods, not just its ReplicaSets.
  DeleteOptions foreground{.propagation = "Foreground"};
  auto remove_refs = [&](const Node& dep, const std::set<std::string>& gone_uids) {
    auto r = objects_->Modify(
        dep.type, dep.ns, dep.name,
        [&](const Json& current) -> ApiResult<Json> {
          Json next = current;
          Json kept = Json::array();
          for (const auto& ref : OwnerRefs(current)) {
            if (!gone_uids.count(ref["uid"].get<std::string>())) kept.push_back(ref);
          }
          if (kept.empty()) {
            next["metadata"].erase("ownerReferences");
          } else {
            next["metadata"]["ownerReferences"] = kept;
          }
          return next;
        },
        "", WriteOptions{});
    if (!r.ok() && r.error().code != 404) {
      spdlog::warn("garbage collector: updating {} failed: {}", dep.name, r.error().message);
    }
  };

  for (const auto& [uid, node] : by_uid) {
    // 1. Dependents with dangling owner references.
    auto refs = OwnerRefs(node.object);
    if (!refs.empty()) {
      std::set<std::string> gone;
      for (const auto& ref : refs) {
        std::string owner = ref["uid"].get<std::string>();
        if (!by_uid.count(owner)) gone.insert(owner);
      }
      if (gone.size() == refs.size()) {
        if (!IsDeleting(node.object)) {
          auto r = objects_->Delete(node.type, node.ns, node.name, background);
          if (!r.ok() && r.error().code != 404) {
            spdlog::warn("garbage collector: deleting {} failed: {}", node.name, r.error().message);
          }
        }
        continue;
      } else if (!gone.empty()) {
        remove_refs(node, gone);
      }
    }
    if (!IsDeleting(node.object)) continue;
    // 2. Owners being deleted in the foreground or orphaning their dependents.
    auto [begin, end] = dependents.equal_range(uid);
    if (HasFinalizer(node.object, kOrphanFinalizer)) {
      for (auto it = begin; it != end; ++it) {
        auto dep = by_uid.find(it->second);
        if (dep != by_uid.end()) remove_refs(dep->second, {uid});
      }
      auto r = objects_->Modify(
          node.type, node.ns, node.name,
          [&](const Json& current) -> ApiResult<Json> {
            Json next = current;
            RemoveFinalizer(&next, kOrphanFinalizer);
            return next;
          },
          "", WriteOptions{});
      if (!r.ok() && r.error().code != 404) waiting = true;
      continue;
    }
    if (HasFinalizer(node.object, kForegroundFinalizer)) {
      bool blocked = false;
      for (auto it = begin; it != end; ++it) {
        auto dep = by_uid.find(it->second);
        if (dep == by_uid.end()) continue;
        for (const auto& ref : OwnerRefs(dep->second.object)) {
          if (ref["uid"] == uid && ref.value("blockOwnerDeletion", false)) blocked = true;
        }
        if (!IsDeleting(dep->second.object)) {
          const bool has_dependents = dependents.count(it->second) > 0;
          auto r = objects_->Delete(dep->second.type, dep->second.ns, dep->second.name,
                                    has_dependents ? foreground : background);
          if (!r.ok() && r.error().code != 404) blocked = true;
        }
      }
      if (blocked) {
        waiting = true;
        continue;
      }
      auto r = objects_->Modify(
          node.type, node.ns, node.name,
          [&](const Json& current) -> ApiResult<Json> {
            Json next = current;
            RemoveFinalizer(&next, kForegroundFinalizer);
            return next;
          },
          "", WriteOptions{});
      if (!r.ok() && r.error().code != 404) waiting = true;
    }
  }
  return waiting;
}

}  // namespace trimtab::cluster
