// The built-in kinds of authentication and authorization, as a 1.32 kube-apiserver serves them:
//
//   rbac.authorization.k8s.io/v1   roles, rolebindings (namespaced), clusterroles,
//                                  clusterrolebindings (stored like any object; Table columns as
//                                  kubectl prints them: NAME CREATED AT for roles, NAME ROLE AGE
//                                  [USERS GROUPS SERVICEACCOUNTS] for bindings)
//   authorization.k8s.io/v1        selfsubjectaccessreviews, selfsubjectrulesreviews,
//                                  subjectaccessreviews, localsubjectaccessreviews (create only;
//                                  answered by the AuthLayer, never stored)
//   authentication.k8s.io/v1       tokenreviews, selfsubjectreviews (create only; AuthLayer)
//
// and the default policy the kube-apiserver bootstraps (cluster-admin for system:masters; system:discovery,
// system:basic-user and system:public-info-viewer for every authenticated user), which the API
// server creates at start when absent.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/json.h"

namespace trimtab::cluster::auth {

// The ResourceTypes above (BuiltinTypes() appends them).
std::vector<ResourceType> AuthResourceTypes();

// The Table cell of a computed column of RoleBinding / ClusterRoleBinding ("Role", "Users",
// "Groups", "ServiceAccounts"); nullopt for other kinds or columns.
std::optional<Json> RbacCell(const std::string& kind, const std::string& column,
                             const Json& object);

// The default ClusterRoles and ClusterRoleBindings (label kubernetes.io/bootstrapping:
// rbac-defaults), in creation order.
std::vector<Json> BootstrapRbacObjects();

}  // namespace trimtab::cluster::auth
