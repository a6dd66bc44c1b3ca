// Test fixture for the simulated Flink cluster (tests only): a ManualClock, a shared topic
// registry, a temporary SimFileSystem root and helpers to start clusters from a few config keys.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/flink/flink_cluster.h"

namespace trimtab::sim::flink::testing {

// A two-vertex job: a source with 4 partitions (capacity 1000/s per subtask) and a sink
// (capacity `sink_capacity` per subtask), parallelism 2, checkpoints of no state in 0.5 s.
inline std::string SmallJob(double sink_capacity = 1000) {
  return "{name: small, vertices: [{id: source, partitions: 4, capacityPerSubtask: 1000},"
         " {id: sink, capacityPerSubtask: " + std::to_string(sink_capacity) + "}],"
         " edges: [{from: source, to: sink, ship: rebalance}],"
         " restart: {baseDowntime: 2 s, failureBackoff: 1 s}}";
}

// SmallJob() as a bounded job: the source stops at `stopping_offset` of each of its 4
// partitions (Kafka stopping offsets).
inline std::string BoundedSmallJob(double stopping_offset = 1000) {
  std::string job = SmallJob();
  const std::string source = "capacityPerSubtask: 1000}";
  job.replace(job.find(source), source.size(),
              "capacityPerSubtask: 1000, stoppingOffsets: " + std::to_string(stopping_offset) + "}");
  return job;
}

class FlinkClusterTest : public ::testing::Test {
 protected:
  FlinkClusterTest()
      : clock_(FromUnixMillis(1'700'000'000'000)),
        topics_(std::make_shared<TopicRegistry>(&clock_)),
        root_(std::filesystem::temp_directory_path() /
              ("trimtab-flink-sim-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))),
        fs_(std::make_shared<SimFileSystem>(root_.string())),
        ha_(std::make_shared<InMemoryHaStore>()) {}
  ~FlinkClusterTest() override {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }

  // Config of an application cluster "wc" running SmallJob() at 500 records/s.
  FlinkConfig BaseConfig() const {
    FlinkConfig c;
    c.Set("kubernetes.cluster-id", "wc");
    c.Set("parallelism.default", "2");
    c.Set("trimtab.job", SmallJob());
    c.Set("trimtab.workload", "{type: constant, rate: 500}");
    c.Set("execution.checkpointing.interval", "10 s");
    c.Set("execution.checkpointing.dir", "s3://bucket/checkpoints");
    c.Set("execution.checkpointing.savepoint-dir", "s3://bucket/savepoints");
    c.Set("$internal.pipeline.job-id", "00000000000000000000000000000abc");
    return c;
  }

  // A cluster "wc" from `config` on the test's clock, topics, file system and HA store (seed 42).
  // `version`: the Flink version when the config does not say (ClusterSettings::Defaults).
  StatusOr<std::unique_ptr<FlinkCluster>> Start(const FlinkConfig& config, const std::string& reader = "default/jm-1",
                                                std::optional<FlinkVersion> version = std::nullopt) {
    ClusterSettings::Defaults defaults;
    defaults.cluster_id = "wc";
    defaults.version = version;
    TRIMTAB_ASSIGN_OR_RETURN(ClusterSettings settings, ClusterSettings::Parse(config, defaults));
    FlinkClusterOptions o;
    o.cluster.config = config;
    o.cluster.settings = settings;
    o.cluster.topics = topics_;
    o.cluster.fs = fs_;
    o.cluster.ha = ha_override_ ? ha_override_ : std::shared_ptr<HaStore>(ha_);
    o.cluster.reader = reader;
    o.cluster.seed = 42;
    o.cluster.auto_task_managers = auto_task_managers_;
    o.clock = &clock_;
    return FlinkCluster::Create(std::move(o));
  }

  void Advance(std::chrono::milliseconds d) { clock_.Advance(d); }

  static std::string JobStatusOf(FlinkCluster& c, const std::string& job_id) {
    return c.Locked([&](ClusterState& s) {
      const FlinkJob* j = s.FindJob(job_id);
      return j ? std::string(JobStatusName(j->status())) : std::string("MISSING");
    });
  }

  static constexpr char kJobId[] = "00000000000000000000000000000abc";

  ManualClock clock_;
  std::shared_ptr<TopicRegistry> topics_;
  std::filesystem::path root_;
  std::shared_ptr<SimFileSystem> fs_;
  std::shared_ptr<InMemoryHaStore> ha_;
  // When set, clusters started by Start() use this HA store instead of ha_ (fault injection).
  std::shared_ptr<HaStore> ha_override_;
  // false: TaskManagers come and go only through RegisterTaskManager / UnregisterTaskManager.
  bool auto_task_managers_ = true;
  static inline int counter_ = 0;
};

}  // namespace trimtab::sim::flink::testing
