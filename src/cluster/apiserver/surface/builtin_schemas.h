// OpenAPI v3 schemas of the built-in kinds (see builtin_types.h). The commonly used fields of
// each Kubernetes type are typed so that server-side validation and strict field validation
// catch typos there; rarely used nested structs (affinity, probes, security contexts, volume
// sources...) keep unknown fields as they are.
//
// Stateless free functions; safe from any thread.
#pragma once

#include "common/json.h"

namespace trimtab::cluster::builtin_schemas {

Json Namespace();
Json Pod();
Json Service();
Json ConfigMap();
Json Secret();
Json CoreEvent();
Json EventsV1Event();
Json Node();
Json Deployment();
Json ReplicaSet();
Json Endpoints();
Json EndpointSlice();
Json ServiceAccount();
Json Lease();
Json PriorityClass();
Json HorizontalPodAutoscaler();
// autoscaling/v1 HorizontalPodAutoscaler (stored as v2; hpa_conversion.h).
Json HorizontalPodAutoscalerV1();
Json CustomResourceDefinition();
// autoscaling/v1 Scale (the scale subresource's body).
Json Scale();

// Building blocks for the kinds of workload_types.h.
Json PodTemplateSpecSchema();  // {metadata, spec: PodSpec}
Json LabelSelectorSchema();
Json ConditionSchema();
Json ObjectReferenceSchema();

}  // namespace trimtab::cluster::builtin_schemas
