#include "cluster/flink/cluster_settings.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include "common/flink_values.h"
#include "cluster/flink/ids.h"

namespace trimtab::sim::flink {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Reads the first set key of `keys` as a duration.
StatusOr<std::optional<Ms>> FirstDuration(const FlinkConfig& c, const std::vector<std::string>& keys) {
  for (const std::string& k : keys) {
    if (c.Has(k)) return c.GetDuration(k);
  }
  return std::optional<Ms>();
}

StatusOr<int64_t> FirstInt(const FlinkConfig& c, const std::vector<std::string>& keys, int64_t fallback) {
  for (const std::string& k : keys) {
    if (c.Has(k)) return c.GetInt(k, fallback);
  }
  return fallback;
}

int64_t Clamp(double v, int64_t lo, int64_t hi) {
  return std::clamp(static_cast<int64_t>(v), lo, hi);
}

Status ParseTaskManager(const FlinkConfig& c, TaskManagerSettings* tm) {
  TRIMTAB_ASSIGN_OR_RETURN(int64_t slots, c.GetInt("taskmanager.numberOfTaskSlots", 1));
  if (slots < 1) return InvalidArgumentError("Flink configuration taskmanager.numberOfTaskSlots: must be at least 1");
  tm->slots = static_cast<int>(slots);
  TRIMTAB_ASSIGN_OR_RETURN(double cpu, c.GetDouble("kubernetes.taskmanager.cpu", -1));
  tm->cpu = cpu > 0 ? cpu : static_cast<double>(slots);
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<int64_t> process, c.GetMemoryBytes("taskmanager.memory.process.size"));
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<int64_t> flink_size, c.GetMemoryBytes("taskmanager.memory.flink.size"));
  constexpr int64_t kMi = 1LL << 20;
  if (process) tm->process_bytes = *process;
  if (flink_size && !process) {
    tm->flink_bytes = *flink_size;
    tm->overhead = Clamp(0.1 * static_cast<double>(tm->flink_bytes + tm->metaspace) / 0.9, 192 * kMi, 1024 * kMi);
    tm->process_bytes = tm->flink_bytes + tm->metaspace + tm->overhead;
  } else {
    tm->overhead = Clamp(0.1 * static_cast<double>(tm->process_bytes), 192 * kMi, 1024 * kMi);
    tm->flink_bytes = tm->process_bytes - tm->metaspace - tm->overhead;
  }
  tm->network = Clamp(0.1 * static_cast<double>(tm->flink_bytes), 64 * kMi, 1024 * kMi);
  tm->managed = static_cast<int64_t>(0.4 * static_cast<double>(tm->flink_bytes));
  tm->task_heap = tm->flink_bytes - tm->framework_heap - tm->framework_off_heap - tm->task_off_heap - tm->network -
                  tm->managed;
  if (tm->task_heap <= 0) {
    return InvalidArgumentError("Flink configuration taskmanager.memory.process.size: " +
                                std::to_string(tm->process_bytes >> 20) +
                                "m leaves no task heap after metaspace, overhead, network and managed memory");
  }
  return Status::Ok();
}

Status ParseCheckpoints(const FlinkConfig& c, const FlinkVersion& v, CheckpointSettings* cp) {
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<Ms> interval, c.GetDuration("execution.checkpointing.interval"));
  cp->enabled = interval.has_value() && interval->count() > 0;
  if (interval) cp->interval = *interval;
  TRIMTAB_ASSIGN_OR_RETURN(cp->timeout, c.GetDuration("execution.checkpointing.timeout", cp->timeout));
  TRIMTAB_ASSIGN_OR_RETURN(cp->min_pause, c.GetDuration("execution.checkpointing.min-pause", cp->min_pause));
  TRIMTAB_ASSIGN_OR_RETURN(cp->max_concurrent, c.GetInt("execution.checkpointing.max-concurrent-checkpoints", 1));
  const std::string mode = Upper(c.GetString("execution.checkpointing.mode", "EXACTLY_ONCE"));
  if (mode != "EXACTLY_ONCE" && mode != "AT_LEAST_ONCE") {
    return InvalidArgumentError("Flink configuration execution.checkpointing.mode: \"" + mode +
                                "\" is not EXACTLY_ONCE or AT_LEAST_ONCE");
  }
  cp->exactly_once = mode == "EXACTLY_ONCE";
  for (const char* k : {"execution.checkpointing.unaligned.enabled", "execution.checkpointing.unaligned"}) {
    if (c.Has(k)) {
      TRIMTAB_ASSIGN_OR_RETURN(cp->unaligned, c.GetBool(k, false));
      break;
    }
  }
  // On by default since Flink 1.15; Flink 2.0 dropped the ".enabled" suffix of the 1.x key.
  cp->after_tasks_finish = v.AtLeast(1, 15);
  for (const char* k : {"execution.checkpointing.checkpoints-after-tasks-finish",
                        "execution.checkpointing.checkpoints-after-tasks-finish.enabled"}) {
    if (c.Has(k)) {
      TRIMTAB_ASSIGN_OR_RETURN(cp->after_tasks_finish, c.GetBool(k, cp->after_tasks_finish));
      break;
    }
  }
  TRIMTAB_ASSIGN_OR_RETURN(cp->tolerable_failures, c.GetInt("execution.checkpointing.tolerable-failed-checkpoints", 0));
  TRIMTAB_ASSIGN_OR_RETURN(cp->num_retained,
                           FirstInt(c, {"execution.checkpointing.num-retained", "state.checkpoints.num-retained"}, 1));
  if (cp->num_retained < 1) {
    return InvalidArgumentError("Flink configuration execution.checkpointing.num-retained: must be at least 1");
  }
  cp->retention = Upper(c.GetFirst({"execution.checkpointing.externalized-checkpoint-retention"})
                            .value_or("NO_EXTERNALIZED_CHECKPOINTS"));
  cp->dir = c.GetFirst({"execution.checkpointing.dir", "state.checkpoints.dir"}).value_or("");
  cp->savepoint_dir = c.GetFirst({"execution.checkpointing.savepoint-dir", "state.savepoints.dir"}).value_or("");
  cp->state_backend = Lower(c.GetFirst({"state.backend.type", "state.backend"}).value_or("hashmap"));
  cp->storage = Lower(c.GetFirst({"execution.checkpointing.storage", "state.checkpoint-storage"})
                          .value_or(cp->dir.empty() ? "jobmanager" : "filesystem"));
  return Status::Ok();
}

Status ParseRestart(const FlinkConfig& c, bool checkpointing, const FlinkVersion& v, RestartStrategySettings* r) {
  std::string type = Lower(c.GetFirst({"restart-strategy.type", "restart-strategy"}).value_or(""));
  if (type.empty()) {
    type = !checkpointing ? "none" : v.AtLeast(1, 19) ? "exponential-delay" : "fixed-delay";
    if (type == "fixed-delay" && !c.Has("restart-strategy.fixed-delay.attempts")) r->attempts = INT_MAX;
  }
  if (type == "none" || type == "off" || type == "disable") {
    r->type = RestartStrategyType::kNone;
    r->name = "NoRestartStrategy";
  } else if (type == "fixed-delay" || type == "fixeddelay") {
    r->type = RestartStrategyType::kFixedDelay;
    TRIMTAB_ASSIGN_OR_RETURN(r->attempts, c.GetInt("restart-strategy.fixed-delay.attempts", r->attempts));
    TRIMTAB_ASSIGN_OR_RETURN(r->delay, c.GetDuration("restart-strategy.fixed-delay.delay", r->delay));
    r->name = "FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=" + std::to_string(r->attempts) +
              ", backoffTimeMS=" + std::to_string(r->delay.count()) + ")";
  } else if (type == "exponential-delay" || type == "exponentialdelay") {
    r->type = RestartStrategyType::kExponentialDelay;
    const std::string p = "restart-strategy.exponential-delay.";
    TRIMTAB_ASSIGN_OR_RETURN(r->initial_backoff, c.GetDuration(p + "initial-backoff", r->initial_backoff));
    TRIMTAB_ASSIGN_OR_RETURN(r->max_backoff, c.GetDuration(p + "max-backoff", r->max_backoff));
    TRIMTAB_ASSIGN_OR_RETURN(r->multiplier, c.GetDouble(p + "backoff-multiplier", v.AtLeast(1, 19) ? 1.5 : 2.0));
    TRIMTAB_ASSIGN_OR_RETURN(r->reset_threshold, c.GetDuration(p + "reset-backoff-threshold", r->reset_threshold));
    TRIMTAB_ASSIGN_OR_RETURN(r->jitter, c.GetDouble(p + "jitter-factor", r->jitter));
    r->name = "ExponentialDelayRestartBackoffTimeStrategy";
  } else if (type == "failure-rate" || type == "failurerate") {
    r->type = RestartStrategyType::kFailureRate;
    const std::string p = "restart-strategy.failure-rate.";
    TRIMTAB_ASSIGN_OR_RETURN(r->max_failures_per_interval, c.GetInt(p + "max-failures-per-interval", 1));
    TRIMTAB_ASSIGN_OR_RETURN(r->failure_rate_interval, c.GetDuration(p + "failure-rate-interval", r->failure_rate_interval));
    TRIMTAB_ASSIGN_OR_RETURN(r->delay, c.GetDuration(p + "delay", r->delay));
    r->name = "FailureRateRestartBackoffTimeStrategy";
  } else {
    return InvalidArgumentError("Flink configuration restart-strategy.type: unknown strategy \"" + type +
                                "\" (none, fixed-delay, exponential-delay, failure-rate)");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::map<std::string, int>> ParseJobVertexOverrides(const std::string& text) {
  constexpr char kKey[] = "pipeline.jobvertex-parallelism-overrides";
  StatusOr<FlinkParallelismOverrides> parsed = ParseFlinkParallelismOverrides(kKey, text);
  if (!parsed.ok()) return InvalidArgumentError("Flink configuration " + parsed.status().message());
  std::map<std::string, int> out;
  for (const auto& [id, p] : *parsed) {
    if (!IsHexId(id)) {
      return InvalidArgumentError(std::string("Flink configuration ") + kKey + ": \"" + id +
                                  "\" is not a job vertex id (32 hex digits)");
    }
    // The JobManager keys vertices by lower-case id: "AB..:1,ab..:2" names one vertex twice.
    if (!out.emplace(Lower(id), p).second) {
      return InvalidArgumentError(std::string("Flink configuration ") + kKey + ": vertex \"" +
                                  id + "\" is given twice (vertex ids ignore case)");
    }
  }
  return out;
}

StatusOr<ClusterSettings> ClusterSettings::Parse(const FlinkConfig& c, const Defaults& defaults) {
  ClusterSettings s;
  s.version = defaults.version.value_or(FlinkVersion{});
  s.cluster_id = c.GetString("kubernetes.cluster-id", defaults.cluster_id);
  s.namespace_name = c.GetString("kubernetes.namespace", defaults.namespace_name);
  if (defaults.mode) {
    s.mode = *defaults.mode;
  } else {
    const std::string target = Lower(c.GetString("execution.target", "kubernetes-application"));
    s.mode = target.find("session") != std::string::npos || target == "remote" ? DeploymentMode::kSession
                                                                                : DeploymentMode::kApplication;
  }
  s.job_id = Lower(c.GetString("$internal.pipeline.job-id", ""));
  if (!s.job_id.empty() && !IsHexId(s.job_id)) {
    return InvalidArgumentError("Flink configuration $internal.pipeline.job-id: \"" + s.job_id +
                                "\" is not a 32-character hex JobID");
  }
  s.pipeline_name = c.GetString("pipeline.name", "");
  const std::string jars = c.GetString("pipeline.jars", "");
  s.jar = jars.substr(0, jars.find(';'));
  s.entry_class = c.GetString("$internal.application.main", "");
  s.program_args = c.GetString("$internal.application.program-args", "");
  TRIMTAB_ASSIGN_OR_RETURN(int64_t p, c.GetInt("parallelism.default", 1));
  if (p < 1) return InvalidArgumentError("Flink configuration parallelism.default: must be at least 1");
  s.default_parallelism = static_cast<int>(p);
  TRIMTAB_ASSIGN_OR_RETURN(int64_t maxp, c.GetInt("pipeline.max-parallelism", -1));
  if (maxp != -1 && (maxp < 1 || maxp > 32768)) {
    return InvalidArgumentError("Flink configuration pipeline.max-parallelism: must be -1 or in [1, 32768]");
  }
  s.max_parallelism = static_cast<int>(maxp);
  TRIMTAB_ASSIGN_OR_RETURN(s.vertex_parallelism_overrides,
                           ParseJobVertexOverrides(c.GetString("pipeline.jobvertex-parallelism-overrides", "")));

  const std::string scheduler = Lower(c.GetString("jobmanager.scheduler", "default"));
  if (scheduler != "default" && scheduler != "adaptive" && scheduler != "adaptivebatch") {
    return InvalidArgumentError("Flink configuration jobmanager.scheduler: unknown scheduler \"" + scheduler +
                                "\" (default, adaptive)");
  }
  s.reactive = Lower(c.GetString("scheduler-mode", "")) == "reactive";
  s.scheduler = scheduler == "adaptive" || s.reactive ? SchedulerType::kAdaptive : SchedulerType::kDefault;
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<Ms> cooldown,
                           FirstDuration(c, {"jobmanager.adaptive-scheduler.executing.cooldown-after-rescaling",
                                             "jobmanager.adaptive-scheduler.scaling-interval.min"}));
  if (cooldown) s.rescale_cooldown = *cooldown;
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<Ms> wait,
                           FirstDuration(c, {"jobmanager.adaptive-scheduler.submission.resource-wait-timeout",
                                             "jobmanager.adaptive-scheduler.resource-wait-timeout"}));
  if (wait) s.resource_wait_timeout = *wait;
  TRIMTAB_ASSIGN_OR_RETURN(s.resource_stabilization_timeout,
                           c.GetDuration("jobmanager.adaptive-scheduler.resource-stabilization-timeout",
                                         s.resource_stabilization_timeout));
  TRIMTAB_RETURN_IF_ERROR(ParseTaskManager(c, &s.task_manager));
  TRIMTAB_ASSIGN_OR_RETURN(s.task_manager_idle_timeout,
                           c.GetDuration("resourcemanager.taskmanager-timeout", s.task_manager_idle_timeout));

  s.savepoint_path = c.GetFirst({"execution.state-recovery.path", "execution.savepoint.path"}).value_or("");
  for (const char* k : {"execution.state-recovery.ignore-unclaimed-state", "execution.savepoint.ignore-unclaimed-state"}) {
    if (c.Has(k)) {
      TRIMTAB_ASSIGN_OR_RETURN(s.allow_non_restored_state, c.GetBool(k, false));
      break;
    }
  }
  s.claim_mode = Upper(c.GetFirst({"execution.state-recovery.claim-mode", "execution.savepoint-restore-mode"})
                           .value_or("NO_CLAIM"));
  if (s.claim_mode != "CLAIM" && s.claim_mode != "NO_CLAIM" && s.claim_mode != "LEGACY") {
    return InvalidArgumentError("Flink configuration execution.savepoint-restore-mode: \"" + s.claim_mode +
                                "\" is not CLAIM, NO_CLAIM or LEGACY");
  }

  const std::string ha = Lower(c.GetFirst({"high-availability.type", "high-availability"}).value_or("none"));
  s.ha_enabled = ha == "kubernetes" || ha.find("kuberneteshaservicesfactory") != std::string::npos;
  if (!s.ha_enabled && ha != "none" && ha != "zookeeper" && !ha.empty()) {
    return InvalidArgumentError("Flink configuration high-availability.type: \"" + ha +
                                "\" is not supported here (none, kubernetes)");
  }
  s.ha_storage_dir = c.GetString("high-availability.storageDir", "");
  if (s.ha_enabled && s.ha_storage_dir.empty()) {
    return InvalidArgumentError(
        "Flink configuration high-availability.storageDir: required when high availability is enabled");
  }
  s.job_result_store_path = c.GetString("job-result-store.storage-path", "");
  if (s.job_result_store_path.empty() && s.ha_enabled) {
    std::string dir = s.ha_storage_dir;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    s.job_result_store_path = dir + "/job-result-store/" + s.cluster_id;
  }
  TRIMTAB_ASSIGN_OR_RETURN(s.job_result_store_delete_on_commit,
                           c.GetBool("job-result-store.delete-on-commit", true));

  TRIMTAB_ASSIGN_OR_RETURN(s.shutdown_on_application_finish,
                           c.GetBool("execution.shutdown-on-application-finish", true));
  TRIMTAB_RETURN_IF_ERROR(ParseCheckpoints(c, s.version, &s.checkpoints));
  TRIMTAB_RETURN_IF_ERROR(ParseRestart(c, s.checkpoints.enabled, s.version, &s.restart));

  TRIMTAB_ASSIGN_OR_RETURN(int64_t port, c.GetInt("rest.port", 8081));
  if (port < 0 || port > 65535) return InvalidArgumentError("Flink configuration rest.port: out of range");
  s.rest_port = static_cast<int>(port);
  TRIMTAB_ASSIGN_OR_RETURN(s.async_store_duration, c.GetDuration("rest.async.store-duration", s.async_store_duration));
  TRIMTAB_ASSIGN_OR_RETURN(s.metric_fetch_interval,
                           c.GetDuration("metrics.fetcher.update-interval", s.metric_fetch_interval));
  TRIMTAB_ASSIGN_OR_RETURN(int64_t history, c.GetInt("web.checkpoints.history", 10));
  s.checkpoint_history = static_cast<int>(std::max<int64_t>(1, history));
  TRIMTAB_ASSIGN_OR_RETURN(s.web_refresh_interval, c.GetDuration("web.refresh-interval", s.web_refresh_interval));
  TRIMTAB_ASSIGN_OR_RETURN(s.web_submit, c.GetBool("web.submit.enable", true));
  TRIMTAB_ASSIGN_OR_RETURN(s.web_cancel, c.GetBool("web.cancel.enable", true));
  TRIMTAB_ASSIGN_OR_RETURN(s.web_rescale, c.GetBool("web.rescale.enable", false));
  s.upload_dir = c.GetString("web.upload.dir", "/tmp");
  return s;
}

}  // namespace trimtab::sim::flink
