// The AuthLayer over real HTTP: service-account tokens from TokenRequest, RBAC on every request,
// the review APIs (JSON and protobuf bodies), impersonation, the bootstrap policy, validation
// and Table output of the RBAC kinds.
#include "cluster/apiserver/auth/auth_layer.h"

#include <gtest/gtest.h>

#include "cluster/apiserver/apiserver_test_util.h"

namespace trimtab::cluster::auth {
namespace {

using testing::ApiServerTest;

constexpr char kRbac[] = "/apis/rbac.authorization.k8s.io/v1";

class AuthLayerTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    ASSERT_EQ(Post("/api/v1/namespaces", {{"apiVersion", "v1"},
                                          {"kind", "Namespace"},
                                          {"metadata", {{"name", "ops"}}}})
                  .status,
              201);
    ASSERT_EQ(Post("/api/v1/namespaces/ops/serviceaccounts",
                   {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "op"}}}})
                  .status,
              201);
    token_ = Token("ops", "op", Json::object());
    ASSERT_FALSE(token_.empty());
  }

  std::string Token(const std::string& ns, const std::string& sa, const Json& spec) {
    Reply r = Post("/api/v1/namespaces/" + ns + "/serviceaccounts/" + sa + "/token",
                   {{"apiVersion", "authentication.k8s.io/v1"},
                    {"kind", "TokenRequest"},
                    {"spec", spec}});
    EXPECT_EQ(r.status, 201) << r.raw;
    return r.body["status"].value("token", "");
  }

  Reply As(const std::string& token, const std::string& method, const std::string& target,
           const Json& body = nullptr) {
    return Call(method, target, body, "application/json", {"Authorization: Bearer " + token});
  }

  bool CanI(const std::string& token, const Json& attributes) {
    Reply r = As(token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                 {{"apiVersion", "authorization.k8s.io/v1"},
                  {"kind", "SelfSubjectAccessReview"},
                  {"spec", {{"resourceAttributes", attributes}}}});
    EXPECT_EQ(r.status, 201) << r.raw;
    return r.body["status"].value("allowed", false);
  }

  void GrantPodReader() {
    ASSERT_EQ(Post(std::string(kRbac) + "/namespaces/ops/roles",
                   {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                    {"kind", "Role"},
                    {"metadata", {{"name", "pods"}}},
                    {"rules", Json::array({{{"apiGroups", {""}},
                                            {"resources", {"pods"}},
                                            {"verbs", {"list", "get"}}}})}})
                  .status,
              201);
    ASSERT_EQ(Post(std::string(kRbac) + "/namespaces/ops/rolebindings",
                   {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                    {"kind", "RoleBinding"},
                    {"metadata", {{"name", "pods"}}},
                    {"roleRef",
                     {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "pods"}}},
                    {"subjects", Json::array({{{"kind", "ServiceAccount"}, {"name", "op"}}})}})
                  .status,
              201);
  }

  std::string token_;
};

TEST_F(AuthLayerTest, ServiceAccountIsDeniedUntilBoundThenAllowed) {
  Reply denied = As(token_, "GET", "/api/v1/namespaces/ops/pods");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body["reason"], "Forbidden");
  EXPECT_EQ(denied.body["message"],
            "pods is forbidden: User \"system:serviceaccount:ops:op\" cannot list resource "
            "\"pods\" in API group \"\" in the namespace \"ops\"");
  EXPECT_FALSE(CanI(token_, {{"verb", "list"}, {"resource", "pods"}, {"namespace", "ops"}}));

  GrantPodReader();
  EXPECT_EQ(As(token_, "GET", "/api/v1/namespaces/ops/pods").status, 200);
  EXPECT_TRUE(CanI(token_, {{"verb", "list"}, {"resource", "pods"}, {"namespace", "ops"}}));
  // Only in that namespace, only those verbs.
  EXPECT_EQ(As(token_, "GET", "/api/v1/namespaces/default/pods").status, 403);
  EXPECT_EQ(As(token_, "DELETE", "/api/v1/namespaces/ops/pods/x").status, 403);
  EXPECT_EQ(As(token_, "GET", "/api/v1/pods").status, 403);

  // Removing the verb takes effect on the next request.
  Reply role = Get(std::string(kRbac) + "/namespaces/ops/roles/pods");
  role.body["rules"][0]["verbs"] = {"get"};
  ASSERT_EQ(Put(std::string(kRbac) + "/namespaces/ops/roles/pods", role.body).status, 200);
  EXPECT_EQ(As(token_, "GET", "/api/v1/namespaces/ops/pods").status, 403);
}

TEST_F(AuthLayerTest, DiscoveryAndReviewsForEveryServiceAccount) {
  EXPECT_EQ(As(token_, "GET", "/api").status, 200);
  EXPECT_EQ(As(token_, "GET", "/apis/apps/v1").status, 200);
  EXPECT_EQ(As(token_, "GET", "/version").status, 200);
  Reply whoami = As(token_, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                    {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}});
  ASSERT_EQ(whoami.status, 201) << whoami.raw;
  EXPECT_EQ(whoami.body["status"]["userInfo"]["username"], "system:serviceaccount:ops:op");
  EXPECT_EQ(whoami.body["status"]["userInfo"]["groups"],
            Json::array({"system:serviceaccounts", "system:serviceaccounts:ops",
                         "system:authenticated"}));
  Reply rules = As(token_, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                   {{"apiVersion", "authorization.k8s.io/v1"},
                    {"kind", "SelfSubjectRulesReview"},
                    {"spec", {{"namespace", "ops"}}}});
  ASSERT_EQ(rules.status, 201) << rules.raw;
  EXPECT_FALSE(rules.body["status"]["nonResourceRules"].empty());
  // A non-resource path nobody granted.
  Reply metrics = As(token_, "GET", "/metrics");
  EXPECT_EQ(metrics.status, 403);
  EXPECT_EQ(metrics.body["message"],
            "forbidden: User \"system:serviceaccount:ops:op\" cannot get path \"/metrics\"");
}

TEST_F(AuthLayerTest, BadTokensAreUnauthorized) {
  EXPECT_EQ(As("garbage", "GET", "/api").status, 401);
  EXPECT_EQ(As(token_ + "x", "GET", "/api").status, 401);
  Reply r = Call("GET", "/api", nullptr, "application/json", {"Authorization: Basic Zm9vOmJhcg=="});
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body["reason"], "Unauthorized");
  // A token outlives neither its service account nor a re-created one of the same name.
  ASSERT_EQ(Delete("/api/v1/namespaces/ops/serviceaccounts/op").status, 200);
  EXPECT_EQ(As(token_, "GET", "/api").status, 401);
  ASSERT_EQ(Post("/api/v1/namespaces/ops/serviceaccounts",
                 {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "op"}}}})
                .status,
            201);
  EXPECT_EQ(As(token_, "GET", "/api").status, 401);
  EXPECT_EQ(As(Token("ops", "op", Json::object()), "GET", "/api").status, 200);
}

TEST_F(AuthLayerTest, PodBoundTokenDiesWithThePod) {
  Reply pod = Post("/api/v1/namespaces/ops/pods",
                   {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"name", "p"}}},
                    {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}});
  ASSERT_EQ(pod.status, 201) << pod.raw;
  Reply r = Post("/api/v1/namespaces/ops/serviceaccounts/op/token",
                 {{"apiVersion", "authentication.k8s.io/v1"},
                  {"kind", "TokenRequest"},
                  {"spec",
                   {{"expirationSeconds", 3607},
                    {"boundObjectRef",
                     {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "p"},
                      {"uid", pod.body["metadata"]["uid"]}}}}}});
  ASSERT_EQ(r.status, 201) << r.raw;
  const std::string token = r.body["status"]["token"];
  EXPECT_EQ(As(token, "GET", "/api").status, 200);
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/ops/pods/p?gracePeriodSeconds=0").status, 200);
  EXPECT_EQ(As(token, "GET", "/api").status, 401);
  // Too short, and bound to a pod that is not there.
  Reply short_lived = Post("/api/v1/namespaces/ops/serviceaccounts/op/token",
                           {{"apiVersion", "authentication.k8s.io/v1"},
                            {"kind", "TokenRequest"},
                            {"spec", {{"expirationSeconds", 60}}}});
  EXPECT_EQ(short_lived.status, 422);
  EXPECT_EQ(Post("/api/v1/namespaces/ops/serviceaccounts/nobody/token", Json::object()).status,
            404);
}

TEST_F(AuthLayerTest, AdminImpersonatesTheServiceAccount) {
  const std::vector<std::string> as = {"Impersonate-User: system:serviceaccount:ops:op"};
  auto can_i = [&](const std::string& verb) {
    Reply r = Call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                   {{"apiVersion", "authorization.k8s.io/v1"},
                    {"kind", "SelfSubjectAccessReview"},
                    {"spec",
                     {{"resourceAttributes",
                       {{"verb", verb}, {"resource", "pods"}, {"namespace", "ops"}}}}}},
                   "application/json", as);
    EXPECT_EQ(r.status, 201) << r.raw;
    return r.body["status"];
  };
  EXPECT_FALSE(can_i("get").value("allowed", true));
  GrantPodReader();
  Json status = can_i("get");
  EXPECT_TRUE(status.value("allowed", false));
  EXPECT_EQ(status["reason"],
            "RBAC: allowed by RoleBinding \"pods/ops\" of Role \"pods\" to ServiceAccount "
            "\"op/ops\"");
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/ops/configmaps", nullptr, "application/json", as).status,
            403);
  // The service account itself may not impersonate anyone.
  Reply r = Call("GET", "/api", nullptr, "application/json",
                 {"Authorization: Bearer " + token_, "Impersonate-User: system:admin"});
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body["message"],
            "users \"system:admin\" is forbidden: User \"system:serviceaccount:ops:op\" cannot "
            "impersonate resource \"users\" in API group \"\" at the cluster scope");
}

// A SelfSubjectAccessReview as kubectl 1.32 sends it: protobuf, "k8s\0" + runtime.Unknown.
TEST_F(AuthLayerTest, ProtobufAccessReview) {
  auto field = [](int number, const std::string& bytes) {
    std::string out;
    out.push_back(static_cast<char>((number << 3) | 2));
    out.push_back(static_cast<char>(bytes.size()));
    return out + bytes;
  };
  std::string attributes = field(1, "ops") + field(2, "list") + field(5, "pods");
  std::string review = field(2, field(1, attributes));
  std::string type_meta = field(1, "authorization.k8s.io/v1") + field(2, "SelfSubjectAccessReview");
  std::string body = std::string("k8s\0", 4) + field(1, type_meta) + field(2, review);
  Reply r = Call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                 Json(body), "application/vnd.kubernetes.protobuf",
                 {"Authorization: Bearer " + token_});
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["spec"]["resourceAttributes"]["verb"], "list");
  EXPECT_EQ(r.body["spec"]["resourceAttributes"]["namespace"], "ops");
  EXPECT_FALSE(r.body["status"]["allowed"].get<bool>());
}

TEST_F(AuthLayerTest, BootstrapPolicyValidationAndTables) {
  Reply crb = Get(std::string(kRbac) + "/clusterrolebindings/system:discovery");
  ASSERT_EQ(crb.status, 200);
  EXPECT_EQ(crb.body["subjects"][0]["name"], "system:authenticated");
  EXPECT_EQ(Get(std::string(kRbac) + "/clusterroles/cluster-admin").status, 200);

  Reply bad = Post(std::string(kRbac) + "/clusterroles",
                   {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                    {"kind", "ClusterRole"},
                    {"metadata", {{"name", "bad"}}},
                    {"rules", Json::array({{{"apiGroups", {""}}, {"resources", {"pods"}}}})}});
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(bad.body["message"],
            "ClusterRole.rbac.authorization.k8s.io \"bad\" is invalid: rules[0].verbs: Required "
            "value: verbs must contain at least one value");

  GrantPodReader();
  Reply binding = Get(std::string(kRbac) + "/namespaces/ops/rolebindings/pods");
  binding.body["roleRef"]["name"] = "other";
  Reply changed = Put(std::string(kRbac) + "/namespaces/ops/rolebindings/pods", binding.body);
  EXPECT_EQ(changed.status, 422);
  EXPECT_NE(changed.raw.find("cannot change roleRef"), std::string::npos) << changed.raw;

  Reply table = Call("GET", std::string(kRbac) + "/namespaces/ops/rolebindings", nullptr,
                     "application/json",
                     {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  ASSERT_EQ(table.status, 200) << table.raw;
  std::vector<std::string> columns;
  for (const Json& c : table.body["columnDefinitions"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Role", "Age", "Users", "Groups",
                                               "ServiceAccounts"}));
  EXPECT_EQ(table.body["rows"][0]["cells"][1], "Role/pods");
  EXPECT_EQ(table.body["rows"][0]["cells"][5], "/op");
}

TEST_F(AuthLayerTest, DiscoveryListsTheKinds) {
  Reply rbac = Get(kRbac);
  ASSERT_EQ(rbac.status, 200);
  std::vector<std::string> names;
  for (const Json& r : rbac.body["resources"]) names.push_back(r["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"clusterrolebindings", "clusterroles",
                                             "rolebindings", "roles"}));
  Reply core = Get("/api/v1");
  bool token = false;
  for (const Json& r : core.body["resources"]) token = token || r["name"] == "serviceaccounts/token";
  EXPECT_TRUE(token);
}

}  // namespace
}  // namespace trimtab::cluster::auth
