#include "operator/decisions/validator.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cctype>

#include "api/reconciled_spec.h"
#include "common/regex.h"
#include "core/flink/autoscaler_options.h"
#include "common/flink_values.h"
#include "operator/decorators/builtin_decorators.h"
#include "operator/decorators/decorator_chain.h"
#include "operator/decisions/operator_config.h"
#include "operator/decisions/process_resources.h"

namespace trimtab::op {
namespace {

using Result = std::optional<std::string>;

bool Blank(const std::string& s) {
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool Has(const api::FlinkConfiguration& conf, const std::string& key) {
  return conf.count(key) > 0;
}

Result ValidateFlinkVersion(const api::FlinkDeployment& d) {
  if (!d.spec.flink_version) return "Flink Version must be defined.";
  if (!api::IsSupported(*d.spec.flink_version)) {
    return "Flink version " + std::string(api::Name(*d.spec.flink_version)) +
           " is not supported by this operator version";
  }
  const std::string& last = d.status.reconciliation_status.last_reconciled_spec;
  if (last.empty() || !d.spec.job || d.spec.job->upgrade_mode == api::UpgradeMode::kStateless) {
    return std::nullopt;
  }
  StatusOr<api::FlinkDeploymentSpec> old = api::ParseRecordedDeploymentSpec(last);
  if (old.ok() && old->job && old->job->state == api::JobState::kSuspended &&
      old->job->upgrade_mode == api::UpgradeMode::kLastState &&
      old->flink_version != d.spec.flink_version) {
    return "Changing flinkVersion after last-state suspend is not allowed. Restore your cluster "
           "with the current flinkVersion and perform the version upgrade afterwards.";
  }
  return std::nullopt;
}

Result ValidateFlinkDeploymentConfig(const api::FlinkConfiguration& conf) {
  for (const char* key : {flink_keys::kNamespace, flink_keys::kClusterId, flink_keys::kHaClusterId}) {
    if (Has(conf, key)) return "Forbidden Flink config key: " + std::string(key);
  }
  StatusOr<OperatorConfig> oc = ParseOperatorConfig(conf);
  if (!oc.ok()) return "Invalid operator configuration: " + oc.status().message();
  if (oc->rollback_enabled && !IsHaEnabled(conf)) return "HA must be enabled for rollback support.";
  if (oc->health_check_enabled && !oc->jm_recovery_enabled) {
    return "Deployment recovery (kubernetes.operator.jm-deployment-recovery.enabled) must be "
           "enabled for job health check (kubernetes.operator.cluster.health-check.enabled) "
           "support.";
  }
  return std::nullopt;
}

Result ValidateIngress(const std::optional<api::IngressSpec>& ingress, const std::string& name,
                       const std::string& ns) {
  if (!ingress) return std::nullopt;
  if (ingress->template_.empty()) return "Ingress template must be defined";
  StatusOr<std::string> url = RenderIngressTemplate(ingress->template_, name, ns);
  if (!url.ok()) return url.status().message();
  return std::nullopt;
}

Result ValidateLogConfig(const std::map<std::string, std::string>& log) {
  for (const auto& [key, value] : log) {
    if (key != "log4j-console.properties" && key != "logback-console.xml") {
      return "Invalid log config key: " + key +
             ". Allowed keys are [log4j-console.properties, logback-console.xml]";
    }
  }
  return std::nullopt;
}

Result ValidateJobSpec(const std::optional<api::JobSpec>& job,
                       const std::optional<api::TaskManagerSpec>& tm,
                       const api::FlinkConfiguration& conf) {
  if (!job) return std::nullopt;
  if (job->upgrade_mode != api::UpgradeMode::kStateless && Blank(CheckpointDir(conf))) {
    return std::string("Checkpoint directory[") + flink_keys::kCheckpointDir +
           "] must be defined for last-state and savepoint upgrade modes";
  }
  if (Blank(SavepointDir(conf))) {
    const std::string key = flink_keys::kSavepointDir;
    if (job->upgrade_mode == api::UpgradeMode::kSavepoint) {
      return "Job could not be upgraded with savepoint while config key[" + key + "] is not set";
    }
    if (job->savepoint_trigger_nonce) {
      return "Savepoint could not be manually triggered for the running job while config key[" +
             key + "] is not set";
    }
    if (Has(conf, "kubernetes.operator.periodic.savepoint.interval")) {
      return "Periodic savepoints cannot be enabled when config key[" + key + "] is not set";
    }
    if (Has(conf, "kubernetes.operator.job.upgrade.last-state.max.allowed.checkpoint.age")) {
      return "In order to use max-checkpoint age functionality config key[" + key +
             "] must be set to allow triggering savepoint upgrades.";
    }
  }
  const bool tm_replicas = tm && tm->replicas.has_value();
  if (tm_replicas && *tm->replicas < 1) return "TaskManager replicas must be larger than 0";
  if (!tm_replicas && job->parallelism.value_or(0) < 1) {
    return "Job parallelism must be larger than 0";
  }
  return std::nullopt;
}

bool AnyKey(const api::FlinkConfiguration& conf, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (Has(conf, k)) return true;
  }
  return false;
}

Result ValidateProcess(std::string_view component, const std::optional<api::Resource>& resource,
                       const Json& resources, bool memory_from_config, const std::string& hint) {
  StatusOr<ProcessResources> r = ResolveProcessResources(component, resource, resources);
  if (!r.ok()) return r.status().message();
  if (!r->memory_bytes && !memory_from_config) return hint;
  if (r->memory_bytes && *r->memory_bytes <= 0) {
    return std::string(component) + " resource memory must be greater than 0";
  }
  return std::nullopt;
}

Result ValidateJm(const std::optional<api::JobManagerSpec>& jm,
                  const api::FlinkConfiguration& conf) {
  const bool from_config = AnyKey(conf, {"jobmanager.memory.process.size",
                                         "jobmanager.memory.flink.size",
                                         "jobmanager.memory.heap.size", "jobmanager.heap.size"});
  const std::string hint =
      "JobManager resource memory must be defined using `spec.jobManager.resource.memory`";
  if (!jm) return from_config ? std::nullopt : Result(hint);
  if (Result r = ValidateProcess("JobManager", jm->resource, jm->resources, from_config, hint)) {
    return r;
  }
  if (jm->replicas < 1) return "JobManager replicas should not be configured less than one.";
  if (jm->replicas > 1 && !IsHaEnabled(conf)) {
    return "High availability should be enabled when starting standby JobManagers.";
  }
  return std::nullopt;
}

Result ValidateTm(const std::optional<api::TaskManagerSpec>& tm,
                  const api::FlinkConfiguration& conf) {
  const bool from_config =
      AnyKey(conf, {"taskmanager.memory.process.size", "taskmanager.memory.flink.size"}) ||
      (Has(conf, "taskmanager.memory.task.heap.size") &&
       Has(conf, "taskmanager.memory.managed.size"));
  const std::string hint =
      "TaskManager resource memory must be defined using `spec.taskManager.resource.memory`";
  if (!tm) return from_config ? std::nullopt : Result(hint);
  if (Result r = ValidateProcess("TaskManager", tm->resource, tm->resources, from_config, hint)) {
    return r;
  }
  if (tm->replicas && *tm->replicas < 1) {
    return "TaskManager replicas should not be configured less than one.";
  }
  return std::nullopt;
}

Result ValidateSpecChange(const api::FlinkDeployment& d) {
  const std::string& last = d.status.reconciliation_status.last_reconciled_spec;
  if (last.empty()) return std::nullopt;
  StatusOr<api::FlinkDeploymentSpec> old = api::ParseRecordedDeploymentSpec(last);
  if (!old.ok()) return "Cannot read status.reconciliationStatus.lastReconciledSpec: " + old.status().message();
  if (d.spec.job && !old->job) return "Cannot switch from session to job cluster";
  if (!d.spec.job && old->job) return "Cannot switch from job to session cluster";
  const api::DeploymentMode old_mode = old->EffectiveMode();
  const api::DeploymentMode new_mode = d.spec.EffectiveMode();
  if (old_mode == api::DeploymentMode::kNative && new_mode != api::DeploymentMode::kNative) {
    return "Cannot switch from native kubernetes to standalone kubernetes cluster";
  }
  if (old_mode == api::DeploymentMode::kStandalone && new_mode != api::DeploymentMode::kStandalone) {
    return "Cannot switch from standalone kubernetes to native kubernetes cluster";
  }
  if (old->job && d.spec.job && d.spec.job->savepoint_redeploy_nonce &&
      d.spec.job->savepoint_redeploy_nonce != old->job->savepoint_redeploy_nonce &&
      Blank(d.spec.job->initial_savepoint_path)) {
    return "InitialSavepointPath must not be empty for savepoint redeployment";
  }
  return std::nullopt;
}

// Flink would fail the job at submission; trimtab says so before anything is deployed.
Result ValidateParallelismOverrides(const api::FlinkConfiguration& conf) {
  auto it = conf.find(flink_keys::kParallelismOverrides);
  if (it == conf.end()) return std::nullopt;
  Status parsed = ParseFlinkParallelismOverrides(it->first, it->second).status();
  if (!parsed.ok()) return parsed.message();
  return std::nullopt;
}

Result ValidateAutoscaler(const api::FlinkConfiguration& conf) {
  auto enabled = conf.find("job.autoscaler.enabled");
  if (enabled == conf.end()) enabled = conf.find("kubernetes.operator.job.autoscaler.enabled");
  if (enabled == conf.end() || enabled->second != "true") return std::nullopt;
  StatusOr<core::flink::AutoscalerOptions> options = core::flink::ParseAutoscalerOptions(conf);
  if (!options.ok()) return options.status().message();
  StatusOr<OperatorConfig> oc = ParseOperatorConfig(conf);
  if (oc.ok() && options->metrics_window < oc->reconcile_interval) {
    return "job.autoscaler.metrics.window (" +
           FormatFlinkDuration(options->metrics_window) +
           ") must not be smaller than kubernetes.operator.reconcile.interval (" +
           FormatFlinkDuration(oc->reconcile_interval) + ")";
  }
  return std::nullopt;
}

bool IsRestrictedAddress(const sockaddr* addr) {
  if (addr->sa_family == AF_INET) {
    const uint32_t ip = ntohl(reinterpret_cast<const sockaddr_in*>(addr)->sin_addr.s_addr);
    const uint8_t a = ip >> 24;
    const uint8_t b = (ip >> 16) & 0xff;
    return ip == 0 || a == 127 || a == 10 || (a == 172 && (b & 0xf0) == 16) ||
           (a == 192 && b == 168) || (a == 169 && b == 254) || (a >= 224 && a <= 239);
  }
  if (addr->sa_family == AF_INET6) {
    const in6_addr& ip = reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr;
    if (IN6_IS_ADDR_UNSPECIFIED(&ip) || IN6_IS_ADDR_LOOPBACK(&ip) || IN6_IS_ADDR_LINKLOCAL(&ip) ||
        IN6_IS_ADDR_SITELOCAL(&ip) || IN6_IS_ADDR_MULTICAST(&ip)) {
      return true;
    }
    if (IN6_IS_ADDR_V4MAPPED(&ip)) {
      sockaddr_in v4{};
      v4.sin_family = AF_INET;
      std::memcpy(&v4.sin_addr, &ip.s6_addr[12], 4);
      return IsRestrictedAddress(reinterpret_cast<const sockaddr*>(&v4));
    }
  }
  return false;
}

Result ValidateJarUri(const std::string& uri, const api::FlinkConfiguration& conf) {
  const size_t colon = uri.find("://");
  if (colon == std::string::npos) return "The jarURI " + uri + " has no scheme";
  std::string scheme = uri.substr(0, colon);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto allowed_it = conf.find("kubernetes.operator.user.artifacts.allowed-schemes");
  const std::string allowed_text = allowed_it == conf.end() ? "https" : allowed_it->second;
  bool allowed = false;
  for (std::string s : ParseFlinkList(allowed_text)) {
    for (std::string_view part : {std::string_view(s)}) {
      // Also accept a comma-separated list.
      size_t start = 0;
      while (start <= part.size()) {
        size_t end = part.find(',', start);
        std::string item(TrimSpaces(part.substr(start, end - start)));
        for (char& c : item) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (item == scheme) allowed = true;
        if (end == std::string_view::npos) break;
        start = end + 1;
      }
    }
  }
  if (!allowed) {
    return "The jarURI scheme \"" + scheme + "\" is not allowed (kubernetes.operator.user.artifacts.allowed-schemes: " +
           allowed_text + ")";
  }
  if ((scheme == "http" || scheme == "https") &&
      ConfigBool(conf, "kubernetes.operator.user.artifacts.disallow-restricted-hosts", true)) {
    std::string rest = uri.substr(colon + 3);
    std::string host = rest.substr(0, rest.find_first_of("/?#"));
    if (size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    if (!host.empty() && host.front() == '[') {
      host = host.substr(1, host.find(']') - 1);
    } else if (size_t p = host.rfind(':'); p != std::string::npos) {
      host = host.substr(0, p);
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(host.c_str(), nullptr, &hints, &found) == 0) {
      bool restricted = false;
      for (addrinfo* a = found; a; a = a->ai_next) restricted |= IsRestrictedAddress(a->ai_addr);
      freeaddrinfo(found);
      if (restricted) {
        return "The jarURI host " + host +
               " resolves to a restricted address (loopback, link-local, site-local, any or "
               "multicast); set kubernetes.operator.user.artifacts.disallow-restricted-hosts to "
               "false to allow it";
      }
    }
  }
  return std::nullopt;
}

template <typename... Checks>
Result FirstOf(Checks&&... checks) {
  Result out;
  ((out = out ? out : checks()), ...);
  return out;
}

}  // namespace

std::optional<std::string> ValidateDeploymentName(const std::string& name) {
  // RE2, not std::regex: input here is any string a user wrote (issue 27), and std::regex
  // recursed per character. The patterns below are constants known to compile.
  static const Regex kPattern = *Regex::Compile("[a-z]([-a-z0-9]{0,43}[a-z0-9])?");
  if (!kPattern.FullMatch(name)) {
    return "The FlinkDeployment name: " + name +
           " is invalid, must consist of lower case alphanumeric characters or '-', start with an "
           "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
           "'abc-123'), and the length must be no more than 45 characters.";
  }
  return std::nullopt;
}

StatusOr<std::string> RenderIngressTemplate(const std::string& tmpl, const std::string& name,
                                            const std::string& ns) {
  static const Regex kName = *Regex::Compile("\\{\\{name\\}\\}", {.case_insensitive = true});
  static const Regex kNamespace =
      *Regex::Compile("\\{\\{namespace\\}\\}", {.case_insensitive = true});
  std::string out = kName.ReplaceAll(tmpl, name);
  out = kNamespace.ReplaceAll(out, ns);
  auto fail = [&](const std::string& why) {
    return InvalidArgumentError("Unable to process the Ingress template(" + tmpl +
                                "). Error: " + why);
  };
  if (out.find("{{") != std::string::npos) return fail("unknown placeholder in \"" + out + "\"");
  const std::string host = out.substr(0, out.find('/'));
  if (host.empty()) return fail("no host in \"" + out + "\"");
  static const Regex kHost = *Regex::Compile(
      "[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*(:[0-9]+)?");
  if (!kHost.FullMatch(host)) return fail("invalid host \"" + host + "\"");
  for (char c : out) {
    if (std::isspace(static_cast<unsigned char>(c))) return fail("whitespace in \"" + out + "\"");
  }
  return out;
}

// The scheduler keys and the decorators they choose (decorators/decorator_chain.h): a bad
// option map or decorator configuration stops the deploy before anything is created or stopped.
namespace {
std::optional<std::string> ValidateSchedulers(const api::FlinkConfiguration& conf) {
  decorators::DecoratorRegistry registry;
  if (Status s = decorators::RegisterBuiltinDecorators(registry); !s.ok()) return s.message();
  StatusOr<decorators::DecoratorChain> chain = decorators::DecoratorChain::Create(registry, conf);
  if (!chain.ok()) return chain.status().message();
  return std::nullopt;
}
}  // namespace

std::optional<std::string> ValidateDeployment(const api::FlinkDeployment& d,
                                              const api::FlinkConfiguration& conf) {
  const std::string name = d.metadata.name();
  return FirstOf([&] { return ValidateDeploymentName(name); },
                 [&] { return ValidateFlinkVersion(d); },
                 [&] { return ValidateFlinkDeploymentConfig(conf); },
                 [&] { return ValidateIngress(d.spec.ingress, name, d.metadata.namespace_name()); },
                 [&] { return ValidateLogConfig(d.spec.log_configuration); },
                 [&] { return ValidateJobSpec(d.spec.job, d.spec.task_manager, conf); },
                 [&] { return ValidateJm(d.spec.job_manager, conf); },
                 [&] { return ValidateTm(d.spec.task_manager, conf); },
                 [&] { return ValidateSpecChange(d); },
                 [&]() -> Result {
                   if (d.spec.service_account.empty()) {
                     return "spec.serviceAccount must be defined. If you use helm, its value "
                            "should be the same with the name of jobServiceAccount.";
                   }
                   return std::nullopt;
                 },
                 [&] { return ValidateParallelismOverrides(conf); },
                 [&] { return ValidateAutoscaler(conf); },
                 [&] { return ValidateSchedulers(conf); });
}

std::optional<std::string> ValidateSessionJob(const api::FlinkSessionJob& job,
                                              const api::FlinkDeployment* session,
                                              const api::FlinkConfiguration& conf) {
  Result only = FirstOf(
      [&] { return ValidateDeploymentName(job.spec.deployment_name); },
      [&]() -> Result {
        if (!job.spec.job) return "The job spec should not be empty";
        return std::nullopt;
      },
      [&]() -> Result {
        const std::string& last = job.status.reconciliation_status.last_reconciled_spec;
        if (last.empty()) return std::nullopt;
        StatusOr<api::FlinkSessionJobSpec> old = api::ParseRecordedSessionJobSpec(last);
        if (old.ok() && old->deployment_name != job.spec.deployment_name) {
          return "The deploymentName can't be changed";
        }
        return std::nullopt;
      },
      [&] { return ValidateJarUri(job.spec.job->jar_uri, conf); });
  if (only || !session) return only;
  return FirstOf(
      [&]() -> Result {
        if (session->spec.job) return "Can not submit session job to application cluster";
        return std::nullopt;
      },
      [&]() -> Result {
        if (session->metadata.name() != job.spec.deployment_name) {
          return "The session job's cluster id is not match with the session cluster";
        }
        return std::nullopt;
      },
      [&] { return ValidateJobSpec(job.spec.job, std::nullopt, conf); },
      [&] { return ValidateParallelismOverrides(conf); },
      [&] { return ValidateAutoscaler(conf); });
}

}  // namespace trimtab::op
