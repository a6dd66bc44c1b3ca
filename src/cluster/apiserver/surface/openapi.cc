#include "cluster/apiserver/surface/openapi.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_schemas.h"
#include "cluster/apiserver/surface/schema_builder.h"

namespace trimtab::cluster {
namespace {

constexpr std::string_view kMetaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1.";

std::string Ref(std::string_view definition) {
  return "#/components/schemas/" + std::string(definition);
}

Json RefSchema(std::string_view definition) { return {{"$ref", Ref(definition)}}; }

std::string MetaDef(std::string_view name) { return std::string(kMetaPrefix) + std::string(name); }

Json Gvk(const std::string& group, const std::string& version, const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

// "flink.apache.org" -> "FlinkApacheOrg", "events.k8s.io" -> "Events", "" -> "Core".
std::string GroupCamel(const std::string& group) {
  if (group.empty()) return "Core";
  std::string g = group;
  const std::string k8s = ".k8s.io";
  if (g.size() > k8s.size() && g.ends_with(k8s)) g.resize(g.size() - k8s.size());
  std::string out;
  bool upper = true;
  for (char c : g) {
    if (c == '.' || c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string Capitalize(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

Json QueryParam(const std::string& name, const std::string& type, const std::string& description) {
  return {{"name", name},
          {"in", "query"},
          {"description", description},
          {"schema", {{"type", type}, {"uniqueItems", true}}}};
}

Json PathParam(const std::string& name, const std::string& description) {
  return {{"name", name},
          {"in", "path"},
          {"description", description},
          {"required", true},
          {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

std::vector<Json> WriteParams(bool patch) {
  std::vector<Json> out = {
      QueryParam("dryRun", "string",
                 "When present, indicates that modifications should not be persisted."),
      QueryParam("fieldManager", "string",
                 "fieldManager is a name associated with the actor or entity that is making "
                 "these changes."),
      QueryParam("fieldValidation", "string",
                 "fieldValidation instructs the server on how to handle objects in the request "
                 "containing unknown or duplicate fields. Valid values are: Ignore, Warn, "
                 "Strict."),
  };
  if (patch) {
    out.push_back(QueryParam("force", "boolean",
                             "Force is going to \"force\" Apply requests. It means user will "
                             "re-acquire conflicting fields owned by other people."));
  }
  return out;
}

std::vector<Json> ListParams() {
  std::vector<Json> out;
  for (const char* name : {"allowWatchBookmarks", "watch", "sendInitialEvents"}) {
    out.push_back(QueryParam(name, "boolean", name));
  }
  for (const char* name : {"continue", "fieldSelector", "labelSelector", "resourceVersion",
                           "resourceVersionMatch"}) {
    out.push_back(QueryParam(name, "string", name));
  }
  for (const char* name : {"limit", "timeoutSeconds"}) {
    out.push_back(QueryParam(name, "integer", name));
  }
  return out;
}

std::vector<Json> DeleteParams() {
  return {QueryParam("dryRun", "string", "dryRun"),
          QueryParam("gracePeriodSeconds", "integer", "gracePeriodSeconds"),
          QueryParam("propagationPolicy", "string", "propagationPolicy"),
          QueryParam("orphanDependents", "boolean", "orphanDependents")};
}

Json JsonResponse(std::string_view definition, const std::string& code = "200") {
  Json media = {{"schema", RefSchema(definition)}};
  return {{code,
           {{"description", code == "201" ? "Created" : "OK"},
            {"content", {{"application/json", media}, {"application/yaml", media}}}}}};
}

struct OpSpec {
  std::string verb;     // get, put, post, patch, delete
  std::string action;   // x-kubernetes-action: get, list, put, post, patch, delete, ...
  std::string op_id;    // operationId
  Json gvk;
  std::string response;  // definition name
  std::vector<Json> params;
  std::string request;  // body definition for put/post ("" = none)
};

Json Operation(const OpSpec& s, const std::string& tag) {
  Json op = {{"tags", Json::array({tag})},
             {"description", s.action + " " + s.gvk.value("kind", "")},
             {"operationId", s.op_id},
             {"parameters", s.params},
             {"responses", JsonResponse(s.response)},
             {"x-kubernetes-action", s.action},
             {"x-kubernetes-group-version-kind", s.gvk}};
  if (s.verb == "patch") {
    Json body = {{"schema", RefSchema(MetaDef("Patch"))}};
    op["requestBody"] = {{"required", true},
                         {"content",
                          {{"application/json-patch+json", body},
                           {"application/merge-patch+json", body},
                           {"application/apply-patch+yaml", body}}}};
    op["responses"].update(JsonResponse(s.response, "201"));
  } else if (!s.request.empty()) {
    op["requestBody"] = {{"required", true},
                         {"content", {{"*/*", {{"schema", RefSchema(s.request)}}}}}};
    op["responses"].update(JsonResponse(s.response, "201"));
  }
  return op;
}

bool HasVerb(const ResourceType& t, std::string_view verb) {
  for (const std::string& v : t.verbs) {
    if (v == verb) return true;
  }
  return false;
}

// Adds the paths of one resource type to `paths`.
void AddResourcePaths(const ResourceType& t, Json& paths) {
  const std::string prefix = t.group.empty() ? "/api/" + t.version
                                             : "/apis/" + t.group + "/" + t.version;
  const std::string tag = GroupCamel(t.group) + "_" + t.version;
  const std::string id_gv = GroupCamel(t.group) + Capitalize(t.version);
  const std::string scope = t.namespaced ? "Namespaced" : "";
  const std::string def = OpenApiDefinitionName(t);
  const std::string list_def = def.substr(0, def.size() - t.kind.size()) + t.list_kind;
  const Json gvk = Gvk(t.group, t.version, t.kind);
  const std::string collection =
      prefix + (t.namespaced ? "/namespaces/{namespace}/" : "/") + t.plural;
  const std::string item = collection + "/{name}";

  Json ns_param = PathParam("namespace", "object name and auth scope, such as for teams and projects");
  Json name_param = PathParam("name", "name of the " + t.kind);
  auto path_params = [&](bool with_name) {
    Json p = Json::array();
    if (with_name) p.push_back(name_param);
    if (t.namespaced) p.push_back(ns_param);
    p.push_back(QueryParam("pretty", "string", "If 'true', then the output is pretty printed."));
    return p;
  };

  Json coll = {{"parameters", path_params(false)}};
  if (HasVerb(t, "list")) {
    coll["get"] = Operation({"get", "list", "list" + id_gv + scope + t.kind, gvk, list_def,
                             ListParams(), ""}, tag);
  }
  if (HasVerb(t, "create")) {
    coll["post"] = Operation({"post", "post", "create" + id_gv + scope + t.kind, gvk, def,
                              WriteParams(false), def}, tag);
  }
  if (HasVerb(t, "deletecollection")) {
    coll["delete"] = Operation({"delete", "deletecollection",
                                "deletecollection" + id_gv + scope + t.kind, gvk,
                                MetaDef("Status"), DeleteParams(), ""}, tag);
  }
  paths[collection] = std::move(coll);

  Json one = {{"parameters", path_params(true)}};
  one["get"] = Operation({"get", "get", "read" + id_gv + scope + t.kind, gvk, def, {}, ""}, tag);
  if (HasVerb(t, "update")) {
    one["put"] = Operation({"put", "put", "replace" + id_gv + scope + t.kind, gvk, def,
                            WriteParams(false), def}, tag);
  }
  if (HasVerb(t, "patch")) {
    one["patch"] = Operation({"patch", "patch", "patch" + id_gv + scope + t.kind, gvk, def,
                              WriteParams(true), ""}, tag);
  }
  if (HasVerb(t, "delete")) {
    one["delete"] = Operation({"delete", "delete", "delete" + id_gv + scope + t.kind, gvk, def,
                               DeleteParams(), ""}, tag);
  }
  paths[item] = std::move(one);

  if (t.namespaced && HasVerb(t, "list")) {
    Json all = {{"parameters", Json::array({QueryParam("pretty", "string", "pretty")})}};
    all["get"] = Operation({"get", "list", "list" + id_gv + t.kind + "ForAllNamespaces", gvk,
                            list_def, ListParams(), ""}, tag);
    paths[prefix + "/" + t.plural] = std::move(all);
  }

  auto add_sub = [&](const std::string& sub, const Json& sub_gvk, const std::string& sub_def) {
    Json p = {{"parameters", path_params(true)}};
    const std::string suffix = Capitalize(sub);
    p["get"] = Operation({"get", "get", "read" + id_gv + scope + t.kind + suffix, sub_gvk,
                          sub_def, {}, ""}, tag);
    p["put"] = Operation({"put", "put", "replace" + id_gv + scope + t.kind + suffix, sub_gvk,
                          sub_def, WriteParams(false), sub_def}, tag);
    p["patch"] = Operation({"patch", "patch", "patch" + id_gv + scope + t.kind + suffix, sub_gvk,
                            sub_def, WriteParams(true), ""}, tag);
    paths[item + "/" + sub] = std::move(p);
  };
  if (t.status_subresource) add_sub("status", gvk, def);
  if (t.scale_subresource) {
    add_sub("scale", Gvk("autoscaling", "v1", "Scale"), "io.k8s.api.autoscaling.v1.Scale");
  }
  if (t.group.empty() && t.plural == "pods") {
    Json p = {{"parameters", path_params(true)}};
    Json op = Operation({"get", "get", "read" + id_gv + scope + "PodLog", gvk, "", {}, ""}, tag);
    op["responses"] = {{"200", {{"description", "OK"},
                                {"content", {{"text/plain", {{"schema", {{"type", "string"}}}}}}}}}};
    for (const char* q : {"container", "follow", "previous", "sinceSeconds", "tailLines",
                          "timestamps", "limitBytes"}) {
      op["parameters"].push_back(QueryParam(q, "string", q));
    }
    p["get"] = std::move(op);
    paths[item + "/log"] = std::move(p);
  }
}

Json WithGvk(Json schema, const Json& gvk) {
  schema["x-kubernetes-group-version-kind"] = Json::array({gvk});
  return schema;
}

// The kind's schema as published: metadata refers to ObjectMeta.
Json PublishedSchema(const ResourceType& t) {
  Json s = t.schema.is_object() ? t.schema : Json{{"type", "object"}};
  if (!s.contains("type")) s["type"] = "object";
  s["properties"]["apiVersion"] = schema::Describe(schema::String(), "APIVersion defines the versioned schema of this representation of an object.");
  s["properties"]["kind"] = schema::Describe(schema::String(), "Kind is a string value representing the REST resource this object represents.");
  s["properties"]["metadata"] = {{"allOf", Json::array({RefSchema(MetaDef("ObjectMeta"))})},
                                 {"default", Json::object()},
                                 {"description", "Standard object's metadata."}};
  return WithGvk(std::move(s), Gvk(t.group, t.version, t.kind));
}

void AddMetaSchemas(Json& schemas) {
  schemas[MetaDef("ObjectMeta")] = schema::ObjectMeta();
  schemas[MetaDef("ListMeta")] = schema::Object({{"continue", schema::String()},
                                                 {"remainingItemCount", schema::Int64()},
                                                 {"resourceVersion", schema::String()},
                                                 {"selfLink", schema::String()}});
  schemas[MetaDef("Patch")] = schema::Describe(
      Json{{"type", "object"}},
      "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.");
  Json status = schema::Kind({{"code", schema::Int32()},
                              {"details", schema::OpenObject()},
                              {"message", schema::String()},
                              {"reason", schema::String()},
                              {"status", schema::String()}},
                             "Status is a return value for calls that don't return other objects.");
  status["properties"]["metadata"] = RefSchema(MetaDef("ListMeta"));
  schemas[MetaDef("Status")] = WithGvk(std::move(status), Gvk("", "v1", "Status"));
}

Json GroupVersionDocument(const std::vector<ResourceType>& types) {
  Json paths = Json::object();
  Json schemas = Json::object();
  AddMetaSchemas(schemas);
  for (const ResourceType& t : types) {
    AddResourcePaths(t, paths);
    const std::string def = OpenApiDefinitionName(t);
    schemas[def] = PublishedSchema(t);
    Json list = schema::Object({{"apiVersion", schema::String()},
                                {"items", schema::Array(RefSchema(def))},
                                {"kind", schema::String()},
                                {"metadata", RefSchema(MetaDef("ListMeta"))}},
                               {"items"});
    schemas[def.substr(0, def.size() - t.kind.size()) + t.list_kind] =
        WithGvk(std::move(list), Gvk(t.group, t.version, t.list_kind));
    if (t.scale_subresource) {
      schemas["io.k8s.api.autoscaling.v1.Scale"] =
          WithGvk(builtin_schemas::Scale(), Gvk("autoscaling", "v1", "Scale"));
      schemas["io.k8s.api.autoscaling.v1.Scale"]["properties"]["metadata"] =
          RefSchema(MetaDef("ObjectMeta"));
    }
  }
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
          {"paths", std::move(paths)},
          {"components", {{"schemas", std::move(schemas)}}}};
}

// "api/v1" or "apis/<g>/<v>" -> served types of that group-version.
std::map<std::string, std::vector<ResourceType>> TypesByGroupVersion(
    const ResourceRegistry& registry) {
  std::map<std::string, std::vector<ResourceType>> out;
  for (ResourceType& t : registry.List()) {
    if (!t.served || t.aggregated) continue;
    std::string key = t.group.empty() ? "api/" + t.version : "apis/" + t.group + "/" + t.version;
    out[key].push_back(std::move(t));
  }
  return out;
}

std::string ContentHash(const std::string& text) {
  // Two independent FNV-1a 64-bit hashes: a cache key for clients, not a security boundary.
  uint64_t h1 = 1469598103934665603ULL, h2 = 1099511628211ULL * 31;
  for (unsigned char c : text) {
    h1 = (h1 ^ c) * 1099511628211ULL;
    h2 = (h2 ^ c) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
  }
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llX%016llX", static_cast<unsigned long long>(h1),
                static_cast<unsigned long long>(h2));
  return buf;
}

}  // namespace

std::string OpenApiDefinitionName(const ResourceType& t) {
  if (!t.is_crd) {
    if (t.group == "apiextensions.k8s.io") {
      return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions." + t.version + "." + t.kind;
    }
    std::string package = t.group.empty() ? "core" : t.group.substr(0, t.group.find('.'));
    return "io.k8s.api." + package + "." + t.version + "." + t.kind;
  }
  std::string reversed;
  std::string_view g = t.group;
  while (!g.empty()) {
    size_t dot = g.rfind('.');
    std::string_view part = dot == std::string_view::npos ? g : g.substr(dot + 1);
    if (!reversed.empty()) reversed += '.';
    reversed += part;
    g = dot == std::string_view::npos ? std::string_view() : g.substr(0, dot);
  }
  return reversed + "." + t.version + "." + t.kind;
}

std::optional<std::pair<std::string, std::string>> ServeOpenApi(const ResourceRegistry& registry,
                                                                std::string_view raw_path) {
  std::string path(raw_path.substr(0, raw_path.find('?')));
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const std::string root = "/openapi/v3";
  if (path == root) {
    Json index = Json::object();
    for (const auto& [key, types] : TypesByGroupVersion(registry)) {
      std::string hash = ContentHash(GroupVersionDocument(types).dump());
      index[key] = {{"serverRelativeURL", root + "/" + key + "?hash=" + hash}};
    }
    return std::make_pair(std::string("application/json"), Json{{"paths", index}}.dump());
  }
  if (!path.starts_with(root + "/")) return std::nullopt;
  std::string key = path.substr(root.size() + 1);
  auto by_gv = TypesByGroupVersion(registry);
  auto it = by_gv.find(key);
  if (it == by_gv.end()) return std::nullopt;
  return std::make_pair(std::string("application/json"), GroupVersionDocument(it->second).dump());
}

namespace {

// Protocol buffers wire format, just what the v2 document needs: length-delimited fields.
void AppendVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void AppendField(std::string* out, int field, std::string_view bytes) {
  AppendVarint(out, (static_cast<uint64_t>(field) << 3) | 2);  // wire type 2: length-delimited
  AppendVarint(out, bytes.size());
  out->append(bytes);
}

}  // namespace

std::pair<std::string, std::string> ServeOpenApiV2(std::string_view accept,
                                                   const std::string& version) {
  const std::string title = "Kubernetes (trimtab local)";
  if (accept.find("protobuf") != std::string_view::npos) {
    // openapi.v2.Document: swagger = 1, info = 2 (Info: title = 1, version = 2), paths = 8,
    // definitions = 9 (both empty messages).
    std::string info;
    AppendField(&info, 1, title);
    AppendField(&info, 2, version);
    std::string doc;
    AppendField(&doc, 1, "2.0");
    AppendField(&doc, 2, info);
    AppendField(&doc, 8, "");
    AppendField(&doc, 9, "");
    // The response type is spelled with a dot: Go's mime parser rejects the "@" of the Accept form.
    return {"application/com.github.proto-openapi.spec.v2.v1.0+protobuf", std::move(doc)};
  }
  Json doc = {{"swagger", "2.0"},
              {"info", {{"title", title}, {"version", version}}},
              {"paths", Json::object()},
              {"definitions", Json::object()}};
  return {"application/json", doc.dump()};
}

}  // namespace trimtab::cluster
