#include "cluster/apiserver/auth/rbac_types.h"

#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/schema_builder.h"

namespace trimtab::cluster::auth {
namespace {

constexpr char kGroup[] = "rbac.authorization.k8s.io";

using schema::Array;
using schema::Kind;
using schema::Object;
using schema::OpenObject;
using schema::String;

constexpr char kCreatedAtDescription[] =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created.";

PrinterColumn Col(std::string name, std::string type, int32_t priority, std::string json_path,
                  std::string description) {
  PrinterColumn c;
  c.name = std::move(name);
  c.type = std::move(type);
  c.priority = priority;
  c.json_path = std::move(json_path);
  c.description = std::move(description);
  return c;
}

ResourceType Base(std::string group, std::string kind, std::string plural, std::string singular,
                  bool namespaced) {
  ResourceType t;
  t.group = std::move(group);
  t.version = "v1";
  t.kind = kind;
  t.list_kind = kind + "List";
  t.plural = std::move(plural);
  t.singular = std::move(singular);
  t.namespaced = namespaced;
  t.merge_keys["metadata.ownerReferences"] = "uid";
  t.merge_keys["metadata.finalizers"] = "";
  return t;
}

Json PolicyRuleSchema() {
  return Object({{"verbs", Array(String())},
                 {"apiGroups", Array(String())},
                 {"resources", Array(String())},
                 {"resourceNames", Array(String())},
                 {"nonResourceURLs", Array(String())}});
}

Json SubjectSchema() {
  return Object({{"kind", String()},
                 {"apiGroup", String()},
                 {"name", String()},
                 {"namespace", String()}});
}

Json RoleRefSchema() {
  return Object({{"apiGroup", String()}, {"kind", String()}, {"name", String()}});
}

ResourceType Roles(bool cluster) {
  ResourceType t = cluster ? Base(kGroup, "ClusterRole", "clusterroles",
                                  "clusterrole", false)
                           : Base(kGroup, "Role", "roles", "role", true);
  std::vector<schema::Property> props = {{"rules", Array(PolicyRuleSchema())}};
  if (cluster) {
    props.push_back(
        {"aggregationRule", Object({{"clusterRoleSelectors", Array(OpenObject())}})});
  }
  t.schema = Kind(std::move(props),
                  cluster ? "ClusterRole is a cluster level, logical grouping of PolicyRules "
                            "that can be referenced as a unit by a RoleBinding or "
                            "ClusterRoleBinding."
                          : "Role is a namespaced, logical grouping of PolicyRules that can be "
                            "referenced as a unit by a RoleBinding.");
  t.printer_columns = {Col("Created At", "date", 0, ".metadata.creationTimestamp",
                           kCreatedAtDescription)};
  return t;
}

ResourceType Bindings(bool cluster) {
  ResourceType t = cluster ? Base(kGroup, "ClusterRoleBinding",
                                  "clusterrolebindings", "clusterrolebinding", false)
                           : Base(kGroup, "RoleBinding", "rolebindings",
                                  "rolebinding", true);
  t.schema = Kind({{"subjects", Array(SubjectSchema())}, {"roleRef", RoleRefSchema()}},
                  cluster ? "ClusterRoleBinding references a ClusterRole, but not contain it."
                          : "RoleBinding references a role, but does not contain it.");
  const std::string what = cluster ? "clusterRoleBinding" : "roleBinding";
  t.printer_columns = {
      Col("Role", "string", 0, "",
          "RoleRef can only reference a " + std::string(cluster ? "ClusterRole" : "Role") +
              " in the global namespace."),
      Col("Age", "string", 0, "", kCreatedAtDescription),
      Col("Users", "string", 1, "", "Users in the " + what),
      Col("Groups", "string", 1, "", "Groups in the " + what),
      Col("ServiceAccounts", "string", 1, "", "ServiceAccounts in the " + what),
  };
  return t;
}

// A create-only kind answered by the AuthLayer (reviews, never stored).
ResourceType Review(std::string group, std::string kind, std::string plural, bool namespaced) {
  std::string singular = plural.substr(0, plural.size() - 1);
  ResourceType t = Base(std::move(group), std::move(kind), std::move(plural),
                        std::move(singular), namespaced);
  t.verbs = {"create"};
  t.schema = Kind({{"spec", OpenObject()}, {"status", OpenObject()}}, "");
  return t;
}

std::string Str(const Json& object, const char* field) {
  if (!object.is_object()) return "";
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

Json BootstrapMeta(const std::string& name) {
  return {{"name", name},
          {"labels", {{"kubernetes.io/bootstrapping", "rbac-defaults"}}},
          {"annotations", {{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

Json ClusterRole(const std::string& name, Json rules) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRole"},
          {"metadata", BootstrapMeta(name)},
          {"rules", std::move(rules)}};
}

Json GroupBinding(const std::string& name, const std::vector<std::string>& groups) {
  Json subjects = Json::array();
  for (const std::string& g : groups) {
    subjects.push_back({{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", g}});
  }
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRoleBinding"},
          {"metadata", BootstrapMeta(name)},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}}},
          {"subjects", std::move(subjects)}};
}

}  // namespace

std::vector<ResourceType> AuthResourceTypes() {
  return {Roles(false),
          Roles(true),
          Bindings(false),
          Bindings(true),
          Review("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews",
                 false),
          Review("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews",
                 false),
          Review("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews", false),
          Review("authorization.k8s.io", "LocalSubjectAccessReview", "localsubjectaccessreviews",
                 true),
          Review("authentication.k8s.io", "TokenReview", "tokenreviews", false),
          Review("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews", false)};
}

std::optional<Json> RbacCell(const std::string& kind, const std::string& column,
                             const Json& object) {
  if (kind != "RoleBinding" && kind != "ClusterRoleBinding") return std::nullopt;
  if (column == "Role") {
    const Json empty = Json::object();
    const Json& ref = object.contains("roleRef") ? object["roleRef"] : empty;
    return Str(ref, "kind") + "/" + Str(ref, "name");
  }
  std::string want = column == "Users"             ? "User"
                     : column == "Groups"          ? "Group"
                     : column == "ServiceAccounts" ? "ServiceAccount"
                                                   : "";
  if (want.empty()) return std::nullopt;
  std::string out;
  if (object.contains("subjects") && object["subjects"].is_array()) {
    for (const Json& s : object["subjects"]) {
      if (Str(s, "kind") != want) continue;
      std::string entry = want == "ServiceAccount" ? Str(s, "namespace") + "/" + Str(s, "name")
                                                   : Str(s, "name");
      out += (out.empty() ? "" : ", ") + entry;
    }
  }
  return out;
}

std::vector<Json> BootstrapRbacObjects() {
  const Json get = Json::array({"get"});
  return {
      ClusterRole("cluster-admin",
                  Json::array({{{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"*"}}},
                               {{"nonResourceURLs", {"*"}}, {"verbs", {"*"}}}})),
      ClusterRole("system:discovery",
                  Json::array({{{"nonResourceURLs",
                                 {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                  "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}},
                                {"verbs", get}}})),
      ClusterRole("system:basic-user",
                  Json::array({{{"apiGroups", {"authorization.k8s.io"}},
                                {"resources", {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
                                {"verbs", {"create"}}},
                               {{"apiGroups", {"authentication.k8s.io"}},
                                {"resources", {"selfsubjectreviews"}},
                                {"verbs", {"create"}}}})),
      ClusterRole("system:public-info-viewer",
                  Json::array({{{"nonResourceURLs",
                                 {"/healthz", "/livez", "/readyz", "/version", "/version/"}},
                                {"verbs", get}}})),
      GroupBinding("cluster-admin", {"system:masters"}),
      GroupBinding("system:discovery", {"system:authenticated"}),
      GroupBinding("system:basic-user", {"system:authenticated"}),
      GroupBinding("system:public-info-viewer", {"system:authenticated", "system:unauthenticated"}),
  };
}

}  // namespace trimtab::cluster::auth
