#include "cluster/apiserver/storage/object_meta.h"

#include <cctype>
#include <mutex>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

// events.k8s.io/v1 Events are stored as core/v1 Events (event_conversion.h).
std::string StorageGroup(const ResourceType& type) {
  if (type.group.empty() || (type.group == "events.k8s.io" && type.plural == "events")) {
    return "core";
  }
  return type.group;
}

std::mt19937_64& Rng() {
  static std::mt19937_64 rng{std::random_device{}()};
  return rng;
}
std::mutex& RngMutex() {
  static std::mutex mu;
  return mu;
}

bool IsAlnumLower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

std::string ValidateDns1123Label(std::string_view name) {
  if (name.size() > 63) return "must be no more than 63 characters";
  bool ok = !name.empty() && IsAlnumLower(name.front()) && IsAlnumLower(name.back());
  for (char c : name) ok = ok && (IsAlnumLower(c) || c == '-');
  if (!ok) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
           "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
           "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  }
  return "";
}

std::string ValidateDns1123Subdomain(std::string_view name) {
  if (name.size() > 253) return "must be no more than 253 characters";
  bool ok = !name.empty();
  size_t start = 0;
  while (ok && start <= name.size()) {
    size_t dot = name.find('.', start);
    std::string_view part = name.substr(start, dot == std::string_view::npos ? name.npos : dot - start);
    ok = !part.empty() && IsAlnumLower(part.front()) && IsAlnumLower(part.back());
    for (char c : part) ok = ok && (IsAlnumLower(c) || c == '-');
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!ok) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  return "";
}

const Json* Path(const Json& object, std::initializer_list<const char*> path) {
  const Json* cur = &object;
  for (const char* p : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(p);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string ScalarString(const Json* v) {
  if (!v || v->is_null()) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
  if (v->is_number()) return v->dump();
  return "";
}

// Per-kind selectable fields beyond metadata.name / metadata.namespace:
// field name -> path in the object.
std::vector<std::pair<std::string, std::vector<const char*>>> ExtraFields(const ResourceType& t) {
  if (t.group.empty() && t.plural == "pods") {
    return {{"spec.nodeName", {"spec", "nodeName"}},
            {"spec.restartPolicy", {"spec", "restartPolicy"}},
            {"spec.schedulerName", {"spec", "schedulerName"}},
            {"spec.serviceAccountName", {"spec", "serviceAccountName"}},
            {"spec.hostNetwork", {"spec", "hostNetwork"}},
            {"status.phase", {"status", "phase"}},
            {"status.podIP", {"status", "podIP"}},
            {"status.nominatedNodeName", {"status", "nominatedNodeName"}}};
  }
  if (t.group == "apps" && t.plural == "replicasets") {
    return {{"status.replicas", {"status", "replicas"}}};
  }
  if (t.group.empty() && t.plural == "events") {
    return {{"involvedObject.kind", {"involvedObject", "kind"}},
            {"involvedObject.namespace", {"involvedObject", "namespace"}},
            {"involvedObject.name", {"involvedObject", "name"}},
            {"involvedObject.uid", {"involvedObject", "uid"}},
            {"involvedObject.apiVersion", {"involvedObject", "apiVersion"}},
            {"involvedObject.resourceVersion", {"involvedObject", "resourceVersion"}},
            {"involvedObject.fieldPath", {"involvedObject", "fieldPath"}},
            {"reason", {"reason"}},
            {"reportingComponent", {"reportingComponent"}},
            {"source", {"source", "component"}},
            {"type", {"type"}}};
  }
  if (t.group == "events.k8s.io" && t.plural == "events") {
    return {{"regarding.kind", {"regarding", "kind"}},
            {"regarding.namespace", {"regarding", "namespace"}},
            {"regarding.name", {"regarding", "name"}},
            {"regarding.uid", {"regarding", "uid"}},
            {"reason", {"reason"}},
            {"reportingController", {"reportingController"}},
            {"type", {"type"}}};
  }
  if (t.group.empty() && t.plural == "secrets") return {{"type", {"type"}}};
  if (t.group.empty() && t.plural == "namespaces") return {{"status.phase", {"status", "phase"}}};
  if (t.group.empty() && t.plural == "nodes") {
    return {{"spec.unschedulable", {"spec", "unschedulable"}}};
  }
  return {};
}

}  // namespace

std::string ObjectKey(const ResourceType& type, std::string_view ns, std::string_view name) {
  std::string key = std::string(kRegistryPrefix) + StorageGroup(type) + "/" + type.plural + "/";
  if (type.namespaced) key += std::string(ns) + "/";
  return key + std::string(name);
}

std::string CollectionPrefix(const ResourceType& type, std::string_view ns) {
  std::string key = std::string(kRegistryPrefix) + StorageGroup(type) + "/" + type.plural + "/";
  if (type.namespaced && !ns.empty()) key += std::string(ns) + "/";
  return key;
}

std::optional<ParsedKey> ParseObjectKey(std::string_view key) {
  if (key.rfind(kRegistryPrefix, 0) != 0) return std::nullopt;
  key.remove_prefix(kRegistryPrefix.size());
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t slash = key.find('/', start);
    parts.emplace_back(key.substr(start, slash == std::string_view::npos ? key.npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  ParsedKey out;
  if (parts.size() == 3) {
    out.name = parts[2];
  } else if (parts.size() == 4) {
    out.ns = parts[2];
    out.name = parts[3];
  } else {
    return std::nullopt;
  }
  out.group = parts[0] == "core" ? "" : parts[0];
  out.plural = parts[1];
  return out;
}

std::string NewUid() {
  uint64_t hi, lo;
  {
    std::lock_guard<std::mutex> lock(RngMutex());
    hi = Rng()();
    lo = Rng()();
  }
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xffff),
                static_cast<unsigned>(hi & 0xffff), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

std::string RandomNameSuffix(int n) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  std::lock_guard<std::mutex> lock(RngMutex());
  for (int i = 0; i < n; ++i) out.push_back(kAlphabet[Rng()() % kAlphabet.size()]);
  return out;
}

std::string ValidateObjectName(const ResourceType& type, std::string_view name) {
  if (name.empty()) return "name or generateName is required";
  // Custom resources and RBAC objects (system:discovery) only need a valid path segment.
  if (type.is_crd || type.group == "rbac.authorization.k8s.io") {
    if (name == "." || name == "..") return "may not be '.' or '..'";
    if (name.find('/') != std::string_view::npos || name.find('%') != std::string_view::npos) {
      return "may not contain '/' or '%'";
    }
    return "";
  }
  if (type.group.empty() && type.plural == "namespaces") return ValidateDns1123Label(name);
  return ValidateDns1123Subdomain(name);
}

bool HasGeneration(const ResourceType& type) {
  if (type.is_crd) return true;
  static const std::set<std::string, std::less<>> kGroups = {
      "apps", "batch", "apiextensions.k8s.io", "autoscaling", "policy", "networking.k8s.io",
      "scheduling.k8s.io"};
  if (type.group == "scheduling.k8s.io") return false;  // PriorityClass has none
  return kGroups.count(type.group) > 0;
}

bool SpecChanged(const Json& before, const Json& after) {
  auto strip = [](const Json& o) {
    Json c = o;
    if (c.is_object()) {
      c.erase("metadata");
      c.erase("status");
      c.erase("apiVersion");
      c.erase("kind");
    }
    return c;
  };
  return strip(before) != strip(after);
}

std::string MetaString(const Json& object, std::string_view field) {
  const Json* meta = Path(object, {"metadata"});
  if (!meta || !meta->is_object()) return "";
  auto it = meta->find(std::string(field));
  if (it == meta->end() || !it->is_string()) return "";
  return it->get<std::string>();
}

LabelMap Labels(const Json& object) {
  LabelMap out;
  const Json* labels = Path(object, {"metadata", "labels"});
  if (!labels || !labels->is_object()) return out;
  for (auto it = labels->begin(); it != labels->end(); ++it) {
    if (it.value().is_string()) out.emplace(it.key(), it.value().get<std::string>());
  }
  return out;
}

bool HasFinalizer(const Json& object, std::string_view finalizer) {
  const Json* f = Path(object, {"metadata", "finalizers"});
  if (!f || !f->is_array()) return false;
  for (const auto& v : *f) {
    if (v.is_string() && v.get<std::string>() == finalizer) return true;
  }
  return false;
}

bool AddFinalizer(Json* object, std::string_view finalizer) {
  if (HasFinalizer(*object, finalizer)) return false;
  Json& f = (*object)["metadata"]["finalizers"];
  if (!f.is_array()) f = Json::array();
  f.push_back(std::string(finalizer));
  return true;
}

bool RemoveFinalizer(Json* object, std::string_view finalizer) {
  if (!HasFinalizer(*object, finalizer)) return false;
  Json& f = (*object)["metadata"]["finalizers"];
  Json kept = Json::array();
  for (auto& v : f) {
    if (!(v.is_string() && v.get<std::string>() == finalizer)) kept.push_back(v);
  }
  if (kept.empty()) {
    (*object)["metadata"].erase("finalizers");
  } else {
    f = std::move(kept);
  }
  return true;
}

bool HasFinalizers(const Json& object) {
  const Json* f = Path(object, {"metadata", "finalizers"});
  return f && f->is_array() && !f->empty();
}

bool IsDeleting(const Json& object) {
  const Json* d = Path(object, {"metadata", "deletionTimestamp"});
  return d && d->is_string();
}

FieldMap ObjectFields(const ResourceType& type, const Json& object) {
  FieldMap out;
  out["metadata.name"] = MetaString(object, "name");
  out["metadata.namespace"] = MetaString(object, "namespace");
  for (const auto& [field, path] : ExtraFields(type)) {
    const Json* cur = &object;
    for (const char* p : path) {
      if (!cur || !cur->is_object()) {
        cur = nullptr;
        break;
      }
      auto it = cur->find(p);
      cur = it == cur->end() ? nullptr : &*it;
    }
    out[field] = ScalarString(cur);
  }
  return out;
}

ApiResult<FieldSelector> ParseFieldSelectorFor(const ResourceType& type, std::string_view text) {
  auto parsed = FieldSelector::Parse(text);
  if (!parsed.ok()) return BadRequest(parsed.status().message());
  auto extras = ExtraFields(type);
  for (const auto& req : parsed->requirements()) {
    bool known = req.field == "metadata.name" || req.field == "metadata.namespace";
    for (const auto& [field, path] : extras) known = known || field == req.field;
    if (!known) return BadRequest("field label not supported: " + req.field);
  }
  return *parsed;
}

std::string LabelSelectorString(const Json& selector) {
  if (selector.is_string()) return selector.get<std::string>();
  if (!selector.is_object()) return "";
  auto parsed = LabelSelector::FromJson(selector);
  if (!parsed.ok() || parsed->IsNothing()) return "";
  return parsed->String();
}

}  // namespace trimtab::cluster
