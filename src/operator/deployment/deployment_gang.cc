// Gang scheduling part of FlinkDeploymentController (docs/gang-scheduling.md "PodGroups from
// the operator"): the step decorators of a deploy, the refresh of the pre-created objects (a
// PodGroup's minMember and minResources) on every observe pass and before an in-place scale-up,
// and the queue facts the queue-capacity executor plugin reads.
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "api/reconciled_spec.h"
#include "operator/deployment/deployment_pass.h"
#include "operator/decisions/flink_config_builder.h"
#include "operator/deployment/flink_deployment_controller.h"
#include "operator/deployment/queue_headroom_reader.h"

namespace trimtab::op {
namespace {

bool UsesScheduler(const api::FlinkConfiguration& conf) {
  StatusOr<decorators::SchedulerSettings> s = decorators::ReadSchedulerSettings(conf);
  return s.ok() && (!s->job_manager.empty() || !s->task_manager.empty());
}

}  // namespace

StatusOr<PodDecoration> FlinkDeploymentController::DecorateCluster(
    DeploymentPass& p, const api::FlinkDeploymentSpec& spec,
    const api::FlinkConfiguration& deploy_config, int existing, int placed, bool report) {
  const api::FlinkConfiguration config =
      EffectiveConfig(deps_.default_config, p.ns(), spec.flink_version, spec.flink_configuration);
  StatusOr<PodDecoration> d =
      DecoratePods(decorators_, p.resource.metadata, spec, deploy_config, config, existing, placed);
  if (!d.ok()) return d.status().WithContext("pod decoration of " + p.ns() + "/" + p.name());
  if (report) {
    for (const std::string& scheduler : d->undecorated_schedulers) {
      p.job.Event(EventType::kNormal, reasons::kNoPodGroup,
                  "Scheduler \"" + scheduler + "\" has no step decorator (" +
                      decorators::kDecoratorsKey + "): its pods get no PodGroup",
                  components::kJobManagerDeployment);
    }
    for (const std::string& missing : cluster_.MissingReferences(d->references)) {
      p.job.Event(EventType::kWarning, reasons::kSchedulingReferenceMissing,
                  missing + ": the scheduler will not admit the PodGroup until it does",
                  components::kJobManagerDeployment);
    }
  }
  return d;
}

void FlinkDeploymentController::SyncPodGroups(DeploymentPass& p,
                                              const api::FlinkDeploymentSpec& spec) {
  const api::FlinkConfiguration config =
      EffectiveConfig(deps_.default_config, p.ns(), spec.flink_version, spec.flink_configuration);
  if (!UsesScheduler(config)) return;
  const auto warn = [&](const Status& s) {
    spdlog::warn("{}/{}: refresh the PodGroup: {}", p.ns(), p.name(), s.ToString());
  };
  StatusOr<std::optional<Json>> dep = cluster_.JobManagerDeployment(p.ns(), p.name());
  if (!dep.ok()) return warn(dep.status());
  if (!dep->has_value() || (**dep)["metadata"].contains("deletionTimestamp")) return;
  StatusOr<ClusterClient::TaskManagerPods> tms = cluster_.CountTaskManagerPods(p.ns(), p.name());
  if (!tms.ok()) return warn(tms.status());
  api::ObjectMeta meta = p.resource.metadata;
  StatusOr<api::FlinkConfiguration> deploy_config =
      BuildDeployConfig(meta, spec, config, {.job_id = p.status().job_status.job_id});
  if (!deploy_config.ok()) return warn(deploy_config.status());
  StatusOr<PodDecoration> d = DecorateCluster(p, spec, *deploy_config, tms->existing, tms->placed, false);
  if (!d.ok()) return warn(d.status());
  if (d->pre_creation.empty()) return;
  StatusOr<std::vector<std::string>> changes =
      cluster_.SyncPreCreated(d->pre_creation, p.name(), kube::ObjectUid(**dep));
  if (!changes.ok()) return warn(changes.status());
  for (const std::string& change : *changes) {
    spdlog::info("{}/{}: {} ({} TaskManager pods exist, {} placed)", p.ns(), p.name(), change,
                 tms->existing, tms->placed);
  }
}

void FlinkDeploymentController::SyncDeployedPodGroups(DeploymentPass& p) {
  const api::FlinkDeploymentStatus& st = p.status();
  if (st.reconciliation_status.last_reconciled_spec.empty() ||
      st.reconciliation_status.state != api::ReconciliationState::kDeployed ||
      st.job_manager_deployment_status == api::JobManagerDeploymentStatus::kMissing) {
    return;
  }
  StatusOr<api::FlinkDeploymentSpec> deployed =
      api::ParseRecordedDeploymentSpec(st.reconciliation_status.last_reconciled_spec);
  if (deployed.ok()) SyncPodGroups(p, *deployed);
}

std::optional<core::QueueHeadroom> FlinkDeploymentController::QueueFacts(DeploymentPass& p,
                                                                         double tm_cpu,
                                                                         double tm_memory_bytes) {
  if (!UsesScheduler(p.config)) return std::nullopt;
  StatusOr<decorators::DecoratorChain> chain = decorators::DecoratorChain::Create(decorators_, p.config);
  if (!chain.ok()) return std::nullopt;  // the validator reports it
  const std::optional<std::string> queue = chain->TaskManagerVolcanoQueue();
  if (!queue) return std::nullopt;
  StatusOr<ClusterClient::TaskManagerPods> existing = cluster_.CountTaskManagerPods(p.ns(), p.name());
  QueueJobShape shape{.task_manager = {.cpu = tm_cpu,
                                       .memory_bytes = static_cast<int64_t>(tm_memory_bytes)},
                      .slots_per_task_manager = static_cast<int>(TaskSlots(p.config)),
                      .task_managers = existing.ok() ? existing->existing : 0};
  core::QueueHeadroom h = ReadQueueHeadroom(*deps_.client, *queue, shape);
  if (!existing.ok() && h.error.empty()) {
    h.error = "count the TaskManager pods: " + existing.status().message();
  }
  return h;
}

}  // namespace trimtab::op
