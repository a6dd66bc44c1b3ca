// Observation part of FlinkDeploymentController (notes §B.2): the JobManager Deployment, then,
// with a READY JobManager, the job (application) or the REST API (session), snapshots, cluster
// info.
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/flink/tcp_probe.h"
#include "api/reconciled_spec.h"
#include "operator/deployment/deployment_pass.h"
#include "operator/decisions/flink_config_builder.h"
#include "operator/deployment/flink_deployment_controller.h"
#include "operator/decisions/jm_resources.h"
#include "operator/controller_shared/job_observer.h"
#include "operator/controller_shared/reconciliation_utils.h"

namespace trimtab::op {
namespace {

namespace js = api::job_status;
using JmStatus = api::JobManagerDeploymentStatus;

constexpr const char* kFailureReasons[] = {"CrashLoopBackOff", "ImagePullBackOff",
                                           "ErrImagePull", "RunContainerError",
                                           "CreateContainerConfigError", "OOMKilled"};

bool IsFailureReason(const std::string& reason) {
  for (const char* r : kFailureReasons) {
    if (reason == r) return true;
  }
  return false;
}

// "<reason>: <message>" of the first failing JobManager container, "" when none fails.
std::string ContainerFailure(const std::vector<Json>& pods) {
  for (const Json& pod : pods) {
    const Json status = pod.value("status", Json::object());
    for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
      for (const Json& c : status.value(list, Json::array())) {
        const Json state = c.value("state", Json::object());
        const Json waiting = state.value("waiting", Json::object());
        const std::string reason = waiting.value("reason", "");
        if (IsFailureReason(reason)) return reason + ": " + waiting.value("message", reason);
        const Json last = c.value("lastState", Json::object()).value("terminated", Json::object());
        if (last.value("reason", "") == "OOMKilled") return "OOMKilled: container was OOM killed";
      }
    }
  }
  return "";
}

}  // namespace

bool FlinkDeploymentController::CheckIfAlreadyUpgraded(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  if (st.job_manager_deployment_status != JmStatus::kMissing) return false;
  StatusOr<std::optional<Json>> dep = cluster_.JobManagerDeployment(p.ns(), p.name());
  if (!dep.ok() || !dep->has_value()) return false;
  const Json& meta = (**dep)["metadata"];
  if (meta.contains("deletionTimestamp")) return false;
  const std::string generation =
      meta.value("annotations", Json::object()).value(kGenerationAnnotation, "");
  if (!st.observed_generation || generation != std::to_string(*st.observed_generation)) return false;
  spdlog::info("{}/{}: the JobManager of generation {} is already deployed", p.ns(), p.name(),
               generation);
  Json recorded = LastReconciledSpec(st);
  RecordOptions options{.state = api::ReconciliationState::kDeployed};
  if (recorded.contains("job")) {
    options.job_state = api::JobState::kRunning;
    st.job_status.state = std::string(js::kReconciling);
  }
  RecordSpec(&st, recorded, *st.observed_generation, deps_.clock->Now(), options);
  st.job_manager_deployment_status = JmStatus::kDeploying;
  return true;
}

void FlinkDeploymentController::RepairServices(DeploymentPass& p, const Json& deployment) {
  api::FlinkDeploymentStatus& st = p.status();
  StatusOr<api::FlinkDeploymentSpec> spec =
      api::ParseRecordedDeploymentSpec(st.reconciliation_status.last_reconciled_spec);
  if (!spec.ok()) return;
  const api::FlinkConfiguration config =
      EffectiveConfig(deps_.default_config, p.ns(), spec->flink_version, spec->flink_configuration);
  api::ObjectMeta meta = p.resource.metadata;
  meta.mutable_raw()["generation"] = st.observed_generation.value_or(p.generation);
  StatusOr<api::FlinkConfiguration> deploy_config =
      BuildDeployConfig(meta, *spec, config, {.job_id = st.job_status.job_id});
  StatusOr<ClusterObjects> objects =
      deploy_config.ok() ? BuildClusterObjects(meta, *spec, *deploy_config)
                         : StatusOr<ClusterObjects>(deploy_config.status());
  if (!objects.ok()) return;
  WithDeploymentOwner(&*objects, p.name(), kube::ObjectUid(deployment));
  StatusOr<std::vector<std::string>> created = cluster_.CreateMissingServices(*objects);
  if (!created.ok()) {
    spdlog::warn("{}/{}: {}", p.ns(), p.name(), created.status().ToString());
    return;
  }
  for (const std::string& name : *created) {
    p.job.Event(EventType::kNormal, reasons::kRecoverDeployment,
                "Created the missing Service " + name + " of the JobManager",
                components::kJobManagerDeployment);
  }
}

Status FlinkDeploymentController::Observe(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  const api::ReconciliationState state = st.reconciliation_status.state;
  if (st.reconciliation_status.last_reconciled_spec.empty() ||
      state == api::ReconciliationState::kRollingBack) {
    return Status::Ok();
  }
  if (state == api::ReconciliationState::kUpgrading && !CheckIfAlreadyUpgraded(p)) {
    if (IsFirstDeployment(st) && st.job_manager_deployment_status == JmStatus::kMissing) {
      StatusOr<std::optional<Json>> dep = cluster_.JobManagerDeployment(p.ns(), p.name());
      if (dep.ok() && !dep->has_value()) {
        spdlog::info("{}/{}: the first deployment never happened; starting over", p.ns(), p.name());
        ClearRecordedSpec(&st);
      }
    }
    return Status::Ok();
  }
  if (st.job_manager_deployment_status == JmStatus::kReady) {
    // A READY JobManager can disappear (deleted, evicted): look before talking to it.
    StatusOr<std::optional<Json>> dep = cluster_.JobManagerDeployment(p.ns(), p.name());
    if (dep.ok() && (!dep->has_value() || (**dep)["metadata"].contains("deletionTimestamp"))) {
      ObserveJobManager(p);
    }
  } else {
    ObserveJobManager(p);
  }
  if (st.job_manager_deployment_status != JmStatus::kReady) return Status::Ok();
  EnsureRestClient(p);
  if (!p.rest) {
    st.job_manager_deployment_status = JmStatus::kDeploying;
    return Status::Ok();
  }
  ObserveCluster(p);
  Status snapshots = Status::Ok();
  if (p.application() && st.job_manager_deployment_status == JmStatus::kReady) {
    snapshots = ObserveSnapshots(p.job);
    if (!snapshots.ok()) p.failure_reason = reasons::kUpgradeFailed;
  }
  // (Not while an upgrade's stop-with-savepoint has no result: that error says what to do.)
  const bool lost_upgrade_savepoint =
      p.job.job_missing && !st.job_status.savepoint_info.trigger_id.empty() &&
      st.job_status.savepoint_info.trigger_type == api::SnapshotTriggerType::kUpgrade;
  if (st.job_manager_deployment_status != JmStatus::kError && st.job_status.state != js::kFailed &&
      IsStable(st) && !lost_upgrade_savepoint) {
    st.error.clear();
  }
  if (p.application()) AbandonSnapshots(p.job);
  return snapshots;
}

void FlinkDeploymentController::ObserveCluster(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  if (p.application()) {
    ObserveJob(p.job);
    if (p.job.rest_timed_out) {
      st.job_manager_deployment_status = JmStatus::kDeploying;
      return;
    }
  }
  const bool refresh_info = !p.application() || !st.cluster_info.count("flink-version");
  if (!refresh_info) return;
  StatusOr<flink::ClusterConfig> config = p.rest->Config();
  if (!config.ok()) {
    spdlog::warn("{}/{}: {}", p.ns(), p.name(), config.status().ToString());
    if (config.status().code() == StatusCode::kDeadlineExceeded ||
        config.status().code() == StatusCode::kUnavailable) {
      st.job_manager_deployment_status = JmStatus::kDeploying;
    }
    return;
  }
  st.cluster_info["flink-version"] = config->flink_version;
  st.cluster_info["flink-revision"] = config->flink_revision;
  if (!p.application() && st.reconciliation_status.state == api::ReconciliationState::kDeployed) {
    MarkStable(&st);
  }
}

void FlinkDeploymentController::ObserveJobManager(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  const JmStatus previous = st.job_manager_deployment_status;
  if (p.application() && previous == JmStatus::kMissing &&
      p.resource.spec.job->state == api::JobState::kSuspended &&
      api::RecordedJobState(st.reconciliation_status.last_reconciled_spec) ==
          api::JobState::kSuspended) {
    return;
  }
  if (previous == JmStatus::kDeployedNotReady) {
    st.job_manager_deployment_status = JmStatus::kReady;
    return;
  }
  StatusOr<std::optional<Json>> dep = cluster_.JobManagerDeployment(p.ns(), p.name());
  if (!dep.ok()) {
    spdlog::warn("{}/{}: {}", p.ns(), p.name(), dep.status().ToString());
    return;
  }
  if (!dep->has_value()) {
    if (previous != JmStatus::kMissing && previous != JmStatus::kError) {
      st.error = api::ErrorJson("org.apache.flink.kubernetes.operator.exception.MissingJobManagerException",
                                "Missing JobManager deployment");
      p.job.Event(EventType::kWarning, reasons::kMissing, "Missing JobManager deployment",
                  components::kJobManagerDeployment);
    }
    st.job_manager_deployment_status = JmStatus::kMissing;
    if (p.application() && !js::IsGloballyTerminal(st.job_status.state)) {
      st.job_status.state = std::string(js::kReconciling);
    }
    return;
  }
  const Json& deployment = **dep;
  if (deployment["metadata"].contains("deletionTimestamp")) {
    st.job_manager_deployment_status = JmStatus::kDeploying;
    return;
  }
  const Json dstatus = deployment.value("status", Json::object());
  if (dstatus.value("replicas", 0) > 0 && dstatus.value("availableReplicas", 0) > 0) {
    StatusOr<std::string> url = deps_.resolver->RestUrl(p.ns(), p.name());
    StatusOr<std::pair<std::string, int>> hp =
        url.ok() ? flink::HostPortOf(*url) : StatusOr<std::pair<std::string, int>>(url.status());
    Status probe = hp.ok() ? deps_.tcp_probe(hp->first, hp->second, std::chrono::seconds(1))
                           : hp.status();
    if (probe.ok()) {
      st.job_manager_deployment_status = JmStatus::kDeployedNotReady;
      return;
    }
    spdlog::debug("{}/{}: JobManager REST not reachable yet: {}", p.ns(), p.name(), probe.ToString());
  }
  std::string failure;
  for (const Json& c : dstatus.value("conditions", Json::array())) {
    if (c.value("type", "") == "ReplicaFailure" && c.value("status", "") == "True") {
      failure = c.value("reason", "FailedCreate") + ": " + c.value("message", "");
    }
  }
  if (failure.empty()) {
    StatusOr<std::vector<Json>> pods = cluster_.JobManagerPods(p.ns(), p.name());
    if (pods.ok()) failure = ContainerFailure(*pods);
  }
  RepairServices(p, deployment);
  if (!failure.empty()) {
    if (previous != JmStatus::kError) {
      const std::string reason = failure.substr(0, failure.find(':'));
      st.error = api::ErrorJson("org.apache.flink.kubernetes.operator.exception.DeploymentFailedException",
                                failure);
      p.job.Event(EventType::kWarning, reason, failure, components::kJobManagerDeployment);
    }
    st.job_manager_deployment_status = JmStatus::kError;
    if (p.application()) st.job_status.state = std::string(js::kReconciling);
    return;
  }
  st.job_manager_deployment_status = JmStatus::kDeploying;
}

}  // namespace trimtab::op
