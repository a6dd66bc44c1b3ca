// RBAC authorization as the kube-apiserver's RBAC authorizer decides it
// (rbac.authorization.k8s.io/v1), over a snapshot of the Role, ClusterRole, RoleBinding and
// ClusterRoleBinding objects:
//
//   - the bindings that apply to the user: every ClusterRoleBinding, then (for a request in a
//     namespace) the RoleBindings of that namespace; a subject applies when it is the User of
//     that name, a Group the user is in, or the ServiceAccount whose user name is
//     system:serviceaccount:<ns>:<name> (a RoleBinding's ServiceAccount subject without a
//     namespace means the binding's namespace);
//   - a RoleBinding grants its Role (same namespace) or ClusterRole in its namespace only; a
//     ClusterRoleBinding grants its ClusterRole everywhere;
//   - a rule allows a resource request when its verbs, apiGroups, resources and resourceNames
//     match ("*" matches any verb, group or resource; "pods/log" names a subresource and "*/log"
//     that subresource of every resource; resourceNames limit the rule to those object names),
//     and a non-resource request (/healthz, /apis ...) when its verbs and nonResourceURLs match
//     (a trailing "*" matches by prefix);
//   - nothing is ever denied explicitly: no matching rule is "no opinion", which the server turns
//     into 403. A binding whose role does not exist is skipped and named in the reason
//     ("RBAC: clusterrole.rbac.authorization.k8s.io \"x\" not found").
//
// The reason of an allowed request names the binding, as SelfSubjectAccessReview shows it:
//   RBAC: allowed by ClusterRoleBinding "ops" of ClusterRole "edit" to ServiceAccount "sa/ns"
//
// Members of system:masters are allowed everything before RBAC is asked (the kube-apiserver's
// privileged-group authorizer); the caller does that.
//
// Usage:
//   RbacPolicy policy;
//   for (const Json& o : objects) policy.Add(o);
//   Decision d = Authorize(policy, attributes);
//   if (!d.allowed) return ForbiddenError(attributes, d.reason);
//
// Thread-safety: RbacPolicy is immutable once built and may be shared between threads; the
// functions are pure.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/apiserver/api_errors.h"
#include "common/json.h"

namespace trimtab::cluster::auth {

inline constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";
inline constexpr std::string_view kServiceAccountUserPrefix = "system:serviceaccount:";
inline constexpr std::string_view kGroupAuthenticated = "system:authenticated";
inline constexpr std::string_view kGroupUnauthenticated = "system:unauthenticated";
inline constexpr std::string_view kGroupMasters = "system:masters";
inline constexpr std::string_view kGroupServiceAccounts = "system:serviceaccounts";

// Who makes a request (k8s.io/apiserver user.Info).
struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  bool InGroup(std::string_view group) const;
};

// The user of a service account with its groups: system:serviceaccounts,
// system:serviceaccounts:<ns> and system:authenticated.
UserInfo ServiceAccountUser(std::string_view ns, std::string_view name, std::string_view uid);
// "system:serviceaccount:ns:name" -> {ns, name}; false for other user names.
bool SplitServiceAccountUser(std::string_view user, std::string* ns, std::string* name);

// What is asked (k8s.io/apiserver authorizer.Attributes).
struct Attributes {
  UserInfo user;
  std::string verb;             // get, list, watch, create, update, patch, delete,
                                // deletecollection, impersonate ...; for non-resource requests
                                // the lower-case HTTP method
  bool resource_request = true;
  std::string ns;               // "" = cluster scope (or all namespaces)
  std::string api_group;        // "" = core
  std::string api_version;
  std::string resource;         // plural
  std::string subresource;      // "status", "log", ...
  std::string name;             // "" for collections and creates
  std::string path;             // non-resource requests: the URL path
};

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;

  Json ToJson() const;  // the rbac/v1 PolicyRule
};

// Parses the rules of a Role / ClusterRole (wrongly typed entries are skipped: stored objects
// were validated on write).
std::vector<PolicyRule> ParseRules(const Json& rules);

bool RuleAllows(const Attributes& attributes, const PolicyRule& rule);

// The RBAC objects of the cluster, indexed for Authorize.
class RbacPolicy {
 public:
  // Adds a Role, ClusterRole, RoleBinding or ClusterRoleBinding (other kinds are ignored).
  void Add(const Json& object);

  struct Subject {
    std::string kind;  // User, Group, ServiceAccount
    std::string name;
    std::string ns;
  };
  struct Binding {
    std::string name;
    std::string ns;         // "" for a ClusterRoleBinding
    std::string role_kind;  // Role or ClusterRole
    std::string role_name;
    std::vector<Subject> subjects;
  };

  // Calls `visit(source, rule, error)` for every rule granted to `user` in `ns` ("" = cluster
  // scope: ClusterRoleBindings only), in the order the RBAC authorizer visits them; `error` is
  // set (and `rule` null) for a binding whose role is missing. `visit` returns false to stop.
  using Visitor = std::function<bool(const std::string& source, const PolicyRule* rule,
                                     const std::string& error)>;
  void VisitRulesFor(const UserInfo& user, std::string_view ns, const Visitor& visit) const;

 private:
  std::map<std::string, std::vector<PolicyRule>> cluster_roles_;  // by name
  std::map<std::string, std::vector<PolicyRule>> roles_;          // by "ns/name"
  std::vector<Binding> cluster_role_bindings_;                    // in the order added
  std::map<std::string, std::vector<Binding>> role_bindings_;     // by namespace
  std::map<std::string, size_t> cluster_role_binding_index_;
};

struct Decision {
  bool allowed = false;
  std::string reason;  // "RBAC: allowed by ..." or "RBAC: <errors>" or ""
};

Decision Authorize(const RbacPolicy& policy, const Attributes& attributes);

// Every rule `user` has in `ns` (SelfSubjectRulesReview), plus the errors of bindings whose role
// is missing.
struct RulesResult {
  std::vector<PolicyRule> rules;
  std::vector<std::string> errors;
};
RulesResult RulesFor(const RbacPolicy& policy, const UserInfo& user, std::string_view ns);

// The 403 the kube-apiserver answers for a request the authorizer did not allow:
//   deployments.apps "web" is forbidden: User "system:serviceaccount:ns:sa" cannot update
//   resource "deployments" in API group "apps" in the namespace "ns"[: <reason>]
// (cluster-scoped: "... at the cluster scope"; non-resource: `forbidden: User "u" cannot get
// path "/metrics"`).
ApiError ForbiddenError(const Attributes& attributes, const std::string& reason);

}  // namespace trimtab::cluster::auth
