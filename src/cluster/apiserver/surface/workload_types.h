// The built-in kinds that real manifests carry beside Deployments and Services, served by the
// local API server: batch/v1 Jobs and CronJobs, apps/v1 StatefulSets and DaemonSets, policy/v1
// PodDisruptionBudgets, core/v1 PersistentVolumeClaims, PersistentVolumes and ResourceQuotas,
// storage.k8s.io/v1 StorageClasses, networking.k8s.io/v1 Ingresses and IngressClasses.
//
// Each type carries the discovery facts, printer columns, a schema (the commonly used part of
// the Kubernetes type typed; deeper structs keep their fields) and strategic-merge keys, like
// builtin_types.h. What makes them work on the simulated nodes is in src/cluster/runtime
// (docs/local-cluster.md lists what each controller does and what it leaves out).
//
// Thread-safety: free functions without shared state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/clock.h"

namespace trimtab::cluster {

std::vector<ResourceType> WorkloadTypes();

// The computed printer cell `column` of an object of these kinds; nullopt for other kinds and
// for JSONPath columns.
std::optional<Json> WorkloadCell(const std::string& kind, const std::string& column,
                                 const Json& object, TimePoint now);

}  // namespace trimtab::cluster
