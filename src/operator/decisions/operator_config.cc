#include "operator/decisions/operator_config.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "common/flink_option_reader.h"
#include "common/flink_values.h"

namespace trimtab::op {
namespace {

constexpr std::string_view kOp = "kubernetes.operator.";
constexpr std::string_view kNamespaceLayer = "kubernetes.operator.default-configuration.namespace.";
constexpr std::string_view kVersionLayer = "kubernetes.operator.default-configuration.flink-version.";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void ApplyLayer(const api::FlinkConfiguration& source, const std::string& prefix,
                api::FlinkConfiguration* out) {
  for (auto it = source.lower_bound(prefix); it != source.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    const std::string key = it->first.substr(prefix.size());
    if (!key.empty()) (*out)[key] = it->second;
  }
}

}  // namespace

int64_t OperatorConfig::EffectiveSavepointMaxCount() const {
  int64_t count = savepoint_history_max_count;
  if (savepoint_history_max_count_threshold) {
    count = std::min(count, *savepoint_history_max_count_threshold);
  }
  return std::max<int64_t>(1, count);
}

Millis OperatorConfig::EffectiveSavepointMaxAge() const {
  if (savepoint_history_max_age_threshold) {
    return std::min(savepoint_history_max_age, *savepoint_history_max_age_threshold);
  }
  return savepoint_history_max_age;
}

StatusOr<OperatorConfig> ParseOperatorConfig(const api::FlinkConfiguration& conf) {
  OperatorConfig c;
  FlinkOptionReader r(conf, {std::string(kOp)});
  TRIMTAB_RETURN_IF_ERROR(r.Duration("reconcile.interval", &c.reconcile_interval));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("observer.progress-check.interval", &c.progress_check_interval));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("observer.rest-ready.delay", &c.rest_ready_delay));
  TRIMTAB_RETURN_IF_ERROR(
      r.Duration("savepoint.trigger.grace-period", &c.savepoint_trigger_grace_period));
  TRIMTAB_RETURN_IF_ERROR(
      r.Duration("checkpoint.trigger.grace-period", &c.checkpoint_trigger_grace_period));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("flink.client.timeout", &c.flink_client_timeout));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("flink.client.cancel.timeout", &c.flink_cancel_timeout));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("resource.cleanup.timeout", &c.resource_cleanup_timeout));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("deployment.rollback.enabled", &c.rollback_enabled));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("deployment.readiness.timeout", &c.readiness_timeout));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("job.upgrade.ignore-pending-savepoint", &c.ignore_pending_savepoint));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("job.upgrade.inplace-scaling.enabled", &c.inplace_scaling_enabled));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("job.upgrade.last-state-fallback.enabled", &c.last_state_fallback_enabled));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDuration("job.upgrade.last-state.max.allowed.checkpoint.age",
                                             &c.last_state_max_checkpoint_age));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("job.upgrade.last-state.job-cancel.enabled", &c.last_state_job_cancel_enabled));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("jm-deployment-recovery.enabled", &c.jm_recovery_enabled));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("jm-deployment.shutdown-ttl", &c.jm_shutdown_ttl));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("savepoint.dispose-on-delete", &c.savepoint_dispose_on_delete));
  if (auto entry = r.Find("savepoint.format.type")) {
    StatusOr<api::SavepointFormatType> f = api::ParseSavepointFormatType(entry->value);
    if (!f.ok()) return InvalidArgumentError(entry->key + ": " + f.status().message());
    c.savepoint_format = *f;
  }
  if (auto entry = r.Find("checkpoint.type")) {
    StatusOr<api::CheckpointType> t = api::ParseCheckpointType(entry->value);
    if (!t.ok()) return InvalidArgumentError(entry->key + ": " + t.status().message());
    c.checkpoint_type = *t;
  }
  TRIMTAB_RETURN_IF_ERROR(r.Bool("savepoint.cleanup.enabled", &c.savepoint_cleanup_enabled));
  TRIMTAB_RETURN_IF_ERROR(r.Int("savepoint.history.max.count", &c.savepoint_history_max_count));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("savepoint.history.max.count.threshold",
                                        &c.savepoint_history_max_count_threshold));
  TRIMTAB_RETURN_IF_ERROR(r.Duration("savepoint.history.max.age", &c.savepoint_history_max_age));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDuration("savepoint.history.max.age.threshold",
                                             &c.savepoint_history_max_age_threshold));
  for (auto [suffix, out] : {std::pair{"periodic.savepoint.interval", &c.periodic_savepoint_interval},
                             std::pair{"periodic.checkpoint.interval", &c.periodic_checkpoint_interval}}) {
    std::optional<FlinkOptionReader::Entry> entry = r.Find(suffix);
    if (!entry) continue;
    StatusOr<Millis> d = ParseFlinkDurationMillis(entry->key, entry->value);
    if (!d.ok()) {
      return InvalidArgumentError(d.status().message() +
                                  " (cron expressions are not supported by trimtab)");
    }
    if (d->count() > 0) *out = *d;  // 0 disables, as upstream
  }
  TRIMTAB_RETURN_IF_ERROR(r.Bool("job.restart.failed", &c.job_restart_failed));
  if (auto entry = r.Find("resource.deletion.propagation")) {
    const std::string& v = entry->value;
    if (v != "Foreground" && v != "Background" && v != "Orphan") {
      return InvalidArgumentError(entry->key + ": expected Foreground, Background or Orphan, got \"" +
                                  v + "\"");
    }
    c.deletion_propagation = v;
  }
  TRIMTAB_RETURN_IF_ERROR(r.Bool("job.savepoint-on-deletion", &c.savepoint_on_deletion));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("job.drain-on-savepoint-deletion", &c.drain_on_savepoint_deletion));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("session.deletion.block-on-session-jobs", &c.session_block_on_session_jobs));
  TRIMTAB_RETURN_IF_ERROR(
      r.Bool("session.deletion.block-on-unmanaged-jobs", &c.session_block_on_unmanaged_jobs));
  TRIMTAB_RETURN_IF_ERROR(r.Bool("cluster.health-check.enabled", &c.health_check_enabled));
  TRIMTAB_RETURN_IF_ERROR(r.Int("events.exceptions.limit-per-reconciliation",
                                &c.exceptions_limit_per_reconciliation));
  TRIMTAB_RETURN_IF_ERROR(
      r.Int("events.exceptions.stacktrace-lines", &c.exceptions_stacktrace_lines));
  return c;
}

api::FlinkConfiguration DefaultConfigFor(const api::FlinkConfiguration& defaults,
                                         std::string_view namespace_name,
                                         std::optional<api::FlinkVersion> version) {
  api::FlinkConfiguration out = defaults;
  ApplyLayer(defaults, std::string(kNamespaceLayer) + std::string(namespace_name) + ".", &out);
  if (version) {
    // "<v>+" layers of every version up to this one, ascending, then the exact "<v>" layer.
    for (std::string_view name : api::FlinkVersionNames()) {
      StatusOr<api::FlinkVersion> v = api::ParseFlinkVersion(name);
      if (!v.ok() || *v > *version) break;
      ApplyLayer(defaults, std::string(kVersionLayer) + std::string(name) + "+.", &out);
    }
    ApplyLayer(defaults, std::string(kVersionLayer) + std::string(api::Name(*version)) + ".", &out);
  }
  // The layer keys themselves are not Flink options.
  for (auto it = out.begin(); it != out.end();) {
    if (it->first.starts_with("kubernetes.operator.default-configuration.")) {
      it = out.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

api::FlinkConfiguration EffectiveConfig(const api::FlinkConfiguration& defaults,
                                        std::string_view namespace_name,
                                        std::optional<api::FlinkVersion> version,
                                        const api::FlinkConfiguration& spec_config) {
  api::FlinkConfiguration out = DefaultConfigFor(defaults, namespace_name, version);
  for (const auto& [k, v] : spec_config) out[k] = v;
  return out;
}

std::string FirstOf(const api::FlinkConfiguration& conf, std::string_view key,
                    std::string_view legacy_key) {
  auto it = conf.find(std::string(key));
  if (it != conf.end() && !it->second.empty()) return it->second;
  it = conf.find(std::string(legacy_key));
  if (it != conf.end()) return it->second;
  return "";
}

std::string CheckpointDir(const api::FlinkConfiguration& conf) {
  return FirstOf(conf, flink_keys::kCheckpointDir, flink_keys::kCheckpointDirLegacy);
}

std::string SavepointDir(const api::FlinkConfiguration& conf) {
  return FirstOf(conf, flink_keys::kSavepointDir, flink_keys::kSavepointDirLegacy);
}

bool IsHaEnabled(const api::FlinkConfiguration& conf) {
  const std::string mode = Lower(FirstOf(conf, flink_keys::kHaType, flink_keys::kHaTypeLegacy));
  return !mode.empty() && mode != "none";
}

bool IsKubernetesHaEnabled(const api::FlinkConfiguration& conf) {
  const std::string mode = Lower(FirstOf(conf, flink_keys::kHaType, flink_keys::kHaTypeLegacy));
  return mode == "kubernetes" ||
         mode == "org.apache.flink.kubernetes.highavailability.kuberneteshaservicesfactory";
}

bool ConfigBool(const api::FlinkConfiguration& conf, std::string_view key, bool fallback) {
  auto it = conf.find(std::string(key));
  if (it == conf.end()) return fallback;
  const std::string v = Lower(it->second);
  if (v == "true") return true;
  if (v == "false") return false;
  return fallback;
}

}  // namespace trimtab::op
