// The API server as `trimtab local` runs it (ApiServerSecurity::Local()): HTTPS with the local
// CA, every request authenticated (401 Status without or with bad credentials), impersonation
// only with the RBAC verb impersonate, the Host/Origin check against DNS rebinding, and the
// credentials kept in the data directory across restarts. Driven by HttpClient (libcurl) as a
// real client would.
#include <sys/stat.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "adapters/http/client.h"
#include "cluster/apiserver/apiserver.h"
#include "cluster/apiserver/apiserver_test_util.h"
#include "cluster/apiserver/auth/host_check.h"
#include "cluster/apiserver/auth/local_credentials.h"
#include "cluster/apiserver/auth/local_security_test_util.h"

namespace trimtab::cluster::auth {
namespace {

using namespace std::chrono_literals;
using namespace local_security_testing;
using ::trimtab::cluster::testing::TempDataDir;

constexpr char kRbac[] = "/apis/rbac.authorization.k8s.io/v1";

class SecureServerTest : public LocalSecurityTest {
 protected:
  void Started() override {
    auto client = http::HttpClient::Create(
        {.tls = {.ca_data = server_->ca_certificate_pem()}, .default_timeout = 10s});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }

  // One request; `auth` is the Authorization header ("" = none).
  Answer Call(const std::string& method, const std::string& path, const std::string& auth,
              const Json& body = nullptr, http::Headers headers = {}) {
    if (!auth.empty()) headers.emplace_back("Authorization", auth);
    headers.emplace_back("Content-Type", "application/json");
    return ToAnswer(client_->Do({.method = method,
                                 .url = server_->url() + path,
                                 .headers = std::move(headers),
                                 .body = body.is_null() ? "" : body.dump()}));
  }
  std::string Admin() const { return "Bearer " + server_->admin_token(); }

  // A token for ServiceAccount default/<name> (created).
  std::string ServiceAccountToken(const std::string& name) {
    EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/serviceaccounts", Admin(),
                   {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}})
                  .status,
              201);
    Answer t = Call("POST", "/api/v1/namespaces/default/serviceaccounts/" + name + "/token",
                    Admin(),
                    {{"apiVersion", "authentication.k8s.io/v1"},
                     {"kind", "TokenRequest"},
                     {"spec", Json::object()}});
    EXPECT_EQ(t.status, 201);
    return "Bearer " + t.body["status"].value("token", "");
  }

  std::unique_ptr<http::HttpClient> client_;
};

TEST_F(SecureServerTest, ServesHttpsWithTheAdministratorsToken) {
  EXPECT_EQ(server_->url().rfind("https://127.0.0.1:", 0), 0u) << server_->url();
  EXPECT_FALSE(server_->ca_certificate_pem().empty());
  EXPECT_GE(server_->admin_token().size(), 32u);
  Answer list = Call("GET", "/api/v1/namespaces", Admin());
  EXPECT_EQ(list.status, 200);
  EXPECT_EQ(list.body.value("kind", ""), "NamespaceList");
  Answer me = Call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", Admin(),
                   kSelfSubjectReview);
  EXPECT_EQ(me.status, 201);
  EXPECT_EQ(me.body["status"]["userInfo"].value("username", ""), "system:admin");
}

TEST_F(SecureServerTest, MissingOrUnknownCredentialsGet401) {
  ExpectUnauthorized(Call("GET", "/api/v1/namespaces/kube-system/secrets", ""));
  ExpectUnauthorized(Call("DELETE", "/api/v1/namespaces/kube-system", ""));
  ExpectUnauthorized(Call("GET", "/version", ""));
  ExpectUnauthorized(Call("GET", "/api/v1/namespaces", "Bearer garbage"));
  ExpectUnauthorized(Call("GET", "/api/v1/namespaces", "Bearer " + server_->admin_token() + "x"));
  ExpectUnauthorized(Call("GET", "/api/v1/namespaces", "Basic YWRtaW46YWRtaW4="));  // admin:admin
  ExpectUnauthorized(Call("GET", "/api/v1/namespaces", "Bearer "));
  // A token signed by another cluster's key.
  ExpectUnauthorized(Call("GET", "/api/v1/namespaces",
                          "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"));
  // Nothing was deleted.
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/kube-system", Admin()).status, 200);
}

TEST_F(SecureServerTest, HealthEndpointsAnswerWithoutCredentials) {
  for (const char* path : {"/healthz", "/livez", "/readyz"}) {
    EXPECT_EQ(Call("GET", path, "").status, 200) << path;
  }
  ExpectUnauthorized(Call("POST", "/healthz", ""));
}

TEST_F(SecureServerTest, ImpersonationNeedsTheImpersonateVerb) {
  const std::string sa = ServiceAccountToken("robot");
  const http::Headers as_alice = {{"Impersonate-User", "alice"}};
  Answer denied = Call("GET", "/api/v1/namespaces", sa, nullptr, as_alice);
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body.value("reason", ""), "Forbidden");
  EXPECT_NE(denied.body.value("message", "").find("impersonate"), std::string::npos)
      << denied.body.dump();
  // Also as a group member of system:masters: not without permission.
  EXPECT_EQ(Call("GET", "/api/v1/namespaces", sa, nullptr,
                 {{"Impersonate-User", "alice"}, {"Impersonate-Group", "system:masters"}})
                .status,
            403);

  ASSERT_EQ(Call("POST", std::string(kRbac) + "/clusterroles", Admin(),
                 RbacRole("ClusterRole", "impersonate-alice",
                          Json::array({{{"apiGroups", {""}},
                                        {"resources", {"users"}},
                                        {"resourceNames", {"alice"}},
                                        {"verbs", {"impersonate"}}}})))
                .status,
            201);
  ASSERT_EQ(Call("POST", std::string(kRbac) + "/clusterrolebindings", Admin(),
                 RbacBinding("ClusterRoleBinding", "robot-impersonates-alice", "ClusterRole",
                             "impersonate-alice",
                             Json::array({{{"kind", "ServiceAccount"},
                                           {"name", "robot"},
                                           {"namespace", "default"}}})))
                .status,
            201);
  Answer me = Call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", sa,
                   kSelfSubjectReview,
                   as_alice);
  EXPECT_EQ(me.status, 201) << me.body.dump();
  EXPECT_EQ(me.body["status"]["userInfo"].value("username", ""), "alice");
  // alice herself may not list namespaces: the impersonated user's rights apply.
  EXPECT_EQ(Call("GET", "/api/v1/namespaces", sa, nullptr, as_alice).status, 403);
  // bob is still out of reach.
  EXPECT_EQ(Call("GET", "/api/v1/namespaces", sa, nullptr, {{"Impersonate-User", "bob"}}).status,
            403);
  // The administrator may impersonate anyone.
  Answer admin_as_bob =
      Call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", Admin(),
           kSelfSubjectReview,
           {{"Impersonate-User", "bob"}});
  EXPECT_EQ(admin_as_bob.status, 201);
  EXPECT_EQ(admin_as_bob.body["status"]["userInfo"].value("username", ""), "bob");
  // Without credentials, impersonation headers change nothing: 401.
  ExpectUnauthorized(Call("GET", "/api/v1/namespaces", "", nullptr,
                          {{"Impersonate-User", "system:admin"}}));
}

TEST_F(SecureServerTest, ForeignHostOrOriginIsRefused) {
  Answer rebound = Call("GET", "/api/v1/namespaces", Admin(), nullptr,
                        {{"Host", "attacker.example:6443"}});
  EXPECT_EQ(rebound.status, 403);
  EXPECT_NE(rebound.body.value("message", "").find("attacker.example"), std::string::npos);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces", Admin(), nullptr,
                 {{"Origin", "http://attacker.example"}})
                .status,
            403);
  EXPECT_EQ(Call("GET", "/healthz", "", nullptr, {{"Host", "attacker.example"}}).status, 403);
  for (const char* host : {"localhost:1", "127.0.0.1", "[::1]:6443", "kubernetes.default.svc"}) {
    EXPECT_EQ(Call("GET", "/api/v1/namespaces", Admin(), nullptr, {{"Host", host}}).status, 200)
        << host;
  }
  EXPECT_EQ(Call("GET", "/api/v1/namespaces", Admin(), nullptr,
                 {{"Origin", "https://localhost:6443"}})
                .status,
            200);
}

TEST_F(SecureServerTest, ClientWithoutTheCaIsRefusedByTls) {
  auto plain = http::HttpClient::Create({.default_timeout = 5s});
  ASSERT_TRUE(plain.ok());
  auto r = (*plain)->Do({.url = server_->url() + "/version",
                         .headers = {{"Authorization", Admin()}}});
  EXPECT_FALSE(r.ok()) << "the system trust store must not know the local CA";
  // Plain HTTP to the port gets no API answer.
  const std::string http_url = "http://127.0.0.1:" + std::to_string(server_->port()) + "/version";
  auto h = (*plain)->Do({.url = http_url, .timeout = 3s});
  EXPECT_TRUE(!h.ok() || h->status != 200);
}

TEST_F(SecureServerTest, CredentialsSurviveARestart) {
  const std::string ca = server_->ca_certificate_pem();
  const std::string token = server_->admin_token();
  server_->Stop();
  server_.reset();
  client_.reset();
  Start();
  EXPECT_EQ(server_->ca_certificate_pem(), ca);
  EXPECT_EQ(server_->admin_token(), token);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces", "Bearer " + token).status, 200);
  // Keys and the token are private to the owner.
  for (const char* file : {"pki/ca.key", "pki/apiserver.key", "admin.token"}) {
    struct stat st {};
    ASSERT_EQ(::stat((dir_.path() + "/" + file).c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 0077, 0u) << file;
  }
}

TEST(LocalCredentialsTest, ReissuesTheServingCertificateForANewNameKeepingTheCa) {
  TempDataDir dir;
  auto first = LoadOrCreateLocalCredentials({.dir = dir.path()});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto again = LoadOrCreateLocalCredentials({.dir = dir.path()});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->server.certificate_pem, first->server.certificate_pem);  // reused
  auto named = LoadOrCreateLocalCredentials({.dir = dir.path(),
                                             .extra_names = {"apiserver.example", "10.1.2.3"}});
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->ca.certificate_pem, first->ca.certificate_pem);
  EXPECT_EQ(named->admin_token, first->admin_token);
  EXPECT_NE(named->server.certificate_pem, first->server.certificate_pem);
  auto info = http::InspectCertificate(named->server.certificate_pem);
  ASSERT_TRUE(info.ok());
  EXPECT_NE(std::find(info->dns_names.begin(), info->dns_names.end(), "apiserver.example"),
            info->dns_names.end());
  EXPECT_NE(std::find(info->ip_addresses.begin(), info->ip_addresses.end(), "10.1.2.3"),
            info->ip_addresses.end());
  EXPECT_TRUE(http::SignedBy(named->server.certificate_pem, first->ca.certificate_pem));
  // In memory (no directory): fresh material every time.
  auto memory = LoadOrCreateLocalCredentials({});
  ASSERT_TRUE(memory.ok());
  EXPECT_NE(memory->admin_token, first->admin_token);
}

TEST(HostCheckTest, ParsesHostAndOrigin) {
  EXPECT_EQ(HostOf("127.0.0.1:6443", false), "127.0.0.1");
  EXPECT_EQ(HostOf("[::1]:6443", false), "::1");
  EXPECT_EQ(HostOf("LocalHost.", false), "localhost");
  EXPECT_EQ(HostOf("https://evil.example:8443/x", true), "evil.example");
  EXPECT_EQ(HostOf("null", true), "");
  EXPECT_TRUE(HostAllowed("127.0.0.1", {}));
  EXPECT_TRUE(HostAllowed("::1", {}));
  EXPECT_TRUE(HostAllowed("localhost", {}));
  EXPECT_TRUE(HostAllowed("my.host", {"My.Host"}));
  EXPECT_FALSE(HostAllowed("localhost.evil.example", {}));
  EXPECT_FALSE(HostAllowed("", {}));
}

}  // namespace
}  // namespace trimtab::cluster::auth
