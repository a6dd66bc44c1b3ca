// Kubernetes coordinates the operator works with: resource types, finalizers, labels and
// annotations (notes §B.15, docs/design/flink-pods.md).
//
// Thread-safety: constants and pure functions.
#pragma once

#include "adapters/kube/object.h"

namespace trimtab::op {

inline constexpr char kFlinkDeploymentFinalizer[] = "flinkdeployments.flink.apache.org/finalizer";
inline constexpr char kFlinkSessionJobFinalizer[] = "flinksessionjobs.flink.apache.org/finalizer";
inline constexpr char kCanaryLabel[] = "flink.apache.org/canary";
// The latest autoscaler decision log of a resource (JSON), written by the operator.
inline constexpr char kScalingDecisionAnnotation[] = "trimtab.dev/last-scaling-decision";

inline kube::GroupVersionResource FlinkDeploymentsResource() {
  return {"flink.apache.org", "v1beta1", "flinkdeployments", true};
}
inline kube::GroupVersionResource FlinkSessionJobsResource() {
  return {"flink.apache.org", "v1beta1", "flinksessionjobs", true};
}
inline kube::GroupVersionResource DeploymentsResource() { return {"apps", "v1", "deployments", true}; }
inline kube::GroupVersionResource ServicesResource() { return {"", "v1", "services", true}; }

}  // namespace trimtab::op
