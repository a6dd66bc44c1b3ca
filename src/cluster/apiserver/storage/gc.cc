#include "cluster/apiserver/storage/gc.h"

#include <map>
#include <set>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/apiserver/storage/object_meta.h"

namespace trimtab::cluster {
namespace {

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
  struct Node {
    const ResourceType& type;  // in the pass's `types` map (one copy per kind, not per object)
    const Facts& facts;        // in cache_
    std::string ns;
    std::string name;
  };
  // Snapshot: every object by uid, and dependents by owner uid. Only objects written since the
  // last pass are decoded; the others' facts come from cache_.
  std::map<std::string, std::optional<ResourceType>> types;  // "group/plural" -> type
  std::map<std::string, Node> by_uid;
  std::multimap<std::string, std::string> dependents;  // owner uid -> dependent uid
  std::unordered_map<std::string, Cached> seen;
  seen.reserve(all->items.size());
  for (auto& kv : all->items) {
    auto parsed = ParseObjectKey(kv.key);
    if (!parsed) continue;
    std::string gr = parsed->group + "/" + parsed->plural;
    auto it = types.find(gr);
    if (it == types.end()) it = types.emplace(gr, objects_->TypeForKey(kv.key)).first;
    if (!it->second) continue;
    Cached cached;
    if (auto hit = cache_.find(kv.key); hit != cache_.end() &&
                                        hit->second.mod_revision == kv.mod_revision) {
      cached = std::move(hit->second);
    } else {
      cached.mod_revision = kv.mod_revision;
      if (auto object = objects_->Decode(kv, *it->second)) {
        Facts facts;
        facts.uid = MetaString(*object, "uid");
        if (!facts.uid.empty()) {
          for (const Json& ref : OwnerRefs(*object)) {
            const auto block = ref.find("blockOwnerDeletion");
            facts.owners.emplace_back(ref["uid"].get<std::string>(),
                                      block != ref.end() && block->is_boolean() &&
                                          block->get<bool>());
          }
          facts.deleting = IsDeleting(*object);
          facts.orphan = HasFinalizer(*object, kOrphanFinalizer);
          facts.foreground = HasFinalizer(*object, kForegroundFinalizer);
          cached.facts = std::move(facts);
        }
      }
    }
    auto [entry, inserted] = seen.emplace(std::move(kv.key), std::move(cached));
    if (!inserted || !entry->second.facts) continue;
    const Facts& facts = *entry->second.facts;
    for (const auto& [owner, block] : facts.owners) dependents.emplace(owner, facts.uid);
    by_uid.emplace(facts.uid, Node{*it->second, facts, parsed->ns, parsed->name});
  }
  cache_.swap(seen);  // objects gone since the last pass leave the cache

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
    const auto& refs = node.facts.owners;
    if (!refs.empty()) {
      std::set<std::string> gone;
      for (const auto& [owner, block] : refs) {
        if (!by_uid.count(owner)) gone.insert(owner);
      }
      if (gone.size() == refs.size()) {
        if (!node.facts.deleting) {
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
    if (!node.facts.deleting) continue;
    // 2. Owners being deleted in the foreground or orphaning their dependents.
    auto [begin, end] = dependents.equal_range(uid);
    if (node.facts.orphan) {
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
    if (node.facts.foreground) {
      bool blocked = false;
      for (auto it = begin; it != end; ++it) {
        auto dep = by_uid.find(it->second);
        if (dep == by_uid.end()) continue;
        for (const auto& [owner, block] : dep->second.facts.owners) {
          if (owner == uid && block) blocked = true;
        }
        if (!dep->second.facts.deleting) {
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
