// Reconciliation part of FlinkDeploymentController (notes §B.4-§B.7): first deployment, the
// autoscaler hook, the spec diff, in-place scaling, rollback, session cluster changes, snapshots,
// JobManager recovery and TTL, and Deploy().
#include <algorithm>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "api/reconciled_spec.h"
#include "core/chain/scaling_realizer.h"
#include "common/flink_values.h"
#include "operator/deployment/deployment_pass.h"
#include "operator/decisions/flink_config_builder.h"
#include "operator/deployment/flink_deployment_controller.h"
#include "operator/deployment/kubernetes_scaling_realizer.h"
#include "operator/decisions/ingress_builder.h"
#include "operator/controller_shared/job_observer.h"
#include "operator/controller_shared/kube_resources.h"
#include "operator/decisions/process_resources.h"
#include "operator/deployment/queue_headroom_reader.h"
#include "operator/controller_shared/reconciliation_utils.h"
#include "operator/decisions/spec_diff.h"

namespace trimtab::op {
namespace {

namespace js = api::job_status;
using JmStatus = api::JobManagerDeploymentStatus;
using api::ReconciliationState;

constexpr size_t kMaxDecisionAnnotation = 128 * 1024;

Json WithoutNonces(Json spec) {
  if (spec.is_object() && spec.contains("job")) {
    spec["job"].erase("savepointTriggerNonce");
    spec["job"].erase("checkpointTriggerNonce");
  }
  return spec;
}

bool AutoscalerEnabled(const api::FlinkConfiguration& conf) {
  return ConfigBool(conf, "job.autoscaler.enabled",
                    ConfigBool(conf, "kubernetes.operator.job.autoscaler.enabled", false));
}

}  // namespace

Status FlinkDeploymentController::Deploy(DeploymentPass& p, const api::FlinkDeploymentSpec& spec,
                                         std::string restore_path,
                                         api::UpgradeMode restore_mode) {
  api::FlinkDeploymentStatus& st = p.status();
  // A previous (terminated or leftover) cluster goes first, HA metadata kept.
  TRIMTAB_ASSIGN_OR_RETURN(bool gone, cluster_.Delete(p.ns(), p.name(), p.options.deletion_propagation,
                                                      /*delete_ha=*/false));
  st.job_manager_deployment_status = JmStatus::kMissing;
  p.rest.reset();
  p.job.rest = nullptr;
  if (!gone) {
    const TimePoint now = deps_.clock->Now();
    if (!p.memory->cluster_deletion_started) p.memory->cluster_deletion_started = now;
    if (now < *p.memory->cluster_deletion_started + p.options.resource_cleanup_timeout) {
      TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
      return Waiting(p, "the previous JobManager of " + p.ns() + "/" + p.name() + " is terminating");
    }
    spdlog::warn("{}/{}: the previous cluster did not terminate within the cleanup timeout; "
                 "deploying anyway", p.ns(), p.name());
  }
  p.memory->cluster_deletion_started.reset();

  const api::FlinkConfiguration config =
      EffectiveConfig(deps_.default_config, p.ns(), spec.flink_version, spec.flink_configuration);
  std::string job_id;
  if (spec.job) {
    if (auto user = config.find(flink_keys::kJobId); user != config.end()) {
      job_id = user->second;
    } else if (restore_mode == api::UpgradeMode::kLastState && !st.job_status.job_id.empty()) {
      job_id = st.job_status.job_id;
    } else {
      job_id = RandomHexId();
    }
    if (restore_mode == api::UpgradeMode::kLastState) {
      TRIMTAB_ASSIGN_OR_RETURN(HaMetadata ha, cluster_.ReadHaMetadata(p.ns(), p.name()));
      if (ha.has_checkpoint) {
        restore_path = kLastStateDummyPath;
        st.job_status.upgrade_savepoint_path = kLastStateDummyPath;
      }
    }
    st.job_status.job_id = job_id;
    st.job_status.state = std::string(js::kReconciling);
    TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));  // the job id is known before the job exists
    if (IsHaEnabled(config)) {
      Status s = cluster_.RemoveJobGraphs(p.ns(), p.name());
      if (!s.ok()) spdlog::warn("{}/{}: {}", p.ns(), p.name(), s.ToString());
    }
  }
  api::ObjectMeta meta = p.resource.metadata;
  meta.mutable_raw()["generation"] = p.generation;
  TRIMTAB_ASSIGN_OR_RETURN(api::FlinkConfiguration deploy_config,
                           BuildDeployConfig(meta, spec, config,
                                             {.job_id = job_id, .restore_path = restore_path,
                                              .job_result_store_id = RandomHexId()}));
  // Step decorators (scheduler name, PodGroup): nothing is created when they fail.
  TRIMTAB_ASSIGN_OR_RETURN(PodDecoration decoration,
                           DecorateCluster(p, spec, deploy_config, /*existing=*/0, /*placed=*/0,
                                           /*report=*/true));
  TRIMTAB_ASSIGN_OR_RETURN(ClusterObjects objects,
                           BuildClusterObjects(meta, spec, deploy_config, decoration.templates));
  objects.pre_creation = std::move(decoration.pre_creation);
  objects.accompanying = std::move(decoration.accompanying);
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<decorators::KubeObject> ingress,
                           BuildIngress(meta, spec, deploy_config));
  if (ingress) objects.accompanying.push_back(std::move(*ingress));
  TRIMTAB_RETURN_IF_ERROR(cluster_.Create(std::move(objects)));
  p.job.Event(EventType::kNormal, reasons::kSubmit, "Starting deployment");
  st.job_manager_deployment_status = JmStatus::kDeploying;
  st.cluster_info.clear();
  return Status::Ok();
}

Status FlinkDeploymentController::FirstDeploy(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  const api::FlinkDeploymentSpec& spec = p.resource.spec;
  if (spec.job && spec.job->state == api::JobState::kSuspended) return Status::Ok();
  const Json spec_json = api::EncodeFlinkDeploymentSpec(spec);
  api::UpgradeMode mode = api::UpgradeMode::kStateless;
  std::string restore;
  if (spec.job && !spec.job->initial_savepoint_path.empty()) {
    mode = api::UpgradeMode::kSavepoint;
    restore = spec.job->initial_savepoint_path;
    st.job_status.upgrade_savepoint_path = restore;
  }
  RecordOptions upgrading{.state = ReconciliationState::kUpgrading};
  if (spec.job) {
    upgrading.job_state = api::JobState::kSuspended;
    upgrading.upgrade_mode = mode;
  }
  RecordSpec(&st, spec_json, p.generation, deps_.clock->Now(), upgrading);
  TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
  TRIMTAB_RETURN_IF_ERROR(Deploy(p, spec, restore, mode));
  RecordOptions deployed{.state = ReconciliationState::kDeployed};
  if (spec.job) deployed.upgrade_mode = mode;
  RecordSpec(&st, spec_json, p.generation, deps_.clock->Now(), deployed);
  return Status::Ok();
}

void FlinkDeploymentController::RunAutoscaler(DeploymentPass& p) {
  if (!deps_.autoscaler || !p.application()) return;
  api::FlinkDeploymentStatus& st = p.status();
  const Json recorded = LastReconciledSpec(st);
  StatusOr<api::FlinkConfiguration> recorded_conf = api::FlattenFlinkConfiguration(
      recorded.value("flinkConfiguration", Json::object()), "lastReconciledSpec.flinkConfiguration");
  const std::string recorded_overrides =
      recorded_conf.ok() && recorded_conf->count(flink_keys::kParallelismOverrides)
          ? recorded_conf->at(flink_keys::kParallelismOverrides)
          : "";
  if (!AutoscalerEnabled(p.config)) {
    if (recorded_conf.ok() && AutoscalerEnabled(*recorded_conf)) {
      Status s = deps_.autoscaler->Cleanup(p.ns(), p.name());
      if (!s.ok()) spdlog::warn("{}/{}: autoscaler cleanup: {}", p.ns(), p.name(), s.ToString());
    }
    return;
  }
  const std::optional<int64_t> reset = p.resource.spec.job->autoscaler_reset_nonce;
  if (reset && reset != JobNonce(recorded, "autoscalerResetNonce")) {
    Status s = deps_.autoscaler->Cleanup(p.ns(), p.name());
    if (!s.ok()) spdlog::warn("{}/{}: autoscaler reset: {}", p.ns(), p.name(), s.ToString());
    SetRecordedJobField(&st, "autoscalerResetNonce", *reset);
  }
  AutoscalerJobContext context{
      .namespace_name = p.ns(),
      .resource_name = p.name(),
      .resource_kind = "FlinkDeployment",
      .resource_uid = p.resource.metadata.uid(),
      .job_id = st.job_status.job_id,
      .job_status = st.job_status.state,
      .rest_url = p.rest ? p.rest->base_url() : "",
      .flink_version = p.resource.spec.flink_version
                           ? std::string(api::Name(*p.resource.spec.flink_version))
                           : "",
      .flink_configuration = p.config};
  StatusOr<AutoscalerOutcome> outcome = UnavailableError("no autoscaler outcome");
  if (st.reconciliation_status.state != ReconciliationState::kDeployed ||
      st.job_manager_deployment_status != JmStatus::kReady || st.job_status.state != js::kRunning ||
      !p.rest) {
    // The autoscaler decides only for a running job. One that has not run since a scaling and
    // whose pods cannot be scheduled goes back to its last running parallelism (issue 28).
    std::optional<AutoscalerOutcome> reverted;
    if (!recorded_overrides.empty() &&
        st.reconciliation_status.state == ReconciliationState::kDeployed &&
        st.job_status.state != js::kRunning && !js::IsGloballyTerminal(st.job_status.state)) {
      StatusOr<int> unscheduled = cluster_.CountUnscheduledPods(p.ns(), p.name());
      if (unscheduled.ok() && *unscheduled > 0) {
        StatusOr<AutoscalerOutcome> r = deps_.autoscaler->RevertUnschedulable(context);
        if (r.ok() && r->scaled) {
          reverted = std::move(r).value();
        } else if (!r.ok()) {
          spdlog::warn("{}/{}: revert an unschedulable scaling: {}", p.ns(), p.name(),
                       r.status().ToString());
        }
      }
    }
    if (!reverted) {
      // Keep what is deployed.
      if (!recorded_overrides.empty()) {
        p.resource.spec.flink_configuration[flink_keys::kParallelismOverrides] = recorded_overrides;
        RefreshConfig(p);
      }
      return;
    }
    outcome = std::move(*reverted);
  } else {
    if (p.resource.spec.task_manager) {
      StatusOr<ProcessResources> tm = ResolveProcessResources(
          "TaskManager", p.resource.spec.task_manager->resource,
          p.resource.spec.task_manager->resources);
      if (tm.ok()) {
        context.task_manager_cpu = tm->cpu.value_or(0);
        context.task_manager_memory_bytes = static_cast<double>(tm->memory_bytes.value_or(0));
      }
    }
    context.queue = QueueFacts(p, context.task_manager_cpu, context.task_manager_memory_bytes);
    if (!context.queue) {
      // The free room on the nodes, for the scale-guard plugin (issue 28).
      StatusOr<ClusterClient::TaskManagerPods> tms =
          cluster_.CountTaskManagerPods(p.ns(), p.name());
      if (tms.ok()) {
        context.cluster = ReadNodeHeadroom(
            *deps_.client,
            {.task_manager = {.cpu = context.task_manager_cpu,
                              .memory_bytes =
                                  static_cast<int64_t>(context.task_manager_memory_bytes)},
             .slots_per_task_manager = static_cast<int>(TaskSlots(p.config)),
             .task_managers = tms->existing});
      }
    }
    outcome = deps_.autoscaler->Scale(context);
  }
  if (!outcome.ok()) {
    p.job.Event(EventType::kWarning, reasons::kAutoscalerError, outcome.status().message());
    KubernetesScalingRealizer(&p.resource.spec, {})
        .KeepOverrides(
            ParseFlinkParallelismOverrides(flink_keys::kParallelismOverrides, recorded_overrides)
                .value_or({}));  // keep what runs
  } else {
    // The autoscaler's decisions, typed, into the spec about to be diffed (upstream
    // realizeParallelismOverrides and realizeConfigOverrides).
    const auto user_it = p.resource.spec.flink_configuration.find(flink_keys::kParallelismOverrides);
    KubernetesScalingRealizer realizer(
        &p.resource.spec,
        {.user = user_it == p.resource.spec.flink_configuration.end()
                     ? core::ParallelismOverrides{}
                     : ParseFlinkParallelismOverrides(user_it->first, user_it->second).value_or({}),
         .excluded = outcome->excluded_vertices,
         .task_manager_memory_bytes =
             context.task_manager_memory_bytes > 0
                 ? std::optional<int64_t>(static_cast<int64_t>(context.task_manager_memory_bytes))
                 : std::nullopt});
    const std::string job_key = p.ns() + "/" + p.name();
    if (Status s = realizer.RealizeParallelismOverrides(job_key, outcome->parallelism_overrides);
        !s.ok()) {
      spdlog::warn("{}/{}: realize the parallelism overrides: {}", p.ns(), p.name(), s.ToString());
    }
    // Memory tuning's TaskManager configuration, while memory.tuning.enabled.
    if (outcome->memory_tuning_enabled) {
      if (Status s = realizer.RealizeConfigOverrides(job_key, outcome->config_overrides,
                                                     outcome->config_removals);
          !s.ok()) {
        spdlog::warn("{}/{}: memory tuning: TaskManager memory not adjusted: {}", p.ns(), p.name(),
                     s.message());
      }
    }
    if (outcome->scaled) {
      p.job.Event(EventType::kNormal, reasons::kScalingDecision,
                  "Autoscaler decided parallelism overrides " +
                      FormatFlinkParallelismOverrides(outcome->parallelism_overrides));
    }
    if (!outcome->decision_log.is_null()) {
      std::string log = outcome->decision_log.dump();
      if (log.size() > kMaxDecisionAnnotation) {
        log = Json{{"truncated", true}, {"bytes", log.size()},
                   {"skippedReason", outcome->skipped_reason}}.dump();
      }
      const std::string current = p.resource.metadata.annotations().count(kScalingDecisionAnnotation)
                                      ? p.resource.metadata.annotations().at(kScalingDecisionAnnotation)
                                      : "";
      if (log != current) {
        Json patch = {{"metadata", {{"annotations", {{kScalingDecisionAnnotation, log}}}}}};
        StatusOr<Json> patched = deps_.client->Patch(FlinkDeploymentsResource(), p.ns(), p.name(),
                                                     kube::PatchType::kMerge, patch.dump());
        if (patched.ok()) {
          p.object["metadata"]["resourceVersion"] = kube::ObjectResourceVersion(*patched);
          p.object["metadata"]["annotations"] = (*patched)["metadata"]["annotations"];
        } else {
          spdlog::warn("{}/{}: record the scaling decision: {}", p.ns(), p.name(),
                       patched.status().ToString());
        }
      }
    }
  }
  RefreshConfig(p);
}

bool FlinkDeploymentController::TryStandaloneScale(DeploymentPass& p) {
  const api::FlinkDeploymentSpec& spec = p.resource.spec;
  if (spec.job) {
    auto mode = p.config.find("scheduler-mode");
    std::string value = mode == p.config.end() ? "" : mode->second;
    std::transform(value.begin(), value.end(), value.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (value != "reactive") {
      spdlog::info("{}/{}: reactive scaling is not enabled", p.ns(), p.name());
      return false;
    }
  }
  const std::string name = TaskManagerDeploymentName(p.name());
  StatusOr<Json> deployment = deps_.client->Get(DeploymentsResource(), p.ns(), name);
  if (!deployment.ok()) {
    spdlog::warn("{}/{}: TaskManager Deployment {} not found: {}", p.ns(), p.name(), name,
                 deployment.status().ToString());
    return false;
  }
  const int64_t desired = StandaloneTaskManagerReplicas(spec, p.config);
  const int64_t actual = (*deployment)["spec"].value("replicas", int64_t{1});
  if (actual == desired) return true;
  spdlog::info("{}/{}: scaling TaskManager replicas: actual({}) -> desired({})", p.ns(), p.name(),
               actual, desired);
  const Json patch = {{"spec", {{"replicas", desired}}}};
  StatusOr<Json> patched = deps_.client->Patch(DeploymentsResource(), p.ns(), name,
                                               kube::PatchType::kMerge, patch.dump());
  if (!patched.ok()) {
    spdlog::info("{}/{}: scaling the TaskManager Deployment failed, upgrading instead: {}", p.ns(),
                 p.name(), patched.status().ToString());
    return false;
  }
  return true;
}

bool FlinkDeploymentController::TryInPlaceScale(DeploymentPass& p, const Json& recorded_spec) {
  const api::FlinkDeploymentStatus& st = p.status();
  const api::FlinkDeploymentSpec& spec = p.resource.spec;
  if (spec.EffectiveMode() == api::DeploymentMode::kStandalone) return TryStandaloneScale(p);
  if (!spec.job || !p.options.inplace_scaling_enabled || !spec.flink_version ||
      !api::IsAtLeast(*spec.flink_version, api::FlinkVersion::kV1_18) || !p.rest ||
      st.job_manager_deployment_status != JmStatus::kReady ||
      js::IsGloballyTerminal(st.job_status.state) || st.job_status.state == js::kReconciling ||
      st.job_status.job_id.empty()) {
    return false;
  }
  auto scheduler = p.config.find(flink_keys::kScheduler);
  if (scheduler == p.config.end() || scheduler->second != "adaptive") return false;
  StatusOr<api::FlinkConfiguration> recorded_conf = api::FlattenFlinkConfiguration(
      recorded_spec.value("flinkConfiguration", Json::object()), "flinkConfiguration");
  if (!recorded_conf.ok()) return false;
  const auto text = [](const api::FlinkConfiguration& c) {
    auto it = c.find(flink_keys::kParallelismOverrides);
    return it == c.end() ? std::string() : it->second;
  };
  const auto parse = [](const std::string& value) {
    return ParseFlinkParallelismOverrides(flink_keys::kParallelismOverrides, value).value_or({});
  };
  const std::map<std::string, int> after = parse(text(spec.flink_configuration));
  const std::map<std::string, int> before = parse(text(*recorded_conf));
  if (after.empty() && before.empty()) return false;
  for (const auto& [vertex, p_old] : before) {
    if (!after.count(vertex)) return false;  // an override was removed: full upgrade
  }
  StatusOr<flink::ResourceRequirements> requirements =
      p.rest->GetResourceRequirements(st.job_status.job_id);
  if (!requirements.ok()) {
    spdlog::info("{}/{}: in-place scaling not possible: {}", p.ns(), p.name(),
                 requirements.status().ToString());
    return false;
  }
  bool changed = false;
  for (const auto& [vertex, parallelism] : after) {
    auto it = requirements->find(vertex);
    if (it == requirements->end()) continue;
    const flink::ParallelismBounds next{std::min(parallelism, it->second.lower), parallelism};
    if (!(next == it->second)) {
      it->second = next;
      changed = true;
    }
  }
  if (changed) {
    // The PodGroup grows first (minResources of the new size), so the scheduler admits the
    // TaskManagers the JobManager is about to request as part of the gang.
    SyncPodGroups(p, spec);
    Status put = p.rest->PutResourceRequirements(st.job_status.job_id, *requirements);
    if (!put.ok()) {
      spdlog::info("{}/{}: in-place scaling failed, upgrading instead: {}", p.ns(), p.name(),
                   put.ToString());
      return false;
    }
    p.job.Event(EventType::kNormal, reasons::kScaling, "In-place scaling triggered");
  }
  return true;
}

bool FlinkDeploymentController::ShouldRollback(DeploymentPass& p) {
  const api::FlinkDeploymentStatus& st = p.status();
  const api::ReconciliationStatus& r = st.reconciliation_status;
  if (r.state == ReconciliationState::kRollingBack) return true;
  if (!p.options.rollback_enabled || r.state == ReconciliationState::kRolledBack || IsStable(st) ||
      r.last_stable_spec.empty()) {
    return false;
  }
  StatusOr<api::FlinkDeploymentSpec> stable = api::ParseRecordedDeploymentSpec(r.last_stable_spec);
  if (!stable.ok() || (stable->job && stable->job->state == api::JobState::kSuspended) ||
      stable->flink_version != p.resource.spec.flink_version) {
    return false;
  }
  if (deps_.clock->Now() <
      FromUnixMillis(r.reconciliation_timestamp) + p.options.readiness_timeout) {
    return false;
  }
  StatusOr<HaMetadata> ha = cluster_.ReadHaMetadata(p.ns(), p.name());
  if (ha.ok() && ha->available) return true;
  StatusOr<api::FlinkDeploymentSpec> recorded =
      api::ParseRecordedDeploymentSpec(r.last_reconciled_spec);
  return recorded.ok() && recorded->job &&
         recorded->job->upgrade_mode == api::UpgradeMode::kSavepoint && JobManagerPodNeverStarted(p);
}

Status FlinkDeploymentController::RollBack(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  if (st.reconciliation_status.state != ReconciliationState::kRollingBack) {
    st.reconciliation_status.state = ReconciliationState::kRollingBack;
    p.job.Event(EventType::kNormal, reasons::kRollback, "Rolling back failed deployment.");
    TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
  }
  TRIMTAB_ASSIGN_OR_RETURN(api::FlinkDeploymentSpec stable,
                           api::ParseRecordedDeploymentSpec(st.reconciliation_status.last_stable_spec));
  StatusOr<api::FlinkDeploymentSpec> recorded =
      api::ParseRecordedDeploymentSpec(st.reconciliation_status.last_reconciled_spec);
  api::UpgradeMode mode = api::UpgradeMode::kStateless;
  if (stable.job) {
    mode = recorded.ok() && recorded->job &&
                   recorded->job->upgrade_mode == api::UpgradeMode::kStateless
               ? api::UpgradeMode::kStateless
               : api::UpgradeMode::kLastState;
    stable.job->upgrade_mode = mode;
  }
  if (mode == api::UpgradeMode::kStateless) {
    TRIMTAB_RETURN_IF_ERROR(cluster_.Delete(p.ns(), p.name(), p.options.deletion_propagation,
                                            /*delete_ha=*/true)
                                .status());
  }
  TRIMTAB_RETURN_IF_ERROR(Deploy(p, stable, "", mode));
  st.reconciliation_status.state = ReconciliationState::kRolledBack;
  return Status::Ok();
}

Status FlinkDeploymentController::ReconcileSessionChange(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  const Json spec_json = api::EncodeFlinkDeploymentSpec(p.resource.spec);
  if (st.reconciliation_status.state != ReconciliationState::kUpgrading) {
    TRIMTAB_RETURN_IF_ERROR(cluster_.Delete(p.ns(), p.name(), p.options.deletion_propagation,
                                            /*delete_ha=*/true)
                                .status());
    RecordSpec(&st, spec_json, p.generation, deps_.clock->Now(),
               {.state = ReconciliationState::kUpgrading});
    TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
  }
  TRIMTAB_RETURN_IF_ERROR(Deploy(p, p.resource.spec, "", api::UpgradeMode::kStateless));
  RecordSpec(&st, spec_json, p.generation, deps_.clock->Now(),
             {.state = ReconciliationState::kDeployed});
  return Status::Ok();
}

Status FlinkDeploymentController::ReconcileSpec(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  if (st.reconciliation_status.last_reconciled_spec.empty()) return FirstDeploy(p);
  if (p.application() && !st.job_status.savepoint_info.trigger_id.empty() &&
      !p.options.ignore_pending_savepoint) {
    // A savepoint is pending: not ready to reconcile, unless the user redeploys from a
    // savepoint of their choice (the way out of a stop-with-savepoint whose result was lost).
    const std::optional<int64_t> redeploy = p.resource.spec.job->savepoint_redeploy_nonce;
    if (!redeploy || redeploy == JobNonce(LastReconciledSpec(st), "savepointRedeployNonce")) {
      return Status::Ok();
    }
    api::SavepointInfo& info = st.job_status.savepoint_info;
    info.trigger_id.clear();
    info.trigger_timestamp = 0;
    info.trigger_type.reset();
    info.format_type.reset();
  }
  RunAutoscaler(p);
  const Json recorded = LastReconciledSpec(st);
  const Json current = api::EncodeFlinkDeploymentSpec(p.resource.spec);
  SpecDiff diff = DiffSpecs(recorded, current, p.resource.spec.EffectiveMode());
  ReconciliationState state = st.reconciliation_status.state;
  if (state == ReconciliationState::kRollingBack && diff.type != api::DiffType::kIgnore) {
    st.reconciliation_status.state = state = ReconciliationState::kUpgrading;  // a new change wins
  }
  if (diff.type == api::DiffType::kIgnore && p.application() && ShouldRollback(p)) {
    return RollBack(p);
  }
  const bool changed = diff.type != api::DiffType::kIgnore || state == ReconciliationState::kUpgrading;
  if (!changed) {
    RecordGeneration(&st, p.generation);
    return ReconcileOtherChanges(p);
  }
  if (state != ReconciliationState::kUpgrading &&
      WithoutNonces(current) == WithoutNonces(RecordedSpec(st))) {
    RecordSpec(&st, current, p.generation, deps_.clock->Now(), {.state = ReconciliationState::kDeployed});
    return Status::Ok();
  }
  if (diff.type != api::DiffType::kIgnore && p.memory->spec_changed_event_generation != p.generation) {
    p.job.Event(EventType::kNormal, reasons::kSpecChanged,
                std::string(api::Name(diff.type)) + " change(s) detected (" +
                    diff.Describe("FlinkDeploymentSpec") + "), starting reconciliation.");
    p.memory->spec_changed_event_generation = p.generation;
  }
  if (diff.type == api::DiffType::kScale && TryInPlaceScale(p, recorded)) {
    RecordSpec(&st, current, p.generation, deps_.clock->Now(), {.state = ReconciliationState::kDeployed});
    return Status::Ok();
  }
  if (!p.application()) return ReconcileSessionChange(p);
  return ReconcileJobSpecChange(p, diff.type);
}

Status FlinkDeploymentController::ReconcileOtherChanges(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  const TimePoint now = deps_.clock->Now();
  const JmStatus jm = st.job_manager_deployment_status;
  const std::optional<api::JobState> recorded_state =
      api::RecordedJobState(st.reconciliation_status.last_reconciled_spec);
  if (p.application()) {
    if (st.job_status.state == js::kFailed && p.options.job_restart_failed &&
        recorded_state == api::JobState::kRunning) {
      // Restart the failed job from its last known state.
      // A stateful job restarts from its newest state (Restore reads it from the failed job's
      // checkpoint history, else the recorded savepoint), never from empty state.
      const api::UpgradeMode mode = p.resource.spec.job->upgrade_mode == api::UpgradeMode::kStateless
                                        ? api::UpgradeMode::kStateless
                                        : api::UpgradeMode::kSavepoint;
      st.error.clear();
      RecordSpec(&st, LastReconciledSpec(st), p.generation, now,
                 {.state = ReconciliationState::kUpgrading, .job_state = api::JobState::kSuspended,
                  .upgrade_mode = mode});
      return Status::Ok();
    }
    TRIMTAB_RETURN_IF_ERROR(TriggerSnapshots(p.job));
  }
  const bool should_run =
      !p.application() || (recorded_state == api::JobState::kRunning &&
                           !js::IsGloballyTerminal(st.job_status.state));
  const bool stateless = p.application() &&
                         p.resource.spec.job->upgrade_mode == api::UpgradeMode::kStateless;
  if (p.options.jm_recovery_enabled && jm == JmStatus::kMissing && should_run &&
      (!p.application() || stateless || IsHaEnabled(p.config))) {
    p.job.Event(EventType::kWarning, reasons::kRecoverDeployment, "Recovering lost deployment");
    StatusOr<api::FlinkDeploymentSpec> deployed =
        api::ParseRecordedDeploymentSpec(st.reconciliation_status.last_reconciled_spec);
    if (!deployed.ok()) return deployed.status();
    const api::UpgradeMode mode = !p.application() || stateless ? api::UpgradeMode::kStateless
                                                               : api::UpgradeMode::kLastState;
    return Deploy(p, *deployed, "", mode);
  }
  if (p.application() && js::IsGloballyTerminal(st.job_status.state) && jm != JmStatus::kMissing &&
      !st.job_status.update_time.empty()) {
    int64_t updated = 0;
    try {
      updated = std::stoll(st.job_status.update_time);
    } catch (...) {
    }
    if (updated > 0 && now > FromUnixMillis(updated) + p.options.jm_shutdown_ttl) {
      spdlog::info("{}/{}: the job is terminal for longer than the shutdown TTL; removing the "
                   "JobManager", p.ns(), p.name());
      TRIMTAB_RETURN_IF_ERROR(cluster_.Delete(p.ns(), p.name(), p.options.deletion_propagation,
                                              /*delete_ha=*/false)
                                  .status());
      st.job_manager_deployment_status = JmStatus::kMissing;
    }
  }
  return Status::Ok();
}

}  // namespace trimtab::op
