// LocalMetricsProvider: what `trimtab local` serves on the metrics APIs (metrics_apis.h).
//
//   metrics.k8s.io            the pod usage model (pod_usage.h)
//   external.metrics.k8s.io   the metrics of the sources registered with AddExternal: the
//                             Prometheus rules of prometheus_external.h
//
// Usage:
//   auto metrics = std::make_shared<LocalMetricsProvider>();
//   ApiServerOptions{.metrics = metrics};
//
// Thread-safety: AddExternal before the API server starts; the rest is safe for concurrent use.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cluster/apiserver/metrics_apis.h"

namespace trimtab::cluster::metrics {

// One external metric: its series in a namespace. A source may use `selector` to ask for less
// (Prometheus); the provider filters by it again either way.
using ExternalSeriesFn = std::function<StatusOr<std::vector<ExternalValue>>(
    const std::string& ns, const LabelSelector& selector, TimePoint now)>;

class LocalMetricsProvider final : public MetricsProvider {
 public:
  void AddExternal(const std::string& metric, ExternalSeriesFn series);

  std::map<std::string, PodUsage> PodUsages(const std::vector<PodView>& pods,
                                            TimePoint now) override;
  std::vector<std::string> ExternalMetricNames() const override;
  StatusOr<std::vector<ExternalValue>> External(const std::string& ns, const std::string& metric,
                                                const LabelSelector& selector,
                                                TimePoint now) override;

 private:
  std::map<std::string, ExternalSeriesFn> external_;
};

}  // namespace trimtab::cluster::metrics
