#include "api/flink_spec.h"

#include <nlohmann/json.hpp>

#include "api/codec_util.h"

namespace trimtab::api {
namespace {

using internal::ReadEnum;

Status FlattenInto(const Json& value, const std::string& prefix, const std::string& path,
                   FlinkConfiguration* out);

StatusOr<std::string> ScalarText(const Json& v, const std::string& path) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return std::string(v.get<bool>() ? "true" : "false");
  if (v.is_number()) return v.dump();
  return InvalidArgumentError(path + ": expected a scalar, got " + std::string(JsonTypeName(v)));
}

Status FlattenInto(const Json& value, const std::string& prefix, const std::string& path,
                   FlinkConfiguration* out) {
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    const std::string field_path = JoinPath(path, it.key());
    const Json& v = it.value();
    if (v.is_null()) continue;
    if (v.is_object()) {
      TRIMTAB_RETURN_IF_ERROR(FlattenInto(v, key, field_path, out));
    } else if (v.is_array()) {
      std::string joined;
      for (size_t i = 0; i < v.size(); ++i) {
        TRIMTAB_ASSIGN_OR_RETURN(std::string item, ScalarText(v[i], JoinPath(field_path, i)));
        if (i > 0) joined += ';';
        joined += item;
      }
      (*out)[key] = joined;
    } else {
      TRIMTAB_ASSIGN_OR_RETURN((*out)[key], ScalarText(v, field_path));
    }
  }
  return Status::Ok();
}

Status ReadStringMap(JsonReader& r, std::string_view field, std::map<std::string, std::string>* out) {
  const Json* v = r.Get(field);
  if (!v) return Status::Ok();
  const std::string path = r.FieldPath(field);
  if (!v->is_object()) {
    return InvalidArgumentError(path + ": expected an object, got " + std::string(JsonTypeName(*v)));
  }
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (it->is_null()) continue;
    if (!it->is_string()) {
      return InvalidArgumentError(JoinPath(path, it.key()) + ": expected string, got " +
                                  std::string(JsonTypeName(*it)));
    }
    (*out)[it.key()] = it->get<std::string>();
  }
  return Status::Ok();
}

Status ReadObject(JsonReader& r, std::string_view field, Json* out) {
  const Json* v = r.Get(field);
  if (!v) return Status::Ok();
  if (!v->is_object()) {
    return InvalidArgumentError(r.FieldPath(field) + ": expected an object, got " +
                                std::string(JsonTypeName(*v)));
  }
  *out = *v;
  return Status::Ok();
}


StatusOr<Resource> DecodeResource(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  Resource out;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("cpu", &out.cpu));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("memory", &out.memory));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("ephemeralStorage", &out.ephemeral_storage));
  return out;
}

Json EncodeResource(const Resource& r) {
  Json out = Json::object();
  if (r.cpu) out["cpu"] = *r.cpu;
  if (!r.memory.empty()) out["memory"] = r.memory;
  if (!r.ephemeral_storage.empty()) out["ephemeralStorage"] = r.ephemeral_storage;
  return out;
}

// Shared by jobManager and taskManager: resource, resources, podTemplate.
template <typename T>
Status DecodeProcessSpec(JsonReader& r, T* out) {
  if (const Json* res = r.Get("resource")) {
    TRIMTAB_ASSIGN_OR_RETURN(out->resource, DecodeResource(*res, r.FieldPath("resource")));
  }
  TRIMTAB_RETURN_IF_ERROR(ReadObject(r, "resources", &out->resources));
  TRIMTAB_RETURN_IF_ERROR(ReadObject(r, "podTemplate", &out->pod_template));
  return Status::Ok();
}

template <typename T>
void EncodeProcessSpec(const T& spec, Json* out) {
  if (spec.resource) (*out)["resource"] = EncodeResource(*spec.resource);
  if (!spec.resources.is_null()) (*out)["resources"] = spec.resources;
  if (!spec.pod_template.is_null()) (*out)["podTemplate"] = spec.pod_template;
}

StatusOr<IngressSpec> DecodeIngress(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  IngressSpec out;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("template", &out.template_));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("className", &out.class_name));
  TRIMTAB_RETURN_IF_ERROR(ReadStringMap(r, "annotations", &out.annotations));
  TRIMTAB_RETURN_IF_ERROR(ReadStringMap(r, "labels", &out.labels));
  if (const Json* tls = r.Get("tls")) {
    if (!tls->is_array()) {
      return InvalidArgumentError(r.FieldPath("tls") + ": expected an array, got " +
                                  std::string(JsonTypeName(*tls)));
    }
    out.tls = *tls;
  }
  return out;
}

Status DecodeCommon(JsonReader& r, std::optional<JobSpec>* job, std::optional<int64_t>* nonce,
                    FlinkConfiguration* config) {
  if (const Json* j = r.Get("job")) {
    TRIMTAB_ASSIGN_OR_RETURN(*job, DecodeJobSpec(*j, r.FieldPath("job")));
  }
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("restartNonce", nonce));
  if (const Json* c = r.Get("flinkConfiguration")) {
    if (!c->is_object()) {
      return InvalidArgumentError(r.FieldPath("flinkConfiguration") +
                                  ": expected an object, got " + std::string(JsonTypeName(*c)));
    }
    TRIMTAB_ASSIGN_OR_RETURN(*config,
                             FlattenFlinkConfiguration(*c, r.FieldPath("flinkConfiguration")));
  }
  return Status::Ok();
}

void EncodeCommon(const std::optional<JobSpec>& job, const std::optional<int64_t>& nonce,
                  const FlinkConfiguration& config, Json* out) {
  if (job) (*out)["job"] = EncodeJobSpec(*job);
  if (nonce) (*out)["restartNonce"] = *nonce;
  if (!config.empty()) {
    Json c = Json::object();
    for (const auto& [k, v] : config) c[k] = v;
    (*out)["flinkConfiguration"] = std::move(c);
  }
}

}  // namespace

StatusOr<FlinkConfiguration> FlattenFlinkConfiguration(const Json& value, const std::string& path) {
  FlinkConfiguration out;
  if (value.is_null()) return out;
  if (!value.is_object()) {
    return InvalidArgumentError(path + ": expected an object, got " +
                                std::string(JsonTypeName(value)));
  }
  TRIMTAB_RETURN_IF_ERROR(FlattenInto(value, "", path, &out));
  return out;
}

StatusOr<JobSpec> DecodeJobSpec(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  JobSpec out;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("jarURI", &out.jar_uri));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("parallelism", &out.parallelism));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("entryClass", &out.entry_class));
  if (const Json* args = r.Get("args")) {
    if (!args->is_array()) {
      return InvalidArgumentError(r.FieldPath("args") + ": expected an array, got " +
                                  std::string(JsonTypeName(*args)));
    }
    for (size_t i = 0; i < args->size(); ++i) {
      const Json& a = (*args)[i];
      if (!a.is_string()) {
        return InvalidArgumentError(JoinPath(r.FieldPath("args"), i) + ": expected string, got " +
                                    std::string(JsonTypeName(a)));
      }
      out.args.push_back(a.get<std::string>());
    }
  }
  std::optional<JobState> state;
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "state", &ParseJobState, &state));
  out.state = state.value_or(JobState::kRunning);
  std::optional<UpgradeMode> mode;
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "upgradeMode", &ParseUpgradeMode, &mode));
  out.upgrade_mode = mode.value_or(UpgradeMode::kStateless);
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("savepointTriggerNonce", &out.savepoint_trigger_nonce));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("initialSavepointPath", &out.initial_savepoint_path));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("checkpointTriggerNonce", &out.checkpoint_trigger_nonce));
  if (r.Has("allowNonRestoredState")) {
    bool b = false;
    TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("allowNonRestoredState", &b));
    out.allow_non_restored_state = b;
  }
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("savepointRedeployNonce", &out.savepoint_redeploy_nonce));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("autoscalerResetNonce", &out.autoscaler_reset_nonce));
  return out;
}

Json EncodeJobSpec(const JobSpec& s) {
  Json out = Json::object();
  if (!s.jar_uri.empty()) out["jarURI"] = s.jar_uri;
  if (s.parallelism) out["parallelism"] = *s.parallelism;
  if (!s.entry_class.empty()) out["entryClass"] = s.entry_class;
  out["args"] = s.args;
  out["state"] = Name(s.state);
  if (s.savepoint_trigger_nonce) out["savepointTriggerNonce"] = *s.savepoint_trigger_nonce;
  if (!s.initial_savepoint_path.empty()) out["initialSavepointPath"] = s.initial_savepoint_path;
  if (s.checkpoint_trigger_nonce) out["checkpointTriggerNonce"] = *s.checkpoint_trigger_nonce;
  out["upgradeMode"] = Name(s.upgrade_mode);
  if (s.allow_non_restored_state) out["allowNonRestoredState"] = *s.allow_non_restored_state;
  if (s.savepoint_redeploy_nonce) out["savepointRedeployNonce"] = *s.savepoint_redeploy_nonce;
  if (s.autoscaler_reset_nonce) out["autoscalerResetNonce"] = *s.autoscaler_reset_nonce;
  return out;
}

StatusOr<FlinkDeploymentSpec> DecodeFlinkDeploymentSpec(const Json& json,
                                                        const std::string& path) {
  FlinkDeploymentSpec out;
  if (json.is_null()) return out;
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(DecodeCommon(r, &out.job, &out.restart_nonce, &out.flink_configuration));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("image", &out.image));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("imagePullPolicy", &out.image_pull_policy));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("serviceAccount", &out.service_account));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "flinkVersion", &ParseFlinkVersion, &out.flink_version));
  if (const Json* ing = r.Get("ingress")) {
    TRIMTAB_ASSIGN_OR_RETURN(out.ingress, DecodeIngress(*ing, r.FieldPath("ingress")));
  }
  TRIMTAB_RETURN_IF_ERROR(ReadObject(r, "podTemplate", &out.pod_template));
  if (const Json* jm = r.Get("jobManager")) {
    JsonReader jr(*jm, r.FieldPath("jobManager"));
    TRIMTAB_RETURN_IF_ERROR(jr.ExpectObject());
    JobManagerSpec spec;
    TRIMTAB_RETURN_IF_ERROR(DecodeProcessSpec(jr, &spec));
    TRIMTAB_RETURN_IF_ERROR(jr.OptionalInt("replicas", &spec.replicas));
    out.job_manager = std::move(spec);
  }
  if (const Json* tm = r.Get("taskManager")) {
    JsonReader tr(*tm, r.FieldPath("taskManager"));
    TRIMTAB_RETURN_IF_ERROR(tr.ExpectObject());
    TaskManagerSpec spec;
    TRIMTAB_RETURN_IF_ERROR(DecodeProcessSpec(tr, &spec));
    TRIMTAB_RETURN_IF_ERROR(tr.OptionalInt("replicas", &spec.replicas));
    out.task_manager = std::move(spec);
  }
  TRIMTAB_RETURN_IF_ERROR(ReadStringMap(r, "logConfiguration", &out.log_configuration));
  TRIMTAB_RETURN_IF_ERROR(ReadEnum(r, "mode", &ParseDeploymentMode, &out.mode));
  return out;
}

Json EncodeFlinkDeploymentSpec(const FlinkDeploymentSpec& s) {
  Json out = Json::object();
  EncodeCommon(s.job, s.restart_nonce, s.flink_configuration, &out);
  if (!s.image.empty()) out["image"] = s.image;
  if (!s.image_pull_policy.empty()) out["imagePullPolicy"] = s.image_pull_policy;
  if (!s.service_account.empty()) out["serviceAccount"] = s.service_account;
  if (s.flink_version) out["flinkVersion"] = Name(*s.flink_version);
  if (s.ingress) {
    Json ing = Json::object();
    if (!s.ingress->template_.empty()) ing["template"] = s.ingress->template_;
    if (!s.ingress->class_name.empty()) ing["className"] = s.ingress->class_name;
    if (!s.ingress->annotations.empty()) ing["annotations"] = s.ingress->annotations;
    if (!s.ingress->labels.empty()) ing["labels"] = s.ingress->labels;
    if (!s.ingress->tls.is_null()) ing["tls"] = s.ingress->tls;
    out["ingress"] = std::move(ing);
  }
  if (!s.pod_template.is_null()) out["podTemplate"] = s.pod_template;
  if (s.job_manager) {
    Json jm = Json::object();
    EncodeProcessSpec(*s.job_manager, &jm);
    jm["replicas"] = s.job_manager->replicas;
    out["jobManager"] = std::move(jm);
  }
  if (s.task_manager) {
    Json tm = Json::object();
    EncodeProcessSpec(*s.task_manager, &tm);
    if (s.task_manager->replicas) tm["replicas"] = *s.task_manager->replicas;
    out["taskManager"] = std::move(tm);
  }
  if (!s.log_configuration.empty()) out["logConfiguration"] = s.log_configuration;
  if (s.mode) out["mode"] = Name(*s.mode);
  return out;
}

StatusOr<FlinkSessionJobSpec> DecodeFlinkSessionJobSpec(const Json& json,
                                                        const std::string& path) {
  FlinkSessionJobSpec out;
  if (json.is_null()) return out;
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(DecodeCommon(r, &out.job, &out.restart_nonce, &out.flink_configuration));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("deploymentName", &out.deployment_name));
  return out;
}

Json EncodeFlinkSessionJobSpec(const FlinkSessionJobSpec& s) {
  Json out = Json::object();
  EncodeCommon(s.job, s.restart_nonce, s.flink_configuration, &out);
  if (!s.deployment_name.empty()) out["deploymentName"] = s.deployment_name;
  return out;
}

}  // namespace trimtab::api
