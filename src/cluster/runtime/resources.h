// The API resources the local cluster runtime reads and writes, as GroupVersionResources for
// kube::KubeClient / kube::Informer.
//
// Thread-safety: functions returning values.
#pragma once

#include "adapters/kube/object.h"

namespace trimtab::cluster::runtime {

kube::GroupVersionResource PodsGvr();
kube::GroupVersionResource NodesGvr();
kube::GroupVersionResource NamespacesGvr();
kube::GroupVersionResource ServicesGvr();
kube::GroupVersionResource EndpointsGvr();
kube::GroupVersionResource EndpointSlicesGvr();
kube::GroupVersionResource ServiceAccountsGvr();
kube::GroupVersionResource EventsGvr();
kube::GroupVersionResource LeasesGvr();
kube::GroupVersionResource ReplicaSetsGvr();
kube::GroupVersionResource DeploymentsGvr();
kube::GroupVersionResource JobsGvr();
kube::GroupVersionResource CronJobsGvr();
kube::GroupVersionResource StatefulSetsGvr();
kube::GroupVersionResource DaemonSetsGvr();
kube::GroupVersionResource PodDisruptionBudgetsGvr();
kube::GroupVersionResource PersistentVolumeClaimsGvr();
kube::GroupVersionResource PersistentVolumesGvr();
kube::GroupVersionResource StorageClassesGvr();

}  // namespace trimtab::cluster::runtime
