#include "cluster/metrics/local_metrics.h"

#include "cluster/metrics/pod_usage.h"

namespace trimtab::cluster::metrics {

void LocalMetricsProvider::AddExternal(const std::string& metric, ExternalSeriesFn series) {
  external_[metric] = std::move(series);
}

std::map<std::string, PodUsage> LocalMetricsProvider::PodUsages(const std::vector<PodView>& pods,
                                                                TimePoint now) {
  return ModelPodUsages(pods, now);
}

std::vector<std::string> LocalMetricsProvider::ExternalMetricNames() const {
  std::vector<std::string> out;
  for (const auto& [name, fn] : external_) out.push_back(name);
  return out;
}

StatusOr<std::vector<ExternalValue>> LocalMetricsProvider::External(const std::string& ns,
                                                                    const std::string& metric,
                                                                    const LabelSelector& selector,
                                                                    TimePoint now) {
  auto it = external_.find(metric);
  if (it == external_.end()) return NotFoundError("external metric " + metric + " is not served");
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<ExternalValue> all, it->second(ns, selector, now));
  std::vector<ExternalValue> out;
  for (ExternalValue& v : all) {
    if (selector.Matches(LabelMap(v.labels.begin(), v.labels.end()))) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace trimtab::cluster::metrics
