#include "operator/deployment/flink_deployment_controller.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "api/lifecycle.h"
#include "api/reconciled_spec.h"
#include "operator/deployment/deployment_pass.h"
#include "operator/decisions/flink_config_builder.h"
#include "operator/controller_shared/job_observer.h"
#include "operator/decorators/builtin_decorators.h"
#include "operator/controller_shared/kube_resources.h"
#include "operator/controller_shared/reconciliation_utils.h"
#include "operator/decisions/validator.h"

namespace trimtab::op {
namespace {

namespace js = api::job_status;

std::string CamelCase(const std::string& state) {
  std::string out;
  bool upper = true;
  for (char c : state) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                 : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    upper = false;
  }
  return out;
}

}  // namespace

FlinkDeploymentController::FlinkDeploymentController(ControllerDeps deps)
    : deps_(WithDefaults(std::move(deps))),
      status_recorder_(deps_.client, FlinkDeploymentsResource()),
      cluster_(deps_.client) {
  // Fixed built-in names into an empty registry: cannot fail.
  decorators::RegisterBuiltinDecorators(decorators_).IgnoreError();
}

FlinkDeploymentController::~FlinkDeploymentController() = default;

ResourceMemory* FlinkDeploymentController::MemoryFor(const std::string& uid) {
  std::lock_guard<std::mutex> lock(memory_mu_);
  std::unique_ptr<ResourceMemory>& m = memory_[uid];
  if (!m) m = std::make_unique<ResourceMemory>();
  return m.get();
}

void FlinkDeploymentController::ForgetResource(const std::string& uid) {
  {
    std::lock_guard<std::mutex> lock(memory_mu_);
    memory_.erase(uid);
  }
  status_recorder_.Forget(uid);
}

void FlinkDeploymentController::RefreshConfig(DeploymentPass& p) {
  p.config = EffectiveConfig(deps_.default_config, p.ns(), p.resource.spec.flink_version,
                             p.resource.spec.flink_configuration);
  StatusOr<OperatorConfig> options = ParseOperatorConfig(p.config);
  if (!options.ok()) {
    // The validator reports it; the operator's own defaults keep the pass going.
    options = ParseOperatorConfig(DefaultConfigFor(deps_.default_config, p.ns(), std::nullopt));
  }
  p.options = options.ok() ? *options : OperatorConfig{};
  JobContext& j = p.job;
  j.meta = p.resource.metadata;
  j.involved = InvolvedObjectOf(p.object);
  j.session_job = false;
  j.status = &p.resource.status;
  j.job = p.resource.spec.job ? &*p.resource.spec.job : nullptr;
  j.flink_version = p.resource.spec.flink_version;
  j.config = p.config;
  j.options = p.options;
  j.rest = p.rest.get();
  j.clock = deps_.clock;
  j.events = deps_.events;
  j.memory = p.memory;
}

void FlinkDeploymentController::EnsureRestClient(DeploymentPass& p) {
  if (p.rest) return;
  StatusOr<std::string> url = deps_.resolver->RestUrl(p.ns(), p.name());
  if (!url.ok()) {
    spdlog::warn("{}/{}: {}", p.ns(), p.name(), url.status().ToString());
    return;
  }
  p.rest = std::make_unique<flink::FlinkRestClient>(deps_.http, *url, p.options.flink_client_timeout);
  p.job.rest = p.rest.get();
}

namespace {

// status.taskManager of an application (upstream ReconciliationUtils.getTaskManagerInfo, kept in
// step with the recorded spec): while the recorded job is running, the TaskManager pods' label
// selector and ceil(parallelism / slots); otherwise no selector and 0. The scale subresource
// reads it (statusReplicasPath, labelSelectorPath), so HPAs find the TaskManager pods.
void SetTaskManagerInfo(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  const std::string& recorded = st.reconciliation_status.last_reconciled_spec;
  if (!p.application() || recorded.empty()) return;
  api::TaskManagerInfo info;
  StatusOr<api::FlinkDeploymentSpec> spec = api::ParseRecordedDeploymentSpec(recorded);
  if (spec.ok() && spec->job && spec->job->state == api::JobState::kRunning) {
    info.label_selector = "component=taskmanager,app=" + p.name();
    int64_t parallelism = JobParallelism(*spec, p.config);
    if (parallelism <= 0) {
      auto it = p.config.find(flink_keys::kParallelismDefault);
      try {
        parallelism = it == p.config.end() ? 1 : std::stoll(it->second);
      } catch (...) {
        parallelism = 1;
      }
    }
    const int64_t slots = TaskSlots(p.config);
    info.replicas = (std::max<int64_t>(1, parallelism) + slots - 1) / slots;
  }
  st.task_manager = info;
}

}  // namespace

Status FlinkDeploymentController::WriteStatus(DeploymentPass& p) {
  SetTaskManagerInfo(p);
  TRIMTAB_RETURN_IF_ERROR(
      status_recorder_.Write(&p.object, api::EncodeFlinkDeploymentStatus(p.status())));
  p.job.involved.resource_version = kube::ObjectResourceVersion(p.object);
  return Status::Ok();
}

Status FlinkDeploymentController::EnsureFinalizer(DeploymentPass& p) {
  if (p.resource.metadata.HasFinalizer(kFlinkDeploymentFinalizer)) return Status::Ok();
  Json updated = p.object;
  Json& finalizers = updated["metadata"]["finalizers"];
  if (!finalizers.is_array()) finalizers = Json::array();
  finalizers.push_back(kFlinkDeploymentFinalizer);
  TRIMTAB_ASSIGN_OR_RETURN(Json written, deps_.client->Update(FlinkDeploymentsResource(), updated));
  p.object["metadata"] = written["metadata"];
  p.resource.metadata = api::ObjectMeta(written["metadata"]);
  return Status::Ok();
}


StatusOr<ReconcileResult> FlinkDeploymentController::Reconcile(const std::string& ns,
                                                               const std::string& name) {
  StatusOr<Json> object = deps_.client->Get(FlinkDeploymentsResource(), ns, name);
  if (object.status().code() == StatusCode::kNotFound) return ReconcileResult{};
  if (!object.ok()) return object.status();
  DeploymentPass p;
  p.ns_ = ns;
  p.name_ = name;
  p.object = std::move(*object);
  StatusOr<api::FlinkDeployment> decoded = api::DecodeFlinkDeployment(p.object);
  if (!decoded.ok()) {
    RecordEvent(deps_.events, InvolvedObjectOf(p.object), EventType::kWarning, reasons::kError,
                "Cannot read the resource: " + decoded.status().message());
    return ReconcileResult{};
  }
  p.resource = std::move(*decoded);
  if (p.resource.metadata.labels().count(kCanaryLabel) &&
      p.resource.metadata.labels().at(kCanaryLabel) == "true") {
    return ReconcileResult{};  // canaries only prove that the operator runs
  }
  p.generation = p.resource.metadata.generation();
  p.memory = MemoryFor(p.resource.metadata.uid());
  status_recorder_.Seed(p.object);
  RefreshConfig(p);
  if (!p.resource.metadata.deletion_timestamp().empty()) {
    StatusOr<ReconcileResult> r = Cleanup(p);
    if (r.ok() && !r->requeue_after) ForgetResource(p.resource.metadata.uid());
    return r;
  }
  TRIMTAB_RETURN_IF_ERROR(EnsureFinalizer(p));
  if (p.resource.spec.flink_version && !api::IsSupported(*p.resource.spec.flink_version)) {
    p.job.Event(EventType::kWarning, reasons::kUnsupportedFlinkVersion,
                "Flink version " + std::string(api::Name(*p.resource.spec.flink_version)) +
                    " is not supported by this operator version");
    return ReconcileResult{};
  }
  return RunPass(p);
}

StatusOr<ReconcileResult> FlinkDeploymentController::RunPass(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  p.state_at_start = st.reconciliation_status.state;
  Status observed = Observe(p);
  if (!observed.ok() && p.failure_reason.empty()) {
    spdlog::warn("{}/{}: observe: {}", p.ns(), p.name(), observed.ToString());
  }
  SyncDeployedPodGroups(p);

  if (std::optional<std::string> error = ValidateDeployment(p.resource, p.config)) {
    p.validation_failed = true;
    if (p.memory->last_validation_error != *error) {
      p.job.Event(EventType::kWarning, reasons::kValidationError, *error);
      p.memory->last_validation_error = *error;
    }
    st.error = *error;
    if (st.reconciliation_status.last_reconciled_spec.empty()) {
      TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
      return ReconcileResult{};
    }
    // Carry on with the last valid spec.
    StatusOr<api::FlinkDeploymentSpec> last =
        api::ParseRecordedDeploymentSpec(st.reconciliation_status.last_reconciled_spec);
    if (!last.ok()) return last.status().WithContext("reset to the last valid spec");
    p.resource.spec = *last;
    if (p.resource.spec.job && (st.reconciliation_status.state == api::ReconciliationState::kUpgrading ||
                                st.reconciliation_status.state == api::ReconciliationState::kRollingBack)) {
      p.resource.spec.job->state = api::JobState::kRunning;
    }
    p.generation = st.observed_generation.value_or(p.generation);
    RefreshConfig(p);
  } else {
    p.memory->last_validation_error.clear();
  }
  if (!observed.ok() && !p.failure_reason.empty()) {
    st.error = api::ErrorJson(p.failure_reason, observed.message());
    p.job.Event(EventType::kWarning, p.failure_reason, observed.message());
    TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
    return ReconcileResult{p.options.reconcile_interval};
  }
  TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));

  Status reconciled = ReconcileSpec(p);
  if (!reconciled.ok() && !IsWaiting(reconciled)) {
    if (reconciled.code() == StatusCode::kConflict) return reconciled;  // starts over
    const std::string reason = p.failure_reason.empty() ? reasons::kError : p.failure_reason;
    st.error = api::ErrorJson(reason, reconciled.message());
    p.job.Event(EventType::kWarning, reason, reconciled.message());
    Status written = WriteStatus(p);
    if (!p.failure_reason.empty()) {
      TRIMTAB_RETURN_IF_ERROR(written);
      return ReconcileResult{p.options.reconcile_interval};
    }
    return reconciled;
  }
  UpdateConditions(p);
  TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
  return Reschedule(p);
}

void FlinkDeploymentController::UpdateConditions(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  api::Condition c{.type = "Running"};
  if (p.application()) {
    const std::string& state = st.job_status.state;
    c.status = state == js::kRunning ? "True" : "False";
    c.reason = state.empty() ? "Unknown" : CamelCase(state);
    c.message = "Job status " + (state.empty() ? std::string("UNKNOWN") : state);
  } else {
    const api::JobManagerDeploymentStatus jm = st.job_manager_deployment_status;
    c.status = jm == api::JobManagerDeploymentStatus::kReady ? "True" : "False";
    c.reason = std::string(api::ConditionReason(jm));
    c.message = std::string(api::ConditionMessage(jm));
  }
  c.last_transition_time = FormatRfc3339(deps_.clock->Now());
  for (const api::Condition& old : st.conditions) {
    if (old.type == c.type && old.status == c.status) c.last_transition_time = old.last_transition_time;
  }
  st.conditions = {c};
  if (p.application()) {
    api::TaskManagerInfo tm;
    if (st.job_status.state == js::kRunning) {
      const int64_t parallelism = JobParallelism(p.resource.spec, p.config);
      const int64_t slots = TaskSlots(p.config);
      tm.label_selector = "component=taskmanager,app=" + p.name();
      tm.replicas = parallelism > 0 ? (parallelism + slots - 1) / slots : 0;
    }
    st.task_manager = tm;
  }
}

ReconcileResult FlinkDeploymentController::Reschedule(const DeploymentPass& p) const {
  const api::FlinkDeploymentStatus& st = p.resource.status;
  const OperatorConfig& o = p.options;
  Duration next = o.reconcile_interval;
  const api::ReconciliationState state = st.reconciliation_status.state;
  if (st.job_status.state == js::kCancelling) {
    next = o.progress_check_interval;
  } else if ((state == api::ReconciliationState::kUpgrading ||
              state == api::ReconciliationState::kRollingBack) &&
             !st.reconciliation_status.last_reconciled_spec.empty()) {
    next = state != p.state_at_start ? Duration::zero() : Duration(o.progress_check_interval);
  } else {
    switch (st.job_manager_deployment_status) {
      case api::JobManagerDeploymentStatus::kDeploying:
        next = o.progress_check_interval;
        break;
      case api::JobManagerDeploymentStatus::kDeployedNotReady:
        next = o.rest_ready_delay;
        break;
      case api::JobManagerDeploymentStatus::kReady:
        if (!st.job_status.savepoint_info.trigger_id.empty() ||
            !st.job_status.checkpoint_info.trigger_id.empty()) {
          next = o.progress_check_interval;
        }
        // A job on its way to RUNNING (CREATED while its tasks deploy, INITIALIZING,
        // RESTARTING): look again soon, not after a whole reconcile interval.
        if (p.application() && !st.job_status.state.empty() && st.job_status.state != js::kRunning &&
            !js::IsGloballyTerminal(st.job_status.state)) {
          next = std::min<Duration>(next, o.progress_check_interval);
        }
        break;
      default:
        break;
    }
  }
  if (p.requeue) next = std::min(next, *p.requeue);
  return ReconcileResult{next};
}

StatusOr<ReconcileResult> FlinkDeploymentController::Cleanup(DeploymentPass& p) {
  api::FlinkDeploymentStatus& st = p.status();
  const TimePoint now = deps_.clock->Now();
  if (!p.memory->cleanup_started) {
    p.memory->cleanup_started = now;
    p.job.Event(EventType::kNormal, reasons::kCleanup, "Cleaning up FlinkDeployment");
  }
  st.lifecycle_state = api::LifecycleState::kDeleting;
  WriteStatus(p).IgnoreError();  // informational; a conflict must not block deletion
  if (!p.resource.metadata.HasFinalizer(kFlinkDeploymentFinalizer)) return ReconcileResult{};

  if (!p.application()) {
    std::vector<std::string> blocking;
    if (p.options.session_block_on_session_jobs) {
      StatusOr<std::vector<Json>> jobs = deps_.client->List(FlinkSessionJobsResource(), p.ns(), {});
      if (!jobs.ok()) return jobs.status();
      for (const Json& j : *jobs) {
        if (j.value("spec", Json::object()).value("deploymentName", "") == p.name()) {
          blocking.push_back(kube::ObjectName(j));
        }
      }
    }
    if (!blocking.empty()) {
      std::string list;
      for (const std::string& b : blocking) list += (list.empty() ? "" : ", ") + b;
      p.job.Event(EventType::kWarning, reasons::kCleanupFailed,
                  "The session jobs [" + list + "] should be deleted first");
      return ReconcileResult{p.options.reconcile_interval};
    }
  }

  // Bounded: after resource.cleanup.timeout the finalizer goes regardless.
  TimePoint started = *p.memory->cleanup_started;
  if (StatusOr<TimePoint> ts = ParseRfc3339(p.resource.metadata.deletion_timestamp()); ts.ok()) {
    started = std::min(started, *ts);
  }
  const bool timed_out = now > started + p.options.resource_cleanup_timeout;
  if (!timed_out) {
    const bool deployed = !st.reconciliation_status.last_reconciled_spec.empty();
    const bool ready = st.job_manager_deployment_status == api::JobManagerDeploymentStatus::kReady;
    if (p.application() && deployed && ready && !st.job_status.job_id.empty() &&
        !js::IsTerminal(st.job_status.state)) {
      EnsureRestClient(p);
      if (p.rest) {
        const std::string dir = SavepointDir(p.config);
        if (p.options.savepoint_on_deletion && !dir.empty()) {
          StatusOr<std::string> trigger = p.rest->StopWithSavepoint(
              st.job_status.job_id, {.target_directory = dir,
                                     .format_type = std::string(api::Name(p.options.savepoint_format)),
                                     .drain = p.options.drain_on_savepoint_deletion});
          StatusOr<std::string> path =
              trigger.ok() ? WaitForSavepoint(*p.rest, st.job_status.job_id, *trigger,
                                              p.options.flink_cancel_timeout)
                           : StatusOr<std::string>(trigger.status());
          if (path.ok()) {
            st.job_status.upgrade_savepoint_path = *path;
            st.job_status.savepoint_info.last_savepoint =
                api::Savepoint{ToUnixMillis(now), *path, api::SnapshotTriggerType::kUpgrade,
                               p.options.savepoint_format, std::nullopt};
          } else {
            p.job.Event(EventType::kWarning, reasons::kSavepointError,
                        "Savepoint on deletion failed: " + path.status().message());
          }
        } else {
          p.rest->Cancel(st.job_status.job_id).IgnoreError();
        }
        st.job_status.state = std::string(js::kFinished);
      }
    }
    StatusOr<bool> gone = cluster_.Delete(p.ns(), p.name(), p.options.deletion_propagation,
                                          /*delete_ha=*/true);
    if (!gone.ok()) return gone.status();
    if (!*gone) {
      WriteStatus(p).IgnoreError();
      return ReconcileResult{p.options.progress_check_interval};
    }
  } else {
    p.job.Event(EventType::kWarning, reasons::kCleanupFailed,
                "Cleanup did not finish within kubernetes.operator.resource.cleanup.timeout; "
                "removing the finalizer, the Flink cluster objects may remain");
  }
  if (deps_.autoscaler) {
    Status s = deps_.autoscaler->Cleanup(p.ns(), p.name());
    if (!s.ok()) spdlog::warn("{}/{}: autoscaler cleanup: {}", p.ns(), p.name(), s.ToString());
  }
  st.lifecycle_state = api::LifecycleState::kDeleted;
  TRIMTAB_RETURN_IF_ERROR(RemoveFinalizer(*deps_.client, FlinkDeploymentsResource(),
                                          kFlinkDeploymentFinalizer, &p.object));
  return ReconcileResult{};
}

}  // namespace trimtab::op
