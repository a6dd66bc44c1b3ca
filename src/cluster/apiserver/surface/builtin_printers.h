// Table cells of the built-in kinds, computed the way the kube-apiserver's printers compute
// them (pod READY/STATUS/RESTARTS, deployment READY, service PORT(S), event OBJECT, ...).
//
// Thread-safety: free functions without shared state.
#pragma once

#include <optional>

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/clock.h"

namespace trimtab::cluster {

// The cell of `column` for `object` when `type` is a built-in kind with a computed column of
// that name; nullopt when the column is a plain JSONPath column.
std::optional<Json> BuiltinCell(const ResourceType& type, const PrinterColumn& column,
                                const Json& object, TimePoint now);

}  // namespace trimtab::cluster
