// OpenAPI v3 documents, derived from the ResourceRegistry on every call:
//
//   GET /openapi/v3              index: {"paths":{"api/v1":{"serverRelativeURL":
//                                        "/openapi/v3/api/v1?hash=<content hash>"}, ...}}
//   GET /openapi/v3/api/v1       the core group-version document
//   GET /openapi/v3/apis/<g>/<v> one group-version document
//
// Every document lists the resource paths with their operations. Each PATCH, PUT and POST
// operation carries `x-kubernetes-group-version-kind` and a `fieldValidation` query parameter,
// which is what makes kubectl (>= 1.27) use server-side field validation for `create -f`,
// `apply`, `replace` and `edit` instead of downloading the protobuf v2 document. The PATCH
// request bodies deliberately omit application/strategic-merge-patch+json, so kubectl computes
// strategic patches for built-in kinds from its compiled-in types rather than from these
// (partial) schemas. components.schemas holds each kind's schema with
// `x-kubernetes-group-version-kind`, so `kubectl explain` works too.
//
// Thread-safety: reads the registry through its thread-safe methods; no state of its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cluster/apiserver/surface/resource_registry.h"

namespace trimtab::cluster {

// Returns {content-type, body} for an /openapi/v3 path, or nullopt when `path` is not one or
// names a group/version nothing is registered for. `path` may carry a query string (ignored).
std::optional<std::pair<std::string, std::string>> ServeOpenApi(const ResourceRegistry& registry,
                                                                std::string_view path);

// GET /openapi/v2: an OpenAPI 2.0 document without definitions, as protobuf (the gnostic
// openapi.v2.Document that kubectl asks for with Accept: application/com.github.proto-openapi.
// spec.v2@v1.0+protobuf) or JSON otherwise. kubectl validates a `kind: List` file on the client
// against this document (lists have no server-side field validation); a kind with no definition
// is skipped there, and each item is then sent with fieldValidation and checked by the server as
// a single object would be. `version` is the server's gitVersion (info.version). Returns
// {content-type, body}.
std::pair<std::string, std::string> ServeOpenApiV2(std::string_view accept,
                                                   const std::string& version);

// The components.schemas name of a type's schema: "io.k8s.api.apps.v1.Deployment" for built-in
// kinds, the reversed group for CRDs ("org.apache.flink.v1beta1.FlinkDeployment").
std::string OpenApiDefinitionName(const ResourceType& type);

}  // namespace trimtab::cluster
