// meta.k8s.io/v1 Table output (`kubectl get` asks for it with
// Accept: application/json;as=Table;v=v1;g=meta.k8s.io).
//
// Columns: "Name" first (unless the type lists a Name column itself, as events do at
// priority 1), then the type's printer columns. Built-in kinds compute their cells as the
// kube-apiserver printers do (pods READY "1/1", STATUS, RESTARTS; deployments READY "2/3" ...;
// Age as a human duration "5m"); CRD columns evaluate their JSONPath and type the cell
// (integer -> int64, number, boolean, string, date -> human duration); a CRD without columns
// gets "Age". Rows carry the object as PartialObjectMetadata (or whole) on request.
//
// Usage:
//   Json table = ToTable(type, objects, /*include_object=*/true);
//   table["metadata"]["resourceVersion"] = list_rv;   // the caller owns list metadata
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <vector>

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/clock.h"

namespace trimtab::cluster {

// What each row's "object" holds (?includeObject=None|Metadata|Object).
enum class TableRowObject {
  kNone,      // no "object" member
  kMetadata,  // PartialObjectMetadata (the default; kubectl needs it for -A, --show-labels)
  kObject,    // the whole object (kubectl --sort-by)
};

// include_object: true = PartialObjectMetadata, false = none. Ages are relative to now.
Json ToTable(const ResourceType& type, const std::vector<Json>& objects, bool include_object);
Json ToTable(const ResourceType& type, const std::vector<Json>& objects, TableRowObject rows,
             TimePoint now);

// kubectl's humanised duration: "45s", "3m12s", "5m", "2h30m", "3d4h", "1y20d".
std::string HumanDuration(Duration d);
// The age of a timestamp ("<unknown>" when missing, "<invalid>" when unparseable).
std::string HumanAge(const Json& timestamp, TimePoint now);

}  // namespace trimtab::cluster
