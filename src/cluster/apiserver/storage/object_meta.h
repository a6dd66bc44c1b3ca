// Object metadata rules of the local API server: storage keys, names, uids, generation,
// finalizers and the field maps used by field selectors. Everything here is a pure function of
// its arguments except NewUid/RandomNameSuffix (random).
//
// Storage keys:  /registry/<group|core>/<plural>/<namespace>/<name>   (namespaced)
//                /registry/<group|core>/<plural>/<name>               (cluster-scoped)
// One key per object regardless of the version it is served in (CRD versions share storage, as
// with conversion strategy None).
//
// Thread-safety: free functions; NewUid and RandomNameSuffix are safe to call concurrently.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cluster/apiserver/api_errors.h"
#include "cluster/apiserver/surface/resource_registry.h"
#include "common/json.h"
#include "common/label_selector.h"

namespace trimtab::cluster {

inline constexpr std::string_view kRegistryPrefix = "/registry/";
inline constexpr std::string_view kForegroundFinalizer = "foregroundDeletion";
inline constexpr std::string_view kOrphanFinalizer = "orphan";
inline constexpr std::string_view kCrdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";
inline constexpr std::string_view kNamespaceFinalizer = "kubernetes";

std::string ObjectKey(const ResourceType& type, std::string_view ns, std::string_view name);
// The prefix of every object of `type` (ns "" = all namespaces) in `ns`.
std::string CollectionPrefix(const ResourceType& type, std::string_view ns);

struct ParsedKey {
  std::string group;  // "" for core
  std::string plural;
  std::string ns;     // "" for cluster-scoped objects
  std::string name;
};
std::optional<ParsedKey> ParseObjectKey(std::string_view key);

// A random RFC 4122 version-4 UUID.
std::string NewUid();
// `n` characters from the apiserver's generateName alphabet ("bcdfghjklmnpqrstvwxz2456789").
std::string RandomNameSuffix(int n = 5);

// "" when valid; otherwise the apiserver's message. Namespaces (and nodes' peers that require
// it) use DNS-1123 labels, everything else DNS-1123 subdomains; CRs accept any path segment name.
std::string ValidateObjectName(const ResourceType& type, std::string_view name);

// Whether the kind carries metadata.generation (set to 1 on create, bumped on spec changes).
bool HasGeneration(const ResourceType& type);
// True when anything outside metadata and status differs.
bool SpecChanged(const Json& before, const Json& after);

// metadata.<field> as a string ("" when absent or not a string).
std::string MetaString(const Json& object, std::string_view field);
LabelMap Labels(const Json& object);

bool HasFinalizer(const Json& object, std::string_view finalizer);
// Returns true when the list changed.
bool AddFinalizer(Json* object, std::string_view finalizer);
bool RemoveFinalizer(Json* object, std::string_view finalizer);
bool HasFinalizers(const Json& object);
bool IsDeleting(const Json& object);

// The field selector fields a type supports, in the form selectors test
// (metadata.name, metadata.namespace and the per-kind extras such as spec.nodeName for pods and
// involvedObject.* for events).
FieldMap ObjectFields(const ResourceType& type, const Json& object);
// Parses a field selector and checks every field is supported for `type` (400 otherwise,
// "field label not supported: x").
ApiResult<FieldSelector> ParseFieldSelectorFor(const ResourceType& type, std::string_view text);

// The string form of a metav1.LabelSelector object ("app=web,tier in (a)"), "" for none.
std::string LabelSelectorString(const Json& selector);

}  // namespace trimtab::cluster
