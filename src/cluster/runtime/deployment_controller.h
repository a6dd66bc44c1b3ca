// DeploymentController: kube-controller-manager's deployment controller.
//
// A Deployment owns ReplicaSets named "<deployment>-<pod-template-hash>" whose template and
// selector carry the pod-template-hash label; the one whose template equals the Deployment's
// (ignoring that label) is the new ReplicaSet, the others are old. Each sync:
//   - claims ReplicaSets (adopts orphans matching the selector, releases non-matching ones);
//   - paused, or a scaling event (a ReplicaSet's desired-replicas annotation differs from
//     spec.replicas): only scales (one active set takes everything; otherwise proportionally),
//     condition Progressing Unknown DeploymentPaused / DeploymentResumed;
//   - RollingUpdate: creates the new ReplicaSet (revision = max old revision + 1, annotations
//     revision / desired-replicas / max-replicas, event ScalingReplicaSet), scales it up within
//     replicas + maxSurge, scales old ones down keeping replicas - maxUnavailable available;
//   - Recreate: scales old ReplicaSets to 0, waits until their pods are gone, then creates and
//     scales up the new one;
//   - deletes old ReplicaSets beyond revisionHistoryLimit once the rollout is complete;
//   - writes status (observedGeneration, replicas, updatedReplicas, readyReplicas,
//     availableReplicas, unavailableReplicas) and the conditions Available
//     (MinimumReplicasAvailable / MinimumReplicasUnavailable) and Progressing
//     (NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated, NewReplicaSetAvailable,
//     ProgressDeadlineExceeded after progressDeadlineSeconds without progress) — what
//     `kubectl rollout status` reads. The deployment.kubernetes.io/revision annotation follows
//     the new ReplicaSet's.
//
// Threading: a Controller with `workers` threads; handlers only enqueue.
#pragma once

#include <optional>
#include <vector>

// Sets holds Json by value, so this header needs the complete type.
#include <nlohmann/json.hpp>

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

class DeploymentController {
 public:
  DeploymentController(const kube::KubeClient* client, InformerSet* informers,
                       EventRecorder* events, Clock* clock, int workers = 2);
  void Start() { controller_.Start(); }
  void Stop() { controller_.Stop(); }

 private:
  struct Sets {
    std::optional<Json> new_rs;
    std::vector<Json> old;  // oldest first
  };

  Result Sync(const std::string& key);
  std::vector<Json> ClaimReplicaSets(const Json& d);
  Sets Split(const Json& d, const std::vector<Json>& sets) const;
  // Finds (and updates the annotations of) or creates the new ReplicaSet; `d` gets the
  // revision and the Progressing condition.
  StatusOr<std::optional<Json>> NewReplicaSet(Json& d, Sets& sets, bool create);
  // Sets spec.replicas and the desired/max-replicas annotations; true when the size changed.
  StatusOr<bool> Scale(const Json& d, Json& rs, int64_t replicas);
  Status ScaleOnly(const Json& d, Sets& sets);
  // `original` is the Deployment as cached; `d` collects this sync's status and annotations.
  Result RolloutRolling(const Json& original, Json& d, Sets sets);
  Result RolloutRecreate(const Json& original, Json& d, Sets sets);
  Status CleanupOld(const Json& d, const std::vector<Json>& old);
  Result SyncRolloutStatus(const Json& original, Json& d, const Sets& sets, bool check_progress);
  void CheckPausedConditions(Json& d);
  void EnqueueOwnerOf(const Json& rs);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  Controller controller_;
};

}  // namespace trimtab::cluster::runtime
