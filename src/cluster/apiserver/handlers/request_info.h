// RequestInfo: what a Kubernetes API path names, as apiserver's RequestInfoFactory splits it.
//
//   /api/v1/namespaces/ns1/pods/p1/status  -> group "", version v1, namespace ns1, resource pods,
//                                             name p1, subresource status
//   /apis/apps/v1/deployments              -> all-namespaces collection
//   /api/v1/namespaces/ns1                 -> the Namespace object ns1
//   /api/v1/watch/namespaces/ns1/pods      -> legacy watch path (watch = true)
//
// Thread-safety: values.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cluster/apiserver/surface/resource_registry.h"

namespace trimtab::cluster {

struct RequestInfo {
  std::string group;        // "" for /api
  std::string version;
  std::string ns;           // "" when not namespaced in the path
  std::string resource;     // plural
  std::string name;         // "" for collections
  std::string subresource;  // "status", "scale", "log", "finalize", "proxy"... or ""
  bool legacy_watch = false;  // /watch/ path segment
};

// Parses a resource path under /api/<v>/ or /apis/<g>/<v>/. nullopt when the path names no
// resource (discovery documents, unknown prefixes, too many segments). `registry` resolves
// whether /namespaces/<x>/<y> is a namespaced resource y or subresource y of namespace x.
std::optional<RequestInfo> ParseResourcePath(std::string_view path,
                                             const ResourceRegistry& registry);

}  // namespace trimtab::cluster
