// JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386), the patch types the local API server
// applies itself (strategic merge patch lives in strategic_merge.h; server-side apply is
// approximated with a merge, see handlers).
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(Json patched, ApplyJsonPatch(object, patch_ops));
//   Json merged = ApplyMergePatch(object, patch);
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster {

// Applies the operations in order to a copy of `document`. A malformed patch (not an array of
// operation objects, unknown op, missing member, bad pointer syntax) gives InvalidArgument (the
// apiserver's 400); an operation that cannot apply (missing path, failed test, index out of
// range) gives FailedPrecondition (the apiserver's 422). Nothing is applied unless all are.
// `copy` operations together may copy at most kMaxJsonPatchCopyBytes of serialized JSON
// (FailedPrecondition beyond), as json-patch's AccumulatedCopySizeLimit bounds them upstream.
StatusOr<Json> ApplyJsonPatch(const Json& document, const Json& patch);
inline constexpr size_t kMaxJsonPatchCopyBytes = 3 * 1024 * 1024;

// RFC 7386: objects merge recursively, null removes a member, anything else replaces.
Json ApplyMergePatch(const Json& target, const Json& patch);

// Splits an RFC 6901 JSON Pointer ("/a/b~1c" -> {"a", "b/c"}); "" is the whole document.
StatusOr<std::vector<std::string>> ParseJsonPointer(std::string_view pointer);

}  // namespace trimtab::cluster
