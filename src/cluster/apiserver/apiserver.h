// ApiServer: the local Kubernetes-compatible API server of `trimtab local`. It wires the
// revisioned Store (SQLite under the data directory), the ResourceRegistry (built-in kinds plus
// every stored CRD), the ObjectService, watches, the garbage collector and the lifecycle
// controller behind an HttpServer, and creates the namespaces default, kube-system, kube-public
// and kube-node-lease on first start. Service clusterIPs come from a ClusterIpAllocator whose
// state is rebuilt from the stored Services at every start.
//
// Besides the Kubernetes API it serves /metrics (the API server's Prometheus series,
// request_metrics.h) and whatever is mounted under a path prefix (Mount: the dashboard of
// `trimtab local`), both behind authentication like every non-resource URL.
//
// Usage:
//   auto server = ApiServer::Create({.data_dir = "/tmp/x", .port = 0});
//   if (!server.ok()) ...;
//   std::string url = (*server)->url();   // http://127.0.0.1:PORT
//   // trimtab local: .security = ApiServerSecurity::Local() -> https://, CA + admin token.
//   (*server)->Wait();                    // until Stop()
//
// Threading: Create/Stop/Wait from the owner; everything else is internal. Stop() is graceful
// and idempotent.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "adapters/http/x509.h"
#include "cluster/apiserver/handlers/handlers.h"
#include "cluster/apiserver/handlers/metrics_apis.h"
#include "cluster/apiserver/storage/object_service.h"
#include "cluster/apiserver/surface/resource_registry.h"
#include "cluster/store/store.h"
#include "common/clock.h"
#include "common/metrics_registry.h"
#include "common/status.h"

namespace trimtab::cluster {

// How the API server protects itself (docs/security.md). The defaults are for in-process tests,
// which talk plain HTTP without credentials; `trimtab local` uses Local().
struct ApiServerSecurity {
  // HTTPS with a serving certificate from the local CA (auth/local_credentials.h), kept under
  // <data_dir>/pki (in memory without a data directory).
  bool tls = false;
  // Every request needs credentials (the administrator's token, <data_dir>/admin.token, or a
  // service-account token); none or unknown ones get 401. false: a request without credentials
  // is the administrator (system:masters).
  bool require_authentication = false;
  // Refuse requests whose Host/Origin names another host than an IP address, localhost or one
  // of the certificate's names (DNS rebinding; auth/host_check.h).
  bool check_host = false;
  // More names and IP addresses for the serving certificate and the host check (--tls-san).
  std::vector<std::string> extra_names;

  static ApiServerSecurity Local() {
    return {.tls = true, .require_authentication = true, .check_host = true};
  }
};

struct ApiServerOptions {
  // Directory holding state.db (created if missing). Empty: an in-memory store (tests).
  std::string data_dir;
  std::string address = "127.0.0.1";
  int port = 0;                 // 0 = any free port (see port())
  int threads = 4;              // HTTP threads
  bool sync_full = false;       // fsync every commit (see Store)
  Clock* clock = nullptr;       // timestamps; null = the real clock
  // Service clusterIPs are allocated from this range (inside 127.0.0.0/8; see service_ips.h).
  std::string service_cluster_ip_range = "127.10.0.0/16";
  PodLogProvider pod_logs;      // `kubectl logs` text; null = empty logs
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(60)};
  std::chrono::milliseconds compact_interval{std::chrono::minutes(5)};
  int64_t compact_min_retain = 1000;
  std::chrono::milliseconds gc_period{std::chrono::seconds(10)};
  std::chrono::milliseconds lifecycle_period{std::chrono::seconds(2)};
  // Kubernetes feature gates (HPAScaleToZero changes HPA validation).
  FeatureGates feature_gates;
  // Serves metrics.k8s.io and external.metrics.k8s.io (metrics_apis.h); null: not served.
  std::shared_ptr<MetricsProvider> metrics;
  // Where the API server's own Prometheus series go (not owned; null = a registry of its own).
  MetricsRegistry* metrics_registry = nullptr;
  // TLS, authentication, Host checks (see ApiServerSecurity).
  ApiServerSecurity security;
};

namespace auth {
class AuthLayer;
}
class ApiServerMetrics;
class ClusterIpAllocator;
class GarbageCollector;
class LifecycleController;
class WatchHub;

class ApiServer {
 public:
  static StatusOr<std::unique_ptr<ApiServer>> Create(ApiServerOptions options);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int port() const;
  std::string url() const;  // http://address:port (https:// with security.tls)
  // The CA that signed the serving certificate (PEM) and the administrator's bearer token, for
  // a kubeconfig or an in-process client; both "" when security.tls / require_authentication
  // are off.
  const std::string& ca_certificate_pem() const { return ca_certificate_pem_; }
  const std::string& admin_token() const { return admin_token_; }
  // With TLS and authentication: the administrator's client certificate and key (PEM), which
  // the API server accepts as kubernetes-admin in system:masters; empty otherwise.
  const http::KeyPair& admin_client_certificate() const { return admin_client_certificate_; }
  void Wait();
  void Stop();

  // In-process access (controllers living in the same process, tests).
  ObjectService* objects() { return objects_.get(); }
  ResourceRegistry* registry() { return registry_.get(); }
  Store* store() { return store_.get(); }
  ClusterIpAllocator* cluster_ips() { return cluster_ips_.get(); }
  GarbageCollector* gc() { return gc_.get(); }
  LifecycleController* lifecycle() { return lifecycle_.get(); }
  WatchHub* watches() { return watches_.get(); }
  auth::AuthLayer* auth() { return auth_.get(); }  // authn/authz, RBAC (auth/auth_layer.h)
  MetricsRegistry* metrics_registry() { return metrics_registry_; }

  // Serves every request whose path is `prefix` or starts with it (e.g. "/dashboard/") with
  // `handler`, after authentication, in place of the Kubernetes API. Any thread, any time.
  void Mount(std::string prefix, http::HttpHandler handler);

 private:
  ApiServer() = default;
  Status Init(ApiServerOptions options);

  http::HttpResponse ServeNonApi(const http::HttpRequest& request) const;

  std::string ca_certificate_pem_;
  std::string admin_token_;
  http::KeyPair admin_client_certificate_;
  std::unique_ptr<MetricsRegistry> owned_metrics_registry_;
  MetricsRegistry* metrics_registry_ = nullptr;
  std::unique_ptr<ApiServerMetrics> request_metrics_;
  mutable std::mutex mounts_mu_;
  std::vector<std::pair<std::string, http::HttpHandler>> mounts_;  // guarded by mounts_mu_
  std::unique_ptr<Store> store_;
  std::unique_ptr<ResourceRegistry> registry_;
  std::unique_ptr<ClusterIpAllocator> cluster_ips_;
  std::unique_ptr<ObjectService> objects_;
  std::unique_ptr<WatchHub> watches_;
  std::unique_ptr<GarbageCollector> gc_;
  std::unique_ptr<LifecycleController> lifecycle_;
  std::unique_ptr<ApiHandler> handler_;
  std::unique_ptr<auth::AuthLayer> auth_;
  std::unique_ptr<http::HttpServer> http_;
};

}  // namespace trimtab::cluster
