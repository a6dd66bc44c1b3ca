// CustomResourceDefinitions: turning a CRD object into the ResourceTypes it serves, and the
// request-time pipeline of a custom (or built-in) object against its type's schema.
//
// Usage (the CRD create handler, then the CR create handler):
//   std::vector<Json> causes;
//   StatusOr<std::vector<ResourceType>> types = ResourceTypesFromCrd(crd, &causes);
//   if (!types.ok()) return Invalid422(types.status().message(), causes);
//   for (auto& t : *types) registry.Put(t);
//   ...
//   Status s = ValidateAndDefault(type, &object, &causes);   // prune, default, validate
//
// Accepts apiextensions.k8s.io/v1 CRDs and, for older manifests, the v1beta1 shape (top-level
// version/validation/subresources/additionalPrinterColumns with "JSONPath"), which is converted
// to v1 first.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/status.h"

namespace trimtab::cluster {

// Validates `crd` as the apiserver does and returns one ResourceType per served version.
// On failure returns InvalidArgument whose message is the apiserver's 422 message
// ("CustomResourceDefinition.apiextensions.k8s.io \"x\" is invalid: spec.group: Required value")
// and appends the causes to `causes` (may be null).
StatusOr<std::vector<ResourceType>> ResourceTypesFromCrd(const Json& crd,
                                                         std::vector<Json>* causes);
StatusOr<std::vector<ResourceType>> ResourceTypesFromCrd(const Json& crd);

// Fills the defaults the apiserver sets on a stored CRD: names.singular (lower-case kind),
// names.listKind (kind + "List"), conversion.strategy None; a v1beta1 object is converted to v1.
void DefaultCrd(Json* crd);

// Prunes unknown fields, applies schema defaults and validates `object` against `type.schema`.
// Returns InvalidArgument with the apiserver's 422 message ("FlinkDeployment.flink.apache.org
// \"basic\" is invalid: spec.job.upgradeMode: Unsupported value: ...") and appends the causes
// when invalid. Types without a schema accept anything.
Status ValidateAndDefault(const ResourceType& type, Json* object, std::vector<Json>* causes);
// As above; also appends the pruned unknown fields ("spec.foo") to `unknown_fields`, which a
// request with fieldValidation=Strict turns into a 400 (see StrictDecodingMessage) and Warn into
// warnings.
Status ValidateAndDefault(const ResourceType& type, Json* object, std::vector<Json>* causes,
                          std::vector<std::string>* unknown_fields);

// "Kind.group \"name\" is invalid: <field>: <message>" (several causes: "[a, b]").
std::string InvalidMessage(std::string_view kind, std::string_view group, std::string_view name,
                           const std::vector<Json>& causes);
// "strict decoding error: unknown field \"spec.foo\", unknown field \"spec.bar\"".
std::string StrictDecodingMessage(const std::vector<std::string>& unknown_fields);

}  // namespace trimtab::cluster
