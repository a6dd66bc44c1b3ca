// ApiHandler: turns HTTP requests into ObjectService / WatchHub calls and Kubernetes responses.
//
//   /version /healthz /readyz /livez             fixed documents
//   /api /apis /api/v1 /apis/<g>[/<v>]           discovery (discovery.h)
//   /openapi/v3[/...], /openapi/v2                OpenAPI (openapi.h); v2 has no definitions
//   /api/v1/..., /apis/<g>/<v>/...               resources: get, list (Table on request), watch,
//                                                create, update, patch (json, merge, strategic,
//                                                apply), delete, deletecollection; subresources
//                                                status, scale, pods/log, pods/binding,
//                                                pods/eviction, namespaces/finalize
//   /apis/{metrics,external.metrics}.k8s.io/...  the metrics APIs (metrics_apis.h), when set
//
// Request bodies are JSON (YAML accepted too) or, for a few core kinds, Kubernetes protobuf
// (protobuf_decode.h; other kinds get 415). Every error is a
// metav1.Status with the upstream reason and code; an unexpected exception becomes a 500 Status,
// never a crash.
//
// Server-side apply (application/apply-patch+yaml) is approximated: the object is created when
// absent, otherwise the applied configuration is merged into it as a JSON merge patch (lists are
// replaced, fields not mentioned are kept); no managedFields and no conflict detection.
//
// Thread-safety: Handle may run concurrently on every HTTP thread.
#pragma once

#include <functional>
#include <string>

#include "adapters/http/server.h"
#include "cluster/apiserver/metrics_apis.h"
#include "cluster/apiserver/object_service.h"
#include "cluster/apiserver/request_info.h"
#include "cluster/apiserver/watch.h"

namespace trimtab::cluster {

// Produces the text of `kubectl logs` for a pod's container (local mode has no containers).
using PodLogProvider = std::function<std::string(const Json& pod, const std::string& container)>;

class ApiHandler {
 public:
  ApiHandler(ObjectService* objects, WatchHub* watches, PodLogProvider pod_logs);

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
  http::HttpResponse PodLog(Call& call);
  http::HttpResponse PodBinding(Call& call);   // handlers_pods.cc
  http::HttpResponse PodEviction(Call& call);  // handlers_pods.cc

  ObjectService* objects_;
  WatchHub* watches_;
  PodLogProvider pod_logs_;
  std::shared_ptr<MetricsApis> metrics_;
};

}  // namespace trimtab::cluster
