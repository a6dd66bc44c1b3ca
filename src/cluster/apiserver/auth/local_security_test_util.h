// Test only: what the tests of the API server as `trimtab local` runs it share
// (secure_server_test.cc, client_certificate_test.cc): the server with ApiServerSecurity::Local()
// on a temporary data directory that outlives restarts, answers as status + JSON, the 401 check,
// and the RBAC objects the tests create.
//
// Thread-safety: one test thread.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "adapters/http/client.h"
#include "cluster/apiserver/apiserver.h"
#include "cluster/apiserver/apiserver_test_util.h"

namespace trimtab::cluster::auth::local_security_testing {

struct Answer {
  int status = 0;
  Json body;
};

// An HTTP answer as status and body (the body null when it is not JSON); a failed request is
// a test failure and a zero status.
inline Answer ToAnswer(const StatusOr<http::ClientResponse>& r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  return {r->status, Json::parse(r->body, nullptr, false)};
}

// A 401 as kube-apiserver writes it: a Status object with reason Unauthorized.
inline void ExpectUnauthorized(const Answer& a) {
  EXPECT_EQ(a.status, 401) << a.body.dump();
  EXPECT_EQ(a.body.value("kind", ""), "Status");
  EXPECT_EQ(a.body.value("reason", ""), "Unauthorized");
  EXPECT_EQ(a.body.value("code", 0), 401);
}

inline const Json kSelfSubjectReview = {{"apiVersion", "authentication.k8s.io/v1"},
                                        {"kind", "SelfSubjectReview"}};

// A Role or ClusterRole (`kind`) named `name` with `rules`.
inline Json RbacRole(const std::string& kind, const std::string& name, Json rules) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", kind},
          {"metadata", {{"name", name}}},
          {"rules", std::move(rules)}};
}

// A RoleBinding or ClusterRoleBinding (`kind`) named `name` of the Role or ClusterRole
// (`role_kind`) `role` to `subjects`.
inline Json RbacBinding(const std::string& kind, const std::string& name,
                        const std::string& role_kind, const std::string& role, Json subjects) {
  return {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", kind},
      {"metadata", {{"name", name}}},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", role}}},
      {"subjects", std::move(subjects)}};
}

// The fixture: SetUp starts the server; a test restarts it on the same directory with
// `server_.reset(); Start();`. Started() runs after every start.
class LocalSecurityTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }

  void Start() {
    auto server = ApiServer::Create(
        {.data_dir = dir_.path(), .port = 0, .threads = 2, .security = ApiServerSecurity::Local()});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    Started();
  }
  virtual void Started() {}

  cluster::testing::TempDataDir dir_;
  std::unique_ptr<ApiServer> server_;
};

}  // namespace trimtab::cluster::auth::local_security_testing
