// ScalingRealizer: applies the autoscaler's decisions to the job (upstream ScalingRealizer,
// notes §C.1 step 7). The operator's KubernetesScalingRealizer
// (operator/deployment/kubernetes_scaling_realizer.h) writes `pipeline.jobvertex-parallelism-
// overrides` into the resource and lets the reconciler rescale in place or upgrade; the
// standalone autoscaler's RescaleApiScalingRealizer calls the Flink REST rescale API.
// InMemoryScalingRealizer records calls (tests).
//
// MergeParallelismOverrides implements the upstream merge of user and autoscaler overrides; the
// text form of overrides is common/flink_values.h's.
//
// Thread-safety: InMemoryScalingRealizer is safe for concurrent use.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "common/status.h"
#include "core/scaling_types.h"

namespace trimtab::core {

using ParallelismOverrides = std::map<VertexId, int>;

class ScalingRealizer {
 public:
  virtual ~ScalingRealizer() = default;
  // Applies vertex -> parallelism for the job. An empty map removes all overrides.
  virtual Status RealizeParallelismOverrides(const std::string& job_key,
                                             const ParallelismOverrides& overrides) = 0;
  // Applies configuration changes (memory tuning, upstream ConfigChanges): sets `overrides`,
  // removes `removals`; other keys are untouched.
  virtual Status RealizeConfigOverrides(const std::string& job_key,
                                        const std::map<std::string, std::string>& overrides,
                                        const std::set<std::string>& removals) = 0;
};

// The autoscaler's value wins, except for vertices in `excluded` (vertex.exclude.ids), where the
// user's value wins. Vertices only in one map keep that map's value.
ParallelismOverrides MergeParallelismOverrides(const ParallelismOverrides& user,
                                               const ParallelismOverrides& autoscaler,
                                               const std::set<VertexId>& excluded);

class InMemoryScalingRealizer final : public ScalingRealizer {
 public:
  Status RealizeParallelismOverrides(const std::string& job_key,
                                     const ParallelismOverrides& overrides) override;
  Status RealizeConfigOverrides(const std::string& job_key,
                                const std::map<std::string, std::string>& overrides,
                                const std::set<std::string>& removals) override;

  // The latest overrides per job (absent job: none realized).
  ParallelismOverrides ParallelismOf(const std::string& job_key) const;
  std::map<std::string, std::string> ConfigOf(const std::string& job_key) const;
  int calls() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, ParallelismOverrides> parallelism_;             // guarded by mu_
  std::map<std::string, std::map<std::string, std::string>> config_;   // guarded by mu_
  int calls_ = 0;                                                      // guarded by mu_
};

}  // namespace trimtab::core
