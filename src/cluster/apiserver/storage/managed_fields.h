// Field management (metadata.managedFields) and server-side apply, as kube-apiserver's
// structured-merge-diff keeps them, for the common cases.
//
// Every write records who set which fields: an Update (create, PUT, PATCH other than apply, a
// subresource write) takes the fields it added or changed for its manager (the fieldManager
// query parameter, else the User-Agent up to its first "/"), operation Update, and takes them
// away from every other manager; fields it removed leave every manager. A server-side apply
// (PATCH application/apply-patch+yaml) owns exactly the fields of its configuration: a field
// another manager owns with a different value is a conflict (409 "Apply failed with N
// conflict(s): ...", as upstream words it) unless forced (force=true moves it to the applier);
// fields the applier owned before, left out of its configuration now and owned by nobody else,
// are removed from the object.
//
// Fields are FieldsV1 paths: "f:<name>" for a field, "k:{<key fields as JSON>}" for an item of a
// list with merge keys (ResourceType::merge_keys; a "ports" list is keyed by port or
// containerPort plus protocol, as upstream; for a custom resource the lists its CRD schema marks
// x-kubernetes-list-type map, keyed by x-kubernetes-list-map-keys, and metadata.ownerReferences
// by uid), "v:<JSON value>" for an item of a set (a list whose merge key is "", or list-type set),
// and "." for a node that is a member itself. Other lists are atomic: one field. Not managed:
// apiVersion, kind, metadata.name, namespace, uid, resourceVersion, generation,
// creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds and managedFields; status on
// the main resource of a kind with a status subresource, and everything but status on that
// subresource. An Update owns every node it added, as structured-merge-diff's comparison does:
// maps, structs, lists and list items get their "." (but metadata itself, and the struct fields
// every object of a built-in kind carries because the Go type is not a pointer: spec, status, a
// Deployment's strategy and template, ...); a node that is gone leaves every manager. A
// server-side apply to the status subresource is an Apply with subresource "status" that owns
// and merges the status only.
//
// Differences from structured-merge-diff: the built-in kinds' non-pointer struct fields are a
// list kept here (ZeroValueStruct), not read from Go types; the label selector at spec.selector
// is the one atomic struct; lists inside maps of arbitrary keys (additionalProperties) of a CRD
// schema are atomic; a request's own metadata.managedFields is ignored except `[{}]`, which
// clears them; entries are not merged across API versions; an apply to the scale subresource is
// merged as a merge patch and recorded as an Update.
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/apiserver/api_errors.h"
#include "cluster/apiserver/surface/resource_registry.h"
#include "common/json.h"

namespace trimtab::cluster {

// One write's identity in managedFields.
struct FieldManager {
  std::string manager;      // "kubectl-client-side-apply", "trimtab", ...
  std::string subresource;  // "", "status", "scale"
  std::string time;         // RFC 3339, the entry's time when its fields change
};

// The manager of a write without a fieldManager query parameter: the User-Agent up to its
// first "/" (upstream's default), "unknown" when there is none.
std::string DefaultFieldManager(std::string_view user_agent);

// A field path: FieldsV1 elements joined by '\n'.
using FieldPath = std::string;
using FieldSet = std::set<FieldPath>;

// The managed fields of `object` (see the header comment for what is left out); `subresource`
// "status" selects the status, anything else the main resource.
FieldSet ManagedFieldSet(const ResourceType& type, const Json& object, std::string_view subresource);
// FieldsV1 JSON of a set and back.
Json ToFieldsV1(const FieldSet& set);
FieldSet FromFieldsV1(const Json& fields);
// ".spec.template.spec.containers[name=\"web\"].image", as upstream prints paths in conflicts.
std::string PathString(const FieldPath& path);

// Sets next's metadata.managedFields after an Update by `who` that turned `old` (null: a create)
// into `*next`, starting from old's entries. `requested` is the managedFields the request sent
// ([{}] clears them; anything else is ignored).
void TrackUpdate(const ResourceType& type, const Json* old, Json* next, const FieldManager& who,
                 const Json& requested = Json());

// Server-side apply of `applied` by `who` onto `current` (null: the object does not exist yet):
// the merged object with its managedFields, or 409 with the conflicts. The result still needs
// defaulting, validation and the write.
ApiResult<Json> ServerSideApply(const ResourceType& type, const Json* current, const Json& applied,
                                const FieldManager& who, bool force);

}  // namespace trimtab::cluster
