#include "cluster/apiserver/auth/rbac_authorizer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/auth/rbac_types.h"
#include "cluster/apiserver/auth/rbac_validation.h"

namespace trimtab::cluster::auth {
namespace {

Json Role(const std::string& kind, const std::string& ns, const std::string& name, Json rules) {
  Json meta = {{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", kind},
          {"metadata", meta},
          {"rules", std::move(rules)}};
}

Json Binding(const std::string& kind, const std::string& ns, const std::string& name,
             const std::string& role_kind, const std::string& role, Json subjects) {
  Json meta = {{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", kind},
          {"metadata", meta},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", role}}},
          {"subjects", std::move(subjects)}};
}

Json Sa(const std::string& ns, const std::string& name) {
  Json s = {{"kind", "ServiceAccount"}, {"name", name}};
  if (!ns.empty()) s["namespace"] = ns;
  return s;
}

// The policy every case runs against: the operator's ClusterRole (a cut-down version), a
// namespaced Role for leases, a ClusterRole bound in one namespace only, resourceNames, "*" and
// subresource rules, a binding to a missing role, and the bootstrap discovery roles.
RbacPolicy TestPolicy() {
  RbacPolicy p;
  for (const Json& o : BootstrapRbacObjects()) p.Add(o);
  p.Add(Role("ClusterRole", "", "operator",
             Json::array({{{"apiGroups", {"apps"}},
                           {"resources", {"deployments"}},
                           {"verbs", {"get", "list", "watch", "create"}}},
                          {{"apiGroups", {""}}, {"resources", {"services"}}, {"verbs", {"get"}}},
                          {{"apiGroups", {"flink.apache.org"}},
                           {"resources", {"flinkdeployments/status"}},
                           {"verbs", {"update"}}}})));
  p.Add(Binding("ClusterRoleBinding", "", "operator", "ClusterRole", "operator",
                Json::array({Sa("ops", "op")})));
  p.Add(Role("Role", "ops", "leases",
             Json::array({{{"apiGroups", {"coordination.k8s.io"}},
                           {"resources", {"leases"}},
                           {"verbs", {"get", "update"}},
                           {"resourceNames", {"op-lock"}}},
                          {{"apiGroups", {"coordination.k8s.io"}},
                           {"resources", {"leases"}},
                           {"verbs", {"create"}}}})));
  // A RoleBinding's ServiceAccount subject without namespace means the binding's namespace.
  p.Add(Binding("RoleBinding", "ops", "leases", "Role", "leases", Json::array({Sa("", "op")})));
  p.Add(Role("ClusterRole", "", "pod-reader",
             Json::array({{{"apiGroups", {""}},
                           {"resources", {"pods", "pods/log"}},
                           {"verbs", {"get", "list"}}}})));
  p.Add(Binding("RoleBinding", "team-a", "read", "ClusterRole", "pod-reader",
                Json::array({{{"kind", "Group"}, {"name", "devs"}}})));
  p.Add(Role("ClusterRole", "", "all-status",
             Json::array({{{"apiGroups", {"*"}}, {"resources", {"*/status"}}, {"verbs", {"*"}}}})));
  p.Add(Binding("ClusterRoleBinding", "", "status-user", "ClusterRole", "all-status",
                Json::array({{{"kind", "User"}, {"name", "jane"}}})));
  p.Add(Binding("RoleBinding", "team-b", "dangling", "Role", "missing",
                Json::array({{{"kind", "User"}, {"name", "bob"}}})));
  p.Add(Role("ClusterRole", "", "metrics",
             Json::array({{{"nonResourceURLs", {"/metrics", "/debug/*"}}, {"verbs", {"get"}}}})));
  p.Add(Binding("ClusterRoleBinding", "", "metrics", "ClusterRole", "metrics",
                Json::array({{{"kind", "User"}, {"name", "jane"}}})));
  return p;
}

UserInfo User(const std::string& name, std::vector<std::string> groups = {}) {
  UserInfo u;
  u.name = name;
  u.groups = std::move(groups);
  u.groups.push_back("system:authenticated");
  return u;
}

Attributes Res(UserInfo user, std::string verb, std::string group, std::string resource,
               std::string ns, std::string name = "", std::string sub = "") {
  Attributes a;
  a.user = std::move(user);
  a.verb = std::move(verb);
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.ns = std::move(ns);
  a.name = std::move(name);
  a.subresource = std::move(sub);
  return a;
}

Attributes Path(UserInfo user, std::string verb, std::string path) {
  Attributes a;
  a.user = std::move(user);
  a.verb = std::move(verb);
  a.resource_request = false;
  a.path = std::move(path);
  return a;
}

struct Case {
  std::string name;
  Attributes attributes;
  bool allowed;
  std::string reason;  // "" = not checked
};

TEST(RbacAuthorizerTest, Decisions) {
  const UserInfo op = ServiceAccountUser("ops", "op", "uid-1");
  const UserInfo other_sa = ServiceAccountUser("other", "op", "uid-2");
  const std::vector<Case> cases = {
      {"cluster role binding grants everywhere",
       Res(op, "create", "apps", "deployments", "anywhere"), true,
       "RBAC: allowed by ClusterRoleBinding \"operator\" of ClusterRole \"operator\" to "
       "ServiceAccount \"op/ops\""},
      {"cluster scope list through a ClusterRoleBinding",
       Res(op, "list", "apps", "deployments", ""), true, ""},
      {"a verb the role lacks", Res(op, "delete", "apps", "deployments", "x", "web"), false, ""},
      {"same resource in another group", Res(op, "get", "extensions", "deployments", "x"), false,
       ""},
      {"core group is the empty string", Res(op, "get", "", "services", "x", "svc"), true, ""},
      {"subresource needs its own rule", Res(op, "update", "apps", "deployments", "x", "web",
                                             "status"),
       false, ""},
      {"subresource rule", Res(op, "update", "flink.apache.org", "flinkdeployments", "x", "f",
                               "status"),
       true, ""},
      {"subresource rule does not grant the main resource",
       Res(op, "update", "flink.apache.org", "flinkdeployments", "x", "f"), false, ""},
      {"same-named service account of another namespace",
       Res(other_sa, "create", "apps", "deployments", "x"), false, ""},
      {"role binding, subject namespace defaulted, resourceNames match",
       Res(op, "update", "coordination.k8s.io", "leases", "ops", "op-lock"), true,
       "RBAC: allowed by RoleBinding \"leases/ops\" of Role \"leases\" to ServiceAccount "
       "\"op/ops\""},
      {"resourceNames exclude other names",
       Res(op, "update", "coordination.k8s.io", "leases", "ops", "other"), false, ""},
      {"resourceNames never match a request without a name",
       Res(op, "get", "coordination.k8s.io", "leases", "ops"), false, ""},
      {"a rule without resourceNames matches creates",
       Res(op, "create", "coordination.k8s.io", "leases", "ops"), true, ""},
      {"role binding grants nothing in other namespaces",
       Res(op, "create", "coordination.k8s.io", "leases", "elsewhere"), false, ""},
      {"role binding grants nothing at the cluster scope",
       Res(op, "create", "coordination.k8s.io", "leases", ""), false, ""},
      {"group subject through a namespaced binding of a ClusterRole",
       Res(User("amy", {"devs"}), "get", "", "pods", "team-a", "p", "log"), true, ""},
      {"the ClusterRole's rules only in the binding's namespace",
       Res(User("amy", {"devs"}), "get", "", "pods", "team-b", "p"), false, ""},
      {"not in the group", Res(User("amy"), "list", "", "pods", "team-a"), false, ""},
      {"*/status matches every status subresource",
       Res(User("jane"), "patch", "apps", "deployments", "x", "web", "status"), true, ""},
      {"*/status does not match the resource itself",
       Res(User("jane"), "patch", "apps", "deployments", "x", "web"), false, ""},
      {"missing role is named in the reason", Res(User("bob"), "get", "", "pods", "team-b"), false,
       "RBAC: role.rbac.authorization.k8s.io \"missing\" not found"},
      {"discovery for every authenticated user", Path(op, "get", "/apis/apps/v1"), true, ""},
      {"version for every authenticated user", Path(op, "get", "/version"), true, ""},
      {"discovery is get only", Path(op, "post", "/apis"), false, ""},
      {"non-resource URL exact", Path(User("jane"), "get", "/metrics"), true, ""},
      {"non-resource URL prefix", Path(User("jane"), "get", "/debug/pprof/heap"), true, ""},
      {"non-resource URL not granted", Path(op, "get", "/metrics"), false, ""},
      {"self access reviews for everyone",
       Res(op, "create", "authorization.k8s.io", "selfsubjectaccessreviews", ""), true, ""},
      {"masters are not special to RBAC itself (the server checks them first)",
       Res(User("root", {"system:masters"}), "delete", "", "nodes", "", "n1"), true,
       "RBAC: allowed by ClusterRoleBinding \"cluster-admin\" of ClusterRole \"cluster-admin\" to "
       "Group \"system:masters\""},
  };
  const RbacPolicy policy = TestPolicy();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Decision d = Authorize(policy, c.attributes);
    EXPECT_EQ(d.allowed, c.allowed);
    if (!c.reason.empty()) {
      EXPECT_EQ(d.reason, c.reason);
    }
  }
}

TEST(RbacAuthorizerTest, VerbStarAndGroupStar) {
  RbacPolicy p;
  p.Add(Role("ClusterRole", "", "any",
             Json::array({{{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"*"}}}})));
  p.Add(Binding("ClusterRoleBinding", "", "any", "ClusterRole", "any",
                Json::array({{{"kind", "User"}, {"name", "root"}}})));
  EXPECT_TRUE(Authorize(p, Res(User("root"), "deletecollection", "x.io", "foos", "n")).allowed);
  EXPECT_TRUE(Authorize(p, Res(User("root"), "get", "", "pods", "n", "p", "log")).allowed);
  EXPECT_FALSE(Authorize(p, Path(User("root"), "get", "/healthz")).allowed);
}

TEST(RbacAuthorizerTest, RulesFor) {
  const RbacPolicy policy = TestPolicy();
  RulesResult r = RulesFor(policy, ServiceAccountUser("ops", "op", ""), "ops");
  // discovery + basic-user + public-info (3 bootstrap roles: 1 + 2 + 1 rules), operator (3),
  // leases (2).
  EXPECT_EQ(r.rules.size(), 9u);
  EXPECT_TRUE(r.errors.empty());
  RulesResult bob = RulesFor(policy, User("bob"), "team-b");
  ASSERT_EQ(bob.errors.size(), 1u);
  EXPECT_EQ(bob.errors[0], "role.rbac.authorization.k8s.io \"missing\" not found");
}

TEST(RbacAuthorizerTest, ForbiddenMessages) {
  const UserInfo op = ServiceAccountUser("trimtab-system", "trimtab-operator", "");
  ApiError e = ForbiddenError(Res(op, "create", "", "services", "default"), "");
  EXPECT_EQ(e.code, 403);
  EXPECT_EQ(e.reason, "Forbidden");
  EXPECT_EQ(e.message,
            "services is forbidden: User \"system:serviceaccount:trimtab-system:trimtab-operator\" "
            "cannot create resource \"services\" in API group \"\" in the namespace \"default\"");
  e = ForbiddenError(Res(op, "update", "apps", "deployments", "ns", "web", "status"), "");
  EXPECT_EQ(e.message,
            "deployments.apps \"web\" is forbidden: User "
            "\"system:serviceaccount:trimtab-system:trimtab-operator\" cannot update resource "
            "\"deployments/status\" in API group \"apps\" in the namespace \"ns\"");
  EXPECT_EQ(e.details["name"], "web");
  EXPECT_EQ(e.details["group"], "apps");
  EXPECT_EQ(e.details["kind"], "deployments");
  e = ForbiddenError(Res(op, "list", "", "nodes", ""), "RBAC: x");
  EXPECT_EQ(e.message,
            "nodes is forbidden: User \"system:serviceaccount:trimtab-system:trimtab-operator\" "
            "cannot list resource \"nodes\" in API group \"\" at the cluster scope: RBAC: x");
  e = ForbiddenError(Path(op, "get", "/metrics"), "");
  EXPECT_EQ(e.message,
            "forbidden: User \"system:serviceaccount:trimtab-system:trimtab-operator\" cannot get "
            "path \"/metrics\"");
}

TEST(RbacAuthorizerTest, ServiceAccountUserNames) {
  std::string ns, name;
  EXPECT_TRUE(SplitServiceAccountUser("system:serviceaccount:a:b", &ns, &name));
  EXPECT_EQ(ns, "a");
  EXPECT_EQ(name, "b");
  EXPECT_FALSE(SplitServiceAccountUser("system:serviceaccount:a", &ns, &name));
  EXPECT_FALSE(SplitServiceAccountUser("system:serviceaccount:a:b:c", &ns, &name));
  EXPECT_FALSE(SplitServiceAccountUser("jane", &ns, &name));
  UserInfo u = ServiceAccountUser("a", "b", "u");
  EXPECT_EQ(u.groups, (std::vector<std::string>{"system:serviceaccounts",
                                                "system:serviceaccounts:a",
                                                "system:authenticated"}));
}

struct ValidationCase {
  std::string name;
  std::string kind;
  Json object;
  std::vector<std::string> messages;  // "field: message"
  Json old = nullptr;
};

TEST(RbacValidationTest, Table) {
  const Json sa = Json::array({Sa("ns", "sa")});
  const std::vector<ValidationCase> cases = {
      {"valid role", "Role",
       Role("Role", "n", "r", Json::array({{{"apiGroups", {""}}, {"resources", {"pods"}},
                                            {"verbs", {"get"}}}})),
       {}},
      {"empty verbs", "Role",
       Role("Role", "n", "r", Json::array({{{"apiGroups", {""}}, {"resources", {"pods"}},
                                            {"verbs", Json::array()}}})),
       {"rules[0].verbs: Required value: verbs must contain at least one value"}},
      {"no resources, no groups", "ClusterRole",
       Role("ClusterRole", "", "r", Json::array({{{"verbs", {"get"}}}})),
       {"rules[0].apiGroups: Required value: resource rules must supply at least one api group",
        "rules[0].resources: Required value: resource rules must supply at least one resource"}},
      {"namespaced non-resource URLs", "Role",
       Role("Role", "n", "r", Json::array({{{"nonResourceURLs", {"/metrics"}},
                                            {"verbs", {"get"}}}})),
       {"rules[0].nonResourceURLs: Invalid value: []string{\"/metrics\"}: namespaced rules "
        "cannot apply to non-resource URLs"}},
      {"both kinds in one rule", "ClusterRole",
       Role("ClusterRole", "", "r",
            Json::array({{{"nonResourceURLs", {"/metrics"}}, {"resources", {"pods"}},
                          {"verbs", {"get"}}}})),
       {"rules[0].nonResourceURLs: Invalid value: []string{\"/metrics\"}: rules cannot apply to "
        "both regular resources and non-resource URLs"}},
      {"cluster role binding to a Role", "ClusterRoleBinding",
       Binding("ClusterRoleBinding", "", "b", "Role", "r", sa),
       {"roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\""}},
      {"cluster role binding SA without namespace", "ClusterRoleBinding",
       Binding("ClusterRoleBinding", "", "b", "ClusterRole", "r", Json::array({Sa("", "sa")})),
       {"subjects[0].namespace: Required value"}},
      {"role binding SA without namespace is fine", "RoleBinding",
       Binding("RoleBinding", "n", "b", "Role", "r", Json::array({Sa("", "sa")})), {}},
      {"unknown subject kind", "RoleBinding",
       Binding("RoleBinding", "n", "b", "Role", "r",
               Json::array({{{"kind", "Robot"}, {"name", "x"}}})),
       {"subjects[0].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", "
        "\"User\", \"Group\""}},
      {"roleRef is immutable", "RoleBinding",
       Binding("RoleBinding", "n", "b", "Role", "other", sa),
       {"roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", "
        "Kind:\"Role\", Name:\"other\"}: cannot change roleRef"},
       Binding("RoleBinding", "n", "b", "Role", "r", sa)},
      {"subjects may change", "RoleBinding", Binding("RoleBinding", "n", "b", "Role", "r", sa), {},
       Binding("RoleBinding", "n", "b", "Role", "r", Json::array())},
  };
  for (const ValidationCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<Json> causes =
        ValidateRbacObject(c.kind, c.object, c.old.is_null() ? nullptr : &c.old);
    std::vector<std::string> got;
    for (const Json& cause : causes) {
      got.push_back(cause.value("field", "") + ": " + cause.value("message", ""));
    }
    EXPECT_EQ(got, c.messages);
  }
}

TEST(RbacTypesTest, BindingCells) {
  Json b = Binding("RoleBinding", "n", "b", "ClusterRole", "edit",
                   Json::array({Sa("ns", "sa"), {{"kind", "User"}, {"name", "u1"}},
                                {{"kind", "User"}, {"name", "u2"}},
                                {{"kind", "Group"}, {"name", "g"}}}));
  EXPECT_EQ(*RbacCell("RoleBinding", "Role", b), "ClusterRole/edit");
  EXPECT_EQ(*RbacCell("RoleBinding", "Users", b), "u1, u2");
  EXPECT_EQ(*RbacCell("RoleBinding", "Groups", b), "g");
  EXPECT_EQ(*RbacCell("RoleBinding", "ServiceAccounts", b), "ns/sa");
  EXPECT_FALSE(RbacCell("Role", "Role", b).has_value());
}

}  // namespace
}  // namespace trimtab::cluster::auth
