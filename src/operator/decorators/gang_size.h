// The size of a Flink cluster's gang, shared by the PodGroup decorators (volcano, coscheduling).
// docs/gang-scheduling.md "PodGroups from the operator" explains the rule:
//
//   members      the pods the decorator's scheduler places: the JobManager replicas (when the
//                JobManager uses it) and the desired TaskManagers (when the TaskManagers do)
//   minResources the requests of ALL members (JobManagers + desired TaskManagers), so admission
//                takes the whole job or nothing
//   minMember    the members placed now: the JobManager replicas plus the TaskManager pods
//                the scheduler has placed on a node, capped at the desired count (and at a
//                configured minMember); at least 1. Native Flink creates its TaskManagers only
//                once the JobManager runs, and Volcano's gang plugin never schedules a group
//                with fewer pods than minMember, so minMember grows with the pods instead of
//                starting at full size. It counts placed pods, not existing ones: a group whose
//                minMember exceeds its placed pods falls back to Pending at the next session
//                (Volcano's phase rule), gives up its reservation in the queue and leaves its
//                new TaskManagers unplaced until it is admitted again, while its JobManager runs.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/json.h"
#include "operator/decorators/step_decorator.h"

namespace trimtab::op::decorators {

struct GangSize {
  int64_t min_member = 1;
  double cpu = 0;             // cores, all members
  int64_t memory_bytes = 0;   // all members
};

// `min_member_cap`: a configured minMember (nullopt: the full member count).
GangSize SizeGang(const DecoratorContext& context, std::optional<int64_t> min_member_cap);

// {"cpu": "1500m", "memory": "3Gi"} in canonical quantities; zero amounts are left out.
Json ResourceList(double cpu, int64_t memory_bytes);

// "podgroup-<cluster-id>", the name FLIP-250 and DESIGN.md §4 give a cluster's PodGroup.
std::string PodGroupName(const std::string& cluster_id);

// Kubernetes DNS-1123 subdomain (lower case alphanumerics, '-' and '.', at most 253
// characters, alphanumeric at both ends and around every '.').
bool IsDns1123Subdomain(const std::string& name);

}  // namespace trimtab::op::decorators
