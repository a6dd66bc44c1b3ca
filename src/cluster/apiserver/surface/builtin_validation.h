// Kubernetes' own validation of the built-in kinds the local API server serves, the rules that
// keep controllers sane (pkg/apis/core/validation, pkg/apis/apps/validation and apimachinery's
// ObjectMeta rules), with the real API server's field paths and messages:
//
//   every object   metadata.labels keys (qualified names) and values, metadata.annotations keys
//                  and total size (256 KiB), metadata.finalizers (qualified names)
//   pod specs      containers required, names DNS-1123 labels unique across init and app
//   (Pods and      containers, image required, ports 1..65535 (hostPort 0..65535) with IANA
//   templates)     names unique per container, resource quantities that parse, request <= limit
//   Deployments,   replicas 0..2^31-1, selector required and not empty, template labels matched
//   ReplicaSets,   by the selector ("`selector` does not match template `labels`": a mismatch
//   StatefulSets,  made the Deployment controller create ReplicaSets without end), DaemonSets and
//   DaemonSets,    Jobs alike; CronJobs through their job template
//   Jobs
//   Services       ports required (unless headless ExternalName), port 1..65535, targetPort
//                  1..65535 or an IANA name, nodePort 0..65535, names unique and required when
//                  more than one
//   ConfigMaps,    keys are config keys, unique across data and binaryData, total size 1 MiB;
//   Secrets        Secret data values valid base64
//
// ValidateBuiltinObject runs before pruning, on the object as sent, and appends causes in the
// {"reason","message","field"} form of structural_schema.h; the caller answers 422 when any.
// SecretStringDataToData does what the apiserver's conversion does on decode: stringData values
// overwrite data (base64) and stringData goes away.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/json.h"

namespace trimtab::cluster {

// Metadata rules for any object, custom resources included.
void ValidateObjectMetaRules(const Json& object, std::vector<Json>* causes);
// The kind's own rules (nothing for kinds it does not know).
void ValidateBuiltinObject(const ResourceType& type, const Json& object, std::vector<Json>* causes);
// Moves a v1 Secret's stringData into data. REQUIRES: object is a JSON object.
void SecretStringDataToData(Json* object);

// The largest object the store keeps, serialized (etcd's default request limit, which bounds
// every object in a real cluster).
inline constexpr size_t kMaxStoredObjectBytes = 1536 * 1024;
// The largest request body the API server reads (kube-apiserver's MaxRequestBodyBytes).
inline constexpr size_t kMaxRequestBodyBytes = 3 * 1024 * 1024;
// The most operations one JSON patch may hold (kube-apiserver's maxJSONPatchOperations).
inline constexpr size_t kMaxJsonPatchOperations = 10000;

}  // namespace trimtab::cluster
