// ApiServerMetrics: the local API server's Prometheus series, served at /metrics on the API
// server's port, in the kube-apiserver's own metric names (docs/metrics.md):
//
//   apiserver_request_total{verb,group,version,resource,subresource,code}   every request
//   apiserver_request_duration_seconds{verb,group,version,resource,subresource}
//                                            histogram of the time to the response (watches,
//                                            which last minutes, are counted but not timed)
//   apiserver_longrunning_requests{verb,group,version,resource}   watches open now
//   apiserver_watch_events_total{group,version,resource}          events sent to watchers
//   etcd_request_duration_seconds{operation,type}                  histogram of storage calls
//                                            (the SQLite store in place of etcd; type is
//                                            resource.group of the key)
//
// verb is the kube-apiserver's: GET, LIST, WATCH, POST, PUT, PATCH, DELETE, DELETECOLLECTION (and
// the HTTP method for paths that are not resources, whose resource labels are empty). Labels are
// bounded by the served resource types and HTTP status codes: no names, namespaces or users.
//
// Usage (apiserver.cc):
//   ApiServerMetrics metrics(&registry, &resource_registry);
//   handler = metrics.Wrap(std::move(handler));        // counts and times every request
//   store_options.observe = metrics.StorageObserver();
//
// Thread-safety: Wrap's handler and the observer are safe for concurrent calls. `registry` and
// `resources` must outlive this object and every handler it returned.
#pragma once

#include <chrono>
#include <functional>
#include <string_view>

#include "adapters/http/server.h"
#include "cluster/apiserver/surface/resource_registry.h"
#include "common/metrics_registry.h"

namespace trimtab::cluster {

class ApiServerMetrics {
 public:
  ApiServerMetrics(MetricsRegistry* registry, const ResourceRegistry* resources);

  // `next`, with every request counted and timed; streamed responses (watches) are counted as
  // open while they stream and their chunks as watch events.
  http::HttpHandler Wrap(http::HttpHandler next);
  // For StoreOptions::observe.
  std::function<void(std::string_view, std::string_view, std::chrono::duration<double>)>
  StorageObserver();

  // "GET" "LIST" "WATCH" ... for a request (exposed for tests).
  static std::string Verb(const http::HttpRequest& request, bool resource, bool collection);
  // "deployments.apps" / "pods" for a store key "/registry/apps/deployments/ns/name" (tests).
  static std::string StorageType(std::string_view key);

 private:
  const ResourceRegistry* resources_;
  MetricFamily* requests_;
  MetricFamily* durations_;
  MetricFamily* longrunning_;
  MetricFamily* watch_events_;
  MetricFamily* storage_;
};

}  // namespace trimtab::cluster
