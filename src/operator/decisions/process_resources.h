// JobManager / TaskManager resources as the operator turns them into Flink options (upstream
// ResourceConfigUtils + FlinkConfigBuilder, notes §A.2):
//
//   memory = resources.requests.memory, else resources.limits.memory, else resource.memory
//            -> jobmanager/taskmanager.memory.process.size
//   cpu    = resources.requests.cpu, else resources.limits.cpu, else resource.cpu
//            -> kubernetes.jobmanager/taskmanager.cpu
//   limit/request when both are set -> kubernetes.<component>.{cpu,memory}.limit-factor
//
// `resources` (k8s ResourceRequirements) wins over the deprecated `resource` when it carries any
// request or limit. Memory text is read as a Flink MemorySize first ("2048m" = 2048 MiB, as
// upstream) and as a Kubernetes quantity otherwise ("2Gi", "2G").
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "api/flink_spec.h"
#include "common/status.h"

namespace trimtab::op {

struct ProcessResources {
  std::optional<int64_t> memory_bytes;
  std::optional<double> cpu;
  std::optional<double> memory_limit_factor;
  std::optional<double> cpu_limit_factor;
};

// Upstream parseResourceMemoryString, in bytes.
StatusOr<int64_t> ParseResourceMemory(std::string_view text);
// Flink MemorySize text of `bytes` in the largest exact unit: "2g", "1536m", "100b".
std::string FormatMemorySize(int64_t bytes);
// Flink's text of a double option: "1.0", "0.5".
std::string FormatDouble(double v);

// Errors name the component and field: "JobManager resources.requests.memory: ...",
// "TaskManager resources: requests.cpu (2) must not exceed limits.cpu (1)".
StatusOr<ProcessResources> ResolveProcessResources(std::string_view component,
                                                   const std::optional<api::Resource>& resource,
                                                   const Json& resources);

// Applies memory tuning's configuration changes (job.autoscaler.memory.tuning.enabled) to a
// FlinkDeployment spec, as upstream's KubernetesScalingRealizer.realizeConfigOverrides:
// `removals`, then `overrides`, into flinkConfiguration; then the tuned
// taskmanager.memory.process.size (or, without one, `spec_memory_bytes`) into whichever
// TaskManager memory field is in effect: resources.requests.memory (the limit scaled by the same
// ratio, so the limit factor stays), else resources.limits.memory, else resource.memory, written
// as plain bytes. A spec that sets no TaskManager memory keeps its resources. Returns why the
// memory was not written ("" when it was, or needed no change).
std::string RealizeMemoryOverrides(const std::map<std::string, std::string>& overrides,
                                   const std::set<std::string>& removals,
                                   std::optional<int64_t> spec_memory_bytes,
                                   api::FlinkDeploymentSpec* spec);

}  // namespace trimtab::op
