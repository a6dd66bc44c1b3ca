// X.509 client certificates on the API server as `trimtab local` runs it
// (ApiServerSecurity::Local()), as kube-apiserver's x509 authenticator reads them: a certificate
// the cluster CA issued for client authentication is the user in its CommonName with the groups
// in its Organizations (and system:authenticated); RBAC then applies. A certificate from another
// CA or a server certificate authenticates nobody (401). The
// administrator's certificate (<data_dir>/pki/admin.crt, CN kubernetes-admin, O system:masters)
// is reused across restarts like the other credentials. Driven by HttpClient (libcurl) with the
// certificate and key, as kubectl does with client-certificate-data.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "adapters/http/client.h"
#include "adapters/http/x509.h"
#include "cluster/apiserver/apiserver.h"
#include "cluster/apiserver/apiserver_test_util.h"
#include "cluster/apiserver/auth/local_credentials.h"
#include "cluster/apiserver/auth/local_security_test_util.h"

namespace trimtab::cluster::auth {
namespace {

using namespace std::chrono_literals;
using namespace local_security_testing;

class ClientCertificateTest : public LocalSecurityTest {
 protected:
  void Started() override {
    // The same directory hands out the CA (with its key) the server uses.
    auto credentials = LoadOrCreateLocalCredentials({.dir = dir_.path()});
    ASSERT_TRUE(credentials.ok()) << credentials.status().ToString();
    ca_ = credentials->ca;
  }

  // One request presenting `cert` (none when its certificate is empty) and, when not empty,
  // the Authorization header `auth`.
  Answer Call(const http::KeyPair& cert, const std::string& method, const std::string& path,
              const Json& body = nullptr, const std::string& auth = "") {
    auto client = http::HttpClient::Create({.tls = {.ca_data = server_->ca_certificate_pem(),
                                                    .client_cert_data = cert.certificate_pem,
                                                    .client_key_data = cert.key_pem},
                                            .default_timeout = 10s});
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    if (!client.ok()) return {};
    http::Headers headers = {{"Content-Type", "application/json"}};
    if (!auth.empty()) headers.emplace_back("Authorization", auth);
    return ToAnswer((*client)->Do({.method = method,
                                   .url = server_->url() + path,
                                   .headers = std::move(headers),
                                   .body = body.is_null() ? "" : body.dump()}));
  }

  http::KeyPair Issue(const std::string& user, std::vector<std::string> groups,
                      const http::KeyPair& ca) {
    auto cert = http::IssueCertificate(
        ca, {.common_name = user, .organizations = std::move(groups), .server = false});
    EXPECT_TRUE(cert.ok()) << cert.status().ToString();
    return cert.ok() ? *cert : http::KeyPair{};
  }

  Json WhoAmI(const http::KeyPair& cert, const std::string& auth = "") {
    Answer me = Call(cert, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                     kSelfSubjectReview, auth);
    EXPECT_EQ(me.status, 201) << me.body.dump();
    return me.body["status"]["userInfo"];
  }

  http::KeyPair ca_;
};

TEST_F(ClientCertificateTest, AdministratorsCertificateIsInSystemMasters) {
  const http::KeyPair& admin = server_->admin_client_certificate();
  ASSERT_FALSE(admin.certificate_pem.empty());
  EXPECT_TRUE(http::SignedBy(admin.certificate_pem, server_->ca_certificate_pem()));
  Json me = WhoAmI(admin);
  EXPECT_EQ(me.value("username", ""), "kubernetes-admin");
  EXPECT_EQ(me["groups"], Json::array({"system:masters", "system:authenticated"}));
  EXPECT_EQ(Call(admin, "GET", "/api/v1/namespaces/kube-system/secrets").status, 200);
  EXPECT_EQ(Call(admin, "POST", "/api/v1/namespaces/default/configmaps",
                 {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}})
                .status,
            201);
}

TEST_F(ClientCertificateTest, CommonNameIsTheUserAndOrganizationsTheGroups) {
  const http::KeyPair jane = Issue("jane", {"dev", "qa"}, ca_);
  Json me = WhoAmI(jane);
  EXPECT_EQ(me.value("username", ""), "jane");
  EXPECT_EQ(me["groups"], Json::array({"dev", "qa", "system:authenticated"}));
  // RBAC applies: nothing is granted to jane or her groups yet.
  Answer denied = Call(jane, "GET", "/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(denied.status, 403);
  EXPECT_NE(denied.body.value("message", "")
                .find("User \"jane\" cannot list resource "
                      "\"configmaps\""),
            std::string::npos)
      << denied.body.dump();
  // A Role that reads ConfigMaps, bound to the group "qa", grants it.
  const http::KeyPair admin = server_->admin_client_certificate();
  const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/default";
  ASSERT_EQ(Call(admin, "POST", rbac + "/roles",
                 RbacRole("Role", "configmap-reader",
                          Json::array({{{"apiGroups", {""}},
                                        {"resources", {"configmaps"}},
                                        {"verbs", {"get", "list"}}}})))
                .status,
            201);
  ASSERT_EQ(Call(admin, "POST", rbac + "/rolebindings",
                 RbacBinding("RoleBinding", "qa-reads-configmaps", "Role", "configmap-reader",
                             Json::array({{{"apiGroup", "rbac.authorization.k8s.io"},
                                           {"kind", "Group"},
                                           {"name", "qa"}}})))
                .status,
            201);
  EXPECT_EQ(Call(jane, "GET", "/api/v1/namespaces/default/configmaps").status, 200);
  EXPECT_EQ(Call(jane, "DELETE", "/api/v1/namespaces/default/configmaps/x").status, 403);
  // A verified certificate wins over a bearer token, as kube-apiserver tries x509 first.
  EXPECT_EQ(WhoAmI(jane, "Bearer " + server_->admin_token()).value("username", ""), "jane");
}

TEST_F(ClientCertificateTest, ForeignOrServerCertificatesAuthenticateNobody) {
  auto other_ca = http::GenerateCa({.common_name = "another-cluster"});
  ASSERT_TRUE(other_ca.ok());
  const http::KeyPair foreign = Issue("mallory", {"system:masters"}, *other_ca);
  ExpectUnauthorized(Call(foreign, "GET", "/api/v1/namespaces"));
  ExpectUnauthorized(Call(foreign, "GET", "/healthz"));
  // Not even with the administrator's token beside it: the failed certificate is an error.
  ExpectUnauthorized(
      Call(foreign, "GET", "/api/v1/namespaces", nullptr, "Bearer " + server_->admin_token()));
  // A certificate of the right CA for serving, not for client authentication.
  auto serving = http::IssueCertificate(
      ca_, {.common_name = "system:admin", .organizations = {"system:masters"}, .server = true});
  ASSERT_TRUE(serving.ok());
  ExpectUnauthorized(Call(*serving, "GET", "/api/v1/namespaces"));
}

TEST_F(ClientCertificateTest, AdministratorsCertificateSurvivesARestart) {
  const http::KeyPair before = server_->admin_client_certificate();
  server_->Stop();
  server_.reset();
  Start();
  EXPECT_EQ(server_->admin_client_certificate().certificate_pem, before.certificate_pem);
  EXPECT_EQ(Call(before, "GET", "/api/v1/namespaces").status, 200);
  struct stat st {};
  ASSERT_EQ(::stat((dir_.path() + "/pki/admin.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u);
}

}  // namespace
}  // namespace trimtab::cluster::auth
