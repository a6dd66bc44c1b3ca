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
#include <optional>
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

}  // namespace trimtab::op
