#include "operator/session_job/flink_session_job_controller.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "api/reconciled_spec.h"
#include "operator/decisions/flink_config_builder.h"
#include "operator/controller_shared/job_observer.h"
#include "operator/controller_shared/kube_resources.h"
#include "operator/controller_shared/reconciliation_utils.h"
#include "operator/decisions/spec_diff.h"
#include "operator/decisions/validator.h"

namespace trimtab::op {

namespace js = api::job_status;
using api::ReconciliationState;
using api::UpgradeMode;

struct SessionJobPass {
  std::string ns;
  std::string name;
  Json object;
  api::FlinkSessionJob resource;
  int64_t generation = 0;
  std::optional<api::FlinkDeployment> session;
  bool session_ready = false;
  bool session_deleting = false;  // blocked on its session jobs: cancel yes, submit no
  api::FlinkConfiguration config;
  OperatorConfig options;
  std::unique_ptr<flink::FlinkRestClient> rest;
  JobContext job;
  ResourceMemory* memory = nullptr;
  api::ReconciliationState state_at_start = ReconciliationState::kUpgrading;
  std::optional<Duration> requeue;
  std::string failure_reason;

  api::FlinkSessionJobStatus& status() { return resource.status; }
  void RequeueWithin(Duration d) { requeue = requeue ? std::min(*requeue, d) : d; }
};

namespace {

std::string BaseName(const std::string& uri) {
  std::string path = uri.substr(0, uri.find_first_of("?#"));
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

FlinkSessionJobController::FlinkSessionJobController(ControllerDeps deps)
    : deps_(WithDefaults(std::move(deps))),
      status_recorder_(deps_.client, FlinkSessionJobsResource()) {}

FlinkSessionJobController::~FlinkSessionJobController() = default;

ResourceMemory* FlinkSessionJobController::MemoryFor(const std::string& uid) {
  std::lock_guard<std::mutex> lock(memory_mu_);
  std::unique_ptr<ResourceMemory>& m = memory_[uid];
  if (!m) m = std::make_unique<ResourceMemory>();
  return m.get();
}

Status FlinkSessionJobController::WriteStatus(SessionJobPass& p) {
  TRIMTAB_RETURN_IF_ERROR(
      status_recorder_.Write(&p.object, api::EncodeFlinkSessionJobStatus(p.status())));
  p.job.involved.resource_version = kube::ObjectResourceVersion(p.object);
  return Status::Ok();
}

StatusOr<ReconcileResult> FlinkSessionJobController::Reconcile(const std::string& ns,
                                                               const std::string& name) {
  StatusOr<Json> object = deps_.client->Get(FlinkSessionJobsResource(), ns, name);
  if (object.status().code() == StatusCode::kNotFound) return ReconcileResult{};
  if (!object.ok()) return object.status();
  SessionJobPass p;
  p.ns = ns;
  p.name = name;
  p.object = std::move(*object);
  StatusOr<api::FlinkSessionJob> decoded = api::DecodeFlinkSessionJob(p.object);
  if (!decoded.ok()) {
    RecordEvent(deps_.events, InvolvedObjectOf(p.object), EventType::kWarning, reasons::kError,
                "Cannot read the resource: " + decoded.status().message());
    return ReconcileResult{};
  }
  p.resource = std::move(*decoded);
  p.generation = p.resource.metadata.generation();
  p.memory = MemoryFor(p.resource.metadata.uid());
  status_recorder_.Seed(p.object);

  std::optional<api::FlinkVersion> version;
  api::FlinkConfiguration session_conf;
  if (!p.resource.spec.deployment_name.empty()) {
    StatusOr<Json> session =
        deps_.client->Get(FlinkDeploymentsResource(), ns, p.resource.spec.deployment_name);
    if (session.ok()) {
      StatusOr<api::FlinkDeployment> fd = api::DecodeFlinkDeployment(*session);
      if (fd.ok()) {
        p.session = *fd;
        p.session_deleting = !fd->metadata.deletion_timestamp().empty();
        version = fd->spec.flink_version;
        session_conf = fd->spec.flink_configuration;
        p.session_ready = fd->status.job_manager_deployment_status ==
                          api::JobManagerDeploymentStatus::kReady;
      }
    } else if (session.status().code() != StatusCode::kNotFound) {
      return session.status();
    }
  }
  p.config = EffectiveConfig(deps_.default_config, ns, version, session_conf);
  for (const auto& [k, v] : p.resource.spec.flink_configuration) p.config[k] = v;
  StatusOr<OperatorConfig> options = ParseOperatorConfig(p.config);
  p.options = options.ok() ? *options : OperatorConfig{};
  if (p.session_ready) {
    StatusOr<std::string> url = deps_.resolver->RestUrl(ns, p.resource.spec.deployment_name);
    if (url.ok()) {
      p.rest = std::make_unique<flink::FlinkRestClient>(deps_.http, *url, p.options.flink_client_timeout);
    } else {
      spdlog::warn("{}/{}: {}", ns, name, url.status().ToString());
    }
  }
  JobContext& j = p.job;
  j.meta = p.resource.metadata;
  j.involved = InvolvedObjectOf(p.object);
  j.session_job = true;
  j.status = &p.resource.status;
  j.job = p.resource.spec.job ? &*p.resource.spec.job : nullptr;
  j.flink_version = version;
  j.config = p.config;
  j.options = p.options;
  j.rest = p.rest.get();
  j.clock = deps_.clock;
  j.events = deps_.events;
  j.memory = p.memory;

  if (!p.resource.metadata.deletion_timestamp().empty()) return Cleanup(p);
  if (!p.resource.metadata.HasFinalizer(kFlinkSessionJobFinalizer)) {
    Json updated = p.object;
    Json& finalizers = updated["metadata"]["finalizers"];
    if (!finalizers.is_array()) finalizers = Json::array();
    finalizers.push_back(kFlinkSessionJobFinalizer);
    TRIMTAB_ASSIGN_OR_RETURN(Json written, deps_.client->Update(FlinkSessionJobsResource(), updated));
    p.object["metadata"] = written["metadata"];
  }
  return RunPass(p);
}

Status FlinkSessionJobController::Observe(SessionJobPass& p) {
  api::FlinkSessionJobStatus& st = p.status();
  if (st.reconciliation_status.last_reconciled_spec.empty()) return Status::Ok();
  if (st.reconciliation_status.state == ReconciliationState::kUpgrading) {
    // Already submitted before an interruption? The job id was persisted first.
    bool upgraded = false;
    if (p.rest && !st.job_status.job_id.empty()) {
      StatusOr<std::vector<flink::JobOverview>> jobs = p.rest->ListJobs();
      if (jobs.ok()) {
        for (const flink::JobOverview& j : *jobs) {
          upgraded |= j.id == st.job_status.job_id && j.state != js::kCancelling &&
                      j.state != js::kCanceled && !js::IsGloballyTerminal(j.state);
        }
      }
    }
    if (!upgraded) return Status::Ok();
    RecordSpec(&st, LastReconciledSpec(st), st.observed_generation.value_or(p.generation),
               deps_.clock->Now(),
               {.state = ReconciliationState::kDeployed, .job_state = api::JobState::kRunning});
    st.job_status.state = std::string(js::kReconciling);
  }
  if (!p.rest) return Status::Ok();
  ObserveJob(p.job);
  Status s = ObserveSnapshots(p.job);
  if (!s.ok()) p.failure_reason = reasons::kUpgradeFailed;
  if (st.job_status.state != js::kFailed && IsStable(st) && st.error != "Job Not Found") {
    st.error.clear();
  }
  AbandonSnapshots(p.job);
  return s;
}

StatusOr<ReconcileResult> FlinkSessionJobController::RunPass(SessionJobPass& p) {
  api::FlinkSessionJobStatus& st = p.status();
  p.state_at_start = st.reconciliation_status.state;
  Status observed = Observe(p);
  if (std::optional<std::string> error =
          ValidateSessionJob(p.resource, p.session ? &*p.session : nullptr, p.config)) {
    if (p.memory->last_validation_error != *error) {
      p.job.Event(EventType::kWarning, reasons::kValidationError, *error);
      p.memory->last_validation_error = *error;
    }
    st.error = *error;
    if (st.reconciliation_status.last_reconciled_spec.empty()) {
      TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
      return ReconcileResult{};
    }
    TRIMTAB_ASSIGN_OR_RETURN(p.resource.spec, api::ParseRecordedSessionJobSpec(
                                                  st.reconciliation_status.last_reconciled_spec));
    if (p.resource.spec.job && st.reconciliation_status.state == ReconciliationState::kUpgrading) {
      p.resource.spec.job->state = api::JobState::kRunning;
    }
    p.job.job = p.resource.spec.job ? &*p.resource.spec.job : nullptr;
    p.generation = st.observed_generation.value_or(p.generation);
  } else {
    p.memory->last_validation_error.clear();
  }
  if (!observed.ok()) {
    st.error = api::ErrorJson(p.failure_reason, observed.message());
    p.job.Event(EventType::kWarning, p.failure_reason, observed.message());
    TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
    return ReconcileResult{p.options.reconcile_interval};
  }
  TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
  Status reconciled = ReconcileSpec(p);
  if (!reconciled.ok()) {
    if (reconciled.code() == StatusCode::kConflict) return reconciled;
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
  TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
  return Reschedule(p);
}

ReconcileResult FlinkSessionJobController::Reschedule(const SessionJobPass& p) const {
  const api::FlinkSessionJobStatus& st = p.resource.status;
  Duration next = p.options.reconcile_interval;
  const ReconciliationState state = st.reconciliation_status.state;
  if (st.job_status.state == js::kCancelling || !st.job_status.savepoint_info.trigger_id.empty() ||
      !st.job_status.checkpoint_info.trigger_id.empty() || st.job_status.state == js::kReconciling) {
    next = p.options.progress_check_interval;
  }
  if (state == ReconciliationState::kUpgrading && !st.reconciliation_status.last_reconciled_spec.empty()) {
    next = state != p.state_at_start ? Duration::zero() : Duration(p.options.progress_check_interval);
  }
  if (p.requeue) next = std::min(next, *p.requeue);
  return ReconcileResult{next};
}

Status FlinkSessionJobController::Submit(SessionJobPass& p, const std::string& savepoint_path) {
  api::FlinkSessionJobStatus& st = p.status();
  const api::JobSpec& job = *p.resource.spec.job;
  std::string job_id = st.job_status.state == js::kReconciling ? st.job_status.job_id : "";
  if (auto user = p.resource.spec.flink_configuration.find(flink_keys::kJobId);
      user != p.resource.spec.flink_configuration.end()) {
    job_id = user->second;
  }
  if (!job_id.empty()) {
    // A retry: the job may already have been submitted.
    TRIMTAB_ASSIGN_OR_RETURN(std::vector<flink::JobOverview> jobs, p.rest->ListJobs());
    for (const flink::JobOverview& j : jobs) {
      if (j.id == job_id && !js::IsGloballyTerminal(j.state)) return Status::Ok();
    }
  } else {
    job_id = RandomHexId();
  }
  st.job_status.job_id = job_id;
  st.job_status.state = std::string(js::kReconciling);
  TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));  // the job id is known before the job exists
  StatusOr<std::string> bytes = deps_.fetch_artifact(job.jar_uri);
  if (!bytes.ok()) return bytes.status().WithContext("fetch the jar of " + p.ns + "/" + p.name);
  TRIMTAB_ASSIGN_OR_RETURN(std::string jar_id, p.rest->UploadJar(BaseName(job.jar_uri), *bytes));
  api::FlinkConfiguration conf = p.resource.spec.flink_configuration;
  StripOperatorKeys(&conf);
  conf.erase(flink_keys::kJobId);
  flink::RunJarRequest run{.entry_class = job.entry_class,
                           .program_args = job.args,
                           .parallelism = job.parallelism,
                           .job_id = job_id,
                           .allow_non_restored_state = job.allow_non_restored_state,
                           .savepoint_path = savepoint_path,
                           .flink_configuration = conf};
  StatusOr<std::string> submitted = p.rest->RunJar(jar_id, run);
  Status deleted = p.rest->DeleteJar(jar_id);
  if (!deleted.ok()) spdlog::debug("{}/{}: {}", p.ns, p.name, deleted.ToString());
  if (!submitted.ok()) return submitted.status();
  p.job.Event(EventType::kNormal, reasons::kSubmit, "Starting deployment");
  return Status::Ok();
}

Status FlinkSessionJobController::Suspend(SessionJobPass& p, SuspendMode mode, bool* async) {
  api::JobStatus& job = p.status().job_status;
  *async = false;
  if (mode == SuspendMode::kNoop) return Status::Ok();
  if (!p.rest) return UnavailableError("the session cluster REST API is not available");
  if (mode == SuspendMode::kSavepoint) {
    TRIMTAB_ASSIGN_OR_RETURN(std::string trigger,
                             p.rest->StopWithSavepoint(job.job_id, {.target_directory = SavepointDir(p.config),
                                                                    .format_type = std::string(api::Name(p.options.savepoint_format))}));
    StatusOr<std::string> path = WaitForSavepoint(*p.rest, job.job_id, trigger, p.options.flink_cancel_timeout);
    if (!path.ok()) {
      p.failure_reason = reasons::kSavepointError;
      return FailedPreconditionError("Stop with savepoint failed: " + path.status().message());
    }
    const api::Savepoint sp{ToUnixMillis(deps_.clock->Now()), *path, api::SnapshotTriggerType::kUpgrade,
                            p.options.savepoint_format, std::nullopt};
    job.savepoint_info.last_savepoint = sp;
    job.savepoint_info.savepoint_history.push_back(sp);
    job.upgrade_savepoint_path = *path;
  } else {
    Status cancel = p.rest->Cancel(job.job_id);
    if (!cancel.ok() && cancel.code() != StatusCode::kConflict && cancel.code() != StatusCode::kNotFound) {
      return cancel;
    }
    if (mode == SuspendMode::kCancel) {
      StatusOr<std::vector<flink::JobOverview>> jobs = p.rest->ListJobs();
      std::string state(js::kCancelling);
      if (jobs.ok()) {
        for (const flink::JobOverview& j : *jobs) {
          if (j.id == job.job_id) state = j.state;
        }
      }
      if (!js::IsGloballyTerminal(state)) {
        job.state = state;
        *async = true;
        return Status::Ok();
      }
      StatusOr<std::string> path = LastCheckpointPath(*p.rest, job.job_id);
      if (path.ok()) job.upgrade_savepoint_path = *path;
    }
  }
  job.state = std::string(js::kFinished);
  return Status::Ok();
}

Status FlinkSessionJobController::ReconcileSpec(SessionJobPass& p) {
  api::FlinkSessionJobStatus& st = p.status();
  const api::FlinkSessionJobSpec& spec = p.resource.spec;
  const TimePoint now = deps_.clock->Now();
  const Json spec_json = api::EncodeFlinkSessionJobSpec(spec);
  if (!p.session) {
    // Not silent (issue 25): the job waits, and says for what.
    const std::string message = "Session cluster FlinkDeployment " + spec.deployment_name +
                                " does not exist in namespace " + p.ns +
                                "; the job is submitted once it is deployed";
    st.error = message;
    p.job.Event(EventType::kWarning, reasons::kMissing, message, components::kJob,
                "SessionClusterMissing" + spec.deployment_name);
    p.RequeueWithin(p.options.reconcile_interval);
    return Status::Ok();
  }
  if (!p.rest || p.session_deleting) {
    spdlog::info("{}/{}: session cluster {} is not ready", p.ns, p.name, spec.deployment_name);
    p.RequeueWithin(p.options.reconcile_interval);
    return Status::Ok();
  }
  const bool desired_running = spec.job->state == api::JobState::kRunning;
  if (st.reconciliation_status.last_reconciled_spec.empty()) {
    if (!desired_running) return Status::Ok();
    const UpgradeMode mode = spec.job->initial_savepoint_path.empty() ? UpgradeMode::kStateless
                                                                       : UpgradeMode::kSavepoint;
    RecordSpec(&st, spec_json, p.generation, now,
               {.state = ReconciliationState::kUpgrading, .job_state = api::JobState::kSuspended,
                .upgrade_mode = mode});
    TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
    TRIMTAB_RETURN_IF_ERROR(Submit(p, spec.job->initial_savepoint_path));
    RecordSpec(&st, spec_json, p.generation, deps_.clock->Now(),
               {.state = ReconciliationState::kDeployed, .upgrade_mode = mode});
    return Status::Ok();
  }
  if (!st.job_status.savepoint_info.trigger_id.empty() && !p.options.ignore_pending_savepoint) {
    return Status::Ok();
  }
  const Json recorded_json = LastReconciledSpec(st);
  const SpecDiff diff = DiffSpecs(recorded_json, spec_json, api::DeploymentMode::kNative);
  const ReconciliationState state = st.reconciliation_status.state;
  if (diff.type == api::DiffType::kIgnore && state != ReconciliationState::kUpgrading) {
    RecordGeneration(&st, p.generation);
    return TriggerSnapshots(p.job);
  }
  if (diff.type != api::DiffType::kIgnore && p.memory->spec_changed_event_generation != p.generation) {
    p.job.Event(EventType::kNormal, reasons::kSpecChanged,
                std::string(api::Name(diff.type)) + " change(s) detected (" +
                    diff.Describe("FlinkSessionJobSpec") + "), starting reconciliation.");
    p.memory->spec_changed_event_generation = p.generation;
  }
  TRIMTAB_ASSIGN_OR_RETURN(api::FlinkSessionJobSpec recorded,
                           api::ParseRecordedSessionJobSpec(st.reconciliation_status.last_reconciled_spec));
  const bool recorded_running = recorded.job && recorded.job->state == api::JobState::kRunning &&
                                state != ReconciliationState::kUpgrading;
  if (recorded_running) {
    UpgradeFacts f{.spec_mode = spec.job->upgrade_mode,
                   .recorded_mode = recorded.job->upgrade_mode,
                   .job_state = st.job_status.state,
                   .session_job = true,
                   .jm_rest_available = true,
                   .jm_status = api::JobManagerDeploymentStatus::kReady,
                   .savepoint_dir_set = !SavepointDir(p.config).empty(),
                   .upgrade_savepoint_path = st.job_status.upgrade_savepoint_path,
                   .now = now,
                   .options = p.options};
    if (diff.type == api::DiffType::kSavepointRedeploy) {
      f.spec_mode = UpgradeMode::kStateless;
    }
    const JobUpgrade upgrade = DecideJobUpgrade(f);
    if (upgrade.outcome == JobUpgrade::Outcome::kPendingCancellation ||
        upgrade.outcome == JobUpgrade::Outcome::kUnavailable ||
        upgrade.outcome == JobUpgrade::Outcome::kDeleteClusterAndRetry) {
      p.RequeueWithin(p.options.progress_check_interval);
      return Status::Ok();
    }
    if (upgrade.outcome == JobUpgrade::Outcome::kFailed) {
      p.failure_reason = reasons::kUpgradeFailed;
      return FailedPreconditionError(upgrade.failure);
    }
    if (upgrade.suspend_mode != SuspendMode::kNoop) {
      p.job.Event(EventType::kNormal, reasons::kSuspended, "Suspending existing deployment.");
    }
    bool async = false;
    TRIMTAB_RETURN_IF_ERROR(Suspend(p, upgrade.suspend_mode, &async));
    UpgradeMode restore = upgrade.restore_mode;
    if (diff.type == api::DiffType::kSavepointRedeploy) {
      restore = UpgradeMode::kSavepoint;
      st.job_status.upgrade_savepoint_path = spec.job->initial_savepoint_path;
    }
    RecordSpec(&st, spec_json, p.generation, now,
               {.state = desired_running ? ReconciliationState::kUpgrading : ReconciliationState::kDeployed,
                .job_state = api::JobState::kSuspended,
                .upgrade_mode = restore});
    if (!desired_running) MarkStable(&st);
    if (async) p.RequeueWithin(p.options.progress_check_interval);
    return Status::Ok();
  }
  if (!desired_running) {
    RecordSpec(&st, spec_json, p.generation, now, {.state = ReconciliationState::kDeployed});
    MarkStable(&st);
    return Status::Ok();
  }
  const UpgradeMode restore = spec.job->upgrade_mode == UpgradeMode::kStateless || !recorded.job
                                  ? UpgradeMode::kStateless
                                  : recorded.job->upgrade_mode;
  std::string path;
  if (restore != UpgradeMode::kStateless) {
    // A cancellation may still be running; its last checkpoint is the state to restore.
    StatusOr<std::vector<flink::JobOverview>> jobs = p.rest->ListJobs();
    if (jobs.ok()) {
      for (const flink::JobOverview& j : *jobs) {
        if (j.id != st.job_status.job_id) continue;
        if (!js::IsGloballyTerminal(j.state)) {
          st.job_status.state = j.state;
          p.RequeueWithin(p.options.progress_check_interval);
          return Status::Ok();
        }
        StatusOr<std::string> last = LastCheckpointPath(*p.rest, j.id);
        if (last.ok() && !last->empty()) st.job_status.upgrade_savepoint_path = *last;
      }
    }
    path = st.job_status.upgrade_savepoint_path;
  }
  if (state != ReconciliationState::kUpgrading || st.observed_generation != p.generation) {
    RecordSpec(&st, spec_json, p.generation, now,
               {.state = ReconciliationState::kUpgrading, .job_state = api::JobState::kSuspended,
                .upgrade_mode = restore});
  }
  st.job_status.state.clear();  // a new job id for the new submission
  TRIMTAB_RETURN_IF_ERROR(Submit(p, path));
  RecordSpec(&st, spec_json, p.generation, deps_.clock->Now(),
             {.state = ReconciliationState::kDeployed, .upgrade_mode = restore});
  return Status::Ok();
}

StatusOr<ReconcileResult> FlinkSessionJobController::Cleanup(SessionJobPass& p) {
  api::FlinkSessionJobStatus& st = p.status();
  const TimePoint now = deps_.clock->Now();
  if (!p.memory->cleanup_started) {
    p.memory->cleanup_started = now;
    p.job.Event(EventType::kNormal, reasons::kCleanup, "Cleaning up FlinkSessionJob");
  }
  st.lifecycle_state = api::LifecycleState::kDeleting;
  WriteStatus(p).IgnoreError();
  if (!p.resource.metadata.HasFinalizer(kFlinkSessionJobFinalizer)) return ReconcileResult{};
  const bool timed_out = now > *p.memory->cleanup_started + p.options.resource_cleanup_timeout;
  const bool deployed = !st.reconciliation_status.last_reconciled_spec.empty();
  if (!timed_out && deployed && p.rest && !st.job_status.job_id.empty() &&
      api::RecordedJobState(st.reconciliation_status.last_reconciled_spec) == api::JobState::kRunning) {
    StatusOr<std::vector<flink::JobOverview>> jobs = p.rest->ListJobs();
    if (!jobs.ok()) return jobs.status();
    for (const flink::JobOverview& j : *jobs) {
      if (j.id != st.job_status.job_id || js::IsGloballyTerminal(j.state)) continue;
      bool async = false;
      const SuspendMode mode = p.options.savepoint_on_deletion && !SavepointDir(p.config).empty()
                                   ? SuspendMode::kSavepoint
                                   : SuspendMode::kCancel;
      Status s = Suspend(p, mode, &async);
      if (!s.ok() && mode == SuspendMode::kSavepoint) {
        p.job.Event(EventType::kWarning, reasons::kCleanupFailed, s.message());
        p.rest->Cancel(st.job_status.job_id).IgnoreError();
        async = true;
      }
      if (async) {
        WriteStatus(p).IgnoreError();
        return ReconcileResult{p.options.progress_check_interval};
      }
    }
  }
  if (timed_out) {
    p.job.Event(EventType::kWarning, reasons::kCleanupFailed,
                "Cleanup did not finish within kubernetes.operator.resource.cleanup.timeout; "
                "removing the finalizer");
  }
  if (deps_.autoscaler) deps_.autoscaler->Cleanup(p.ns, p.name).IgnoreError();
  TRIMTAB_RETURN_IF_ERROR(RemoveFinalizer(*deps_.client, FlinkSessionJobsResource(),
                                          kFlinkSessionJobFinalizer, &p.object));
  {
    std::lock_guard<std::mutex> lock(memory_mu_);
    memory_.erase(p.resource.metadata.uid());
  }
  status_recorder_.Forget(p.resource.metadata.uid());
  return ReconcileResult{};
}

}  // namespace trimtab::op
