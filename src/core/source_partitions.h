// CountSourcePartitions: how many partitions a source reads, from the names of its metrics, as
// upstream's collector counts them: distinct (cluster, topic, partition) of Kafka's
// currentOffset gauges (…KafkaSourceReader[.kafkaCluster.<c>].topic.<t>.partition.<n>.currentOffset)
// and distinct (topic, partition) of Pulsar consumer metrics
// (…PulsarConsumer.<topic>-partition-<n>.….numMsgsReceived). 0 when none match.
//
// The operator's collector (adapters/flink/metrics_collector.h) calls it with the metric names
// of GET /jobs/:jid/vertices/:vid/metrics, and `trimtab eval flink` with a vertex's
// `sourceMetricNames`, so both count alike.
//
// Thread-safety: a pure function. Names come from the network: matched with RE2 (linear time).
#pragma once

#include <string>
#include <vector>

namespace trimtab::core {

int CountSourcePartitions(const std::vector<std::string>& names);

}  // namespace trimtab::core
