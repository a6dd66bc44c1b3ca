#include "cluster/apiserver/auth/rbac_authorizer.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace trimtab::cluster::auth {
namespace {

bool Has(const std::vector<std::string>& set, std::string_view value) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

std::vector<std::string> Strings(const Json& object, const char* field) {
  std::vector<std::string> out;
  if (!object.is_object()) return out;
  auto it = object.find(field);
  if (it == object.end() || !it->is_array()) return out;
  for (const Json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string Str(const Json& object, const char* field) {
  if (!object.is_object()) return "";
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

const Json& Field(const Json& object, const char* field) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(field);
  return it == object.end() ? kNull : *it;
}

bool VerbMatches(const PolicyRule& rule, std::string_view verb) {
  return Has(rule.verbs, "*") || Has(rule.verbs, verb);
}

bool ApiGroupMatches(const PolicyRule& rule, std::string_view group) {
  return Has(rule.api_groups, "*") || Has(rule.api_groups, group);
}

bool ResourceMatches(const PolicyRule& rule, const std::string& combined,
                     const std::string& subresource) {
  for (const std::string& r : rule.resources) {
    if (r == "*" || r == combined) return true;
    if (!subresource.empty() && r == "*/" + subresource) return true;
  }
  return false;
}

bool ResourceNameMatches(const PolicyRule& rule, std::string_view name) {
  return rule.resource_names.empty() || Has(rule.resource_names, name);
}

bool NonResourceUrlMatches(const PolicyRule& rule, std::string_view path) {
  for (const std::string& url : rule.non_resource_urls) {
    if (url == "*" || url == path) return true;
    if (!url.empty() && url.back() == '*') {
      std::string_view prefix(url.data(), url.size() - 1);
      if (path.substr(0, prefix.size()) == prefix) return true;
    }
  }
  return false;
}

bool AppliesTo(const UserInfo& user, const RbacPolicy::Subject& subject,
               std::string_view binding_ns) {
  if (subject.kind == "User") return user.name == subject.name;
  if (subject.kind == "Group") return user.InGroup(subject.name);
  if (subject.kind == "ServiceAccount") {
    std::string ns = subject.ns.empty() ? std::string(binding_ns) : subject.ns;
    if (ns.empty()) return false;
    return user.name == std::string(kServiceAccountUserPrefix) + ns + ":" + subject.name;
  }
  return false;
}

std::string DescribeSubject(const RbacPolicy::Subject& s, std::string_view binding_ns) {
  if (s.kind == "ServiceAccount") {
    return s.kind + " \"" + s.name + "/" + (s.ns.empty() ? std::string(binding_ns) : s.ns) + "\"";
  }
  return s.kind + " \"" + s.name + "\"";
}

std::string DescribeBinding(const RbacPolicy::Binding& b, const RbacPolicy::Subject& s) {
  if (b.ns.empty()) {
    return "ClusterRoleBinding \"" + b.name + "\" of " + b.role_kind + " \"" + b.role_name +
           "\" to " + DescribeSubject(s, "");
  }
  return "RoleBinding \"" + b.name + "/" + b.ns + "\" of " + b.role_kind + " \"" + b.role_name +
         "\" to " + DescribeSubject(s, b.ns);
}

RbacPolicy::Binding ParseBinding(const Json& object, std::string ns) {
  RbacPolicy::Binding b;
  b.name = Str(Field(object, "metadata"), "name");
  b.ns = std::move(ns);
  const Json& ref = Field(object, "roleRef");
  b.role_kind = Str(ref, "kind");
  b.role_name = Str(ref, "name");
  const Json& subjects = Field(object, "subjects");
  if (subjects.is_array()) {
    for (const Json& s : subjects) {
      b.subjects.push_back({Str(s, "kind"), Str(s, "name"), Str(s, "namespace")});
    }
  }
  return b;
}

}  // namespace

bool UserInfo::InGroup(std::string_view group) const { return Has(groups, group); }

UserInfo ServiceAccountUser(std::string_view ns, std::string_view name, std::string_view uid) {
  UserInfo u;
  u.name = std::string(kServiceAccountUserPrefix) + std::string(ns) + ":" + std::string(name);
  u.uid = std::string(uid);
  u.groups = {std::string(kGroupServiceAccounts),
              std::string(kGroupServiceAccounts) + ":" + std::string(ns),
              std::string(kGroupAuthenticated)};
  return u;
}

bool SplitServiceAccountUser(std::string_view user, std::string* ns, std::string* name) {
  if (user.substr(0, kServiceAccountUserPrefix.size()) != kServiceAccountUserPrefix) return false;
  std::string_view rest = user.substr(kServiceAccountUserPrefix.size());
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size() ||
      rest.find(':', colon + 1) != std::string_view::npos) {
    return false;
  }
  *ns = std::string(rest.substr(0, colon));
  *name = std::string(rest.substr(colon + 1));
  return true;
}

Json PolicyRule::ToJson() const {
  Json r = {{"verbs", verbs}};
  if (!api_groups.empty()) r["apiGroups"] = api_groups;
  if (!resources.empty()) r["resources"] = resources;
  if (!resource_names.empty()) r["resourceNames"] = resource_names;
  if (!non_resource_urls.empty()) r["nonResourceURLs"] = non_resource_urls;
  return r;
}

std::vector<PolicyRule> ParseRules(const Json& rules) {
  std::vector<PolicyRule> out;
  if (!rules.is_array()) return out;
  for (const Json& r : rules) {
    PolicyRule rule;
    rule.verbs = Strings(r, "verbs");
    rule.api_groups = Strings(r, "apiGroups");
    rule.resources = Strings(r, "resources");
    rule.resource_names = Strings(r, "resourceNames");
    rule.non_resource_urls = Strings(r, "nonResourceURLs");
    out.push_back(std::move(rule));
  }
  return out;
}

bool RuleAllows(const Attributes& a, const PolicyRule& rule) {
  if (a.resource_request) {
    std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    return VerbMatches(rule, a.verb) && ApiGroupMatches(rule, a.api_group) &&
           ResourceMatches(rule, combined, a.subresource) && ResourceNameMatches(rule, a.name);
  }
  return VerbMatches(rule, a.verb) && NonResourceUrlMatches(rule, a.path);
}

void RbacPolicy::Add(const Json& object) {
  const std::string kind = Str(object, "kind");
  const Json& meta = Field(object, "metadata");
  const std::string name = Str(meta, "name");
  const std::string ns = Str(meta, "namespace");
  if (kind == "ClusterRole") {
    cluster_roles_[name] = ParseRules(Field(object, "rules"));
  } else if (kind == "Role") {
    roles_[ns + "/" + name] = ParseRules(Field(object, "rules"));
  } else if (kind == "ClusterRoleBinding") {
    Binding b = ParseBinding(object, "");
    auto it = cluster_role_binding_index_.find(name);
    if (it != cluster_role_binding_index_.end()) {
      cluster_role_bindings_[it->second] = std::move(b);
    } else {
      cluster_role_binding_index_[name] = cluster_role_bindings_.size();
      cluster_role_bindings_.push_back(std::move(b));
    }
  } else if (kind == "RoleBinding") {
    role_bindings_[ns].push_back(ParseBinding(object, ns));
  }
}

void RbacPolicy::VisitRulesFor(const UserInfo& user, std::string_view ns,
                               const Visitor& visit) const {
  auto visit_binding = [&](const Binding& b) -> bool {
    const Subject* applies = nullptr;
    for (const Subject& s : b.subjects) {
      if (AppliesTo(user, s, b.ns)) {
        applies = &s;
        break;
      }
    }
    if (!applies) return true;
    const std::vector<PolicyRule>* rules = nullptr;
    std::string error;
    if (b.role_kind == "ClusterRole") {
      auto it = cluster_roles_.find(b.role_name);
      if (it != cluster_roles_.end()) {
        rules = &it->second;
      } else {
        error = "clusterrole.rbac.authorization.k8s.io \"" + b.role_name + "\" not found";
      }
    } else if (b.role_kind == "Role" && !b.ns.empty()) {
      auto it = roles_.find(b.ns + "/" + b.role_name);
      if (it != roles_.end()) {
        rules = &it->second;
      } else {
        error = "role.rbac.authorization.k8s.io \"" + b.role_name + "\" not found";
      }
    } else {
      error = "unsupported role reference kind: \"" + b.role_kind + "\"";
    }
    const std::string source = DescribeBinding(b, *applies);
    if (!rules) return visit(source, nullptr, error);
    for (const PolicyRule& rule : *rules) {
      if (!visit(source, &rule, "")) return false;
    }
    return true;
  };
  for (const Binding& b : cluster_role_bindings_) {
    if (!visit_binding(b)) return;
  }
  if (ns.empty()) return;
  auto it = role_bindings_.find(std::string(ns));
  if (it == role_bindings_.end()) return;
  for (const Binding& b : it->second) {
    if (!visit_binding(b)) return;
  }
}

Decision Authorize(const RbacPolicy& policy, const Attributes& attributes) {
  Decision d;
  std::vector<std::string> errors;
  policy.VisitRulesFor(attributes.user, attributes.ns,
                       [&](const std::string& source, const PolicyRule* rule,
                           const std::string& error) {
                         if (!error.empty()) errors.push_back(error);
                         if (rule && RuleAllows(attributes, *rule)) {
                           d.allowed = true;
                           d.reason = "RBAC: allowed by " + source;
                           return false;
                         }
                         return true;
                       });
  if (!d.allowed && !errors.empty()) {
    // utilerrors.NewAggregate: one error as is, several as "[a, b]".
    std::string joined;
    for (size_t i = 0; i < errors.size(); ++i) joined += (i ? ", " : "") + errors[i];
    d.reason = "RBAC: " + (errors.size() == 1 ? joined : "[" + joined + "]");
  }
  return d;
}

RulesResult RulesFor(const RbacPolicy& policy, const UserInfo& user, std::string_view ns) {
  RulesResult out;
  policy.VisitRulesFor(user, ns,
                       [&](const std::string&, const PolicyRule* rule, const std::string& error) {
                         if (rule) out.rules.push_back(*rule);
                         if (!error.empty()) out.errors.push_back(error);
                         return true;
                       });
  return out;
}

ApiError ForbiddenError(const Attributes& a, const std::string& reason) {
  std::string message;
  if (!a.resource_request) {
    message = "User \"" + a.user.name + "\" cannot " + a.verb + " path \"" + a.path + "\"";
  } else {
    std::string resource = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    message = "User \"" + a.user.name + "\" cannot " + a.verb + " resource \"" + resource +
              "\" in API group \"" + a.api_group + "\"" +
              (a.ns.empty() ? " at the cluster scope" : " in the namespace \"" + a.ns + "\"");
  }
  if (!reason.empty()) message += ": " + reason;
  if (!a.resource_request) {
    return ApiError{403, "Forbidden", "forbidden: " + message, Json::object()};
  }
  ResourceType type;
  type.group = a.api_group;
  type.plural = a.resource;
  return Forbidden(type, a.name, message);
}

}  // namespace trimtab::cluster::auth
