// The simple JSONPath subset used by CRD additionalPrinterColumns and scale subresource paths:
// ".status.jobStatus.state", ".spec.containers[0].image", ".metadata.labels['app']",
// ".items[*].name", "{.spec.replicas}" (braces optional, leading "$" optional).
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster {

// Evaluates `path` on `root`; returns the matched values (empty when nothing matches).
// InvalidArgument for a malformed path.
StatusOr<std::vector<Json>> EvaluateJsonPath(const Json& root, std::string_view path);

// The first match, or null Json when nothing matches or the path is malformed.
Json JsonPathFirst(const Json& root, std::string_view path);

}  // namespace trimtab::cluster
