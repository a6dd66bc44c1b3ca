// StreamingMetricsSource: what a simulation of `trimtab local` tells the metrics APIs about the
// streaming work it runs, read-only. The metrics provider (local_metrics.h) turns it into the
// built-in external and custom metrics of the simulated Kafka topics and into the CPU of the
// pods whose usage the simulation knows:
//
//   implemented by                     topics                               pod CPU
//   sim::flink::FlinkPodRunner         the sources of every running         TaskManagers: their
//                                      simulated Flink job                  subtasks' busy time
//   runtime::SimulatedConsumers        the topic a Deployment declares      -
//                                      (trimtab.dev/topic annotations)
//
// Dependencies point inward: this header needs only common; the simulations implement it and
// the metrics provider depends on it, never on them.
//
// Thread-safety: implementations are called from every HTTP thread of the API server and must
// be safe for concurrent use; they answer from their own state and never block on the API.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/clock.h"

namespace trimtab::cluster::metrics {

// One partition of a topic as the consumer group reading it sees it.
struct TopicPartitionSample {
  int partition = 0;
  double end_offset = 0;        // records produced into the partition (log end offset)
  double committed_offset = 0;  // the group's committed position (<= end_offset)
  std::string consumer_pod;     // the pod that reads the partition ("" when none does)
};

// A simulated topic with the consumer group that reads it, in one namespace.
struct TopicSample {
  std::string topic;           // the topic's name
  std::string consumer_group;  // the group's name
  // Labels the series carry besides topic, partition, consumergroup and namespace, e.g.
  // {"cluster": "<Flink cluster id>"} or {"deployment": "<name>"}.
  std::map<std::string, std::string> labels;
  double records_in_per_second = 0;  // produce rate into the whole topic
  std::vector<TopicPartitionSample> partitions;
  // The object the consumers belong to, for custom.metrics.k8s.io Object metrics: a
  // group-resource ("deployments.apps", "flinkdeployments.flink.apache.org") and a name.
  std::string owner_resource;
  std::string owner_name;
};

class StreamingMetricsSource {
 public:
  virtual ~StreamingMetricsSource() = default;
  // Every topic with a consumer group in namespace `ns`, as of `now`.
  virtual std::vector<TopicSample> Topics(const std::string& ns, TimePoint now) = 0;
  // CPU in cores of the pods of `ns` whose usage this source knows, by pod name.
  virtual std::map<std::string, double> PodCpu(const std::string& ns, TimePoint now) = 0;
};

}  // namespace trimtab::cluster::metrics
