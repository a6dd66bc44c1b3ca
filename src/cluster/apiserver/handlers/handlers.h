// ApiHandler: turns HTTP requests into ObjectService / WatchHub calls and Kubernetes responses.
//
//   /version /healthz /readyz /livez             fixed documents
//   /api /apis /api/v1 /apis/<g>[/<v>]           discovery (discovery.h)
//   /openapi/v3[/...], /openapi/v2                OpenAPI (openapi.h); v2 has no definitions
//   /api/v1/..., /apis/<g>/<v>/...               resources: get, list (Table on request), watch,
//                                                create, update, patch (json, merge, strategic,
//                                                apply), delete, deletecollection; subresources
//                                                status, scale, pods/log (-f, --previous),
//                                                pods/binding, pods/eviction,
//                                                namespaces/finalize; pods/portforward
//                                                (port_forward.h), pods and services proxy
//                                                (handlers_proxy.cc); pods/exec in the
//                                                container's sandbox (exec/pod_exec.h); attach
//                                                and nodes/proxy answer 400 "not supported"
//   /apis/{metrics,external.metrics}.k8s.io/...  the metrics APIs (metrics_apis.h), when set
//
// Request bodies are JSON (YAML accepted too) or, for the built-in kinds, Kubernetes protobuf
// (protobuf_decode.h; custom resources get 415). Every error is a
// metav1.Status with the upstream reason and code; an unexpected exception becomes a 500 Status,
// never a crash.
//
// Every write maintains metadata.managedFields, and server-side apply (application/apply-patch+yaml,
// fieldManager, force) merges with field ownership and conflicts (managed_fields.h), on the main
// resource and on the status subresource. An apply to /scale is merged as a JSON merge patch and
// recorded as an Update.
//
// Thread-safety: Handle may run concurrently on every HTTP thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "adapters/http/server.h"
#include "cluster/apiserver/exec/pod_exec.h"
#include "cluster/apiserver/handlers/log_follower.h"
#include "cluster/apiserver/handlers/metrics_apis.h"
#include "cluster/apiserver/storage/object_service.h"
#include "cluster/apiserver/handlers/port_forward.h"
#include "cluster/apiserver/handlers/request_info.h"
#include "cluster/apiserver/storage/watch.h"

namespace trimtab::http {
class HttpClient;
}

namespace trimtab::cluster {

// Produces the text of `kubectl logs` for a pod's container; `previous`: the log of the
// container's previous run, nullopt when it has not restarted.
using PodLogProvider = std::function<std::optional<std::string>(
    const Json& pod, const std::string& container, bool previous)>;

// Whether `sub` of `type` is a connect subresource (exec, attach, portforward, proxy).
bool IsConnectSubresource(const ResourceType& type, const std::string& sub);

class ApiHandler {
 public:
  ApiHandler(ObjectService* objects, WatchHub* watches, PodLogProvider pod_logs);
  ~ApiHandler();

  http::HttpResponse Handle(const http::HttpRequest& request);
  // Serves the metrics APIs (metrics_apis.h) too. Call before serving requests.
  void SetMetricsApis(std::shared_ptr<MetricsApis> metrics) { metrics_ = std::move(metrics); }

  struct Call;  // one request being served (internal; defined in handler_util.h)

 private:

  http::HttpResponse Route(const http::HttpRequest& request);
  http::HttpResponse ServeResource(Call& call);
  http::HttpResponse GetObject(Call& call);
  http::HttpResponse ListOrWatch(Call& call);
  http::HttpResponse CreateObject(Call& call);
  http::HttpResponse UpdateObject(Call& call);
  http::HttpResponse PatchObject(Call& call);
  http::HttpResponse DeleteObject(Call& call);
  http::HttpResponse DeleteCollection(Call& call);
  http::HttpResponse Scale(Call& call);
  http::HttpResponse PodLog(Call& call);       // handlers_pods.cc
  // pods/portforward (port_forward.h), pods/exec (exec/pod_exec.h); attach and nodes/proxy: a
  // clear status.
  http::HttpResponse Connect(Call& call);      // handlers_pods.cc
  // pods/proxy and services/proxy: the request relayed to the pod or a ready endpoint.
  http::HttpResponse Proxy(Call& call);        // handlers_proxy.cc
  http::HttpResponse PodBinding(Call& call);   // handlers_pods.cc
  http::HttpResponse PodEviction(Call& call);  // handlers_pods.cc
  // The 429/500 an eviction of the pod gets from its PodDisruptionBudget, if any; counts an
  // allowed disruption in the budget's status unless `dry_run`.
  std::optional<ApiError> CheckDisruptionBudgets(const std::string& ns,
                                                 const std::string& pod_name, bool dry_run);

  ObjectService* objects_;
  WatchHub* watches_;
  PodLogProvider pod_logs_;
  std::unique_ptr<LogFollower> log_follower_;  // `kubectl logs -f`
  std::unique_ptr<PortForwarder> port_forwarder_;  // `kubectl port-forward`
  std::unique_ptr<exec::PodExecutor> pod_executor_;  // `kubectl exec`, `kubectl cp`
  std::unique_ptr<http::HttpClient> proxy_client_;  // the proxy subresources; null: unusable
  std::shared_ptr<MetricsApis> metrics_;
};

}  // namespace trimtab::cluster
