// OpenApiSpec / ValidateJson: a small JSON-schema validator over an OpenAPI 3.0 document, for
// conformance tests that check a server's responses against a published spec (the simulated
// Flink REST API against Flink's rest_v1_dispatcher.yml).
//
// Supported keywords: $ref (#/components/schemas/...), type (object, array, string, integer,
// number, boolean), properties, required, items, enum, additionalProperties (maps), nullable,
// allOf (merged), oneOf/anyOf (at least one alternative must match: Flink's spec lists
// overlapping alternatives), discriminator (propertyName + mapping), pattern (whole-value
// match), format int32 (range). Stricter than JSON Schema on purpose, per options:
//   closed_objects          properties a schema does not list are errors (when it lists any
//                           and has no additionalProperties);
//   require_all_properties  every listed property must be present, except those in `optional`.
// Per-property exceptions are named "<SchemaName>.<property>" after the component schema
// (or the allOf part's component) that lists the property.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(OpenApiSpec spec, OpenApiSpec::Load(path));
//   std::vector<std::string> problems = ValidateJson(spec, *op.schema, body, options);
//
// Thread-safety: a loaded spec is immutable except for OverrideSchema(); validation is pure.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::testing {

class OpenApiSpec {
 public:
  struct Operation {
    std::string path;    // "/jobs/{jobid}"
    std::string method;  // "GET", "POST", ...
    std::string status;  // the documented success status ("200", "202")
    Json schema;         // the application/json response schema; null when none
  };

  static StatusOr<OpenApiSpec> Load(const std::string& path);
  static StatusOr<OpenApiSpec> Parse(std::string_view yaml, std::string_view what);

  // Every path x method, sorted by path.
  const std::vector<Operation>& operations() const { return operations_; }
  // components/schemas/<name>, or nullptr.
  const Json* Schema(const std::string& name) const;
  // Replaces (or adds) a component schema; used to encode documented wire quirks.
  void OverrideSchema(const std::string& name, Json schema) { schemas_[name] = std::move(schema); }
  std::string version() const { return version_; }

 private:
  std::map<std::string, Json> schemas_;
  std::vector<Operation> operations_;
  std::string version_;
};

struct ValidationOptions {
  bool closed_objects = true;
  bool require_all_properties = true;
  std::set<std::string> optional;  // "<SchemaName>.<property>" that may be absent
  std::set<std::string> nullable;  // "<SchemaName>.<property>" that may be null
};

// Problems found, each "<json path>: <what>" ("$.vertices[0].id: expected string, got number").
std::vector<std::string> ValidateJson(const OpenApiSpec& spec, const Json& schema, const Json& value,
                                      const ValidationOptions& options);

}  // namespace trimtab::testing
