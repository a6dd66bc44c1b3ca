#include "cluster/metrics/local_metrics.h"

#include <algorithm>
#include <cmath>

#include "cluster/metrics/pod_usage.h"
#include "cluster/metrics/streaming_metrics.h"

namespace trimtab::cluster::metrics {

void LocalMetricsProvider::AddExternal(const std::string& metric, ExternalSeriesFn series) {
  external_[metric] = std::move(series);
}

void LocalMetricsProvider::AddStreamingSource(std::shared_ptr<StreamingMetricsSource> source) {
  if (!source) return;
  std::lock_guard<std::mutex> lock(mu_);
  sources_.push_back(std::move(source));
}

std::vector<TopicSample> LocalMetricsProvider::Topics(const std::string& ns, TimePoint now) {
  std::vector<std::shared_ptr<StreamingMetricsSource>> sources;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sources = sources_;
  }
  std::vector<TopicSample> out;
  for (const auto& source : sources) {
    for (TopicSample& t : source->Topics(ns, now)) out.push_back(std::move(t));
  }
  return out;
}

std::map<std::string, PodUsage> LocalMetricsProvider::PodUsages(const std::vector<PodView>& pods,
                                                                TimePoint now) {
  std::map<std::string, int64_t> known_cpu;  // milli-cores, by pod
  if (!pods.empty() && pods.front().pod) {
    const Json& meta = pods.front().pod->value("metadata", Json::object());
    const std::string ns = meta.is_object() ? meta.value("namespace", "") : "";
    std::vector<std::shared_ptr<StreamingMetricsSource>> sources;
    {
      std::lock_guard<std::mutex> lock(mu_);
      sources = sources_;
    }
    for (const auto& source : sources) {
      for (const auto& [pod, cores] : source->PodCpu(ns, now)) {
        known_cpu[pod] = static_cast<int64_t>(std::llround(cores * 1000.0));
      }
    }
  }
  return ModelPodUsages(pods, now, known_cpu);
}

std::vector<std::string> LocalMetricsProvider::ExternalMetricNames() const {
  std::vector<std::string> out = StreamingMetricNames();
  for (const auto& [name, fn] : external_) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

StatusOr<std::vector<ExternalValue>> LocalMetricsProvider::External(const std::string& ns,
                                                                    const std::string& metric,
                                                                    const LabelSelector& selector,
                                                                    TimePoint now) {
  std::vector<ExternalValue> all;
  auto it = external_.find(metric);
  if (it != external_.end()) {
    TRIMTAB_ASSIGN_OR_RETURN(all, it->second(ns, selector, now));
  } else {
    auto builtin = StreamingExternal(metric, ns, Topics(ns, now), now);
    if (!builtin.ok()) return NotFoundError("external metric " + metric + " is not served");
    all = std::move(*builtin);
  }
  std::vector<ExternalValue> out;
  for (ExternalValue& v : all) {
    if (selector.Matches(LabelMap(v.labels.begin(), v.labels.end()))) out.push_back(std::move(v));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> LocalMetricsProvider::CustomMetricNames() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& resource : StreamingMetricResources()) {
    for (const std::string& metric : StreamingMetricNames()) out.push_back({resource, metric});
  }
  return out;
}

StatusOr<std::vector<CustomValue>> LocalMetricsProvider::Custom(
    const std::string& ns, const std::string& group_resource, const std::string& metric,
    const std::vector<std::string>& names, const LabelSelector& selector, TimePoint now) {
  TRIMTAB_ASSIGN_OR_RETURN(auto values,
                           StreamingCustom(metric, group_resource, ns, Topics(ns, now), selector));
  std::vector<CustomValue> out;
  for (const std::string& name : names) {
    auto it = values.find(name);
    if (it == values.end()) continue;
    out.push_back({name, Quantity::FromMilli(static_cast<int64_t>(std::llround(it->second * 1000.0))), now});
  }
  return out;
}

}  // namespace trimtab::cluster::metrics
