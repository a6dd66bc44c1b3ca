// Spec types of FlinkDeployment and FlinkSessionJob (flink.apache.org/v1beta1) and their JSON
// codecs (notes flink-autoscaler-and-operator.md §A.1-A.4).
//
// Decoding follows upstream: unknown fields are ignored, wrong types and unknown enum values are
// errors naming the field path ("spec.job.upgradeMode: Unsupported value: ..."). Encoding is
// stable (sorted keys, absent optionals omitted), so encoding the same spec twice gives the same
// bytes; lastReconciledSpec comparisons rely on that.
//
// flinkConfiguration is kept flattened: nested YAML ({"state": {"savepoints.dir": "x"}}) becomes
// "state.savepoints.dir" -> "x"; scalars become their text ("2", "true", "0.1"); arrays become
// ";"-joined strings. Pod templates and k8s ResourceRequirements are kept as raw JSON.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(FlinkDeploymentSpec spec, DecodeFlinkDeploymentSpec(json, "spec"));
//   Json back = EncodeFlinkDeploymentSpec(spec);
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/flink_enums.h"
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::api {

// Flattened Flink configuration: key -> value text.
using FlinkConfiguration = std::map<std::string, std::string>;

// Flattens a flinkConfiguration object (see header comment). `path` names it in errors.
StatusOr<FlinkConfiguration> FlattenFlinkConfiguration(const Json& value, const std::string& path);

struct JobSpec {
  std::string jar_uri;                        // jarURI
  std::optional<int64_t> parallelism;         // parallelism
  std::string entry_class;                    // entryClass ("" = absent)
  std::vector<std::string> args;              // args (default [])
  JobState state = JobState::kRunning;        // state
  std::optional<int64_t> savepoint_trigger_nonce;
  std::string initial_savepoint_path;         // initialSavepointPath ("" = absent)
  std::optional<int64_t> checkpoint_trigger_nonce;
  UpgradeMode upgrade_mode = UpgradeMode::kStateless;
  std::optional<bool> allow_non_restored_state;
  std::optional<int64_t> savepoint_redeploy_nonce;
  std::optional<int64_t> autoscaler_reset_nonce;

  friend bool operator==(const JobSpec&, const JobSpec&) = default;
};

// Deprecated `resource` block of jobManager/taskManager.
struct Resource {
  std::optional<double> cpu;
  std::string memory;             // e.g. "2048m", "2g"
  std::string ephemeral_storage;  // ephemeralStorage
  friend bool operator==(const Resource&, const Resource&) = default;
};

struct JobManagerSpec {
  std::optional<Resource> resource;
  Json resources;  // k8s ResourceRequirements (null = absent)
  int64_t replicas = 1;
  Json pod_template;  // null = absent
  friend bool operator==(const JobManagerSpec&, const JobManagerSpec&) = default;
};

struct TaskManagerSpec {
  std::optional<Resource> resource;
  Json resources;
  std::optional<int64_t> replicas;
  Json pod_template;
  friend bool operator==(const TaskManagerSpec&, const TaskManagerSpec&) = default;
};

struct IngressSpec {
  std::string template_;  // template
  std::string class_name;
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> labels;
  Json tls;  // []IngressTLS (null = absent)
  friend bool operator==(const IngressSpec&, const IngressSpec&) = default;
};

struct FlinkDeploymentSpec {
  std::optional<JobSpec> job;  // absent: session cluster
  std::optional<int64_t> restart_nonce;
  FlinkConfiguration flink_configuration;
  std::string image;
  std::string image_pull_policy;
  std::string service_account;
  std::optional<FlinkVersion> flink_version;
  std::optional<IngressSpec> ingress;
  Json pod_template;  // null = absent
  std::optional<JobManagerSpec> job_manager;
  std::optional<TaskManagerSpec> task_manager;
  std::map<std::string, std::string> log_configuration;
  std::optional<DeploymentMode> mode;  // absent = native

  DeploymentMode EffectiveMode() const { return mode.value_or(DeploymentMode::kNative); }
  friend bool operator==(const FlinkDeploymentSpec&, const FlinkDeploymentSpec&) = default;
};

struct FlinkSessionJobSpec {
  std::optional<JobSpec> job;
  std::optional<int64_t> restart_nonce;
  FlinkConfiguration flink_configuration;
  std::string deployment_name;
  friend bool operator==(const FlinkSessionJobSpec&, const FlinkSessionJobSpec&) = default;
};

StatusOr<JobSpec> DecodeJobSpec(const Json& json, const std::string& path);
StatusOr<FlinkDeploymentSpec> DecodeFlinkDeploymentSpec(const Json& json, const std::string& path);
StatusOr<FlinkSessionJobSpec> DecodeFlinkSessionJobSpec(const Json& json, const std::string& path);

Json EncodeJobSpec(const JobSpec& spec);
Json EncodeFlinkDeploymentSpec(const FlinkDeploymentSpec& spec);
Json EncodeFlinkSessionJobSpec(const FlinkSessionJobSpec& spec);

}  // namespace trimtab::api
