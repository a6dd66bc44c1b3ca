// FlinkDeploymentController: one reconcile pass of a FlinkDeployment (application or session
// cluster), upstream FlinkDeploymentController semantics (notes §B.1-§B.13):
//
//   read the object -> deletion (finalizer) or: add the finalizer -> unsupported version check
//   -> observe (JobManager Deployment, job over REST, snapshots) -> validate (an invalid spec is
//   a Warning event and the pass continues with the last valid spec) -> write the status ->
//   reconcile (first deploy, autoscaler, spec diff, in-place scale or upgrade, rollback,
//   snapshots, JobManager recovery and TTL) -> conditions -> write the status -> reschedule.
//
// The status is a write-ahead log: every cluster action is preceded by a status write that says
// what is about to happen (UPGRADING with the new spec, the new job id), so a restarted operator
// resumes an interrupted upgrade from the status alone (savepoint paths included).
//
// Files: flink_deployment_controller.cc (the pass, deletion, status), deployment_observer.cc
// (observation), deployment_reconciler.cc (spec changes), application_upgrade.cc (the job
// upgrade flow), deployment_gang.cc (pod decorators, PodGroups, queue facts).
//
// Usage:
//   FlinkDeploymentController controller(WithDefaults(deps));
//   StatusOr<ReconcileResult> r = controller.Reconcile("prod", "sm");
//   if (r.ok() && r->requeue_after) queue.AddAfter(key, *r->requeue_after);
//
// Thread-safety: Reconcile() may run concurrently for different resources; calls for one
// resource must be serialised (the work queue does).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/chain/queue_headroom.h"
#include "operator/controller_shared/cluster_client.h"
#include "operator/controller_shared/controller_deps.h"
#include "operator/decorators/decorator_registry.h"
#include "operator/decisions/pod_decoration.h"
#include "operator/controller_shared/job_context.h"
#include "operator/controller_shared/status_recorder.h"
#include "operator/decisions/upgrade_mode.h"

namespace trimtab::op {

struct DeploymentPass;

class FlinkDeploymentController {
 public:
  explicit FlinkDeploymentController(ControllerDeps deps);
  ~FlinkDeploymentController();

  StatusOr<ReconcileResult> Reconcile(const std::string& ns, const std::string& name);

  StatusRecorder& status_recorder() { return status_recorder_; }

 private:
  // flink_deployment_controller.cc
  StatusOr<ReconcileResult> RunPass(DeploymentPass& p);
  StatusOr<ReconcileResult> Cleanup(DeploymentPass& p);
  Status WriteStatus(DeploymentPass& p);
  Status EnsureFinalizer(DeploymentPass& p);
  void RefreshConfig(DeploymentPass& p);
  void EnsureRestClient(DeploymentPass& p);
  void UpdateConditions(DeploymentPass& p);
  ReconcileResult Reschedule(const DeploymentPass& p) const;
  ResourceMemory* MemoryFor(const std::string& uid);
  void ForgetResource(const std::string& uid);

  // deployment_observer.cc
  Status Observe(DeploymentPass& p);
  bool CheckIfAlreadyUpgraded(DeploymentPass& p);
  void ObserveJobManager(DeploymentPass& p);
  void ObserveCluster(DeploymentPass& p);
  // Creates the JobManager Services a failed deploy left out (ClusterClient::CreateMissingServices).
  void RepairServices(DeploymentPass& p, const Json& deployment);

  // deployment_reconciler.cc
  Status ReconcileSpec(DeploymentPass& p);
  Status FirstDeploy(DeploymentPass& p);
  Status ReconcileSessionChange(DeploymentPass& p);
  void RunAutoscaler(DeploymentPass& p);
  // A SCALE change applied without an upgrade: native mode through the adaptive scheduler's
  // resource requirements; standalone mode (reactive scheduler, or a session cluster) by
  // scaling the TaskManager Deployment to the new TaskManager count, which the job follows
  // (upstream StandaloneFlinkService.scale). False: upgrade instead.
  bool TryInPlaceScale(DeploymentPass& p, const Json& recorded_spec);
  bool TryStandaloneScale(DeploymentPass& p);
  bool ShouldRollback(DeploymentPass& p);
  Status RollBack(DeploymentPass& p);
  Status ReconcileOtherChanges(DeploymentPass& p);
  // Deletes a leftover cluster, persists the job id, creates the cluster objects.
  Status Deploy(DeploymentPass& p, const api::FlinkDeploymentSpec& spec, std::string restore_path,
                api::UpgradeMode restore_mode);

  // deployment_gang.cc
  // The decorated pods and objects of `spec` (deploy configuration `deploy_config`) with
  // `existing` TaskManager pods, `placed` of them on a node; reports scheduler names without a decorator (Normal event) and
  // missing Queues / PriorityClasses (Warning event) when `report`.
  StatusOr<PodDecoration> DecorateCluster(DeploymentPass& p, const api::FlinkDeploymentSpec& spec,
                                          const api::FlinkConfiguration& deploy_config,
                                          int existing, int placed, bool report);
  // Brings the pre-created objects (PodGroup) of the deployed cluster up to date for `spec`:
  // minMember from the TaskManager pods placed on a node, minResources from the spec's size. No-op
  // without a scheduler name or without a JobManager Deployment. Errors are logged.
  void SyncPodGroups(DeploymentPass& p, const api::FlinkDeploymentSpec& spec);
  // The deployed spec (lastReconciledSpec) when the cluster is deployed and not upgrading.
  void SyncDeployedPodGroups(DeploymentPass& p);
  // The queue facts for the autoscaler when the TaskManagers are in a Volcano queue.
  std::optional<core::QueueHeadroom> QueueFacts(DeploymentPass& p, double tm_cpu,
                                                double tm_memory_bytes);

  // application_upgrade.cc
  Status ReconcileJobSpecChange(DeploymentPass& p, api::DiffType type);
  StatusOr<JobUpgrade> AvailableUpgrade(DeploymentPass& p, const api::FlinkDeploymentSpec& recorded);
  // Stops the job per the suspend mode. Sets *async when the stop is still in progress.
  Status Suspend(DeploymentPass& p, SuspendMode mode, bool* async);
  Status Restore(DeploymentPass& p, api::UpgradeMode restore_mode);
  bool JobManagerPodNeverStarted(DeploymentPass& p);

  ControllerDeps deps_;
  decorators::DecoratorRegistry decorators_;  // the built-in step decorators
  StatusRecorder status_recorder_;
  ClusterClient cluster_;
  std::mutex memory_mu_;
  std::map<std::string, std::unique_ptr<ResourceMemory>> memory_;  // by uid; guarded by memory_mu_
};

}  // namespace trimtab::op
