// The built-in metrics of the simulated Kafka topics (streaming_source.h), as `trimtab local`
// serves them without any Prometheus:
//
//   external.metrics.k8s.io/v1beta1, namespaces/<ns>/<metric>
//     kafka_consumergroup_lag            one series per partition: end offset - committed offset
//     kafka_topic_records_in_per_second  one series per topic: records/s produced into it
//     labels: topic, consumergroup, namespace, partition (lag only), and the source's own
//     (cluster for a Flink job, deployment for a consumer Deployment)
//
//   custom.metrics.k8s.io/v1beta2 (kafka_consumergroup_lag, kafka_topic_records_in_per_second)
//     pods                               lag of the partitions the pod reads (consumer pods,
//                                        Flink TaskManagers running source subtasks)
//     deployments.apps,                  lag summed over the object's partitions / its topics'
//     flinkdeployments.flink.apache.org  records-in rate
//   the metric label selector filters the partition series before they are summed.
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cluster/apiserver/handlers/metrics_apis.h"
#include "cluster/metrics/streaming_source.h"
#include "common/label_selector.h"

namespace trimtab::cluster::metrics {

inline constexpr char kConsumerLagMetric[] = "kafka_consumergroup_lag";
inline constexpr char kRecordsInMetric[] = "kafka_topic_records_in_per_second";

// The built-in metric names.
std::vector<std::string> StreamingMetricNames();
// The group-resources built-in custom metrics describe.
std::vector<std::string> StreamingMetricResources();

// The series of built-in external `metric` in `ns`. NotFound when it is not a built-in.
StatusOr<std::vector<ExternalValue>> StreamingExternal(const std::string& metric,
                                                       const std::string& ns,
                                                       const std::vector<TopicSample>& topics,
                                                       TimePoint now);

// Built-in custom `metric` per object of `group_resource`, by object name, over the series that
// `selector` matches. NotFound when the metric or resource is not a built-in one.
StatusOr<std::map<std::string, double>> StreamingCustom(const std::string& metric,
                                                        const std::string& group_resource,
                                                        const std::string& ns,
                                                        const std::vector<TopicSample>& topics,
                                                        const LabelSelector& selector);

}  // namespace trimtab::cluster::metrics
