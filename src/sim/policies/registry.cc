#include "sim/policies/registry.h"

#include "sim/policies/flink_policy.h"
#include "sim/policies/hpa_cpu_policy.h"

namespace trimtab::sim {

PolicyRegistry AllPoliciesRegistry() {
  PolicyRegistry r = DefaultPolicyRegistry();
  r.Register(kTrimtabPolicy, MakeTrimtabPolicy).IgnoreError();
  r.Register(kFlinkCompatPolicy, MakeFlinkCompatPolicy).IgnoreError();
  r.Register(kHpaCpuPolicy, MakeHpaCpuPolicy).IgnoreError();
  return r;
}

std::vector<std::string> ComparedPolicyNames() {
  return {kTrimtabPolicy, kFlinkCompatPolicy, kHpaCpuPolicy, "static", "oracle"};
}

}  // namespace trimtab::sim
