#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {

using kube::GroupVersionResource;

GroupVersionResource PodsGvr() { return {"", "v1", "pods", true}; }
GroupVersionResource NodesGvr() { return {"", "v1", "nodes", false}; }
GroupVersionResource NamespacesGvr() { return {"", "v1", "namespaces", false}; }
GroupVersionResource ServicesGvr() { return {"", "v1", "services", true}; }
GroupVersionResource EndpointsGvr() { return {"", "v1", "endpoints", true}; }
GroupVersionResource EndpointSlicesGvr() {
  return {"discovery.k8s.io", "v1", "endpointslices", true};
}
GroupVersionResource ServiceAccountsGvr() { return {"", "v1", "serviceaccounts", true}; }
GroupVersionResource EventsGvr() { return {"", "v1", "events", true}; }
GroupVersionResource LeasesGvr() { return {"coordination.k8s.io", "v1", "leases", true}; }
GroupVersionResource ReplicaSetsGvr() { return {"apps", "v1", "replicasets", true}; }
GroupVersionResource DeploymentsGvr() { return {"apps", "v1", "deployments", true}; }
GroupVersionResource JobsGvr() { return {"batch", "v1", "jobs", true}; }
GroupVersionResource CronJobsGvr() { return {"batch", "v1", "cronjobs", true}; }
GroupVersionResource StatefulSetsGvr() { return {"apps", "v1", "statefulsets", true}; }
GroupVersionResource DaemonSetsGvr() { return {"apps", "v1", "daemonsets", true}; }
GroupVersionResource PodDisruptionBudgetsGvr() {
  return {"policy", "v1", "poddisruptionbudgets", true};
}
GroupVersionResource PersistentVolumeClaimsGvr() {
  return {"", "v1", "persistentvolumeclaims", true};
}
GroupVersionResource PersistentVolumesGvr() { return {"", "v1", "persistentvolumes", false}; }
GroupVersionResource StorageClassesGvr() {
  return {"storage.k8s.io", "v1", "storageclasses", false};
}

}  // namespace trimtab::cluster::runtime
