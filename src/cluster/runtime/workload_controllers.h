// WorkloadControllers: the controllers of the kinds in apiserver/surface/workload_types.h, started and
// stopped together by the Runtime: Jobs, CronJobs, StatefulSets, DaemonSets, the
// PersistentVolume binder and local provisioner, and PodDisruptionBudget status.
//
// Threading: construct before InformerSet::Start (handlers are added then); Start/Stop from the
// owner.
#pragma once

#include <memory>

#include "cluster/runtime/cronjob_controller.h"
#include "cluster/runtime/daemonset_controller.h"
#include "cluster/runtime/disruption_controller.h"
#include "cluster/runtime/job_controller.h"
#include "cluster/runtime/statefulset_controller.h"
#include "cluster/runtime/volume_controller.h"

namespace trimtab::cluster::runtime {

class WorkloadControllers {
 public:
  WorkloadControllers(const kube::KubeClient* client, InformerSet* informers,
                      EventRecorder* events, Clock* clock)
      : jobs_(client, informers, events, clock),
        cronjobs_(client, informers, events, clock),
        statefulsets_(client, informers, events, clock),
        daemonsets_(client, informers, events, clock),
        volumes_(client, informers, events, clock),
        disruption_(client, informers, clock) {}

  void Start() {
    volumes_.Start();
    jobs_.Start();
    cronjobs_.Start();
    statefulsets_.Start();
    daemonsets_.Start();
    disruption_.Start();
  }
  void Stop() {
    cronjobs_.Stop();
    jobs_.Stop();
    statefulsets_.Stop();
    daemonsets_.Stop();
    volumes_.Stop();
    disruption_.Stop();
  }

 private:
  JobController jobs_;
  CronJobController cronjobs_;
  StatefulSetController statefulsets_;
  DaemonSetController daemonsets_;
  VolumeController volumes_;
  DisruptionController disruption_;
};

}  // namespace trimtab::cluster::runtime
