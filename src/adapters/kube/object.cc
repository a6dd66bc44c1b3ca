#include "adapters/kube/object.h"

#include <nlohmann/json.hpp>

namespace trimtab::kube {
namespace {

std::string MetaString(const Json& object, const char* field) {
  if (!object.is_object()) return "";
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  const auto it = meta->find(field);
  if (it == meta->end() || !it->is_string()) return "";
  return it->get<std::string>();
}

std::string GroupVersionPrefix(const GroupVersionResource& gvr) {
  return gvr.group.empty() ? "/api/" + gvr.version : "/apis/" + gvr.group + "/" + gvr.version;
}

}  // namespace

GroupVersionResource LeasesResource() {
  return {.group = "coordination.k8s.io", .version = "v1", .resource = "leases"};
}
GroupVersionResource ConfigMapsResource() { return {.version = "v1", .resource = "configmaps"}; }
GroupVersionResource PodsResource() { return {.version = "v1", .resource = "pods"}; }
GroupVersionResource EventsResource() { return {.version = "v1", .resource = "events"}; }

std::string CollectionPath(const GroupVersionResource& gvr, std::string_view ns) {
  std::string path = GroupVersionPrefix(gvr);
  if (gvr.namespaced && !ns.empty()) path += "/namespaces/" + std::string(ns);
  return path + "/" + gvr.resource;
}

std::string ItemPath(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                     std::string_view subresource) {
  std::string path = CollectionPath(gvr, ns) + "/" + std::string(name);
  if (!subresource.empty()) path += "/" + std::string(subresource);
  return path;
}

std::string ObjectName(const Json& object) { return MetaString(object, "name"); }
std::string ObjectNamespace(const Json& object) { return MetaString(object, "namespace"); }
std::string ObjectResourceVersion(const Json& object) {
  return MetaString(object, "resourceVersion");
}
std::string ObjectUid(const Json& object) { return MetaString(object, "uid"); }

LabelMap ObjectLabels(const Json& object) {
  LabelMap labels;
  if (!object.is_object()) return labels;
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return labels;
  const auto it = meta->find("labels");
  if (it == meta->end() || !it->is_object()) return labels;
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) labels.emplace(k, v.get<std::string>());
  }
  return labels;
}

std::string ObjectKey(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  return std::string(ns) + "/" + std::string(name);
}

std::string ObjectKey(const Json& object) {
  return ObjectKey(ObjectNamespace(object), ObjectName(object));
}

std::pair<std::string, std::string> SplitObjectKey(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

FieldMap SelectableFields(const Json& object, const FieldSelector& selector) {
  FieldMap fields;
  for (const FieldRequirement& r : selector.requirements()) {
    const Json* node = &object;
    std::string_view path = r.field;
    while (node != nullptr && !path.empty()) {
      const size_t dot = path.find('.');
      const std::string part(path.substr(0, dot));
      path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
      if (!node->is_object()) {
        node = nullptr;
        break;
      }
      const auto it = node->find(part);
      node = it == node->end() ? nullptr : &*it;
    }
    if (node == nullptr || node->is_null() || node->is_structured()) continue;
    fields[r.field] = node->is_string() ? node->get<std::string>() : node->dump();
  }
  return fields;
}

}  // namespace trimtab::kube
