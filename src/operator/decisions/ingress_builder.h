// The Ingress the operator manages for a FlinkDeployment with spec.ingress, as upstream's
// IngressUtils builds it: networking.k8s.io/v1 Ingress named after the deployment, with
// spec.ingress.annotations and labels (plus the operator's managed-by label, so a later deploy
// may take it over), ingressClassName = className, tls as given, and one rule: the rendered
// template (RenderIngressTemplate, "http://" prepended when it has no scheme) split into host
// (without a port; no host field when empty) and path (no path field when empty), pathType
// ImplementationSpecific, backend the "<name>-rest" Service on rest.port (default 8081).
// It is created after the JobManager Deployment and owned by it (ClusterObjects::accompanying),
// so it goes with the cluster.
//
// Thread-safety: pure function.
#pragma once

#include <optional>

#include "api/flink_resources.h"
#include "common/status.h"
#include "operator/decorators/step_decorator.h"

namespace trimtab::op {

// nullopt when the spec has no ingress; a template that does not render is InvalidArgument.
StatusOr<std::optional<decorators::KubeObject>> BuildIngress(const api::ObjectMeta& meta,
                                                             const api::FlinkDeploymentSpec& spec,
                                                             const api::FlinkConfiguration& conf);

}  // namespace trimtab::op
