// ClusterClient: the Kubernetes side of one native Flink cluster (docs/design/flink-pods.md):
// create its objects, delete them (with or without the HA ConfigMaps), and read the HA metadata
// that last-state upgrades depend on (notes §B.15):
//
//   HA ConfigMaps   labels app=<name>, type=flink-native-kubernetes (component=autoscaler
//                   excluded); usable HA metadata = a ConfigMap named *-config-map (not
//                   *-cluster-config-map) or *-jobmanager-leader; "has a checkpoint" = a data key
//                   starting with "checkpointID-".
//   cluster pods    labels app=<name>, type=flink-native-kubernetes (JobManager and TaskManagers)
//                   or flink-standalone-kubernetes (a standalone cluster's TaskManagers)
//   decorator objects  pre-created (a PodGroup) before the ConfigMap and the Deployment, then
//                   owned by the Deployment (controller, blockOwnerDeletion); accompanying ones
//                   after it, owned from the start. An object of that name that the operator did
//                   not create (no label app.kubernetes.io/managed-by=trimtab-operator) is never
//                   replaced or deleted: creating the cluster fails, naming it.
//
// Deletion never blocks: Delete() issues the deletes and reports whether the cluster is gone
// (Deployment and every pod); callers requeue until it is.
//
// Usage:
//   ClusterClient cluster(kube_client);
//   TRIMTAB_ASSIGN_OR_RETURN(bool gone, cluster.Delete("prod", "sm", "Foreground", /*delete_ha=*/false));
//   if (!gone) return Requeue(progress_check_interval);
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "adapters/kube/kube_client.h"
#include "operator/decisions/jm_resources.h"

namespace trimtab::op {

struct HaMetadata {
  bool available = false;       // a usable HA ConfigMap exists
  bool has_checkpoint = false;  // and it records at least one checkpoint
  std::vector<std::string> config_maps;  // names of the cluster's HA ConfigMaps
};

class ClusterClient {
 public:
  explicit ClusterClient(const kube::KubeClient* client) : client_(client) {}

  // The JobManager Deployment, nullopt when absent.
  StatusOr<std::optional<Json>> JobManagerDeployment(const std::string& ns,
                                                     const std::string& name) const;
  StatusOr<std::vector<Json>> ClusterPods(const std::string& ns, const std::string& name) const;
  StatusOr<std::vector<Json>> JobManagerPods(const std::string& ns, const std::string& name) const;

  // Creates the pre-created objects, the ConfigMap, the Deployment, then owner references, the
  // Services and the accompanying objects. Objects left over from an earlier cluster of the same
  // name are replaced (decorator objects only when the operator created them). When a
  // pre-created object, the ConfigMap or the Deployment cannot be created, the pre-created
  // objects of this call are deleted again and no Deployment exists: the error names the object.
  Status Create(ClusterObjects objects) const;

  // Creates the Services of `objects` that do not exist, owned by `objects`' Deployment owner
  // reference (WithDeploymentOwner first). Repairs a deploy that failed after the Deployment was
  // created (a 403 on the Service, the process killed): the Services are pure functions of the
  // spec, so creating them later is safe, while deleting the Deployment to start over would stop
  // a JobManager that may already be restoring the job. Returns the names created.
  StatusOr<std::vector<std::string>> CreateMissingServices(const ClusterObjects& objects) const;

  // Brings the pre-created objects of a running cluster up to date (a PodGroup's minMember and
  // minResources): creates a missing one, updates the spec of one the operator created when it
  // differs and sets its owner (the Deployment) when missing. Objects the operator did not create
  // are left alone. Returns what it changed, one line per object ("" entries are not added).
  StatusOr<std::vector<std::string>> SyncPreCreated(
      const std::vector<decorators::KubeObject>& objects, const std::string& deployment_name,
      const std::string& deployment_uid) const;

  // The cluster's TaskManager pods (labels app=<name>, component=taskmanager) that are not
  // terminating and not finished, and how many of them are placed on a node (spec.nodeName).
  struct TaskManagerPods {
    int existing = 0;
    int placed = 0;
  };
  StatusOr<TaskManagerPods> CountTaskManagerPods(const std::string& ns,
                                                 const std::string& name) const;

  // The cluster's pods (label app=<name>: JobManager and TaskManagers) that no scheduler has
  // bound to a node yet (spec.nodeName empty, not finished): the job cannot be scheduled.
  StatusOr<int> CountUnscheduledPods(const std::string& ns, const std::string& name) const;

  // The referenced objects that do not exist, as messages naming the object and the field it
  // came from ("Queue \"q1\" named by kubernetes.scheduler.volcano.config: queue does not
  // exist"). Lookups that fail otherwise (forbidden, unreachable) are not reported.
  std::vector<std::string> MissingReferences(
      const std::vector<decorators::ObjectReference>& references) const;

  // Deletes the JobManager Deployment (with `propagation`), the Services and the ConfigMap, and the
  // HA ConfigMaps when `delete_ha`. Idempotent. True when the Deployment and all pods are gone.
  StatusOr<bool> Delete(const std::string& ns, const std::string& name,
                        const std::string& propagation, bool delete_ha) const;

  StatusOr<HaMetadata> ReadHaMetadata(const std::string& ns, const std::string& name) const;
  Status DeleteHaMetadata(const std::string& ns, const std::string& name) const;
  // Drops stored job graphs (data keys "jobGraph-*" of <name>-cluster-config-map) so a new
  // submission is not overridden by the old graph.
  Status RemoveJobGraphs(const std::string& ns, const std::string& name) const;

 private:
  Status CreateOrReplace(const kube::GroupVersionResource& gvr, const std::string& ns,
                         const Json& object, Json* created) const;
  StatusOr<std::vector<Json>> HaConfigMaps(const std::string& ns, const std::string& name) const;
  // Creates a decorator object; one the operator created earlier is updated in place (spec,
  // labels, annotations; its old owner removed), any other is an error naming it.
  Status CreateDecorated(const decorators::KubeObject& object, Json* created) const;
  Status SetOwner(const decorators::KubeObject& object, const Json& owner) const;

  const kube::KubeClient* client_;
};

}  // namespace trimtab::op
