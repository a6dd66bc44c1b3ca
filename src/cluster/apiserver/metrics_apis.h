// The metrics APIs a real cluster serves through aggregated API servers (metrics-server, a
// custom/external metrics adapter such as prometheus-adapter or KEDA), served by the local API
// server itself from a MetricsProvider:
//
//   GET /apis/metrics.k8s.io/v1beta1/nodes[/<name>]                           NodeMetrics(List)
//   GET /apis/metrics.k8s.io/v1beta1/[namespaces/<ns>/]pods[/<name>]           PodMetrics(List)
//       ?labelSelector=  ?fieldSelector= (metadata.name, metadata.namespace)
//   GET /apis/external.metrics.k8s.io/v1beta1/namespaces/<ns>/<metric>?labelSelector=
//                                                                              ExternalMetricValueList
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
#include "cluster/apiserver/object_service.h"
#include "cluster/apiserver/resource_registry.h"
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
};

// Adds the aggregated groups (metrics.k8s.io/v1beta1, external.metrics.k8s.io/v1beta1) to the
// registry; external metrics as one resource per name, as prometheus-adapter lists them.
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

  ObjectService* objects_;
  std::shared_ptr<MetricsProvider> provider_;
};

}  // namespace trimtab::cluster
