// ApiServer: the local Kubernetes-compatible API server of `trimtab local`. It wires the
// revisioned Store (SQLite under the data directory), the ResourceRegistry (built-in kinds plus
// every stored CRD), the ObjectService, watches, the garbage collector and the lifecycle
// controller behind an HttpServer, and creates the namespaces default, kube-system, kube-public
// and kube-node-lease on first start. Service clusterIPs come from a ClusterIpAllocator whose
// state is rebuilt from the stored Services at every start.
//
// Usage:
//   auto server = ApiServer::Create({.data_dir = "/tmp/x", .port = 0});
//   if (!server.ok()) ...;
//   std::string url = (*server)->url();   // http://127.0.0.1:PORT
//   (*server)->Wait();                    // until Stop()
//
// Threading: Create/Stop/Wait from the owner; everything else is internal. Stop() is graceful
// and idempotent.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "cluster/apiserver/handlers.h"
#include "cluster/apiserver/metrics_apis.h"
#include "cluster/apiserver/object_service.h"
#include "cluster/apiserver/resource_registry.h"
#include "cluster/store/store.h"
#include "common/clock.h"
#include "common/status.h"

namespace trimtab::cluster {

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
};

namespace auth {
class AuthLayer;
}
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
  std::string url() const;  // http://address:port
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

 private:
  ApiServer() = default;
  Status Init(ApiServerOptions options);

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
