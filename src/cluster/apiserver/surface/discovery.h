// API discovery documents, derived from the ResourceRegistry on every call (so a CRD is
// discoverable the moment it is registered):
//
//   GET /api                 APIVersions              or aggregated APIGroupDiscoveryList (core)
//   GET /apis                APIGroupList             or aggregated APIGroupDiscoveryList
//   GET /api/v1              APIResourceList (with subresources: pods/status, pods/log, ...)
//   GET /apis/<g>            APIGroup
//   GET /apis/<g>/<v>        APIResourceList
//
// The aggregated form (apidiscovery.k8s.io v2 or v2beta1) is chosen when the Accept header asks
// for it before plain JSON, as kubectl >= 1.30 does; it is answered with the aggregated
// Content-Type, which is how clients recognise it. The Python client asks for plain JSON only.
//
// Thread-safety: reads the registry through its thread-safe methods; no state of its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cluster/apiserver/surface/resource_registry.h"

namespace trimtab::cluster {

// Content-Types of the aggregated discovery documents.
inline constexpr std::string_view kAggregatedDiscoveryV2ContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
inline constexpr std::string_view kAggregatedDiscoveryV2Beta1ContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

// Returns {content-type, body} for a discovery path, or nullopt when `path` is not a discovery
// path or names a group/version nothing is registered for (the caller answers 404 then).
// `path` may carry a query string (ignored); `accept` is the request's Accept header.
std::optional<std::pair<std::string, std::string>> ServeDiscovery(
    const ResourceRegistry& registry, std::string_view path, std::string_view accept);

// Orders versions as Kubernetes does: GA before beta before alpha, higher numbers first, then
// anything else alphabetically ("v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo").
bool KubeVersionLess(std::string_view a, std::string_view b);

}  // namespace trimtab::cluster
