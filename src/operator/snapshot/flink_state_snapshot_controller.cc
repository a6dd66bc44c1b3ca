#include "operator/snapshot/flink_state_snapshot_controller.h"

#include <algorithm>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/flink/rest_client.h"
#include "api/flink_resources.h"
#include "operator/controller_shared/kube_resources.h"
#include "operator/decisions/operator_config.h"

namespace trimtab::op {

namespace js = api::job_status;

// The state of one reconcile pass of one FlinkStateSnapshot.
struct SnapshotPass {
  std::string ns;
  std::string name;
  Json object;  // as read; metadata follows our own writes
  SnapshotSpec spec;
  SnapshotStatus status;
  InvolvedObject involved;

  // The referenced job, filled in by ResolveJob.
  bool target_found = false;
  std::string target;  // "FlinkDeployment example-deployment", for messages
  std::string job_id;
  std::string job_state;  // the job state the referenced resource reports
  std::optional<api::FlinkVersion> flink_version;
  api::FlinkConfiguration config;  // effective Flink configuration of the job
  OperatorConfig options;
  std::unique_ptr<flink::FlinkRestClient> rest;  // set while the job's cluster is READY

  const char* what() const { return spec.is_savepoint() ? "Savepoint" : "Checkpoint"; }
  const char* failure_reason() const {
    return spec.is_savepoint() ? reasons::kSavepointError : reasons::kCheckpointError;
  }
};

namespace {

constexpr SnapshotState kAllStates[] = {SnapshotState::kTriggerPending, SnapshotState::kInProgress,
                                        SnapshotState::kCompleted, SnapshotState::kFailed,
                                        SnapshotState::kAbandoned};

// A boolean field that may be missing or null (then `fallback`).
bool BoolField(const Json& object, const char* key, bool fallback) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_boolean()) return fallback;
  return object[key].get<bool>();
}

std::string StringField(const Json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return "";
  return object[key].get<std::string>();
}

// The path of checkpoint `checkpoint_id` of `job_id` ("" when Flink no longer lists it).
std::string CheckpointPath(const flink::FlinkRestClient& rest, const std::string& job_id,
                           int64_t checkpoint_id) {
  StatusOr<flink::CheckpointStats> stats = rest.Checkpoints(job_id);
  if (!stats.ok()) {
    spdlog::warn("checkpoint {} of job {}: {}", checkpoint_id, job_id, stats.status().ToString());
    return "";
  }
  for (const flink::CheckpointRecord& r : stats->history) {
    if (r.id == checkpoint_id) return r.external_path;
  }
  if (stats->latest_completed && stats->latest_completed->id == checkpoint_id) {
    return stats->latest_completed->external_path;
  }
  return "";
}

}  // namespace

std::string_view SnapshotStateName(SnapshotState s) {
  switch (s) {
    case SnapshotState::kTriggerPending:
      return "TRIGGER_PENDING";
    case SnapshotState::kInProgress:
      return "IN_PROGRESS";
    case SnapshotState::kCompleted:
      return "COMPLETED";
    case SnapshotState::kFailed:
      return "FAILED";
    case SnapshotState::kAbandoned:
      return "ABANDONED";
  }
  return "TRIGGER_PENDING";
}

SnapshotSpec DecodeSnapshotSpec(const Json& spec) {
  SnapshotSpec s;
  if (!spec.is_object()) return s;
  if (spec.contains("jobReference") && spec["jobReference"].is_object()) {
    s.job_reference = SnapshotSpec::JobReference{.kind = StringField(spec["jobReference"], "kind"),
                                                 .name = StringField(spec["jobReference"], "name")};
  }
  if (spec.contains("savepoint") && spec["savepoint"].is_object()) {
    const Json& sp = spec["savepoint"];
    SnapshotSpec::Savepoint savepoint;
    savepoint.path = StringField(sp, "path");
    if (const std::string format = StringField(sp, "formatType"); !format.empty()) {
      savepoint.format_type = format;
    }
    savepoint.dispose_on_delete = BoolField(sp, "disposeOnDelete", true);
    savepoint.already_exists = BoolField(sp, "alreadyExists", false);
    s.savepoint = savepoint;
  }
  s.checkpoint = spec.contains("checkpoint") && spec["checkpoint"].is_object();
  if (spec.contains("backoffLimit") && spec["backoffLimit"].is_number_integer()) {
    s.backoff_limit = spec["backoffLimit"].get<int64_t>();
  }
  return s;
}

SnapshotStatus DecodeSnapshotStatus(const Json& status) {
  SnapshotStatus s;
  if (!status.is_object()) return s;
  const std::string state = StringField(status, "state");
  for (SnapshotState candidate : kAllStates) {
    if (state == SnapshotStateName(candidate)) s.state = candidate;
  }
  s.trigger_id = StringField(status, "triggerId");
  s.trigger_timestamp = StringField(status, "triggerTimestamp");
  s.result_timestamp = StringField(status, "resultTimestamp");
  s.path = StringField(status, "path");
  s.error = StringField(status, "error");
  if (status.contains("failures") && status["failures"].is_number_integer()) {
    s.failures = status["failures"].get<int64_t>();
  }
  return s;
}

Json EncodeSnapshotStatus(const SnapshotStatus& s) {
  Json out = {{"state", std::string(SnapshotStateName(s.state))}, {"failures", s.failures}};
  // Empty fields are left out, as upstream leaves null fields out.
  const std::pair<const char*, const std::string*> fields[] = {
      {"triggerId", &s.trigger_id},
      {"triggerTimestamp", &s.trigger_timestamp},
      {"resultTimestamp", &s.result_timestamp},
      {"path", &s.path},
      {"error", &s.error}};
  for (const auto& [key, value] : fields) {
    if (!value->empty()) out[key] = *value;
  }
  return out;
}

std::optional<std::string> ValidateSnapshotSpec(const SnapshotSpec& spec) {
  if (spec.savepoint.has_value() == spec.checkpoint) {
    return std::string("Exactly one of spec.savepoint and spec.checkpoint must be set (found ") +
           (spec.checkpoint ? "both" : "neither") + ")";
  }
  const bool already_exists = spec.savepoint && spec.savepoint->already_exists;
  if (already_exists) {
    if (spec.savepoint->path.empty()) {
      return std::string(
          "spec.savepoint.path must be set when spec.savepoint.alreadyExists is true");
    }
    return std::nullopt;  // nothing will be triggered: no job needed
  }
  if (!spec.job_reference || spec.job_reference->name.empty()) {
    return std::string(
        "spec.jobReference.name must be set unless spec.savepoint.alreadyExists is true");
  }
  const std::string& kind = spec.job_reference->kind;
  if (kind != "FlinkDeployment" && kind != "FlinkSessionJob") {
    return "spec.jobReference.kind must be FlinkDeployment or FlinkSessionJob, not \"" + kind +
           "\"";
  }
  return std::nullopt;
}

Duration SnapshotRetryDelay(int64_t failures) {
  // Capped exponent: a snapshot that failed 30 times waits ~5 years either way.
  const int64_t exponent = std::clamp<int64_t>(failures - 1, 0, 30);
  return std::chrono::seconds(10) * (int64_t{1} << exponent);
}

bool SnapshotRetriesExhausted(int64_t failures, int64_t backoff_limit) {
  return backoff_limit >= 0 && failures > backoff_limit;
}

FlinkStateSnapshotController::FlinkStateSnapshotController(ControllerDeps deps)
    : deps_(WithDefaults(std::move(deps))),
      status_recorder_(deps_.client, FlinkStateSnapshotsResource()) {}

FlinkStateSnapshotController::~FlinkStateSnapshotController() = default;

void FlinkStateSnapshotController::Event(SnapshotPass& p, bool warning, std::string_view reason,
                                         const std::string& message) {
  RecordEvent(deps_.events, p.involved, warning ? EventType::kWarning : EventType::kNormal,
              reason, message, components::kSnapshot);
}

Status FlinkStateSnapshotController::WriteStatus(SnapshotPass& p) {
  TRIMTAB_RETURN_IF_ERROR(status_recorder_.Write(&p.object, EncodeSnapshotStatus(p.status)));
  p.involved.resource_version = kube::ObjectResourceVersion(p.object);
  return Status::Ok();
}

StatusOr<ReconcileResult> FlinkStateSnapshotController::Reconcile(const std::string& ns,
                                                                  const std::string& name) {
  StatusOr<Json> object = deps_.client->Get(FlinkStateSnapshotsResource(), ns, name);
  if (object.status().code() == StatusCode::kNotFound) return ReconcileResult{};
  if (!object.ok()) return object.status();
  SnapshotPass p;
  p.ns = ns;
  p.name = name;
  p.object = std::move(*object);
  p.spec = DecodeSnapshotSpec(p.object.value("spec", Json::object()));
  p.status = DecodeSnapshotStatus(p.object.value("status", Json::object()));
  p.involved = InvolvedObjectOf(p.object);
  status_recorder_.Seed(p.object);
  TRIMTAB_RETURN_IF_ERROR(ResolveJob(p));
  if (p.object["metadata"].contains("deletionTimestamp")) return Cleanup(p);
  return RunPass(p);
}

Status FlinkStateSnapshotController::ResolveJob(SnapshotPass& p) {
  p.config = DefaultConfigFor(deps_.default_config, p.ns, std::nullopt);
  std::string cluster;  // the FlinkDeployment whose JobManager runs the job
  bool cluster_ready = false;
  if (p.spec.job_reference && !p.spec.job_reference->name.empty()) {
    const SnapshotSpec::JobReference& ref = *p.spec.job_reference;
    p.target = ref.kind + " " + ref.name;
    if (ref.kind == "FlinkDeployment") {
      StatusOr<Json> object = deps_.client->Get(FlinkDeploymentsResource(), p.ns, ref.name);
      if (object.ok()) {
        TRIMTAB_ASSIGN_OR_RETURN(api::FlinkDeployment fd, api::DecodeFlinkDeployment(*object));
        p.target_found = true;
        p.flink_version = fd.spec.flink_version;
        p.job_id = fd.status.job_status.job_id;
        p.job_state = fd.status.job_status.state;
        p.config = EffectiveConfig(deps_.default_config, p.ns, fd.spec.flink_version,
                                   fd.spec.flink_configuration);
        cluster = ref.name;
        cluster_ready =
            fd.status.job_manager_deployment_status == api::JobManagerDeploymentStatus::kReady;
      } else if (object.status().code() != StatusCode::kNotFound) {
        return object.status();
      }
    } else if (ref.kind == "FlinkSessionJob") {
      StatusOr<Json> object = deps_.client->Get(FlinkSessionJobsResource(), p.ns, ref.name);
      if (object.ok()) {
        TRIMTAB_ASSIGN_OR_RETURN(api::FlinkSessionJob job, api::DecodeFlinkSessionJob(*object));
        p.target_found = true;
        p.job_id = job.status.job_status.job_id;
        p.job_state = job.status.job_status.state;
        cluster = job.spec.deployment_name;
        // The session cluster's configuration with the job's own keys over it, as the session
        // job controller builds it.
        api::FlinkConfiguration session_config;
        StatusOr<Json> session = deps_.client->Get(FlinkDeploymentsResource(), p.ns, cluster);
        if (session.ok()) {
          TRIMTAB_ASSIGN_OR_RETURN(api::FlinkDeployment fd, api::DecodeFlinkDeployment(*session));
          p.flink_version = fd.spec.flink_version;
          session_config = fd.spec.flink_configuration;
          cluster_ready =
              fd.status.job_manager_deployment_status == api::JobManagerDeploymentStatus::kReady;
        } else if (session.status().code() != StatusCode::kNotFound) {
          return session.status();
        }
        p.config = EffectiveConfig(deps_.default_config, p.ns, p.flink_version, session_config);
        for (const auto& [k, v] : job.spec.flink_configuration) p.config[k] = v;
      } else if (object.status().code() != StatusCode::kNotFound) {
        return object.status();
      }
    }
  }
  StatusOr<OperatorConfig> options = ParseOperatorConfig(p.config);
  p.options = options.ok() ? *options : OperatorConfig{};
  if (cluster_ready) {
    StatusOr<std::string> url = deps_.resolver->RestUrl(p.ns, cluster);
    if (url.ok()) {
      p.rest = std::make_unique<flink::FlinkRestClient>(deps_.http, *url,
                                                        p.options.flink_client_timeout);
    } else {
      spdlog::warn("FlinkStateSnapshot {}/{}: {}", p.ns, p.name, url.status().ToString());
    }
  }
  return Status::Ok();
}

StatusOr<ReconcileResult> FlinkStateSnapshotController::RunPass(SnapshotPass& p) {
  TRIMTAB_RETURN_IF_ERROR(SyncMetadata(p, /*with_finalizer=*/true));
  StatusOr<ReconcileResult> result = ReconcileResult{};
  switch (p.status.state) {
    case SnapshotState::kTriggerPending:
      result = TriggerPending(p);
      break;
    case SnapshotState::kInProgress:
      result = InProgress(p);
      break;
    case SnapshotState::kCompleted:
    case SnapshotState::kFailed:
    case SnapshotState::kAbandoned:
      break;  // terminal until deletion
  }
  if (!result.ok()) return result;
  // The status first (it is what users and the operator trust), then the labels that mirror it.
  TRIMTAB_RETURN_IF_ERROR(WriteStatus(p));
  TRIMTAB_RETURN_IF_ERROR(SyncMetadata(p, /*with_finalizer=*/true));
  return result;
}

void FlinkStateSnapshotController::Invalid(SnapshotPass& p, const std::string& message) {
  p.status.state = SnapshotState::kFailed;
  p.status.error = message;
  p.status.trigger_id.clear();
  Event(p, /*warning=*/true, reasons::kValidationError, message);
}

ReconcileResult FlinkStateSnapshotController::Failed(SnapshotPass& p, const std::string& message) {
  ++p.status.failures;
  p.status.error = message;
  p.status.trigger_id.clear();
  Event(p, /*warning=*/true, p.failure_reason(), message);
  const std::string uid = kube::ObjectUid(p.object);
  std::lock_guard<std::mutex> lock(retry_mu_);
  if (SnapshotRetriesExhausted(p.status.failures, p.spec.backoff_limit)) {
    p.status.state = SnapshotState::kFailed;
    next_attempt_.erase(uid);
    return ReconcileResult{};
  }
  const Duration delay = SnapshotRetryDelay(p.status.failures);
  p.status.state = SnapshotState::kTriggerPending;
  next_attempt_[uid] = deps_.clock->Now() + delay;
  return ReconcileResult{delay};
}

StatusOr<ReconcileResult> FlinkStateSnapshotController::TriggerPending(SnapshotPass& p) {
  if (std::optional<std::string> error = ValidateSnapshotSpec(p.spec)) {
    Invalid(p, *error);
    return ReconcileResult{};
  }
  const TimePoint now = deps_.clock->Now();
  if (p.spec.savepoint && p.spec.savepoint->already_exists) {
    // A savepoint made elsewhere, recorded so that jobs can be started from it.
    p.status.state = SnapshotState::kCompleted;
    p.status.path = p.spec.savepoint->path;
    p.status.result_timestamp = FormatRfc3339(now);
    p.status.error.clear();
    return ReconcileResult{};
  }
  if (!p.target_found) {
    Invalid(p, "spec.jobReference: " + p.target + " does not exist in namespace " + p.ns);
    return ReconcileResult{};
  }
  const std::string configured_dir = SavepointDir(p.config);
  if (p.spec.savepoint && p.spec.savepoint->path.empty() && configured_dir.empty()) {
    Invalid(p, std::string("spec.savepoint.path is not set and the configuration of ") + p.target +
                   " has no savepoint directory (" + flink_keys::kSavepointDir + " or " +
                   flink_keys::kSavepointDirLegacy + ")");
    return ReconcileResult{};
  }
  if (p.spec.checkpoint && p.flink_version &&
      !api::IsAtLeast(*p.flink_version, api::FlinkVersion::kV1_17)) {
    // Retrying cannot help: the REST API has no checkpoint trigger before 1.17.
    p.status.state = SnapshotState::kFailed;
    p.status.error = "Checkpoints can only be triggered for Flink 1.17 and newer; " + p.target +
                     " runs " + std::string(api::Name(*p.flink_version));
    Event(p, /*warning=*/true, reasons::kCheckpointError, p.status.error);
    return ReconcileResult{};
  }
  {
    std::lock_guard<std::mutex> lock(retry_mu_);
    auto next = next_attempt_.find(kube::ObjectUid(p.object));
    if (next != next_attempt_.end() && now < next->second) {
      return ReconcileResult{next->second - now};  // backing off after a failure
    }
  }
  if (p.job_state != js::kRunning || p.job_id.empty()) {
    return Failed(p, std::string(p.what()) + " cannot be triggered: the job of " + p.target +
                         " is not running (" +
                         (p.job_state.empty() ? std::string("no job status") : p.job_state) + ")");
  }
  if (!p.rest) {
    return Failed(p, std::string(p.what()) + " cannot be triggered: the REST API of " + p.target +
                         "'s cluster is not available");
  }
  StatusOr<std::string> trigger =
      p.spec.savepoint
          ? p.rest->TriggerSavepoint(p.job_id, {.target_directory = p.spec.savepoint->path.empty()
                                                                        ? configured_dir
                                                                        : p.spec.savepoint->path,
                                                .format_type = p.spec.savepoint->format_type})
          : p.rest->TriggerCheckpoint(p.job_id, std::string(api::Name(p.options.checkpoint_type)));
  if (!trigger.ok()) {
    return Failed(p,
                  std::string(p.what()) + " could not be triggered: " + trigger.status().message());
  }
  {
    std::lock_guard<std::mutex> lock(retry_mu_);
    next_attempt_.erase(kube::ObjectUid(p.object));
  }
  p.status.state = SnapshotState::kInProgress;
  p.status.trigger_id = *trigger;
  p.status.trigger_timestamp = FormatRfc3339(now);
  spdlog::info("FlinkStateSnapshot {}/{}: {} of job {} triggered ({})", p.ns, p.name, p.what(),
               p.job_id, *trigger);
  return ReconcileResult{p.options.progress_check_interval};
}

StatusOr<ReconcileResult> FlinkStateSnapshotController::InProgress(SnapshotPass& p) {
  const bool gone = !p.target_found;
  if (gone || p.job_state != js::kRunning) {
    p.status.state = SnapshotState::kAbandoned;
    p.status.error =
        std::string(p.what()) + " abandoned: " +
        (gone ? p.target + " no longer exists"
              : "the job of " + p.target + " is not running (" +
                    (p.job_state.empty() ? std::string("no job status") : p.job_state) + ")");
    p.status.trigger_id.clear();
    Event(p, /*warning=*/true, reasons::kSnapshotAbandoned, p.status.error);
    return ReconcileResult{};
  }
  const Duration poll = p.options.progress_check_interval;
  if (!p.rest) return ReconcileResult{poll};  // the job runs; its REST API is back soon
  StatusOr<flink::AsyncOperation> op =
      p.spec.savepoint ? p.rest->SavepointStatus(p.job_id, p.status.trigger_id)
                       : p.rest->CheckpointStatus(p.job_id, p.status.trigger_id);
  if (!op.ok()) {
    // An unknown trigger will never complete (a JobManager restart forgets it); anything else
    // is transient and polled again.
    if (op.status().code() == StatusCode::kNotFound) {
      return Failed(p, std::string(p.what()) + " failed: " + op.status().message());
    }
    spdlog::warn("FlinkStateSnapshot {}/{}: {}", p.ns, p.name, op.status().ToString());
    return ReconcileResult{poll};
  }
  if (!op->completed) return ReconcileResult{poll};
  if (!op->failure.empty()) return Failed(p, std::string(p.what()) + " failed: " + op->failure);
  p.status.state = SnapshotState::kCompleted;
  p.status.path =
      p.spec.savepoint ? op->location : CheckpointPath(*p.rest, p.job_id, op->checkpoint_id);
  p.status.result_timestamp = FormatRfc3339(deps_.clock->Now());
  p.status.trigger_id.clear();
  p.status.error.clear();
  spdlog::info("FlinkStateSnapshot {}/{}: {} completed: {}", p.ns, p.name, p.what(), p.status.path);
  return ReconcileResult{};
}

Status FlinkStateSnapshotController::SyncMetadata(SnapshotPass& p, bool with_finalizer) {
  Json& meta = p.object["metadata"];
  Json labels = meta.value("labels", Json::object());
  if (!labels.is_object()) labels = Json::object();
  Json desired = labels;
  auto set_or_erase = [&desired](const char* key, const std::string& value) {
    if (value.empty()) {
      desired.erase(key);
    } else {
      desired[key] = value;
    }
  };
  set_or_erase(snapshot_labels::kType, p.spec.savepoint    ? "SAVEPOINT"
                                       : p.spec.checkpoint ? "CHECKPOINT"
                                                           : "");
  // Snapshots created by an operator carry their trigger type already; a user's is MANUAL.
  if (StringField(desired, snapshot_labels::kTriggerType).empty()) {
    desired[snapshot_labels::kTriggerType] = "MANUAL";
  }
  set_or_erase(snapshot_labels::kState, std::string(SnapshotStateName(p.status.state)));
  set_or_erase(snapshot_labels::kJobKind, p.spec.job_reference ? p.spec.job_reference->kind : "");
  set_or_erase(snapshot_labels::kJobName, p.spec.job_reference ? p.spec.job_reference->name : "");

  Json finalizers = meta.value("finalizers", Json::array());
  if (!finalizers.is_array()) finalizers = Json::array();
  const bool add_finalizer =
      with_finalizer && std::find(finalizers.begin(), finalizers.end(),
                                  Json(kFlinkStateSnapshotFinalizer)) == finalizers.end();
  if (desired == labels && !add_finalizer) return Status::Ok();
  Json updated = p.object;
  updated["metadata"]["labels"] = desired;
  if (add_finalizer) {
    finalizers.push_back(kFlinkStateSnapshotFinalizer);
    updated["metadata"]["finalizers"] = finalizers;
  }
  TRIMTAB_ASSIGN_OR_RETURN(Json written,
                           deps_.client->Update(FlinkStateSnapshotsResource(), updated));
  p.object["metadata"] = written["metadata"];
  p.involved.resource_version = kube::ObjectResourceVersion(p.object);
  return Status::Ok();
}


void FlinkStateSnapshotController::DisposeSavepoint(SnapshotPass& p) {
  const std::string& path = p.status.path;
  auto failed = [&](const std::string& why) {
    Event(p, /*warning=*/true, reasons::kSnapshotError,
          "Savepoint " + path + " was not disposed: " + why);
  };
  if (!p.rest) {
    failed(!p.spec.job_reference ? std::string("no spec.jobReference names a cluster to do it")
           : !p.target_found     ? p.target + " does not exist"
                                 : "the REST API of " + p.target + "'s cluster is not available");
    return;
  }
  StatusOr<std::string> trigger = p.rest->DisposeSavepoint(path);
  if (!trigger.ok()) {
    failed(trigger.status().message());
    return;
  }
  // Deletion must not hang on a slow JobManager: wait at most the client timeout (real time,
  // as the REST calls themselves), then let the object go.
  const auto deadline = std::chrono::steady_clock::now() + p.options.flink_client_timeout;
  std::chrono::milliseconds pause(20);
  while (true) {
    StatusOr<flink::AsyncOperation> op = p.rest->DisposalStatus(*trigger);
    if (op.ok() && op->completed) {
      if (!op->failure.empty()) {
        failed(op->failure);
      } else {
        spdlog::info("FlinkStateSnapshot {}/{}: disposed savepoint {}", p.ns, p.name, path);
      }
      return;
    }
    if (!op.ok() && op.status().code() != StatusCode::kUnavailable &&
        op.status().code() != StatusCode::kDeadlineExceeded) {
      failed(op.status().message());
      return;
    }
    if (std::chrono::steady_clock::now() + pause > deadline) {
      failed("the disposal did not complete within " +
             std::to_string(p.options.flink_client_timeout.count()) + " ms");
      return;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
}

StatusOr<ReconcileResult> FlinkStateSnapshotController::Cleanup(SnapshotPass& p) {
  const Json finalizers = p.object["metadata"].value("finalizers", Json::array());
  if (std::find(finalizers.begin(), finalizers.end(), Json(kFlinkStateSnapshotFinalizer)) ==
      finalizers.end()) {
    return ReconcileResult{};
  }
  if (p.status.state == SnapshotState::kCompleted && p.spec.savepoint &&
      p.spec.savepoint->dispose_on_delete && !p.status.path.empty()) {
    DisposeSavepoint(p);
  } else if (p.status.state == SnapshotState::kInProgress) {
    spdlog::info("FlinkStateSnapshot {}/{}: deleted while in progress; the {} is left to Flink",
                 p.ns, p.name, p.spec.is_savepoint() ? "savepoint" : "checkpoint");
  }
  TRIMTAB_RETURN_IF_ERROR(RemoveFinalizer(*deps_.client, FlinkStateSnapshotsResource(),
                                          kFlinkStateSnapshotFinalizer, &p.object));
  const std::string uid = kube::ObjectUid(p.object);
  {
    std::lock_guard<std::mutex> lock(retry_mu_);
    next_attempt_.erase(uid);
  }
  status_recorder_.Forget(uid);
  return ReconcileResult{};
}

}  // namespace trimtab::op
