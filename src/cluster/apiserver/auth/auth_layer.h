// AuthLayer: authentication and authorization in front of the local API server's handler, as
// the kube-apiserver's filter chain does it, and the APIs of authentication.k8s.io and
// authorization.k8s.io.
//
// Authentication:
//   - an X.509 client certificate (HTTPS with the cluster CA as client CA: ApiServer asks for
//     one when TLS and authentication are on), tried first: one that chains to the CA, is valid
//     and is for client authentication is the user in its subject's CommonName with its
//     Organizations as groups, plus system:authenticated (kube-apiserver's x509 authenticator);
//     one without a CommonName leaves the request to the other credentials; one that does not
//     verify is 401, whatever else the request carries.
//   - `Authorization: Bearer <token>` with a service-account token this server issued
//     (service_account_tokens.h) whose service account (and bound pod or Secret) still exists
//     with the same uid: the user system:serviceaccount:<ns>:<name> in the groups
//     system:serviceaccounts, system:serviceaccounts:<ns> and system:authenticated. Any other
//     bearer token: 401 Unauthorized.
//   - `Authorization: Bearer <admin token>` (AuthLayerOptions::admin_token, the token in the
//     kubeconfig `trimtab local` writes): the local administrator, user "system:admin" in group
//     system:masters.
//   - no credentials: with Anonymous::kReject (what `trimtab local` runs) 401 Unauthorized,
//     except GET /healthz, /livez, /readyz (and their sub-paths), which are served to
//     system:anonymous as the kube-apiserver's anonymous authenticator limited to those paths
//     does; with Anonymous::kAdmin (in-process tests that speak plain HTTP) the administrator.
//   - anything else (Basic credentials, unknown tokens): 401 Unauthorized, the upstream Status.
//   - Impersonate-User / Impersonate-Group / Impersonate-Uid headers (`kubectl --as`,
//     `--as-group`) switch to that user when the requester may `impersonate` it (the
//     administrator always may).
//
// Authorization: members of system:masters may do anything; everyone else is authorized by
// RBAC (rbac_authorizer.h) over the stored Roles, ClusterRoles and bindings; a denial is the
// kube-apiserver's 403. The policy is read from storage again after any RBAC object changes (a
// store watch marks it stale), so a changed Role takes effect on the next request.
//
// Before authentication, when AuthLayerOptions::check_host is set, Host and Origin must name
// this server (host_check.h, against DNS rebinding); otherwise 403.
//
// Served here (never stored): POST selfsubjectaccessreviews, selfsubjectrulesreviews,
// subjectaccessreviews, localsubjectaccessreviews (authorization.k8s.io/v1); tokenreviews,
// selfsubjectreviews (authentication.k8s.io/v1); serviceaccounts/<name>/token (TokenRequest:
// `kubectl create token`, the kubelet's token for a pod). Everything else goes to `next`.
//
// Bootstrap() creates the default policy (rbac_types.h BootstrapRbacObjects) when absent.
//
// Thread-safety: Serve may run concurrently on every HTTP thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adapters/http/server.h"
#include "cluster/apiserver/auth/rbac_authorizer.h"
#include "cluster/apiserver/auth/service_account_tokens.h"
#include "cluster/apiserver/storage/object_service.h"

namespace trimtab::cluster::auth {

inline constexpr std::string_view kAdminUser = "system:admin";

struct AuthLayerOptions {
  ObjectService* objects = nullptr;  // required; outlives the layer
  // The service-account signing key is kept in <data_dir>/service-account.key; "" = in memory.
  std::string data_dir;
  // Who a request without credentials is (see the header comment).
  enum class Anonymous {
    kAdmin,   // the administrator: only for in-process tests on plain HTTP
    kReject,  // 401, but for the health endpoints
  };
  Anonymous anonymous = Anonymous::kAdmin;
  // The administrator's bearer token; "" = no token authenticates as the administrator.
  std::string admin_token;
  // Refuse requests whose Host/Origin is not an IP address, localhost or one of host_names.
  bool check_host = false;
  std::vector<std::string> host_names;
};

class AuthLayer {
 public:
  static StatusOr<std::unique_ptr<AuthLayer>> Create(AuthLayerOptions options);
  ~AuthLayer();
  AuthLayer(const AuthLayer&) = delete;
  AuthLayer& operator=(const AuthLayer&) = delete;

  // Creates the default ClusterRoles and ClusterRoleBindings that do not exist yet.
  Status Bootstrap();

  http::HttpResponse Serve(const http::HttpRequest& request, const http::HttpHandler& next);

  // The RBAC decision for `attributes` (system:masters first), as Serve makes it.
  Decision Check(const Attributes& attributes);
  const TokenIssuer& tokens() const { return *tokens_; }

  struct Request;  // one request being served (auth_layer.cc)

 private:
  explicit AuthLayer(AuthLayerOptions options) : options_(std::move(options)) {}
  std::shared_ptr<const RbacPolicy> Policy();
  std::optional<ApiError> Authenticate(const http::HttpRequest& request, UserInfo* user);
  std::optional<ApiError> Impersonate(const http::HttpRequest& request, UserInfo* user);
  std::optional<http::HttpResponse> ServeApi(Request& request);
  http::HttpResponse AccessReview(Request& request, const std::string& kind);
  http::HttpResponse RulesReview(Request& request);
  http::HttpResponse TokenReview(Request& request);
  http::HttpResponse SelfSubjectReview(Request& request);
  http::HttpResponse CreateToken(Request& request);

  AuthLayerOptions options_;
  std::unique_ptr<TokenIssuer> tokens_;
  uint64_t watch_id_ = 0;
  bool watching_ = false;
  std::atomic<uint64_t> rbac_generation_{1};  // bumped by the store watch

  std::mutex mu_;
  std::shared_ptr<const RbacPolicy> policy_;  // guarded by mu_
  uint64_t policy_generation_ = 0;            // guarded by mu_
};

}  // namespace trimtab::cluster::auth
