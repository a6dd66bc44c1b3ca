// LocalMetricsProvider: what `trimtab local` serves on the metrics APIs (metrics_apis.h).
//
//   metrics.k8s.io            the pod usage model (pod_usage.h); the CPU of pods a streaming
//                             source knows (simulated Flink TaskManagers: their busy time)
//   external.metrics.k8s.io   the built-in metrics of the simulated topics (streaming_metrics.h)
//                             and the metrics of the sources registered with AddExternal: the
//                             Prometheus rules of prometheus_external.h (a rule named like a
//                             built-in replaces it)
//   custom.metrics.k8s.io     the built-in metrics of the simulated topics per pod and per
//                             owning object
//
// Usage:
//   auto metrics = std::make_shared<LocalMetricsProvider>();
//   ApiServerOptions{.metrics = metrics};
//   ... once the runtime runs: metrics->AddStreamingSource(runtime->simulated_consumers());
//
// Thread-safety: AddExternal before the API server starts; AddStreamingSource at any time; the
// rest is safe for concurrent use.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/apiserver/handlers/metrics_apis.h"
#include "cluster/metrics/streaming_source.h"

namespace trimtab::cluster::metrics {

// One external metric: its series in a namespace. A source may use `selector` to ask for less
// (Prometheus); the provider filters by it again either way.
using ExternalSeriesFn = std::function<StatusOr<std::vector<ExternalValue>>(
    const std::string& ns, const LabelSelector& selector, TimePoint now)>;

class LocalMetricsProvider final : public MetricsProvider {
 public:
  void AddExternal(const std::string& metric, ExternalSeriesFn series);
  // A simulation whose topics and pod CPU the built-in metrics serve.
  void AddStreamingSource(std::shared_ptr<StreamingMetricsSource> source);

  std::map<std::string, PodUsage> PodUsages(const std::vector<PodView>& pods,
                                            TimePoint now) override;
  std::vector<std::string> ExternalMetricNames() const override;
  StatusOr<std::vector<ExternalValue>> External(const std::string& ns, const std::string& metric,
                                                const LabelSelector& selector,
                                                TimePoint now) override;
  std::vector<std::pair<std::string, std::string>> CustomMetricNames() const override;
  StatusOr<std::vector<CustomValue>> Custom(const std::string& ns, const std::string& group_resource,
                                            const std::string& metric,
                                            const std::vector<std::string>& names,
                                            const LabelSelector& selector, TimePoint now) override;

 private:
  std::vector<TopicSample> Topics(const std::string& ns, TimePoint now);

  std::map<std::string, ExternalSeriesFn> external_;
  std::mutex mu_;
  std::vector<std::shared_ptr<StreamingMetricsSource>> sources_;  // guarded by mu_
};

}  // namespace trimtab::cluster::metrics
