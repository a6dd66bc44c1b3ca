// Small builders for OpenAPI v3 (structural) schema fragments, used to describe the built-in
// kinds and the ObjectMeta schema every served object is validated against.
//
// Usage:
//   Json spec = schema::Object({{"replicas", schema::Int32()}, {"template", pod_template}});
//   Json meta = schema::ObjectMeta();
//
// Stateless free functions; safe from any thread.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>  // Property holds a Json; default arguments build vectors of it

#include "common/json.h"

namespace trimtab::cluster::schema {

using Property = std::pair<std::string, Json>;

Json String();
Json Int32();
Json Int64();
Json Number();
Json Boolean();
// RFC 3339 timestamp (metav1.Time).
Json Timestamp();
// A quantity or port: integer or string (x-kubernetes-int-or-string).
Json IntOrString();
// A string enum.
Json Enum(std::vector<std::string> values);
Json Array(Json items);
// map[string]<values>.
Json Map(Json values);
Json StringMap();
// An object whose listed properties are known and every other field is an unknown field
// (pruned, and reported by strict field validation).
Json Object(std::vector<Property> properties, std::vector<std::string> required = {});
// Like Object but fields beyond the listed ones are kept as they are: used where this server
// describes only the commonly used part of a Kubernetes type.
Json OpenObject(std::vector<Property> properties = {});
// Adds a description to any schema.
Json Describe(Json schema, std::string description);

// metav1.ObjectMeta as the apiserver accepts it.
Json ObjectMeta();
// A top-level kind: apiVersion, kind, metadata plus the given properties.
Json Kind(std::vector<Property> properties, std::string description);

}  // namespace trimtab::cluster::schema
