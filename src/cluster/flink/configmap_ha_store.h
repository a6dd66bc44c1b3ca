// ConfigMapHaStore: the HaStore of a simulated Flink cluster kept in Kubernetes ConfigMaps the
// way Flink's Kubernetes HA services keep it (docs/design/flink-pods.md "Objects"):
//
//   <cluster-id>-cluster-config-map   leader addresses (restserver, dispatcher, resourcemanager),
//                                     the leader annotation, one `jobGraph-<job id>` per job
//   <cluster-id>-<job id>-config-map  `counter` (the next checkpoint id) and one
//                                     `checkpointID-<19-digit id>` per retained checkpoint,
//                                     whose value is the checkpoint's path
//
// Both carry the labels app=<cluster-id>, configmap-type=high-availability,
// type=flink-native-kubernetes and no owner reference, so they outlive the JobManager.
// Optimistic-concurrency conflicts are retried with a fresh read.
//
// Thread-safety: safe for concurrent use (each call is a sequence of API requests).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "adapters/kube/kube_client.h"
#include "common/clock.h"
#include "cluster/flink/ha_store.h"

namespace trimtab::sim::flink {

class ConfigMapHaStore final : public HaStore {
 public:
  ConfigMapHaStore(std::shared_ptr<const kube::KubeClient> kube, std::string namespace_name, std::string cluster_id,
                   Clock* clock);

  StatusOr<HaJobState> LoadJob(const std::string& job_id) override;
  StatusOr<std::map<std::string, Json>> LoadJobGraphs() override;
  Status Apply(const HaUpdate& update) override;

  // Records this JobManager as the leader: its REST and RPC addresses in the cluster map.
  Status WriteLeader(const std::string& host, int rest_port, const std::string& session_id);
  // Deletes every HA ConfigMap of the cluster (the application finished / DELETE /cluster).
  Status DeleteAll();

  std::string ClusterMapName() const { return cluster_id_ + "-cluster-config-map"; }
  std::string JobMapName(const std::string& job_id) const { return cluster_id_ + "-" + job_id + "-config-map"; }

 private:
  // Reads `name` (an empty labelled map when absent), applies `mutate` to its data and writes
  // it back, retrying conflicts; `mutate` returns false when nothing changed.
  Status Modify(const std::string& name, const std::function<bool(Json& config_map)>& mutate);
  Json NewConfigMap(const std::string& name) const;

  std::shared_ptr<const kube::KubeClient> kube_;
  std::string namespace_;
  std::string cluster_id_;
  Clock* clock_;
};

}  // namespace trimtab::sim::flink
