#include "cluster/apiserver/storage/managed_fields.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

namespace trimtab::cluster {

namespace {

constexpr char kSep = '\n';

// The leaf values of an object by field path; list items (the "." of an item) map to nullptr.
using FlatFields = std::map<FieldPath, const Json*>;

bool IgnoredMetadata(const std::string& key) {
  return key == "name" || key == "namespace" || key == "uid" || key == "resourceVersion" ||
         key == "generation" || key == "creationTimestamp" || key == "deletionTimestamp" ||
         key == "deletionGracePeriodSeconds" || key == "managedFields" || key == "selfLink";
}

std::string Join(const FieldPath& path, const std::string& element) {
  return path.empty() ? element : path + kSep + element;
}

std::string ChildSchema(const std::string& schema, const std::string& key) {
  return schema.empty() ? key : schema + "." + key;
}

// The key fields of the list at `schema`: nullopt for an atomic list, empty for a set.
std::optional<std::vector<std::string>> ListKeys(const ResourceType& type,
                                                 const std::string& schema) {
  auto it = type.merge_keys.find(schema);
  if (it == type.merge_keys.end()) return std::nullopt;
  if (it->second.empty()) return std::vector<std::string>();
  if (type.is_crd) {
    // x-kubernetes-list-map-keys, joined by ',' (crd.cc).
    std::vector<std::string> keys;
    size_t start = 0;
    while (start <= it->second.size()) {
      size_t comma = it->second.find(',', start);
      if (comma == std::string::npos) comma = it->second.size();
      keys.push_back(it->second.substr(start, comma - start));
      start = comma + 1;
    }
    return keys;
  }
  if (it->second == "port" || it->second == "containerPort") {
    return std::vector<std::string>{it->second, "protocol"};
  }
  return std::vector<std::string>{it->second};
}

// The path element of one list item ("k:{...}" or "v:..."), "" when the item has no key.
std::string ItemElement(const Json& item, const std::vector<std::string>& keys) {
  if (keys.empty()) return "v:" + item.dump();
  if (!item.is_object()) return "";
  Json key = Json::object();
  bool any = false;
  for (const std::string& k : keys) {
    if (item.contains(k) && !item[k].is_null()) {
      key[k] = item[k];
      any = any || k != "protocol";
    } else if (k == "protocol" && keys.size() == 2 &&
               (keys[0] == "port" || keys[0] == "containerPort")) {
      key[k] = "TCP";  // the default, so an applied item without it finds the stored one
    }
  }
  return any ? "k:" + key.dump() : "";
}

void Walk(const ResourceType& type, const Json& v, const FieldPath& path, const std::string& schema,
          FlatFields* out);

void WalkList(const ResourceType& type, const Json& v, const FieldPath& path,
              const std::string& schema, FlatFields* out) {
  auto keys = ListKeys(type, schema);
  std::vector<std::string> elements;
  if (keys) {
    for (const Json& item : v) {
      elements.push_back(ItemElement(item, *keys));
      if (elements.back().empty()) {
        keys.reset();
        break;
      }
    }
  }
  if (!keys) {
    (*out)[path] = &v;  // atomic
    return;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const Json& item = v[i];
    const FieldPath item_path = Join(path, elements[i]);
    if (keys->empty() || !item.is_object()) {
      (*out)[item_path] = &item;
      continue;
    }
    (*out)[item_path] = nullptr;
    for (const auto& [k, child] : item.items()) {
      Walk(type, child, Join(item_path, "f:" + k), ChildSchema(schema + "[]", k), out);
    }
  }
}

// Label selectors of the built-in kinds are atomic (upstream: structType / mapType atomic).
bool AtomicObject(const ResourceType& type, const std::string& schema) {
  return !type.is_crd && schema == "spec.selector";
}

void Walk(const ResourceType& type, const Json& v, const FieldPath& path, const std::string& schema,
          FlatFields* out) {
  if (v.is_object()) {
    if (v.empty() || AtomicObject(type, schema)) {
      (*out)[path] = &v;
      return;
    }
    for (const auto& [k, child] : v.items()) {
      Walk(type, child, Join(path, "f:" + k), ChildSchema(schema, k), out);
    }
  } else if (v.is_array()) {
    WalkList(type, v, path, schema, out);
  } else {
    (*out)[path] = &v;
  }
}

FlatFields Flatten(const ResourceType& type, const Json& object, std::string_view subresource) {
  FlatFields out;
  if (!object.is_object()) return out;
  const bool status_scope = subresource == "status" && type.status_subresource;
  for (const auto& [k, v] : object.items()) {
    if (k == "apiVersion" || k == "kind") continue;
    if (type.status_subresource && (k == "status") != status_scope) continue;
    if (k == "metadata" && v.is_object()) {
      for (const auto& [mk, mv] : v.items()) {
        if (IgnoredMetadata(mk)) continue;
        Walk(type, mv, "f:metadata\nf:" + mk, "metadata." + mk, &out);
      }
      continue;
    }
    Walk(type, v, "f:" + k, k, &out);
  }
  return out;
}

std::vector<std::string> Split(const FieldPath& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t nl = path.find(kSep, start);
    if (nl == std::string::npos) nl = path.size();
    parts.push_back(path.substr(start, nl - start));
    start = nl + 1;
  }
  return parts;
}

// One entry of metadata.managedFields.
struct Entry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string subresource;
  std::string api_version;
  std::string time;
  FieldSet fields;        // valid when parsed
  Json extra;             // the entry as stored
  bool parsed = true;     // false: fields not read (the write cannot touch them)
  bool dirty = false;     // fields or time changed: written anew from the members above
};

void EnsureParsed(Entry& e) {
  if (e.parsed) return;
  e.fields = FromFieldsV1(e.extra.value("fieldsV1", Json::object()));
  e.parsed = true;
}

// The entries of `object`. With `tops`, an entry that owns nothing under any of those top-level
// elements ("f:status") is left unparsed: a write confined to them cannot change it, and parsing
// every entry on every status write cost more than the rest of the write.
std::vector<Entry> ParseEntries(const Json& object, const std::set<std::string>* tops = nullptr) {
  std::vector<Entry> entries;
  const Json* list = nullptr;
  if (object.is_object() && object.contains("metadata") && object["metadata"].is_object() &&
      object["metadata"].contains("managedFields")) {
    list = &object["metadata"]["managedFields"];
  }
  if (!list || !list->is_array()) return entries;
  for (const Json& e : *list) {
    if (!e.is_object() || !e.contains("manager")) continue;
    Entry entry;
    entry.manager = e.value("manager", "");
    entry.operation = e.value("operation", "");
    entry.subresource = e.value("subresource", "");
    entry.api_version = e.value("apiVersion", "");
    entry.time = e.value("time", "");
    entry.extra = e;
    entry.parsed = false;
    bool touched = tops == nullptr;
    if (!touched && e.contains("fieldsV1") && e["fieldsV1"].is_object()) {
      for (const std::string& top : *tops) touched = touched || e["fieldsV1"].contains(top);
    }
    if (touched) EnsureParsed(entry);
    entries.push_back(std::move(entry));
  }
  return entries;
}

void StoreEntries(std::vector<Entry> entries, Json* object) {
  Json list = Json::array();
  for (Entry& e : entries) {
    if (!e.dirty && e.extra.is_object()) {
      if (!e.parsed || !e.fields.empty()) list.push_back(std::move(e.extra));
      continue;
    }
    if (e.fields.empty()) continue;
    Json out = {{"manager", e.manager},
                {"operation", e.operation},
                {"apiVersion", e.api_version},
                {"time", e.time},
                {"fieldsType", "FieldsV1"},
                {"fieldsV1", ToFieldsV1(e.fields)}};
    if (!e.subresource.empty()) out["subresource"] = e.subresource;
    list.push_back(std::move(out));
  }
  Json& meta = (*object)["metadata"];
  if (!meta.is_object()) meta = Json::object();
  if (list.empty()) {
    meta.erase("managedFields");
  } else {
    meta["managedFields"] = std::move(list);
  }
}

Entry& FindOrAdd(std::vector<Entry>& entries, const FieldManager& who, const std::string& operation,
                 const std::string& subresource, const std::string& api_version) {
  for (Entry& e : entries) {
    if (e.manager == who.manager && e.operation == operation && e.subresource == subresource) {
      EnsureParsed(e);
      e.dirty = true;
      return e;
    }
  }
  Entry e;
  e.dirty = true;
  e.manager = who.manager;
  e.operation = operation;
  e.subresource = subresource;
  e.api_version = api_version;
  e.time = who.time;
  entries.push_back(std::move(e));
  return entries.back();
}

// SSA merge of `applied` into `current`: maps merge, lists with keys merge by key (sets by
// value), everything else is replaced.
Json Merge(const ResourceType& type, const Json& current, const Json& applied,
           const std::string& schema) {
  if (current.is_object() && applied.is_object()) {
    Json out = current;
    for (const auto& [k, v] : applied.items()) {
      auto it = current.find(k);
      out[k] = it == current.end() ? v : Merge(type, *it, v, ChildSchema(schema, k));
    }
    return out;
  }
  if (current.is_array() && applied.is_array()) {
    auto keys = ListKeys(type, schema);
    if (!keys) return applied;
    Json out = current;
    for (const Json& item : applied) {
      const std::string element = ItemElement(item, *keys);
      if (element.empty()) return applied;
      bool merged = false;
      for (Json& existing : out) {
        if (ItemElement(existing, *keys) == element) {
          existing = keys->empty() ? item : Merge(type, existing, item, schema + "[]");
          merged = true;
          break;
        }
      }
      if (!merged) out.push_back(item);
    }
    return out;
  }
  return applied;
}

// Removes the field or list item at `path` from `object` (nothing when it is not there).
void RemovePath(const ResourceType& type, Json* object, const FieldPath& path) {
  std::vector<std::string> parts = Split(path);
  Json* node = object;
  std::string schema;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool last = i + 1 == parts.size();
    if (part.rfind("f:", 0) == 0) {
      if (!node->is_object()) return;
      const std::string key = part.substr(2);
      auto it = node->find(key);
      if (it == node->end()) return;
      if (last) {
        node->erase(key);
        return;
      }
      node = &*it;
      schema = ChildSchema(schema, key);
    } else if (part.rfind("k:", 0) == 0 || part.rfind("v:", 0) == 0) {
      if (!node->is_array()) return;
      auto keys = ListKeys(type, schema);
      if (!keys) return;
      size_t index = node->size();
      for (size_t j = 0; j < node->size(); ++j) {
        if (ItemElement((*node)[j], *keys) == part) index = j;
      }
      if (index == node->size()) return;
      if (last) {
        node->erase(index);
        return;
      }
      node = &(*node)[index];
      schema += "[]";
    } else {
      return;
    }
  }
}

std::string ConflictManager(const Entry& e) {
  std::string out = "\"" + e.manager + "\"";
  if (!e.subresource.empty()) out += " with subresource \"" + e.subresource + "\"";
  if (e.operation == "Update") out += " using " + e.api_version;
  return out;
}

}  // namespace

std::string DefaultFieldManager(std::string_view user_agent) {
  std::string prefix(user_agent.substr(0, user_agent.find('/')));
  return prefix.empty() ? "unknown" : prefix;
}

FieldSet ManagedFieldSet(const ResourceType& type, const Json& object,
                         std::string_view subresource) {
  FieldSet out;
  for (const auto& [path, value] : Flatten(type, object, subresource)) out.insert(path);
  return out;
}

Json ToFieldsV1(const FieldSet& set) {
  Json root = Json::object();
  for (const FieldPath& path : set) {
    Json* node = &root;
    for (const std::string& part : Split(path)) {
      Json& child = (*node)[part];
      if (!child.is_object()) child = Json::object();
      node = &child;
    }
  }
  // A member with children says so with ".".
  for (const FieldPath& path : set) {
    Json* node = &root;
    for (const std::string& part : Split(path)) node = &(*node)[part];
    if (!node->empty() && !node->contains(".")) (*node)["."] = Json::object();
  }
  return root;
}

FieldSet FromFieldsV1(const Json& fields) {
  FieldSet out;
  std::vector<std::pair<FieldPath, const Json*>> stack = {{"", &fields}};
  while (!stack.empty()) {
    auto [path, node] = stack.back();
    stack.pop_back();
    if (!node->is_object()) continue;
    for (const auto& [k, child] : node->items()) {
      if (k == ".") {
        if (!path.empty()) out.insert(path);
        continue;
      }
      const FieldPath child_path = Join(path, k);
      if (child.is_object() && child.empty()) {
        out.insert(child_path);
      } else {
        stack.emplace_back(child_path, &child);
      }
    }
  }
  return out;
}

std::string PathString(const FieldPath& path) {
  std::string out;
  for (const std::string& part : Split(path)) {
    const std::string body = part.size() > 2 ? part.substr(2) : "";
    if (part.rfind("f:", 0) == 0) {
      out += "." + body;
    } else if (part.rfind("k:", 0) == 0) {
      Json key = Json::parse(body, nullptr, false);
      std::string inner;
      if (key.is_object()) {
        for (const auto& [k, v] : key.items()) inner += (inner.empty() ? "" : ",") + k + "=" + v.dump();
      }
      out += "[" + inner + "]";
    } else if (part.rfind("v:", 0) == 0) {
      out += "[=" + body + "]";
    } else if (part.rfind("i:", 0) == 0) {
      out += "[" + body + "]";
    }
  }
  return out;
}

namespace {

// The non-pointer struct fields of the built-in kinds: the Go types always carry them (a create
// starts from the type's zero value, which serializes them as {}), so an Update never adds them
// and they get no "." of their own. Schema paths as ChildSchema builds them.
bool ZeroValueStruct(const ResourceType& type, const std::string& schema) {
  if (schema == "spec" || schema == "status") return true;
  static const std::map<std::string, std::set<std::string>> kByKind = {
      {"Deployment", {"spec.strategy", "spec.template", "spec.template.metadata",
                      "spec.template.spec"}},
      {"ReplicaSet", {"spec.template", "spec.template.metadata", "spec.template.spec"}},
      {"StatefulSet", {"spec.updateStrategy", "spec.template", "spec.template.metadata",
                       "spec.template.spec"}},
      {"DaemonSet", {"spec.updateStrategy", "spec.template", "spec.template.metadata",
                     "spec.template.spec"}},
      {"Job", {"spec.template", "spec.template.metadata", "spec.template.spec"}},
      {"CronJob", {"spec.jobTemplate", "spec.jobTemplate.metadata", "spec.jobTemplate.spec",
                   "spec.jobTemplate.spec.template", "spec.jobTemplate.spec.template.metadata",
                   "spec.jobTemplate.spec.template.spec"}},
      {"PodTemplate", {"template", "template.metadata", "template.spec"}},
      {"PersistentVolumeClaim", {"spec.resources"}},
      {"HorizontalPodAutoscaler", {"spec.scaleTargetRef"}},
      {"Event", {"involvedObject", "source", "regarding"}},
  };
  auto it = kByKind.find(type.kind);
  return it != kByKind.end() && it->second.count(schema) > 0;
}

// The schema path of a field path without list items ("f:spec\nf:strategy" -> "spec.strategy"),
// nullopt when it goes through a list item.
std::optional<std::string> StructSchema(const FieldPath& path) {
  std::string schema;
  for (const std::string& part : Split(path)) {
    if (part.rfind("f:", 0) != 0) return std::nullopt;
    schema = ChildSchema(schema, part.substr(2));
  }
  return schema;
}

// Whether an Update that adds the map, struct or list at `path` owns it with a "." of its own,
// as structured-merge-diff records every node the update added: not metadata itself (the API
// server strips it), nor the struct fields every object of a built-in kind carries.
bool OwnedWhenAdded(const ResourceType& type, const FieldPath& path) {
  if (path == "f:metadata") return false;
  if (type.is_crd) return true;
  std::optional<std::string> schema = StructSchema(path);
  return !schema || !ZeroValueStruct(type, *schema);
}

// Every path of `flat` with all its ancestors (the maps, structs and lists holding its leaves).
std::set<FieldPath> Nodes(const FlatFields& flat) {
  std::set<FieldPath> out;
  for (const auto& [path, value] : flat) {
    FieldPath p = path;
    while (out.insert(p).second) {
      const size_t nl = p.rfind(kSep);
      if (nl == std::string::npos) break;
      p = p.substr(0, nl);
    }
  }
  return out;
}

}  // namespace

void TrackUpdate(const ResourceType& type, const Json* old, Json* next, const FieldManager& who,
                 const Json& requested) {
  const bool reset = requested.is_array() && requested.size() == 1 &&
                     requested[0].is_object() && requested[0].empty();
  const FlatFields before = old ? Flatten(type, *old, who.subresource) : FlatFields();
  const FlatFields after = Flatten(type, *next, who.subresource);
  FieldSet changed;
  for (const auto& [path, value] : after) {
    auto it = before.find(path);
    if (it == before.end() || (value == nullptr) != (it->second == nullptr) ||
        (value && *value != *it->second)) {
      changed.insert(path);
    }
  }
  // As structured-merge-diff compares: every node that is new is added (maps, structs and lists
  // get a "." of their own), every node that is gone is removed from every manager.
  const std::set<FieldPath> before_nodes = Nodes(before);
  const std::set<FieldPath> after_nodes = Nodes(after);
  for (const FieldPath& p : after_nodes) {
    if (!after.count(p) && !before_nodes.count(p) && OwnedWhenAdded(type, p)) changed.insert(p);
  }
  FieldSet removed;
  for (const FieldPath& p : before_nodes) {
    if (!after_nodes.count(p)) removed.insert(p);
  }
  Json& meta = (*next)["metadata"];
  if (!meta.is_object()) meta = Json::object();
  if (changed.empty() && removed.empty()) {
    // Nothing this manager could own changed: the stored entries stay as they are.
    const Json* kept = old && !reset && old->contains("metadata") && (*old)["metadata"].is_object()
                           ? &(*old)["metadata"]
                           : nullptr;
    if (kept && kept->contains("managedFields")) {
      meta["managedFields"] = (*kept)["managedFields"];
    } else {
      meta.erase("managedFields");
    }
    return;
  }
  std::set<std::string> tops;
  for (const FieldSet* set : {&changed, &removed}) {
    for (const FieldPath& p : *set) tops.insert(p.substr(0, p.find(kSep)));
  }
  std::vector<Entry> entries;
  if (old && !reset) entries = ParseEntries(*old, &tops);
  for (Entry& e : entries) {
    if (!e.parsed) continue;
    size_t erased = 0;
    for (const FieldPath& p : changed) erased += e.fields.erase(p);
    for (const FieldPath& p : removed) erased += e.fields.erase(p);
    if (erased > 0) e.dirty = true;
  }
  if (!changed.empty()) {
    Entry& mine = FindOrAdd(entries, who, "Update", who.subresource, type.GroupVersion());
    mine.fields.insert(changed.begin(), changed.end());
    mine.time = who.time;
    mine.api_version = type.GroupVersion();
  }
  StoreEntries(std::move(entries), next);
}

ApiResult<Json> ServerSideApply(const ResourceType& type, const Json* current, const Json& applied,
                                const FieldManager& who, bool force) {
  // An apply to the status subresource owns status fields only, as an apply to the main resource
  // of a kind with a status subresource owns everything else.
  const std::string scope = type.status_subresource && who.subresource == "status" ? "status" : "";
  const FlatFields applied_flat = Flatten(type, applied, scope);
  const FlatFields current_flat = current ? Flatten(type, *current, scope) : FlatFields();
  std::vector<Entry> entries = current ? ParseEntries(*current) : std::vector<Entry>();
  // Conflicts: a field another manager owns, whose value the configuration changes.
  struct Conflicting {
    size_t entry;
    FieldPath path;
  };
  std::vector<Conflicting> conflicts;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    // Managers are told apart by name, operation and subresource, as upstream keys them: the
    // applier's own Update (`kubectl scale` writes as "kubectl" too) is another manager.
    if ((e.manager == who.manager && e.operation == "Apply" && e.subresource == scope) ||
        (type.status_subresource && (e.subresource == "status") != (scope == "status"))) {
      continue;
    }
    for (const auto& [path, value] : applied_flat) {
      if (value == nullptr || !e.fields.count(path)) continue;
      auto cur = current_flat.find(path);
      if (cur == current_flat.end() || cur->second == nullptr || *cur->second != *value) {
        conflicts.push_back({i, path});
      }
    }
  }
  if (!conflicts.empty() && !force) {
    Json causes = Json::array();
    for (const Conflicting& c : conflicts) {
      causes.push_back({{"type", "FieldManagerConflict"},
                        {"message", "conflict with " + ConflictManager(entries[c.entry])},
                        {"field", PathString(c.path)}});
    }
    std::string message;
    if (conflicts.size() == 1) {
      message = "Apply failed with 1 conflict: conflict with " +
                ConflictManager(entries[conflicts[0].entry]) + ": " +
                PathString(conflicts[0].path);
    } else {
      std::map<std::string, std::vector<std::string>> by_manager;
      for (const Conflicting& c : conflicts) {
        by_manager[ConflictManager(entries[c.entry])].push_back(PathString(c.path));
      }
      std::string lines;
      for (const auto& [manager, paths] : by_manager) {
        lines += (lines.empty() ? "" : "\n") + std::string("conflicts with ") + manager + ":";
        for (const std::string& p : paths) lines += "\n- " + p;
      }
      message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
    }
    return ApiError{409, "Conflict", std::move(message), {{"causes", std::move(causes)}}};
  }
  for (const Conflicting& c : conflicts) entries[c.entry].fields.erase(c.path);

  Json merged;
  if (scope == "status") {
    // Only the status is merged; the rest of the object stays as it is.
    merged = current ? *current : Json::object();
    if (applied.is_object() && applied.contains("status")) {
      merged["status"] = merged.contains("status")
                             ? Merge(type, merged["status"], applied["status"], "status")
                             : applied["status"];
    }
  } else {
    merged = current ? Merge(type, *current, applied, "") : applied;
  }
  FieldSet applied_set;
  for (const auto& [path, value] : applied_flat) applied_set.insert(path);
  Entry& mine = FindOrAdd(entries, who, "Apply", scope, type.GroupVersion());
  // Fields the applier gave up: removed unless another manager still owns them (deepest first,
  // so an item's fields go before the item).
  std::vector<FieldPath> dropped;
  for (const FieldPath& p : mine.fields) {
    if (applied_set.count(p)) continue;
    bool shared = false;
    for (const Entry& e : entries) {
      if (&e != &mine && e.fields.count(p)) shared = true;
    }
    if (!shared) dropped.push_back(p);
  }
  std::sort(dropped.begin(), dropped.end(),
            [](const FieldPath& a, const FieldPath& b) { return a.size() > b.size(); });
  for (const FieldPath& p : dropped) RemovePath(type, &merged, p);
  if (mine.fields != applied_set) {
    mine.fields = applied_set;
    mine.time = who.time;
  }
  mine.api_version = type.GroupVersion();
  for (Entry& e : entries) e.dirty = true;
  StoreEntries(std::move(entries), &merged);
  return merged;
}

}  // namespace trimtab::cluster
