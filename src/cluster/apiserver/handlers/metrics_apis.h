// The metrics APIs a real cluster serves through aggregated API servers (metrics-server, a
// custom/external metrics adapter such as prometheus-adapter or KEDA), served by the local API
// server itself from a MetricsProvider:
//
//   GET /apis/metrics.k8s.io/v1beta1/nodes[/<name>]                           NodeMetrics(List)
//   GET /apis/metrics.k8s.io/v1beta1/[namespaces/<ns>/]pods[/<name>]           PodMetrics(List)
//       ?labelSelector=  ?fieldSelector= (metadata.name, metadata.namespace)
//   GET /apis/external.metrics.k8s.io/v1beta1/namespaces/<ns>/<metric>?labelSelector=
//                                                                              ExternalMetricValueList
//   GET /apis/custom.metrics.k8s.io/v1beta2/namespaces/<ns>/<resource>/*/<metric>
//       ?labelSelector= (objects) &metricLabelSelector= (series)              MetricValueList
//   GET /apis/custom.metrics.k8s.io/v1beta2/namespaces/<ns>/<resource>/<name>/<metric>
//                                                                              MetricValueList
//
// custom.metrics.k8s.io answers as prometheus-adapter (custom-metrics-apiserver) does: one
// MetricValue per object with a value ({describedObject {kind, namespace, name, apiVersion
// "<group>/<version>" ("/v1" for pods)}, metric {name, selector when given}, timestamp, value});
// the objects of `*` are those the label selector lists; a metric the provider does not serve
// for the resource is a 404 "the server could not find the metric M for R", a named object
// without a value a 404 "... for R name".
//
// Answers are shaped as metrics-server and the adapters shape theirs (`kubectl top`, the HPA
// controller and `kubectl get --raw` read them). A pod without metrics is left out of a list and
// a 404 `podmetrics.metrics.k8s.io "x" not found` when asked by name; an external metric the
// provider does not know is a 404; a known metric whose series the selector does not match is
// an empty list ("no value", never zero). RegisterMetricsApis puts the groups into the
// registry (ResourceType::aggregated), so discovery lists them like APIService-backed groups.
//
// Thread-safety: Serve may run on every HTTP thread; the provider must be thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/http/server.h"
#include "cluster/apiserver/storage/object_service.h"
#include "cluster/apiserver/surface/resource_registry.h"
#include "common/clock.h"
#include "common/label_selector.h"
#include "common/quantity.h"
#include "common/status.h"

namespace trimtab::cluster {

struct ContainerUsage {
  std::string name;
  Quantity cpu;     // cores
  Quantity memory;  // bytes
};

struct PodUsage {
  std::vector<ContainerUsage> containers;
  TimePoint timestamp{};
  std::chrono::seconds window{15};
};

// A pod as the provider sees it: the stored object and its controller (the ReplicaSet of a
// Deployment's pod, ...), when that is stored.
struct PodView {
  const Json* pod = nullptr;
  const Json* owner = nullptr;
};

struct ExternalValue {
  std::map<std::string, std::string> labels;
  Quantity value;
  TimePoint timestamp{};
};

// One object's custom metric value.
struct CustomValue {
  std::string name;  // the described object
  Quantity value;
  TimePoint timestamp{};
};

class MetricsProvider {
 public:
  virtual ~MetricsProvider() = default;

  // Usage of the pods of one namespace that have metrics, by pod name. `pods` is every pod of
  // the namespace (so usage split between a controller's pods can be computed).
  virtual std::map<std::string, PodUsage> PodUsages(const std::vector<PodView>& pods,
                                                    TimePoint now) = 0;
  // External metrics this provider serves (discovery lists them).
  virtual std::vector<std::string> ExternalMetricNames() const = 0;
  // The series of `metric` in `ns` matching `selector`. NotFound when the metric is unknown.
  virtual StatusOr<std::vector<ExternalValue>> External(const std::string& ns,
                                                        const std::string& metric,
                                                        const LabelSelector& selector,
                                                        TimePoint now) = 0;
  // Custom metrics this provider serves, as {group-resource ("pods", "deployments.apps"),
  // metric} pairs (discovery lists them as "<group-resource>/<metric>").
  virtual std::vector<std::pair<std::string, std::string>> CustomMetricNames() const { return {}; }
  // `metric` of the objects `names` of `group_resource` in `ns`, over the series `selector`
  // matches; objects without a value are left out. NotFound when the metric is not served for
  // that resource.
  virtual StatusOr<std::vector<CustomValue>> Custom(const std::string& ns,
                                                    const std::string& group_resource,
                                                    const std::string& metric,
                                                    const std::vector<std::string>& names,
                                                    const LabelSelector& selector, TimePoint now) {
    (void)ns, (void)names, (void)selector, (void)now;
    return NotFoundError(metric + " of " + group_resource + " is not served");
  }
};

// Adds the aggregated groups (metrics.k8s.io/v1beta1, external.metrics.k8s.io/v1beta1,
// custom.metrics.k8s.io/v1beta2) to the registry; external metrics as one resource per name and
// custom metrics as "<group-resource>/<metric>", as prometheus-adapter lists them.
void RegisterMetricsApis(ResourceRegistry& registry, const MetricsProvider& provider);

class MetricsApis {
 public:
  MetricsApis(ObjectService* objects, std::shared_ptr<MetricsProvider> provider)
      : objects_(objects), provider_(std::move(provider)) {}

  // The response for a metrics API path, or nullopt when `request` is not one.
  std::optional<http::HttpResponse> Serve(const http::HttpRequest& request);

 private:
  http::HttpResponse ServeResourceMetrics(const http::HttpRequest& request,
                                          const std::vector<std::string>& parts);
  http::HttpResponse ServeExternal(const http::HttpRequest& request,
                                   const std::vector<std::string>& parts);
  http::HttpResponse ServeCustom(const http::HttpRequest& request,
                                 const std::vector<std::string>& parts);

  ObjectService* objects_;
  std::shared_ptr<MetricsProvider> provider_;
};

}  // namespace trimtab::cluster
