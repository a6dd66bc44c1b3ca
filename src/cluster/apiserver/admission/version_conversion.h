// Built-in kinds served in a version other than their storage version whose objects differ
// from the stored ones (autoscaling/v1 HorizontalPodAutoscalers, stored in v2; events.k8s.io/v1
// Events, stored as core/v1 Events, event_conversion.h): ObjectService
// converts what it reads from storage into the request's version and what it is given back into
// the storage version, so every verb, watch and patch of the other version works on the same
// objects. (CRD versions share one schema shape and are only relabelled.)
//
// Thread-safety: immutable static data.
#pragma once

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster {

struct VersionConversion {
  const char* storage_version;                  // "v2"
  Json (*from_storage)(const Json& stored);     // the stored object in the served version
  StatusOr<Json> (*to_storage)(const Json& object);  // InvalidArgument: not convertible (400)
  // The group objects are stored in, when it is not the served one (events.k8s.io/v1 Events
  // are core/v1 Events); null: the served group.
  const char* storage_group = nullptr;
};

// The conversion `type` needs, or null when its objects are stored as served.
const VersionConversion* BuiltinConversion(const ResourceType& type);

}  // namespace trimtab::cluster
