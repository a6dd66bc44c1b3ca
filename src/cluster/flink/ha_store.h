// HaStore: the high-availability metadata of one simulated Flink cluster (Flink's Kubernetes HA
// services): per job, the retained completed checkpoints (id -> path) and the checkpoint id
// counter; per cluster, the job graphs of submitted jobs. A new JobManager of the same cluster
// id recovers jobs from it (last-state). Implementations: InMemoryHaStore (tests, no server) and
// ConfigMapHaStore (flink_pod_runner: the `<cluster-id>-cluster-config-map` and
// `<cluster-id>-<job id>-config-map` ConfigMaps of docs/design/flink-pods.md).
//
// The cluster never calls Apply() while holding its own lock: updates are queued and flushed in
// order by the thread that advanced the cluster.
//
// Thread-safety: implementations are safe for concurrent use.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::sim::flink {

struct HaJobState {
  std::map<int64_t, std::string> checkpoints;  // retained completed checkpoint id -> path
  int64_t counter = 1;                         // the next checkpoint id
  std::optional<Json> job_graph;               // what the job was submitted with
};

struct HaUpdate {
  enum class Type {
    kJobGraphAdded,     // job_graph for job_id (cluster map key jobGraph-<id>)
    kCheckpointAdded,   // checkpoint_id at path; keep only `retained`; counter = next id
    kJobRemoved,        // the job reached a globally terminal state: drop its metadata
  };
  Type type = Type::kCheckpointAdded;
  std::string job_id;
  int64_t checkpoint_id = 0;
  std::string path;
  std::vector<int64_t> retained;
  int64_t counter = 0;
  // kCheckpointAdded: directories of the checkpoints this one subsumes. FlinkCluster removes
  // them only after the update is stored, as Flink discards a subsumed checkpoint only after
  // its HA store names the newer one: a process killed in between leaves a stale directory,
  // never HA metadata that names a deleted checkpoint. Stores ignore it.
  std::vector<std::string> discard_after_stored;
  Json job_graph;
};

class HaStore {
 public:
  virtual ~HaStore() = default;
  // The metadata of `job_id` (empty state when there is none).
  virtual StatusOr<HaJobState> LoadJob(const std::string& job_id) = 0;
  // Job graphs of every job the cluster still has metadata for (session recovery).
  virtual StatusOr<std::map<std::string, Json>> LoadJobGraphs() = 0;
  virtual Status Apply(const HaUpdate& update) = 0;
};

// An in-process store; share one instance between clusters of the same id to simulate a
// JobManager failover without a Kubernetes API.
class InMemoryHaStore final : public HaStore {
 public:
  StatusOr<HaJobState> LoadJob(const std::string& job_id) override;
  StatusOr<std::map<std::string, Json>> LoadJobGraphs() override;
  Status Apply(const HaUpdate& update) override;
  bool HasJob(const std::string& job_id) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, HaJobState> jobs_;  // guarded by mu_
};

}  // namespace trimtab::sim::flink
