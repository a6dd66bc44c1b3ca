// Every scaling policy `trimtab simulate` knows, in one registry:
//
//   trimtab       the default: upstream Flink algorithm + trimtab behavior defaults + the
//                 restart-cost-gate plugin chain (flink_policy.h)
//   flink-compat  the upstream Flink autoscaler, upstream defaults, no chain (flink_policy.h)
//   hpa-cpu       a Kubernetes HPA on TaskManager CPU at 70 % (hpa_cpu_policy.h)
//   static        never rescales (src/sim/policy.h)
//   oracle        the lower bound with free restarts (src/sim/policy.h)
//
// Thread-safety: the registry is a value; build one per run or share it read-only.
#pragma once

#include <string>
#include <vector>

#include "sim/policy.h"

namespace trimtab::sim {

// DefaultPolicyRegistry() plus trimtab, flink-compat and hpa-cpu.
PolicyRegistry AllPoliciesRegistry();

// The order policies are compared in reports and the benchmark:
// trimtab, flink-compat, hpa-cpu, static, oracle.
std::vector<std::string> ComparedPolicyNames();

}  // namespace trimtab::sim
