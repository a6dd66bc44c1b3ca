// DefaultValidator: the upstream spec checks of FlinkDeployment and FlinkSessionJob (notes §B.3),
// first failure wins, messages as upstream words them. trimtab adds: operator options that do
// not parse, Kubernetes ResourceRequirements sanity, session job artifact scheme/host rules, and
// job.autoscaler.metrics.window >= kubernetes.operator.reconcile.interval.
//
// `effective_config` is the layered configuration (operator_config.h EffectiveConfig) of the
// resource being validated; for a session job, the session cluster's configuration with the
// job's flinkConfiguration on top.
//
// Usage:
//   if (std::optional<std::string> err = ValidateDeployment(fd, conf)) { Warn(*err); ... }
//
// Thread-safety: pure functions (the restricted-host check of session jobs resolves host names).
#pragma once

#include <optional>
#include <string>

#include "api/flink_resources.h"

namespace trimtab::op {

std::optional<std::string> ValidateDeployment(const api::FlinkDeployment& deployment,
                                              const api::FlinkConfiguration& effective_config);

// `session` is the target FlinkDeployment when it exists.
std::optional<std::string> ValidateSessionJob(const api::FlinkSessionJob& job,
                                              const api::FlinkDeployment* session,
                                              const api::FlinkConfiguration& effective_config);

// The name rule of FlinkDeployments (also applied to a session job's deploymentName).
std::optional<std::string> ValidateDeploymentName(const std::string& name);

// Renders an ingress template ({{name}}, {{namespace}}, case-insensitive) or explains why not.
StatusOr<std::string> RenderIngressTemplate(const std::string& tmpl, const std::string& name,
                                            const std::string& namespace_name);

}  // namespace trimtab::op
