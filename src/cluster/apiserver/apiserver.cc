#include "cluster/apiserver/apiserver.h"

#include <filesystem>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/apiserver/auth/auth_layer.h"
#include "cluster/apiserver/auth/local_credentials.h"
#include "cluster/apiserver/surface/builtin_types.h"
#include "cluster/apiserver/surface/crd.h"
#include "cluster/apiserver/storage/gc.h"
#include "cluster/apiserver/storage/namespace_lifecycle.h"
#include "cluster/apiserver/storage/object_meta.h"
#include "cluster/apiserver/admission/pod_priority_admission.h"
#include "cluster/apiserver/handlers/request_metrics.h"
#include "cluster/apiserver/admission/service_ips.h"
#include "cluster/apiserver/storage/watch.h"

namespace trimtab::cluster {

StatusOr<std::unique_ptr<ApiServer>> ApiServer::Create(ApiServerOptions options) {
  std::unique_ptr<ApiServer> server(new ApiServer());
  Status s = server->Init(std::move(options));
  if (!s.ok()) {
    server->Stop();
    return s;
  }
  return server;
}

Status ApiServer::Init(ApiServerOptions options) {
  Clock* clock = options.clock ? options.clock : RealClock::Default();
  StoreOptions store_options{.path = ":memory:",
                             .sync_full = options.sync_full,
                             .compact_interval = options.compact_interval,
                             .compact_min_retain = options.compact_min_retain};
  if (!options.data_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.data_dir, ec);
    if (ec) {
      return UnavailableError("apiserver: cannot create data directory " + options.data_dir +
                              ": " + ec.message());
    }
    store_options.path = (std::filesystem::path(options.data_dir) / "state.db").string();
  }
  registry_ = std::make_unique<ResourceRegistry>();
  RegisterBuiltinTypes(*registry_);
  metrics_registry_ = options.metrics_registry;
  if (metrics_registry_ == nullptr) {
    owned_metrics_registry_ = std::make_unique<MetricsRegistry>();
    metrics_registry_ = owned_metrics_registry_.get();
  }
  request_metrics_ = std::make_unique<ApiServerMetrics>(metrics_registry_, registry_.get());
  store_options.observe = request_metrics_->StorageObserver();
  TRIMTAB_ASSIGN_OR_RETURN(store_, Store::Open(store_options));
  objects_ = std::make_unique<ObjectService>(store_.get(), registry_.get(), clock);
  TRIMTAB_ASSIGN_OR_RETURN(cluster_ips_,
                           ClusterIpAllocator::Create(options.service_cluster_ip_range));
  objects_->SetClusterIpAllocator(cluster_ips_.get());
  objects_->SetFeatureGates(options.feature_gates);
  if (options.metrics) RegisterMetricsApis(*registry_, *options.metrics);
  if (auto svc_type = registry_->Find("", "v1", "services")) {
    auto services = objects_->List(*svc_type, "", ListOptions{});
    if (!services.ok()) {
      return InternalError("apiserver: listing services: " + services.error().message);
    }
    for (const auto& svc : services->items) cluster_ips_->Restore(svc);
  }

  // Serve every stored CRD again.
  auto crd_type = registry_->Find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  if (crd_type) {
    auto crds = objects_->List(*crd_type, "", ListOptions{});
    if (!crds.ok()) return InternalError("apiserver: listing CRDs: " + crds.error().message);
    for (const auto& crd : crds->items) {
      auto types = ResourceTypesFromCrd(crd);
      if (!types.ok()) {
        spdlog::warn("apiserver: stored CRD {} is not servable: {}", MetaString(crd, "name"),
                     types.status().message());
        continue;
      }
      for (auto& t : *types) registry_->Put(std::move(t));
    }
  }
  auto ns_type = registry_->Find("", "v1", "namespaces");
  if (!ns_type) return InternalError("apiserver: namespaces are not registered");
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    auto created = objects_->Create(*ns_type, "", std::move(ns), WriteOptions{});
    if (!created.ok() && created.error().code != 409) {
      return InternalError("apiserver: creating namespace " + std::string(name) + ": " +
                           created.error().message);
    }
  }

  // The PriorityClasses every cluster has (pod_priority_admission.h).
  if (auto pc_type = registry_->Find("scheduling.k8s.io", "v1", "priorityclasses")) {
    for (Json pc : SystemPriorityClasses()) {
      const std::string name = MetaString(pc, "name");
      auto created = objects_->Create(*pc_type, "", std::move(pc), WriteOptions{});
      if (!created.ok() && created.error().code != 409) {
        return InternalError("apiserver: creating PriorityClass " + name + ": " +
                             created.error().message);
      }
    }
  }

  watches_ = std::make_unique<WatchHub>(
      objects_.get(), WatchHubOptions{.bookmark_interval = options.bookmark_interval});
  gc_ = std::make_unique<GarbageCollector>(objects_.get(), options.gc_period);
  lifecycle_ = std::make_unique<LifecycleController>(objects_.get(), options.lifecycle_period);
  TRIMTAB_RETURN_IF_ERROR(gc_->Start());
  TRIMTAB_RETURN_IF_ERROR(lifecycle_->Start());
  handler_ = std::make_unique<ApiHandler>(objects_.get(), watches_.get(), options.pod_logs);
  if (options.metrics) {
    handler_->SetMetricsApis(std::make_shared<MetricsApis>(objects_.get(), options.metrics));
  }
  ApiHandler* handler = handler_.get();
  // TLS material and the administrator's token (auth/local_credentials.h).
  const ApiServerSecurity& security = options.security;
  http::HttpServerOptions http_options{
      .address = options.address, .port = options.port, .threads = options.threads};
  std::vector<std::string> host_names = security.extra_names;
  if (security.tls || security.require_authentication) {
    std::vector<std::string> names = security.extra_names;
    names.push_back(options.address);
    TRIMTAB_ASSIGN_OR_RETURN(
        auth::LocalCredentials credentials,
        auth::LoadOrCreateLocalCredentials({.dir = options.data_dir, .extra_names = names}));
    host_names = credentials.dns_names;
    if (security.tls) {
      ca_certificate_pem_ = credentials.ca.certificate_pem;
      http_options.tls_certificate_pem = credentials.server.certificate_pem;
      http_options.tls_key_pem = credentials.server.key_pem;
    }
    if (security.require_authentication) admin_token_ = credentials.admin_token;
    if (security.tls && security.require_authentication) {
      // X.509 client certificates the cluster CA issued authenticate (auth_layer.h).
      http_options.tls_client_ca_pem = credentials.ca.certificate_pem;
      admin_client_certificate_ = credentials.admin_client;
    }
  }
  // Authentication, RBAC and the review/token APIs in front of the handler (auth_layer.h).
  TRIMTAB_ASSIGN_OR_RETURN(
      auth_, auth::AuthLayer::Create(
                 {.objects = objects_.get(),
                  .data_dir = options.data_dir,
                  .anonymous = security.require_authentication
                                   ? auth::AuthLayerOptions::Anonymous::kReject
                                   : auth::AuthLayerOptions::Anonymous::kAdmin,
                  .admin_token = admin_token_,
                  .check_host = security.check_host,
                  .host_names = host_names}));
  TRIMTAB_RETURN_IF_ERROR(auth_->Bootstrap());
  auth::AuthLayer* auth = auth_.get();
  http::HttpHandler next = [this, handler](const http::HttpRequest& r) {
    http::HttpResponse own = ServeNonApi(r);
    return own.status != 0 ? own : handler->Handle(r);
  };
  TRIMTAB_ASSIGN_OR_RETURN(
      http_, http::HttpServer::Create(http_options,
                                      request_metrics_->Wrap([auth, next](const http::HttpRequest& r) {
                                        return auth->Serve(r, next);
                                      })));
  spdlog::info("apiserver: serving on {} (store revision {})", http_->base_url(),
               store_->Revision());
  return Status::Ok();
}

ApiServer::~ApiServer() { Stop(); }

void ApiServer::Mount(std::string prefix, http::HttpHandler handler) {
  std::lock_guard<std::mutex> lock(mounts_mu_);
  mounts_.emplace_back(std::move(prefix), std::move(handler));
}

// /metrics and the mounted prefixes; status 0 = the Kubernetes API's to serve.
http::HttpResponse ApiServer::ServeNonApi(const http::HttpRequest& r) const {
  if (r.path == "/metrics") {
    if (r.method != "GET") return http::HttpResponse::Text(405, "only GET is allowed\n");
    return http::HttpResponse::Text(200, metrics_registry_->Render(), kPrometheusTextContentType);
  }
  http::HttpHandler mounted;
  {
    std::lock_guard<std::mutex> lock(mounts_mu_);
    for (const auto& [prefix, h] : mounts_) {
      const std::string_view bare = std::string_view(prefix).substr(
          0, prefix.size() - (prefix.ends_with('/') ? 1 : 0));
      if (r.path.rfind(prefix, 0) == 0 || r.path == bare) {
        mounted = h;
        break;
      }
    }
  }
  if (mounted) return mounted(r);
  http::HttpResponse none;
  none.status = 0;
  return none;
}

int ApiServer::port() const { return http_ ? http_->port() : 0; }
std::string ApiServer::url() const { return http_ ? http_->base_url() : ""; }

void ApiServer::Wait() {
  if (http_) http_->Wait();
}

void ApiServer::Stop() {
  if (watches_) watches_->Stop();
  if (http_) http_->Stop();
  if (gc_) gc_->Stop();
  if (lifecycle_) lifecycle_->Stop();
}

}  // namespace trimtab::cluster
