#include "api/flink_status.h"

#include <nlohmann/json.hpp>

#include "api/codec_util.h"
#include "api/lifecycle.h"

namespace trimtab::api {
namespace {

using internal::ReadEnum;

// Timestamps are int64 in the CRD; tolerate strings of digits from hand-written objects.
Status ReadMillis(JsonReader& r, std::string_view field, int64_t* out) {
  const Json* v = r.Get(field);
  if (!v) return Status::Ok();
  if (v->is_string()) {
    try {
      *out = std::stoll(v->get<std::string>());
      return Status::Ok();
    } catch (...) {
      return InvalidArgumentError(r.FieldPath(field) + ": expected epoch milliseconds, got \"" +
                                  v->get<std::string>() + "\"");
    }
  }
  if (!v->is_number()) {
    return InvalidArgumentError(r.FieldPath(field) + ": expected integer, got " +
                                std::string(JsonTypeName(*v)));
  }
  *out = v->is_number_integer() ? v->get<int64_t>() : static_cast<int64_t>(v->get<double>());
  return Status::Ok();
}

// startTime/updateTime are strings upstream; accept numbers too.
Status ReadText(JsonReader& r, std::string_view field, std::string* out) {
  const Json* v = r.Get(field);
  if (!v) return Status::Ok();
  if (v->is_string()) {
    *out = v->get<std::string>();
  } else if (v->is_number()) {
    *out = v->dump();
  } else {
    return InvalidArgumentError(r.FieldPath(field) + ": expected string, got " +
                                std::string(JsonTypeName(*v)));
  }
  return Status::Ok();
}

StatusOr<Savepoint> DecodeSavepoint(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  Savepoint out;
  TRIMTAB_RETURN_IF_ERROR(ReadMillis(r, "timeStamp", &out.time_stamp));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("location", &out.location));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "triggerType", &ParseSnapshotTriggerType, &out.trigger_type));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "formatType", &ParseSavepointFormatType, &out.format_type));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("triggerNonce", &out.trigger_nonce));
  return out;
}

Json EncodeSavepoint(const Savepoint& s) {
  Json out = {{"timeStamp", s.time_stamp},
              {"location", s.location},
              {"triggerType", Name(s.trigger_type)},
              {"formatType", Name(s.format_type)}};
  if (s.trigger_nonce) out["triggerNonce"] = *s.trigger_nonce;
  return out;
}

StatusOr<SavepointInfo> DecodeSavepointInfo(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  SavepointInfo out;
  if (const Json* last = r.Get("lastSavepoint")) {
    TRIMTAB_ASSIGN_OR_RETURN(out.last_savepoint,
                             DecodeSavepoint(*last, r.FieldPath("lastSavepoint")));
  }
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("triggerId", &out.trigger_id));
  TRIMTAB_RETURN_IF_ERROR(ReadMillis(r, "triggerTimestamp", &out.trigger_timestamp));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "triggerType", &ParseSnapshotTriggerType, &out.trigger_type));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "formatType", &ParseSavepointFormatType, &out.format_type));
  if (const Json* hist = r.Get("savepointHistory")) {
    if (!hist->is_array()) {
      return InvalidArgumentError(r.FieldPath("savepointHistory") + ": expected an array, got " +
                                  std::string(JsonTypeName(*hist)));
    }
    for (size_t i = 0; i < hist->size(); ++i) {
      TRIMTAB_ASSIGN_OR_RETURN(Savepoint s,
                               DecodeSavepoint((*hist)[i], JoinPath(r.FieldPath("savepointHistory"), i)));
      out.savepoint_history.push_back(std::move(s));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(
      ReadMillis(r, "lastPeriodicSavepointTimestamp", &out.last_periodic_savepoint_timestamp));
  return out;
}

Json EncodeSavepointInfo(const SavepointInfo& s) {
  Json out = Json::object();
  if (s.last_savepoint) out["lastSavepoint"] = EncodeSavepoint(*s.last_savepoint);
  if (!s.trigger_id.empty()) out["triggerId"] = s.trigger_id;
  if (s.trigger_timestamp != 0) out["triggerTimestamp"] = s.trigger_timestamp;
  if (s.trigger_type) out["triggerType"] = Name(*s.trigger_type);
  if (s.format_type) out["formatType"] = Name(*s.format_type);
  Json hist = Json::array();
  for (const Savepoint& sp : s.savepoint_history) hist.push_back(EncodeSavepoint(sp));
  out["savepointHistory"] = std::move(hist);
  out["lastPeriodicSavepointTimestamp"] = s.last_periodic_savepoint_timestamp;
  return out;
}

StatusOr<CheckpointInfo> DecodeCheckpointInfo(const Json& j, const std::string& path) {
  JsonReader r(j, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  CheckpointInfo out;
  if (const Json* last = r.Get("lastCheckpoint")) {
    JsonReader lr(*last, r.FieldPath("lastCheckpoint"));
    TRIMTAB_RETURN_IF_ERROR(lr.ExpectObject());
    Checkpoint c;
    TRIMTAB_RETURN_IF_ERROR(ReadMillis(lr, "timeStamp", &c.time_stamp));
    TRIMTAB_RETURN_IF_ERROR(ReadEnum(lr, "triggerType", &ParseSnapshotTriggerType, &c.trigger_type));
    TRIMTAB_RETURN_IF_ERROR(ReadEnum(lr, "formatType", &ParseCheckpointType, &c.format_type));
    TRIMTAB_RETURN_IF_ERROR(lr.OptionalInt("triggerNonce", &c.trigger_nonce));
    out.last_checkpoint = c;
  }
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("triggerId", &out.trigger_id));
  TRIMTAB_RETURN_IF_ERROR(ReadMillis(r, "triggerTimestamp", &out.trigger_timestamp));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "triggerType", &ParseSnapshotTriggerType, &out.trigger_type));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "formatType", &ParseCheckpointType, &out.format_type));
  TRIMTAB_RETURN_IF_ERROR(
      ReadMillis(r, "lastPeriodicCheckpointTimestamp", &out.last_periodic_checkpoint_timestamp));
  return out;
}

Json EncodeCheckpointInfo(const CheckpointInfo& c) {
  Json out = Json::object();
  if (c.last_checkpoint) {
    Json last = {{"timeStamp", c.last_checkpoint->time_stamp},
                 {"triggerType", Name(c.last_checkpoint->trigger_type)},
                 {"formatType", Name(c.last_checkpoint->format_type)}};
    if (c.last_checkpoint->trigger_nonce) last["triggerNonce"] = *c.last_checkpoint->trigger_nonce;
    out["lastCheckpoint"] = std::move(last);
  }
  if (!c.trigger_id.empty()) out["triggerId"] = c.trigger_id;
  if (c.trigger_timestamp != 0) out["triggerTimestamp"] = c.trigger_timestamp;
  if (c.trigger_type) out["triggerType"] = Name(*c.trigger_type);
  if (c.format_type) out["formatType"] = Name(*c.format_type);
  out["lastPeriodicCheckpointTimestamp"] = c.last_periodic_checkpoint_timestamp;
  return out;
}

Status DecodeCommon(JsonReader& r, CommonStatus* out) {
  if (const Json* js = r.Get("jobStatus")) {
    JsonReader jr(*js, r.FieldPath("jobStatus"));
    TRIMTAB_RETURN_IF_ERROR(jr.ExpectObject());
    JobStatus& s = out->job_status;
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalString("jobName", &s.job_name));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalString("jobId", &s.job_id));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalString("state", &s.state));
    TRIMTAB_RETURN_IF_ERROR(ReadText(jr, "startTime", &s.start_time));
    TRIMTAB_RETURN_IF_ERROR(ReadText(jr, "updateTime", &s.update_time));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalString("upgradeSavepointPath", &s.upgrade_savepoint_path));
    if (const Json* sp = jr.Get("savepointInfo")) {
      TRIMTAB_ASSIGN_OR_RETURN(s.savepoint_info,
                               DecodeSavepointInfo(*sp, jr.FieldPath("savepointInfo")));
    }
    if (const Json* cp = jr.Get("checkpointInfo")) {
      TRIMTAB_ASSIGN_OR_RETURN(s.checkpoint_info,
                               DecodeCheckpointInfo(*cp, jr.FieldPath("checkpointInfo")));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("error", &out->error));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("observedGeneration", &out->observed_generation));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "lifecycleState", &ParseLifecycleState, &out->lifecycle_state));
  if (const Json* rs = r.Get("reconciliationStatus")) {
    JsonReader rr(*rs, r.FieldPath("reconciliationStatus"));
    TRIMTAB_RETURN_IF_ERROR(rr.ExpectObject());
    ReconciliationStatus& s = out->reconciliation_status;
    TRIMTAB_RETURN_IF_ERROR(ReadMillis(rr, "reconciliationTimestamp", &s.reconciliation_timestamp));
    TRIMTAB_RETURN_IF_ERROR(rr.OptionalString("lastReconciledSpec", &s.last_reconciled_spec));
    TRIMTAB_RETURN_IF_ERROR(rr.OptionalString("lastStableSpec", &s.last_stable_spec));
    TRIMTAB_RETURN_IF_ERROR(ReadEnum(rr, "state", &ParseReconciliationState, &s.state));
  }
  return Status::Ok();
}

void EncodeCommon(const CommonStatus& s, LifecycleState lifecycle, Json* out) {
  const JobStatus& j = s.job_status;
  Json js = Json::object();
  if (!j.job_name.empty()) js["jobName"] = j.job_name;
  if (!j.job_id.empty()) js["jobId"] = j.job_id;
  if (!j.state.empty()) js["state"] = j.state;
  if (!j.start_time.empty()) js["startTime"] = j.start_time;
  if (!j.update_time.empty()) js["updateTime"] = j.update_time;
  if (!j.upgrade_savepoint_path.empty()) js["upgradeSavepointPath"] = j.upgrade_savepoint_path;
  js["savepointInfo"] = EncodeSavepointInfo(j.savepoint_info);
  js["checkpointInfo"] = EncodeCheckpointInfo(j.checkpoint_info);
  (*out)["jobStatus"] = std::move(js);
  if (!s.error.empty()) (*out)["error"] = s.error;
  if (s.observed_generation) (*out)["observedGeneration"] = *s.observed_generation;
  (*out)["lifecycleState"] = Name(lifecycle);
  const ReconciliationStatus& r = s.reconciliation_status;
  Json rs = {{"reconciliationTimestamp", r.reconciliation_timestamp}, {"state", Name(r.state)}};
  if (!r.last_reconciled_spec.empty()) rs["lastReconciledSpec"] = r.last_reconciled_spec;
  if (!r.last_stable_spec.empty()) rs["lastStableSpec"] = r.last_stable_spec;
  (*out)["reconciliationStatus"] = std::move(rs);
}

}  // namespace

StatusOr<FlinkDeploymentStatus> DecodeFlinkDeploymentStatus(const Json& json,
                                                            const std::string& path) {
  FlinkDeploymentStatus out;
  if (json.is_null()) return out;
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(DecodeCommon(r, &out));
  if (const Json* ci = r.Get("clusterInfo")) {
    if (!ci->is_object()) {
      return InvalidArgumentError(r.FieldPath("clusterInfo") + ": expected an object, got " +
                                  std::string(JsonTypeName(*ci)));
    }
    for (auto it = ci->begin(); it != ci->end(); ++it) {
      if (it->is_string()) out.cluster_info[it.key()] = it->get<std::string>();
      else if (!it->is_null()) out.cluster_info[it.key()] = it->dump();
    }
  }
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "jobManagerDeploymentStatus",
                                   &ParseJobManagerDeploymentStatus,
                                   &out.job_manager_deployment_status));
  if (const Json* tm = r.Get("taskManager")) {
    JsonReader tr(*tm, r.FieldPath("taskManager"));
    TRIMTAB_RETURN_IF_ERROR(tr.ExpectObject());
    TaskManagerInfo info;
    TRIMTAB_RETURN_IF_ERROR(tr.OptionalString("labelSelector", &info.label_selector));
    TRIMTAB_RETURN_IF_ERROR(tr.OptionalInt("replicas", &info.replicas));
    out.task_manager = info;
  }
  if (const Json* conds = r.Get("conditions")) {
    if (!conds->is_array()) {
      return InvalidArgumentError(r.FieldPath("conditions") + ": expected an array, got " +
                                  std::string(JsonTypeName(*conds)));
    }
    for (size_t i = 0; i < conds->size(); ++i) {
      JsonReader cr((*conds)[i], JoinPath(r.FieldPath("conditions"), i));
      TRIMTAB_RETURN_IF_ERROR(cr.ExpectObject());
      Condition c;
      TRIMTAB_RETURN_IF_ERROR(cr.OptionalString("type", &c.type));
      TRIMTAB_RETURN_IF_ERROR(cr.OptionalString("status", &c.status));
      TRIMTAB_RETURN_IF_ERROR(cr.OptionalString("reason", &c.reason));
      TRIMTAB_RETURN_IF_ERROR(cr.OptionalString("message", &c.message));
      TRIMTAB_RETURN_IF_ERROR(cr.OptionalString("lastTransitionTime", &c.last_transition_time));
      TRIMTAB_RETURN_IF_ERROR(cr.OptionalInt("observedGeneration", &c.observed_generation));
      out.conditions.push_back(std::move(c));
    }
  }
  return out;
}

Json EncodeFlinkDeploymentStatus(const FlinkDeploymentStatus& s) {
  Json out = Json::object();
  EncodeCommon(s, DeriveLifecycleState(s), &out);
  out["clusterInfo"] = s.cluster_info;
  out["jobManagerDeploymentStatus"] = Name(s.job_manager_deployment_status);
  if (s.task_manager) {
    out["taskManager"] = {{"labelSelector", s.task_manager->label_selector},
                          {"replicas", s.task_manager->replicas}};
  }
  Json conds = Json::array();
  for (const Condition& c : s.conditions) {
    Json cj = {{"type", c.type}, {"status", c.status}};
    if (!c.reason.empty()) cj["reason"] = c.reason;
    if (!c.message.empty()) cj["message"] = c.message;
    if (!c.last_transition_time.empty()) cj["lastTransitionTime"] = c.last_transition_time;
    if (c.observed_generation) cj["observedGeneration"] = *c.observed_generation;
    conds.push_back(std::move(cj));
  }
  out["conditions"] = std::move(conds);
  return out;
}

StatusOr<FlinkSessionJobStatus> DecodeFlinkSessionJobStatus(const Json& json,
                                                            const std::string& path) {
  FlinkSessionJobStatus out;
  if (json.is_null()) return out;
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(DecodeCommon(r, &out));
  return out;
}

Json EncodeFlinkSessionJobStatus(const FlinkSessionJobStatus& s) {
  Json out = Json::object();
  EncodeCommon(s, DeriveLifecycleState(s), &out);
  return out;
}

std::string ErrorJson(std::string_view type, std::string_view message) {
  Json j = Json::object();
  if (!type.empty()) j["type"] = std::string(type);
  j["message"] = std::string(message);
  return j.dump();
}

}  // namespace trimtab::api
