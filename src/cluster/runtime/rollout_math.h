// The arithmetic of the Deployment controller (k8s.io/kubernetes/pkg/controller/deployment/util
// and intstr), as pure functions so it can be tested on its own:
//
//   ScaledValue          an IntOrString against a total: 3 -> 3, "25%" of 10 -> 3 rounded up
//                        (maxSurge) or 2 rounded down (maxUnavailable)
//   ResolveFenceposts    maxSurge / maxUnavailable of a desired count; both 0 -> maxUnavailable 1
//   NewRSNewReplicas     how far the new ReplicaSet may grow: desired + maxSurge minus all pods
//                        already asked for, never past desired
//   ScaleDownOldReplicaSets  reconcileOldReplicaSets: first drop unavailable pods of old
//                        ReplicaSets (oldest first), then scale them down while at least
//                        desired - maxUnavailable pods stay available
//   ProportionalSizes    a scaling event in the middle of a rollout: the difference is spread
//                        over the active ReplicaSets in proportion to their size (using their
//                        max-replicas annotation), leftovers to the largest
//   PodTemplateHash      the pod-template-hash label value (FNV-32a of the template and the
//                        collision count, encoded with the apiserver's safe alphabet)
//   EqualIgnoreHash      templates equal up to that label (null fields count as absent)
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster::runtime {

inline constexpr std::string_view kPodTemplateHashLabel = "pod-template-hash";
inline constexpr std::string_view kRevisionAnnotation = "deployment.kubernetes.io/revision";
inline constexpr std::string_view kDesiredReplicasAnnotation =
    "deployment.kubernetes.io/desired-replicas";
inline constexpr std::string_view kMaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas";

// An int, or a string "N%"; a plain numeric string is accepted like intstr.Parse does.
StatusOr<int64_t> ScaledValue(const Json& int_or_percent, int64_t total, bool round_up);

struct Fenceposts {
  int64_t max_surge = 0;
  int64_t max_unavailable = 0;
};
// Absent values count as 0 (the API server defaults them to 25%).
StatusOr<Fenceposts> ResolveFenceposts(const Json& max_surge, const Json& max_unavailable,
                                       int64_t desired);

// MaxSurge / MaxUnavailable of a Deployment object: 0 for Recreate; maxUnavailable also 0 for
// replicas 0 and at most replicas.
int64_t DeploymentMaxSurge(const Json& deployment);
int64_t DeploymentMaxUnavailable(const Json& deployment);

int64_t NewRSNewReplicas(int64_t desired, int64_t max_surge, int64_t all_replicas,
                         int64_t new_rs_replicas);

struct ReplicaSetSizes {
  std::string name;
  int64_t replicas = 0;      // spec.replicas
  int64_t available = 0;     // status.availableReplicas
  std::string created;       // creationTimestamp (older sorts first; ties by name)
  int64_t annotated_max = 0;  // deployment.kubernetes.io/max-replicas, 0 when absent
};

// The new spec.replicas of every ReplicaSet in `old_sets` (same order), after the rolling
// update's scale-down step. `old_sets` are the active old ReplicaSets.
std::vector<int64_t> ScaleDownOldReplicaSets(int64_t desired, int64_t max_unavailable,
                                             const ReplicaSetSizes& new_set,
                                             const std::vector<ReplicaSetSizes>& old_sets);

// New sizes (by name) of the active ReplicaSets `sets` when a rolling Deployment is scaled to
// `desired` mid-rollout. `status_replicas` is the Deployment's status.replicas (used when a set
// has no max-replicas annotation).
std::map<std::string, int64_t> ProportionalSizes(int64_t desired, int64_t max_surge,
                                                 int64_t status_replicas,
                                                 std::vector<ReplicaSetSizes> sets);

std::string PodTemplateHash(const Json& pod_template, int64_t collision_count);
// Templates equal once the pod-template-hash label is removed from both (and null members,
// which mean "absent").
bool EqualIgnoreHash(const Json& a, const Json& b);

}  // namespace trimtab::cluster::runtime
