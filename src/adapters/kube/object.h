// Resource coordinates and object accessors shared by the Kubernetes client, the informer cache
// and leader election. Objects are kept as JSON documents (what the API server sends); these
// helpers read the few metadata fields that the machinery needs.
//
// Thread-safety: pure functions and values.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "common/json.h"
#include "common/label_selector.h"

namespace trimtab::kube {

// A resource type as the REST API addresses it: group "" is the core group (/api/v1).
struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;  // plural, lower case: "pods", "leases", "flinkdeployments"
  bool namespaced = true;

  // "v1" or "apps/v1".
  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "pods" or "deployments.apps" (as kubectl names it).
  std::string String() const { return group.empty() ? resource : resource + "." + group; }
  friend bool operator==(const GroupVersionResource&, const GroupVersionResource&) = default;
};

// Well-known resources used by trimtab itself.
GroupVersionResource LeasesResource();      // coordination.k8s.io/v1 leases
GroupVersionResource ConfigMapsResource();  // v1 configmaps
GroupVersionResource PodsResource();        // v1 pods
GroupVersionResource EventsResource();      // v1 events

// "/api/v1/namespaces/ns/pods" ("" namespace: all namespaces, or a cluster-scoped resource).
std::string CollectionPath(const GroupVersionResource& gvr, std::string_view ns);
// "/api/v1/namespaces/ns/pods/name[/subresource]".
std::string ItemPath(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                     std::string_view subresource = "");

// metadata accessors; "" / empty when absent.
std::string ObjectName(const Json& object);
std::string ObjectNamespace(const Json& object);
std::string ObjectResourceVersion(const Json& object);
std::string ObjectUid(const Json& object);
LabelMap ObjectLabels(const Json& object);

// client-go's MetaNamespaceKeyFunc: "ns/name", or "name" for cluster-scoped objects.
std::string ObjectKey(std::string_view ns, std::string_view name);
std::string ObjectKey(const Json& object);
// Inverse of ObjectKey: {namespace, name}.
std::pair<std::string, std::string> SplitObjectKey(std::string_view key);

// The values an object has for the fields a field selector names (dotted paths such as
// metadata.name or status.phase; strings as they are, other scalars as JSON text).
FieldMap SelectableFields(const Json& object, const FieldSelector& selector);

}  // namespace trimtab::kube
