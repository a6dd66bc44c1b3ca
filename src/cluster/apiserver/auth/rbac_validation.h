// The write rules of the RBAC kinds (the kube-apiserver's pkg/apis/rbac/validation), which
// ObjectService applies to Role, ClusterRole, RoleBinding and ClusterRoleBinding on create and
// update besides the schema. Field paths and messages are the upstream ones, e.g.
//   rules[0].verbs: Required value: verbs must contain at least one value
//   rules[1].resources: Required value: resource rules must supply at least one resource
//   rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: namespaced rules cannot apply
//     to non-resource URLs
//   roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"
//   subjects[0].namespace: Required value
//   roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role",
//     Name:"b"}: cannot change roleRef
//
// Thread-safety: pure function.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"

namespace trimtab::cluster::auth {

// Validates `object` of `kind` (other kinds: no causes); `old` is the stored object on update,
// null on create. Returns the details.causes of a 422 (empty when valid).
std::vector<Json> ValidateRbacObject(const std::string& kind, const Json& object,
                                     const Json* old);

}  // namespace trimtab::cluster::auth
