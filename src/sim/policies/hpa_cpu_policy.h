// `hpa-cpu`: a Kubernetes HorizontalPodAutoscaler on the TaskManagers' CPU, the way Flink's
// reactive mode is usually autoscaled. The HPA engine (src/core/hpa, kube-controller-manager's
// arithmetic) scales the TaskManager replicas on average CPU utilization against the request;
// with reactive mode the job then runs every vertex at TaskManagers x slots (capped by the
// vertex's max parallelism), so the whole job's parallelism moves together.
//
// Each decision the policy observes one pod per TaskManager (request = taskManager.cpuCores,
// usage = Status.JVM.CPU.Load x cores, also while the job restarts), pods it added become Ready
// when their restart ends. Behavior is the HPA default (autoscaling/v2 defaulting: scale-up
// 4 pods or 100 % per 15 s without a window; scale-down 100 % per 15 s after the controller's
// 5-minute stabilization window).
//
//   config: {targetCpuUtilization: 70, minReplicas: 1, maxReplicas: 0 (= largest useful)}
//
// Thread-safety: a policy object serves one simulation run.
#pragma once

#include <memory>

#include "common/json.h"
#include "common/status.h"
#include "sim/policy.h"

namespace trimtab::sim {

inline constexpr const char kHpaCpuPolicy[] = "hpa-cpu";

StatusOr<std::unique_ptr<ScalingPolicy>> MakeHpaCpuPolicy(const Json& config);

}  // namespace trimtab::sim
