#include "operator/decisions/flink_config_builder.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "operator/decisions/operator_config.h"
#include "operator/decisions/process_resources.h"

namespace trimtab::op {
namespace {

void SetDefault(api::FlinkConfiguration* conf, const std::string& key, const std::string& value) {
  if (!conf->count(key)) (*conf)[key] = value;
}

Status ApplyProcess(std::string_view component, const std::optional<api::Resource>& resource,
                    const Json& resources, const std::string& memory_key,
                    const std::string& k8s_prefix, api::FlinkConfiguration* conf) {
  TRIMTAB_ASSIGN_OR_RETURN(ProcessResources r, ResolveProcessResources(component, resource, resources));
  if (r.memory_bytes) (*conf)[memory_key] = FormatMemorySize(*r.memory_bytes);
  if (r.cpu) (*conf)[k8s_prefix + ".cpu"] = FormatDouble(*r.cpu);
  if (r.cpu_limit_factor) (*conf)[k8s_prefix + ".cpu.limit-factor"] = FormatDouble(*r.cpu_limit_factor);
  if (r.memory_limit_factor) {
    (*conf)[k8s_prefix + ".memory.limit-factor"] = FormatDouble(*r.memory_limit_factor);
  }
  return Status::Ok();
}

std::string Trimmed(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

int64_t TaskSlots(const api::FlinkConfiguration& conf) {
  auto it = conf.find(flink_keys::kTaskSlots);
  if (it == conf.end()) return 1;
  try {
    const int64_t slots = std::stoll(it->second);
    return slots > 0 ? slots : 1;
  } catch (...) {
    return 1;
  }
}

int64_t JobParallelism(const api::FlinkDeploymentSpec& spec, const api::FlinkConfiguration& conf) {
  if (spec.task_manager && spec.task_manager->replicas) {
    return *spec.task_manager->replicas * TaskSlots(conf);
  }
  if (spec.job && spec.job->parallelism) return *spec.job->parallelism;
  return 0;
}

int64_t StandaloneTaskManagerReplicas(const api::FlinkDeploymentSpec& spec,
                                      const api::FlinkConfiguration& conf) {
  if (spec.task_manager && spec.task_manager->replicas && *spec.task_manager->replicas > 0) {
    return *spec.task_manager->replicas;
  }
  if (auto it = conf.find(kStandaloneTaskManagerReplicas); it != conf.end()) {
    try {
      return std::max<int64_t>(0, std::stoll(it->second));
    } catch (...) {
    }
  }
  if (!spec.job) return 1;
  const int64_t slots = TaskSlots(conf);
  const int64_t parallelism = std::max<int64_t>(1, JobParallelism(spec, conf));
  return (parallelism + slots - 1) / slots;
}

void StripOperatorKeys(api::FlinkConfiguration* conf) {
  for (auto it = conf->begin(); it != conf->end();) {
    if (it->first.starts_with("kubernetes.operator.") || it->first.starts_with("job.autoscaler.")) {
      it = conf->erase(it);
    } else {
      ++it;
    }
  }
}

StatusOr<api::FlinkConfiguration> BuildDeployConfig(const api::ObjectMeta& meta,
                                                    const api::FlinkDeploymentSpec& spec,
                                                    const api::FlinkConfiguration& effective,
                                                    const DeployParams& params) {
  api::FlinkConfiguration conf = effective;
  const std::string name = meta.name();
  const api::FlinkVersion version = spec.flink_version.value_or(api::FlinkVersion::kV1_20);
  const bool application = spec.job.has_value();

  conf[flink_keys::kClusterId] = name;
  conf[flink_keys::kNamespace] = meta.namespace_name();
  const bool standalone = spec.EffectiveMode() == api::DeploymentMode::kStandalone;
  if (standalone) {
    conf["execution.target"] = "remote";
    conf[kStandaloneClusterMode] = application ? "APPLICATION" : "SESSION";
  } else {
    conf["execution.target"] = application ? "kubernetes-application" : "kubernetes-session";
  }
  conf["$internal.flink.version"] = std::string(api::Name(version));
  if (IsHaEnabled(conf)) conf[flink_keys::kHaClusterId] = name;

  if (!spec.image.empty()) {
    conf[api::IsAtLeast(version, api::FlinkVersion::kV1_17) ? "kubernetes.container.image.ref"
                                                            : "kubernetes.container.image"] =
        spec.image;
  }
  if (!spec.image_pull_policy.empty()) {
    conf["kubernetes.container.image.pull-policy"] = spec.image_pull_policy;
  }
  if (!spec.service_account.empty()) conf["kubernetes.service-account"] = spec.service_account;
  if (spec.job_manager) {
    conf["kubernetes.jobmanager.replicas"] = std::to_string(spec.job_manager->replicas);
    TRIMTAB_RETURN_IF_ERROR(ApplyProcess("JobManager", spec.job_manager->resource,
                                         spec.job_manager->resources,
                                         "jobmanager.memory.process.size",
                                         "kubernetes.jobmanager", &conf));
  }
  if (spec.task_manager) {
    TRIMTAB_RETURN_IF_ERROR(ApplyProcess("TaskManager", spec.task_manager->resource,
                                         spec.task_manager->resources,
                                         "taskmanager.memory.process.size",
                                         "kubernetes.taskmanager", &conf));
  }
  SetDefault(&conf, "kubernetes.rest-service.exposed.type", "ClusterIP");
  if ((spec.task_manager && spec.task_manager->replicas && *spec.task_manager->replicas > 0) ||
      (standalone && application)) {
    conf[kStandaloneTaskManagerReplicas] = std::to_string(StandaloneTaskManagerReplicas(spec, conf));
  }

  if (application) {
    const api::JobSpec& job = *spec.job;
    if (!job.jar_uri.empty()) conf["pipeline.jars"] = job.jar_uri;
    if (!job.entry_class.empty()) conf["$internal.application.main"] = job.entry_class;
    if (!job.args.empty()) {
      std::string args;
      for (size_t i = 0; i < job.args.size(); ++i) {
        if (i > 0) args += ';';
        args += job.args[i];
      }
      conf["$internal.application.program-args"] = args;
    }
    const int64_t parallelism = JobParallelism(spec, conf);
    if (parallelism > 0) conf[flink_keys::kParallelismDefault] = std::to_string(parallelism);
    SetDefault(&conf, "pipeline.name", name);
    if (job.upgrade_mode == api::UpgradeMode::kLastState) {
      SetDefault(&conf, flink_keys::kCheckpointInterval, "5 min");
    }
    SetDefault(&conf, "execution.checkpointing.externalized-checkpoint-retention",
               "RETAIN_ON_CANCELLATION");
    SetDefault(&conf, "execution.shutdown-on-application-finish", "false");
    SetDefault(&conf, "execution.submit-failed-job-on-application-error", "true");
    SetDefault(&conf, "web.cancel.enable", "false");
    if (!params.job_id.empty()) conf[flink_keys::kJobId] = params.job_id;
    conf.erase(flink_keys::kSavepointPath);
    if (!params.restore_path.empty()) conf[flink_keys::kSavepointPath] = params.restore_path;
    if (job.allow_non_restored_state) {
      conf[flink_keys::kIgnoreUnclaimedState] = *job.allow_non_restored_state ? "true" : "false";
    }
  }

  const std::string ha_storage = Trimmed(FirstOf(conf, flink_keys::kHaStorageDir, ""));
  if (IsHaEnabled(conf) && !ha_storage.empty() && !params.job_result_store_id.empty()) {
    SetDefault(&conf, flink_keys::kJobResultStoreDeleteOnCommit, "false");
    std::string base = ha_storage;
    while (!base.empty() && base.back() == '/') base.pop_back();
    conf[flink_keys::kJobResultStorePath] =
        base + "/job-result-store/" + name + "/" + params.job_result_store_id;
  }
  StripOperatorKeys(&conf);
  return conf;
}

bool UsesConfigYaml(api::FlinkVersion version) {
  return api::IsAtLeast(version, api::FlinkVersion::kV1_19);
}

std::string ConfigFileName(api::FlinkVersion version) {
  return UsesConfigYaml(version) ? "config.yaml" : "flink-conf.yaml";
}

std::string RenderConfigFile(const api::FlinkConfiguration& conf, bool config_yaml) {
  std::string out;
  for (const auto& [key, value] : conf) {
    out += key;
    out += ": ";
    if (config_yaml) {
      out += '\'';
      for (char c : value) {
        if (c == '\'') out += '\'';
        if (c == '\n') {
          out += ' ';
          continue;
        }
        out += c;
      }
      out += '\'';
    } else {
      for (char c : value) out += c == '\n' ? ' ' : c;
    }
    out += '\n';
  }
  return out;
}

std::string RandomHexId() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(rng()),
                static_cast<unsigned long long>(rng()));
  return buf;
}

}  // namespace trimtab::op
