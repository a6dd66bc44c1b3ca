// Strategic merge patch (application/strategic-merge-patch+json) for built-in kinds, as
// kubectl apply/edit/patch and the Python typed clients send it:
//
//   * maps merge recursively; a null value deletes the field;
//   * a list with a merge key (ResourceType::merge_keys, e.g. spec.containers -> name) merges
//     item by item on that key, new items appended; lists of primitives marked mergeable
//     (empty key: metadata.finalizers) merge as sets; every other list is replaced;
//   * directives: {"$patch": "replace" | "delete" | "merge"} on a map or as a list item,
//     "$setElementOrder/<list>" (the final order of a merged list; items the patch does not
//     mention follow in their previous order), "$deleteFromPrimitiveList/<list>" and
//     "$retainKeys" (fields of the original not listed are cleared).
//
// Custom resources have no merge keys; the server answers SMP for them with 415 before this
// is reached.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(Json updated, StrategicMergePatch(type, current, patch));
//
// Thread-safety: free function without shared state.
#pragma once

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/status.h"

namespace trimtab::cluster {

// Applies `patch` (a JSON object) to `original`. InvalidArgument (the server's 400 BadRequest)
// for a malformed patch: not an object, a merged list item that is not a map or lacks the merge
// key, an unknown $patch value.
StatusOr<Json> StrategicMergePatch(const ResourceType& type, const Json& original,
                                   const Json& patch);

}  // namespace trimtab::cluster
