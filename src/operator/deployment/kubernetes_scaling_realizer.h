// KubernetesScalingRealizer: the operator's ScalingRealizer (core/chain/scaling_realizer.h;
// upstream KubernetesScalingRealizer). It realizes the autoscaler's decisions by writing them into
// the FlinkDeployment spec the reconciler is about to reconcile, so the ordinary spec diff turns a
// change into an in-place rescale or an upgrade:
//
//   parallelism  the autoscaler's overrides over the user's (the user's value wins for the
//                excluded vertices, job.autoscaler.vertex.exclude.ids; no autoscaler overrides =
//                the user's alone), as flinkConfiguration `pipeline.jobvertex-parallelism-
//                overrides`; none at all removes the key. This is the one place where the
//                operator turns the typed overrides into that string.
//   config       memory tuning's TaskManager configuration (RealizeMemoryOverrides,
//                operator/decisions/process_resources.h); a memory it cannot write is
//                kFailedPrecondition saying why, and the spec keeps its resources
//
// Usage (deployment_reconciler.cc):
//   KubernetesScalingRealizer realizer(&spec, {.user = user, .excluded = out.excluded_vertices});
//   TRIMTAB_RETURN_IF_ERROR(realizer.RealizeParallelismOverrides(job_key,
//   out.parallelism_overrides));
//
// Thread-safety: bound to one spec of one reconcile pass; not for concurrent use.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "api/flink_resources.h"
#include "core/chain/scaling_realizer.h"

namespace trimtab::op {

struct KubernetesScalingRealizerOptions {
  // The user's overrides (the spec's own pipeline.jobvertex-parallelism-overrides).
  core::ParallelismOverrides user;
  // Vertices whose user override wins over the autoscaler's.
  std::set<core::VertexId> excluded;
  // The spec's TaskManager memory in bytes, for memory tuning (nullopt: not set).
  std::optional<int64_t> task_manager_memory_bytes;
};

class KubernetesScalingRealizer final : public core::ScalingRealizer {
 public:
  // `spec` is not owned and must outlive the realizer.
  KubernetesScalingRealizer(api::FlinkDeploymentSpec* spec,
                            KubernetesScalingRealizerOptions options);

  Status RealizeParallelismOverrides(const std::string& job_key,
                                     const core::ParallelismOverrides& overrides) override;
  Status RealizeConfigOverrides(const std::string& job_key,
                                const std::map<std::string, std::string>& overrides,
                                const std::set<std::string>& removals) override;

  // Writes `overrides` as they are, without the user's (the autoscaler failed: what runs stays).
  void KeepOverrides(const core::ParallelismOverrides& overrides);

 private:
  api::FlinkDeploymentSpec* spec_;
  KubernetesScalingRealizerOptions options_;
};

}  // namespace trimtab::op
