// PodUsageModel: the CPU and memory that simulated pods use, which metrics.k8s.io serves in
// `trimtab local` (nothing runs in containers, so usage is declared, not measured). For each
// container of a pod whose phase is Running, in this order:
//
//   cpu     1. `trimtab.dev/cpu-usage.<container>` on the pod (a quantity: "250m", "1.5")
//           2. `trimtab.dev/cpu-usage` on the pod: the pod's total, split over its containers
//              by their cpu requests (evenly when none has one)
//           2b. the pod's cpu as a streaming source knows it (`known_cpu`, milli-cores: a
//              simulated Flink TaskManager's busy time), split as in 2
//           3. `trimtab.dev/cpu-load` on the pod's controller (a ReplicaSet; a Deployment's
//              annotations are copied to its ReplicaSets without a rollout): a total load spread
//              evenly over the controller's running pods, then split as in 2 — so scaling out
//              lowers each pod's usage, as with a web tier behind a load balancer
//           4. otherwise 10 % of the container's cpu request (1m without one)
//   memory  `trimtab.dev/memory-usage.<container>`, `trimtab.dev/memory-usage`,
//           `trimtab.dev/memory-load` the same way; otherwise 50 % of the memory request
//           (16Mi without one)
//
// An unparsable annotation counts as absent (and is logged once per value).
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cluster/apiserver/handlers/metrics_apis.h"

namespace trimtab::cluster::metrics {

inline constexpr char kCpuUsageAnnotation[] = "trimtab.dev/cpu-usage";
inline constexpr char kCpuLoadAnnotation[] = "trimtab.dev/cpu-load";
inline constexpr char kMemoryUsageAnnotation[] = "trimtab.dev/memory-usage";
inline constexpr char kMemoryLoadAnnotation[] = "trimtab.dev/memory-load";

// Usage of every Running pod of `pods` (one namespace), by pod name.
std::map<std::string, PodUsage> ModelPodUsages(const std::vector<PodView>& pods, TimePoint now,
                                               const std::map<std::string, int64_t>& known_cpu = {});

}  // namespace trimtab::cluster::metrics
