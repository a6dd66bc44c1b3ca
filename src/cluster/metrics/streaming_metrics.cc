#include "cluster/metrics/streaming_metrics.h"

#include <algorithm>
#include <cmath>

namespace trimtab::cluster::metrics {
namespace {

std::map<std::string, std::string> TopicLabels(const TopicSample& t, const std::string& ns) {
  std::map<std::string, std::string> labels = t.labels;
  labels["topic"] = t.topic;
  labels["consumergroup"] = t.consumer_group;
  labels["namespace"] = ns;
  return labels;
}

std::map<std::string, std::string> PartitionLabels(const TopicSample& t,
                                                   const TopicPartitionSample& p,
                                                   const std::string& ns) {
  auto labels = TopicLabels(t, ns);
  labels["partition"] = std::to_string(p.partition);
  return labels;
}

double Lag(const TopicPartitionSample& p) { return std::max(0.0, p.end_offset - p.committed_offset); }

Quantity Milli(double v) { return Quantity::FromMilli(static_cast<int64_t>(std::llround(v * 1000.0))); }

bool Matches(const LabelSelector& selector, const std::map<std::string, std::string>& labels) {
  return selector.Matches(LabelMap(labels.begin(), labels.end()));
}

}  // namespace

std::vector<std::string> StreamingMetricNames() { return {kConsumerLagMetric, kRecordsInMetric}; }

std::vector<std::string> StreamingMetricResources() {
  return {"pods", "deployments.apps", "flinkdeployments.flink.apache.org"};
}

StatusOr<std::vector<ExternalValue>> StreamingExternal(const std::string& metric,
                                                       const std::string& ns,
                                                       const std::vector<TopicSample>& topics,
                                                       TimePoint now) {
  std::vector<ExternalValue> out;
  if (metric == kConsumerLagMetric) {
    for (const TopicSample& t : topics) {
      for (const TopicPartitionSample& p : t.partitions) {
        out.push_back({PartitionLabels(t, p, ns), Milli(Lag(p)), now});
      }
    }
    return out;
  }
  if (metric == kRecordsInMetric) {
    for (const TopicSample& t : topics) {
      out.push_back({TopicLabels(t, ns), Milli(t.records_in_per_second), now});
    }
    return out;
  }
  return NotFoundError("external metric " + metric + " is not a built-in one");
}

StatusOr<std::map<std::string, double>> StreamingCustom(const std::string& metric,
                                                        const std::string& group_resource,
                                                        const std::string& ns,
                                                        const std::vector<TopicSample>& topics,
                                                        const LabelSelector& selector) {
  const auto resources = StreamingMetricResources();
  if ((metric != kConsumerLagMetric && metric != kRecordsInMetric) ||
      std::find(resources.begin(), resources.end(), group_resource) == resources.end()) {
    return NotFoundError("custom metric " + metric + " of " + group_resource + " is not a built-in one");
  }
  std::map<std::string, double> out;
  for (const TopicSample& t : topics) {
    const bool owner = group_resource == t.owner_resource && !t.owner_name.empty();
    if (metric == kRecordsInMetric) {
      if (owner && Matches(selector, TopicLabels(t, ns))) out[t.owner_name] += t.records_in_per_second;
      continue;
    }
    for (const TopicPartitionSample& p : t.partitions) {
      if (!Matches(selector, PartitionLabels(t, p, ns))) continue;
      if (group_resource == "pods") {
        if (!p.consumer_pod.empty()) out[p.consumer_pod] += Lag(p);
      } else if (owner) {
        out[t.owner_name] += Lag(p);
      }
    }
  }
  return out;
}

}  // namespace trimtab::cluster::metrics
