// Structural OpenAPI v3 schemas as the apiextensions apiserver applies them to objects:
//
//   1. CheckStructural   is a CRD schema structural? (every node typed, no $ref, no
//                        additionalProperties next to properties, metadata restricted ...)
//   2. PruneAndDefault   drop fields the schema does not know (unless
//                        x-kubernetes-preserve-unknown-fields), drop nulls of non-nullable
//                        fields, then fill in `default`s of missing fields
//   3. ValidateValue     types, required, enum, minimum/maximum, lengths, item counts, pattern,
//                        x-kubernetes-int-or-string
//
// Errors are "causes" exactly as the apiserver reports them in a 422 Status:
//   {"reason":"FieldValueRequired","message":"Required value","field":"spec.job.jarURI"}
// Supported keywords: type, properties, additionalProperties (schema or bool), items, required,
// enum, nullable, default, minimum/maximum (+exclusive), minLength/maxLength,
// minItems/maxItems, pattern, x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields,
// x-kubernetes-embedded-resource. anyOf/allOf/oneOf/not, format and CEL rules are accepted in
// schemas but not evaluated.
//
// Patterns are RE2 (common/regex.h): linear time on any value, as Go's regexp kube-apiserver
// uses; a pattern that does not compile makes the schema invalid ("must be a valid regular
// expression, but isn't: error parsing regexp: ...").
//
// Thread-safety: free functions; compiled patterns are cached process-wide.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"

namespace trimtab::cluster {

// One field error cause: {"reason": reason, "message": message, "field": field}.
Json FieldCause(const std::string& reason, const std::string& field, const std::string& message);

// Appends a cause for every way `schema` (at `path`, e.g.
// "spec.versions[0].schema.openAPIV3Schema") is not structural.
void CheckStructural(const Json& schema, const std::string& path, std::vector<Json>* causes);

// Prunes and defaults `value` in place. `path` is the value's field path ("" for the root).
// At the root (and in x-kubernetes-embedded-resource objects) apiVersion and kind are kept and
// metadata is pruned to ObjectMeta. Pruned unknown fields are appended to `unknown_fields`
// ("spec.foo"); may be null.
void PruneAndDefault(const Json& schema, Json* value, const std::string& path, bool root,
                     std::vector<std::string>* unknown_fields);

// Appends a cause for every violation of `schema` by `value` at `path`.
void ValidateValue(const Json& schema, const Json& value, const std::string& path,
                   std::vector<Json>* causes);

}  // namespace trimtab::cluster
