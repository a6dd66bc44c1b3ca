#include "operator/deployment/kubernetes_scaling_realizer.h"

#include <utility>

#include "common/flink_values.h"
#include "operator/decisions/operator_config.h"
#include "operator/decisions/process_resources.h"

namespace trimtab::op {

KubernetesScalingRealizer::KubernetesScalingRealizer(api::FlinkDeploymentSpec* spec,
                                                     KubernetesScalingRealizerOptions options)
    : spec_(spec), options_(std::move(options)) {}

Status KubernetesScalingRealizer::RealizeParallelismOverrides(
    const std::string& job_key, const core::ParallelismOverrides& overrides) {
  KeepOverrides(overrides.empty()
                    ? options_.user
                    : core::MergeParallelismOverrides(options_.user, overrides, options_.excluded));
  return Status::Ok();
}

void KubernetesScalingRealizer::KeepOverrides(const core::ParallelismOverrides& overrides) {
  if (overrides.empty()) {
    spec_->flink_configuration.erase(flink_keys::kParallelismOverrides);
  } else {
    spec_->flink_configuration[flink_keys::kParallelismOverrides] =
        FormatFlinkParallelismOverrides(overrides);
  }
}

Status KubernetesScalingRealizer::RealizeConfigOverrides(
    const std::string& job_key, const std::map<std::string, std::string>& overrides,
    const std::set<std::string>& removals) {
  if (overrides.empty() && removals.empty()) return Status::Ok();
  const std::string why =
      RealizeMemoryOverrides(overrides, removals, options_.task_manager_memory_bytes, spec_);
  if (!why.empty()) return FailedPreconditionError(why);
  return Status::Ok();
}

}  // namespace trimtab::op
