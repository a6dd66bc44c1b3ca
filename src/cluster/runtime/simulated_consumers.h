// SimulatedConsumers: a simulated Kafka topic for a Deployment of consumers that are not Flink
// jobs, so an HPA on consumer lag can be tried on `trimtab local`. Nothing runs inside the
// containers; the Deployment declares the topic and the rates in annotations on its own
// metadata (changed at once with `kubectl annotate deployment ... --overwrite`):
//
//   trimtab.dev/topic                 the topic's name (required: enables the simulation)
//   trimtab.dev/topic-partitions      partitions (default 1, Kafka's num.partitions)
//   trimtab.dev/topic-produce-rate    records/s produced into the topic (default 0)
//   trimtab.dev/consume-rate-per-pod  records/s one consumer pod processes at most (default 0)
//   trimtab.dev/consumer-group        the group's name (default: the Deployment's name)
//
// The consumers are the Deployment's pods (its selector) that are Running and not deleting.
// Partitions are assigned as Kafka's range assignor does for one topic: consumers sorted by
// name, each gets partitions/n contiguous partitions and the first partitions%n one more;
// consumers beyond the partition count stay idle. A consumer splits its rate evenly over its
// partitions. Each partition's lag then follows
//     lag' = produce/partitions - consumed,   never below 0
// exactly, between changes (rates, pods): the model advances on every Deployment or pod event
// with the counts it had before the event. Lag lives in memory (a restart of `trimtab local`
// starts from an empty topic). A bad annotation value is a Warning event
// `InvalidSimulatedTopic` on the Deployment and the simulation of that Deployment stops.
//
// The series carry topic, partition, consumergroup, namespace and deployment labels
// (streaming_source.h); the owner for Object metrics is deployments.apps/<name>.
//
// Threading: informer handlers advance the model under a mutex; Topics() may be called from any
// thread.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/metrics/streaming_source.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster::runtime {

inline constexpr char kTopicAnnotation[] = "trimtab.dev/topic";
inline constexpr char kTopicPartitionsAnnotation[] = "trimtab.dev/topic-partitions";
inline constexpr char kTopicProduceRateAnnotation[] = "trimtab.dev/topic-produce-rate";
inline constexpr char kConsumeRatePerPodAnnotation[] = "trimtab.dev/consume-rate-per-pod";
inline constexpr char kConsumerGroupAnnotation[] = "trimtab.dev/consumer-group";

struct ConsumerTopicSpec {
  std::string topic;
  std::string group;
  int partitions = 1;
  double produce_rate = 0;   // records/s into the topic
  double rate_per_pod = 0;   // records/s one consumer processes
  friend bool operator==(const ConsumerTopicSpec&, const ConsumerTopicSpec&) = default;
};

// The spec a Deployment declares: nullopt without trimtab.dev/topic; InvalidArgument names the
// annotation and the value.
StatusOr<std::optional<ConsumerTopicSpec>> ConsumerTopicSpecOf(const Json& deployment);

// The fluid model of one topic and its group. Pure: times are given.
class ConsumerTopicModel {
 public:
  ConsumerTopicModel(ConsumerTopicSpec spec, TimePoint start);

  // Advances to `now` with the current spec and consumers, then applies the change.
  void SetSpec(const ConsumerTopicSpec& spec, TimePoint now);
  void SetConsumers(std::vector<std::string> pods, TimePoint now);
  // The state at `now` (>= the last change), without changing the model.
  metrics::TopicSample Sample(TimePoint now) const;

  const ConsumerTopicSpec& spec() const { return spec_; }

 private:
  struct Partition {
    double end = 0;
    double lag = 0;
  };
  // Per partition: the consuming pod and its rate on that partition.
  std::vector<std::pair<std::string, double>> Assignment() const;
  std::vector<Partition> At(TimePoint now) const;

  ConsumerTopicSpec spec_;
  std::vector<std::string> consumers_;  // sorted
  std::vector<Partition> partitions_;   // as of time_
  TimePoint time_;
};

class SimulatedConsumers final : public metrics::StreamingMetricsSource {
 public:
  SimulatedConsumers(InformerSet* informers, EventRecorder* events, Clock* clock);

  std::vector<metrics::TopicSample> Topics(const std::string& ns, TimePoint now) override;
  std::map<std::string, double> PodCpu(const std::string&, TimePoint) override { return {}; }

 private:
  // Re-reads the Deployment `key` and its pods and updates its model at the clock's now.
  void Sync(const std::string& key);
  void SyncNamespace(const std::string& ns);

  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  std::mutex mu_;
  std::map<std::string, ConsumerTopicModel> models_;  // by Deployment key; guarded by mu_
  std::map<std::string, std::string> reported_;       // key -> bad value evented; guarded by mu_
};

}  // namespace trimtab::cluster::runtime
