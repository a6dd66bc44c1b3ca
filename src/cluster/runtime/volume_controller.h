// VolumeController: the persistent-volume binder of kube-controller-manager plus a local
// provisioner, so PersistentVolumeClaims bind on the simulated nodes.
//
//  - Start() creates the StorageClass "standard" (provisioner trimtab.dev/local-path, the
//    default class, reclaim Delete, Immediate binding) unless one named so exists.
//  - A claim without storageClassName gets the default class's name (upstream's
//    DefaultStorageClass admission does it at creation; here on the first sync).
//  - A Pending claim binds to the smallest Available volume of its class that satisfies its
//    access modes, size and selector (spec.volumeName: that volume); otherwise a class with this
//    provisioner provisions "pvc-<claim uid>" (a hostPath volume under /tmp/trimtab-local-path:
//    nothing is written there, pods do not mount it) of the requested size, at once or, for
//    WaitForFirstConsumer, once a pod uses the claim. Binding sets the volume's claimRef and
//    phase Bound and the claim's volumeName, capacity, access modes, phase Bound and the
//    bind-completed annotations; events ProvisioningSucceeded, WaitForFirstConsumer,
//    ProvisioningFailed (no such class / an external provisioner: the claim stays Pending).
//  - A volume without claimRef is Available; one whose claim is gone is deleted (reclaim
//    Delete) or Released (Retain).
//
// Not done: resizing, volume attach/mount (pods start whatever their claims' state; upstream's
// scheduler waits for bound claims), pvc-protection finalizers, access-mode conflicts.
//
// Threading: a Controller with one worker; handlers only enqueue.
#pragma once

#include "cluster/runtime/controller.h"
#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/informer_set.h"

namespace trimtab::cluster::runtime {

inline constexpr char kLocalProvisioner[] = "trimtab.dev/local-path";

class VolumeController {
 public:
  VolumeController(const kube::KubeClient* client, InformerSet* informers, EventRecorder* events,
                   Clock* clock);
  void Start();
  void Stop() { controller_.Stop(); }

 private:
  Result Sync(const std::string& key);
  Result SyncClaim(const Json& claim);
  Result SyncVolume(const Json& volume);
  Status Bind(const Json& claim, const Json& volume);

  const kube::KubeClient* client_;
  InformerSet* informers_;
  EventRecorder* events_;
  Clock* clock_;
  Controller controller_;
};

}  // namespace trimtab::cluster::runtime
