// The operator's own options (`kubernetes.operator.*`, notes flink-autoscaler-and-operator.md
// §B.16) resolved for one resource, and the Flink configuration layering upstream applies:
//
//   operator defaults (OperatorOptions::default_configuration, e.g. a config.yaml)
//   -> keys under kubernetes.operator.default-configuration.namespace.<ns>.
//   -> keys under kubernetes.operator.default-configuration.flink-version.<v>. and <v>+ (ascending)
//   -> spec.flinkConfiguration
//
// Every option has upstream's default. Values that do not parse are errors naming the key; the
// validator reports them like any other spec error.
//
// Usage:
//   api::FlinkConfiguration conf = EffectiveConfig(defaults, "ns", FlinkVersion::kV1_20, spec_conf);
//   TRIMTAB_ASSIGN_OR_RETURN(OperatorConfig oc, ParseOperatorConfig(conf));
//   queue.AddAfter(key, oc.reconcile_interval);
//
// Thread-safety: values and pure functions.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "api/flink_enums.h"
#include "api/flink_spec.h"
#include "common/clock.h"
#include "common/status.h"

namespace trimtab::op {

using Millis = std::chrono::milliseconds;

// Flink keys the operator reads or writes (new names first, legacy aliases second).
namespace flink_keys {
inline constexpr char kCheckpointDir[] = "execution.checkpointing.dir";
inline constexpr char kCheckpointDirLegacy[] = "state.checkpoints.dir";
inline constexpr char kSavepointDir[] = "execution.checkpointing.savepoint-dir";
inline constexpr char kSavepointDirLegacy[] = "state.savepoints.dir";
inline constexpr char kHaType[] = "high-availability.type";
inline constexpr char kHaTypeLegacy[] = "high-availability";
inline constexpr char kHaStorageDir[] = "high-availability.storageDir";
inline constexpr char kHaClusterId[] = "high-availability.cluster-id";
inline constexpr char kClusterId[] = "kubernetes.cluster-id";
inline constexpr char kNamespace[] = "kubernetes.namespace";
inline constexpr char kJobId[] = "$internal.pipeline.job-id";
inline constexpr char kSavepointPath[] = "execution.savepoint.path";
inline constexpr char kIgnoreUnclaimedState[] = "execution.savepoint.ignore-unclaimed-state";
inline constexpr char kParallelismDefault[] = "parallelism.default";
inline constexpr char kParallelismOverrides[] = "pipeline.jobvertex-parallelism-overrides";
inline constexpr char kTaskSlots[] = "taskmanager.numberOfTaskSlots";
inline constexpr char kScheduler[] = "jobmanager.scheduler";
inline constexpr char kCheckpointInterval[] = "execution.checkpointing.interval";
inline constexpr char kCheckpointTimeout[] = "execution.checkpointing.timeout";
inline constexpr char kCheckpointsRetained[] = "state.checkpoints.num-retained";
inline constexpr char kJobResultStorePath[] = "job-result-store.storage-path";
inline constexpr char kJobResultStoreDeleteOnCommit[] = "job-result-store.delete-on-commit";
}  // namespace flink_keys

// The last-state restore marker (upstream's dummy savepoint path).
inline constexpr char kLastStateDummyPath[] = "KUBERNETES_OPERATOR_LAST_STATE";

struct OperatorConfig {
  Millis reconcile_interval{60'000};
  Millis progress_check_interval{10'000};
  Millis rest_ready_delay{10'000};
  Millis savepoint_trigger_grace_period{60'000};
  Millis checkpoint_trigger_grace_period{60'000};
  Millis flink_client_timeout{10'000};
  Millis flink_cancel_timeout{60'000};
  Millis resource_cleanup_timeout{5 * 60'000};
  bool rollback_enabled = false;
  Millis readiness_timeout{5 * 60'000};
  bool ignore_pending_savepoint = false;
  bool inplace_scaling_enabled = true;
  bool last_state_fallback_enabled = true;
  std::optional<Millis> last_state_max_checkpoint_age;
  bool last_state_job_cancel_enabled = false;
  bool jm_recovery_enabled = true;
  Millis jm_shutdown_ttl{24 * 3600'000};
  bool savepoint_dispose_on_delete = false;
  api::SavepointFormatType savepoint_format = api::SavepointFormatType::kCanonical;
  api::CheckpointType checkpoint_type = api::CheckpointType::kFull;
  bool savepoint_cleanup_enabled = true;
  int64_t savepoint_history_max_count = 10;
  std::optional<int64_t> savepoint_history_max_count_threshold;
  Millis savepoint_history_max_age{24 * 3600'000};
  std::optional<Millis> savepoint_history_max_age_threshold;
  std::optional<Millis> periodic_savepoint_interval;   // Duration form only
  std::optional<Millis> periodic_checkpoint_interval;  // Duration form only
  bool job_restart_failed = false;
  std::string deletion_propagation = "Foreground";
  bool savepoint_on_deletion = false;
  bool drain_on_savepoint_deletion = false;
  bool session_block_on_session_jobs = true;
  bool session_block_on_unmanaged_jobs = true;
  bool health_check_enabled = false;
  int64_t exceptions_limit_per_reconciliation = 10;
  int64_t exceptions_stacktrace_lines = 5;

  // Savepoint history limits as upstream combines them (count at least 1).
  int64_t EffectiveSavepointMaxCount() const;
  Millis EffectiveSavepointMaxAge() const;
};

// Parses every kubernetes.operator.* option above (missing keys keep the default).
StatusOr<OperatorConfig> ParseOperatorConfig(const api::FlinkConfiguration& conf);

// Operator defaults -> namespace -> version layers (the spec is not applied).
api::FlinkConfiguration DefaultConfigFor(const api::FlinkConfiguration& operator_defaults,
                                         std::string_view namespace_name,
                                         std::optional<api::FlinkVersion> version);
// DefaultConfigFor(...) overlaid with the spec's flinkConfiguration.
api::FlinkConfiguration EffectiveConfig(const api::FlinkConfiguration& operator_defaults,
                                        std::string_view namespace_name,
                                        std::optional<api::FlinkVersion> version,
                                        const api::FlinkConfiguration& spec_config);

// Value of the first key present ("" when none).
std::string FirstOf(const api::FlinkConfiguration& conf, std::string_view key,
                    std::string_view legacy_key);
std::string CheckpointDir(const api::FlinkConfiguration& conf);
std::string SavepointDir(const api::FlinkConfiguration& conf);
// high-availability.type (or the legacy key) names an HA service other than NONE.
bool IsHaEnabled(const api::FlinkConfiguration& conf);
// The HA service is Kubernetes ("kubernetes" or its factory class name).
bool IsKubernetesHaEnabled(const api::FlinkConfiguration& conf);
// A boolean option; `fallback` when absent or unparsable.
bool ConfigBool(const api::FlinkConfiguration& conf, std::string_view key, bool fallback);

}  // namespace trimtab::op
