// The built-in kinds the local API server serves without any CRD: core v1 (namespaces, pods,
// services, configmaps, secrets, events, nodes, endpoints, serviceaccounts), apps/v1 deployments
// and replicasets, events.k8s.io/v1 events, discovery.k8s.io/v1 endpointslices,
// coordination.k8s.io/v1 leases, scheduling.k8s.io/v1 priorityclasses, autoscaling/v2
// horizontalpodautoscalers and apiextensions.k8s.io/v1 customresourcedefinitions.
//
// Each type carries what a real 1.32 apiserver advertises for it in discovery (short names,
// categories, verbs, subresources), the printer columns kubectl shows, a schema (the commonly
// used part of the Kubernetes type; deeper, rarely used structs keep unknown fields) and the
// strategic-merge-patch list keys.
//
// Merge-key paths are dot-separated field names from the object root; a list nested inside list
// items is written with "[]" after the outer list: "spec.containers[].env" -> "name". An empty
// merge key marks a list of primitives merged as a set (metadata.finalizers).
//
// Thread-safety: RegisterBuiltinTypes only calls the registry's thread-safe methods.
#pragma once

#include "cluster/apiserver/surface/resource_registry.h"

namespace trimtab::cluster {

// Adds every built-in type to `registry` (replacing same-named entries).
void RegisterBuiltinTypes(ResourceRegistry& registry);

// The same types as a list (what RegisterBuiltinTypes puts).
std::vector<ResourceType> BuiltinTypes();

}  // namespace trimtab::cluster
