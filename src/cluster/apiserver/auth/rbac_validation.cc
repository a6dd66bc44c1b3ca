#include "cluster/apiserver/auth/rbac_validation.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/api_errors.h"

namespace trimtab::cluster::auth {
namespace {

constexpr char kGroup[] = "rbac.authorization.k8s.io";

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

std::string GoStrings(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + Quoted(values[i]);
  return out + "}";
}

std::vector<std::string> StringList(const Json& object, const char* field) {
  std::vector<std::string> out;
  if (!object.is_object() || !object.contains(field) || !object[field].is_array()) return out;
  for (const Json& v : object[field]) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string Str(const Json& object, const char* field) {
  if (!object.is_object()) return "";
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

Json Required(const std::string& field, const std::string& detail) {
  return Cause("FieldValueRequired", field,
               detail.empty() ? "Required value" : "Required value: " + detail);
}

Json Invalid(const std::string& field, const std::string& value, const std::string& detail) {
  return Cause("FieldValueInvalid", field, "Invalid value: " + value + ": " + detail);
}

Json NotSupported(const std::string& field, const std::string& value,
                  const std::vector<std::string>& supported) {
  std::string list;
  for (size_t i = 0; i < supported.size(); ++i) list += (i ? ", " : "") + Quoted(supported[i]);
  return Cause("FieldValueNotSupported", field,
               "Unsupported value: " + Quoted(value) + ": supported values: " + list);
}

void ValidateRules(const Json& object, bool namespaced, std::vector<Json>* causes) {
  const Json* rules = object.is_object() && object.contains("rules") ? &object["rules"] : nullptr;
  if (!rules || !rules->is_array()) return;
  for (size_t i = 0; i < rules->size(); ++i) {
    const Json& rule = (*rules)[i];
    const std::string path = "rules[" + std::to_string(i) + "]";
    if (StringList(rule, "verbs").empty()) {
      causes->push_back(Required(path + ".verbs", "verbs must contain at least one value"));
    }
    std::vector<std::string> urls = StringList(rule, "nonResourceURLs");
    if (!urls.empty()) {
      if (namespaced) {
        causes->push_back(Invalid(path + ".nonResourceURLs", GoStrings(urls),
                                  "namespaced rules cannot apply to non-resource URLs"));
      }
      if (!StringList(rule, "apiGroups").empty() || !StringList(rule, "resources").empty() ||
          !StringList(rule, "resourceNames").empty()) {
        causes->push_back(Invalid(path + ".nonResourceURLs", GoStrings(urls),
                                  "rules cannot apply to both regular resources and non-resource "
                                  "URLs"));
      }
      continue;
    }
    if (StringList(rule, "apiGroups").empty()) {
      causes->push_back(
          Required(path + ".apiGroups", "resource rules must supply at least one api group"));
    }
    if (StringList(rule, "resources").empty()) {
      causes->push_back(
          Required(path + ".resources", "resource rules must supply at least one resource"));
    }
  }
}

std::string GoRoleRef(const Json& ref) {
  return "rbac.RoleRef{APIGroup:" + Quoted(Str(ref, "apiGroup")) + ", Kind:" +
         Quoted(Str(ref, "kind")) + ", Name:" + Quoted(Str(ref, "name")) + "}";
}

void ValidateBinding(const Json& object, bool namespaced, const Json* old,
                     std::vector<Json>* causes) {
  const Json empty = Json::object();
  const Json& ref = object.is_object() && object.contains("roleRef") ? object["roleRef"] : empty;
  if (Str(ref, "apiGroup") != std::string(kGroup)) {
    causes->push_back(
        NotSupported("roleRef.apiGroup", Str(ref, "apiGroup"), {std::string(kGroup)}));
  }
  const std::vector<std::string> kinds =
      namespaced ? std::vector<std::string>{"Role", "ClusterRole"}
                 : std::vector<std::string>{"ClusterRole"};
  if (std::find(kinds.begin(), kinds.end(), Str(ref, "kind")) == kinds.end()) {
    causes->push_back(NotSupported("roleRef.kind", Str(ref, "kind"), kinds));
  }
  if (Str(ref, "name").empty()) causes->push_back(Required("roleRef.name", ""));
  const Json* subjects =
      object.is_object() && object.contains("subjects") ? &object["subjects"] : nullptr;
  if (subjects && subjects->is_array()) {
    for (size_t i = 0; i < subjects->size(); ++i) {
      const Json& s = (*subjects)[i];
      const std::string path = "subjects[" + std::to_string(i) + "]";
      const std::string kind = Str(s, "kind");
      const std::string group = Str(s, "apiGroup");
      if (Str(s, "name").empty()) causes->push_back(Required(path + ".name", ""));
      if (kind == "ServiceAccount") {
        if (!group.empty()) causes->push_back(NotSupported(path + ".apiGroup", group, {""}));
        if (!namespaced && Str(s, "namespace").empty()) {
          causes->push_back(Required(path + ".namespace", ""));
        }
      } else if (kind == "User" || kind == "Group") {
        // v1 defaults an empty apiGroup of User and Group subjects to the RBAC group.
        if (!group.empty() && group != std::string(kGroup)) {
          causes->push_back(
              NotSupported(path + ".apiGroup", group, {std::string(kGroup)}));
        }
      } else {
        causes->push_back(NotSupported(path + ".kind", kind, {"ServiceAccount", "User", "Group"}));
      }
    }
  }
  if (old && old->is_object() && old->contains("roleRef") && (*old)["roleRef"] != ref) {
    causes->push_back(Invalid("roleRef", GoRoleRef(ref), "cannot change roleRef"));
  }
}

}  // namespace

std::vector<Json> ValidateRbacObject(const std::string& kind, const Json& object,
                                     const Json* old) {
  std::vector<Json> causes;
  if (kind == "Role") ValidateRules(object, true, &causes);
  if (kind == "ClusterRole") ValidateRules(object, false, &causes);
  if (kind == "RoleBinding") ValidateBinding(object, true, old, &causes);
  if (kind == "ClusterRoleBinding") ValidateBinding(object, false, old, &causes);
  return causes;
}

}  // namespace trimtab::cluster::auth
