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

}  // namespace trimtab::cluster::runtime
