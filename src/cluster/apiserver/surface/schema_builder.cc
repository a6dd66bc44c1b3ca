#include "cluster/apiserver/surface/schema_builder.h"

#include <nlohmann/json.hpp>

namespace trimtab::cluster::schema {

Json String() { return Json{{"type", "string"}}; }
Json Int32() { return Json{{"type", "integer"}, {"format", "int32"}}; }
Json Int64() { return Json{{"type", "integer"}, {"format", "int64"}}; }
Json Number() { return Json{{"type", "number"}, {"format", "double"}}; }
Json Boolean() { return Json{{"type", "boolean"}}; }
Json Timestamp() { return Json{{"type", "string"}, {"format", "date-time"}}; }

Json IntOrString() {
  return Json{{"x-kubernetes-int-or-string", true},
              {"anyOf", Json::array({Json{{"type", "integer"}}, Json{{"type", "string"}}})}};
}

Json Enum(std::vector<std::string> values) {
  return Json{{"type", "string"}, {"enum", values}};
}

Json Array(Json items) { return Json{{"type", "array"}, {"items", std::move(items)}}; }

Json Map(Json values) {
  return Json{{"type", "object"}, {"additionalProperties", std::move(values)}};
}

Json StringMap() { return Map(String()); }

Json Object(std::vector<Property> properties, std::vector<std::string> required) {
  Json out = {{"type", "object"}};
  if (!properties.empty()) {
    Json props = Json::object();
    for (auto& [name, s] : properties) props[name] = std::move(s);
    out["properties"] = std::move(props);
  }
  if (!required.empty()) out["required"] = required;
  return out;
}

Json OpenObject(std::vector<Property> properties) {
  Json out = Object(std::move(properties));
  out["x-kubernetes-preserve-unknown-fields"] = true;
  return out;
}

Json Describe(Json schema, std::string description) {
  schema["description"] = std::move(description);
  return schema;
}

Json ObjectMeta() {
  Json owner_ref = Object({{"apiVersion", String()},
                           {"kind", String()},
                           {"name", String()},
                           {"uid", String()},
                           {"controller", Boolean()},
                           {"blockOwnerDeletion", Boolean()}},
                          {"apiVersion", "kind", "name", "uid"});
  owner_ref["x-kubernetes-map-type"] = "atomic";
  Json owner_refs = Array(owner_ref);
  owner_refs["x-kubernetes-patch-merge-key"] = "uid";
  owner_refs["x-kubernetes-patch-strategy"] = "merge";
  Json finalizers = Array(String());
  finalizers["x-kubernetes-patch-strategy"] = "merge";
  finalizers["x-kubernetes-list-type"] = "set";
  Json meta = Object({
      {"name", String()},
      {"generateName", String()},
      {"namespace", String()},
      {"selfLink", String()},
      {"uid", String()},
      {"resourceVersion", String()},
      {"generation", Int64()},
      {"creationTimestamp", Timestamp()},
      {"deletionTimestamp", Timestamp()},
      {"deletionGracePeriodSeconds", Int64()},
      {"labels", StringMap()},
      {"annotations", StringMap()},
      {"ownerReferences", owner_refs},
      {"finalizers", finalizers},
      {"managedFields", Array(OpenObject())},
  });
  return Describe(std::move(meta),
                  "ObjectMeta is metadata that all persisted resources must have, which includes "
                  "all objects users must create.");
}

Json Kind(std::vector<Property> properties, std::string description) {
  properties.insert(properties.begin(), {{"apiVersion", String()},
                                         {"kind", String()},
                                         {"metadata", ObjectMeta()}});
  return Describe(Object(std::move(properties)), std::move(description));
}

}  // namespace trimtab::cluster::schema
