// The Flink configuration the operator deploys for a FlinkDeployment (upstream FlinkConfigBuilder
// and ApplicationReconciler.deploy, notes §B.8), and the config file text of the
// `flink-config-<name>` ConfigMap (docs/design/flink-pods.md).
//
// BuildDeployConfig starts from the effective configuration (operator defaults, namespace and
// version layers, spec.flinkConfiguration) and adds, in this order:
//   identity      kubernetes.cluster-id = name, kubernetes.namespace, execution.target
//                 (standalone mode: remote, and kubernetes.internal.cluster-mode APPLICATION /
//                 SESSION), high-availability.cluster-id = name when HA is on,
//                 $internal.flink.version
//   pods          image, pull policy, service account, JobManager replicas, process memory and
//                 cpu (+ limit factors) from jobManager/taskManager resources;
//                 kubernetes.internal.taskmanager.replicas = taskManager.replicas when set, else
//                 (standalone application) ceil(parallelism / slots): the size of the
//                 standalone TaskManager Deployment
//   job           pipeline.jars, $internal.application.main / program-args, parallelism.default
//                 (taskManager.replicas x slots when replicas are set), pipeline.name
//   defaults      execution.checkpointing.interval 5 min for last-state when unset, externalized
//                 checkpoints RETAIN_ON_CANCELLATION, shutdown-on-application-finish false,
//                 submit-failed-job-on-application-error true, web.cancel.enable false,
//                 kubernetes.rest-service.exposed.type ClusterIP
//   per deploy    $internal.pipeline.job-id, execution.savepoint.path (restore) or none,
//                 execution.savepoint.ignore-unclaimed-state, job result store under
//                 <ha storage>/job-result-store/<cluster-id>/<uuid> when HA storage is set
//   stripped      kubernetes.operator.* and job.autoscaler.* (operator-only keys)
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(api::FlinkConfiguration conf,
//       BuildDeployConfig(meta, spec, effective, {.job_id = id, .restore_path = path}));
//   std::string text = RenderConfigFile(conf, UsesConfigYaml(*spec.flink_version));
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <set>
#include <string>

#include "api/flink_resources.h"
#include "common/status.h"

namespace trimtab::op {

// Upstream StandaloneKubernetesConfigOptionsInternal keys.
inline constexpr char kStandaloneTaskManagerReplicas[] = "kubernetes.internal.taskmanager.replicas";
inline constexpr char kStandaloneClusterMode[] = "kubernetes.internal.cluster-mode";

struct DeployParams {
  std::string job_id;         // 32 hex; "" for session clusters
  std::string restore_path;   // "" = start without state
  std::string job_result_store_id;  // random id of this deploy's job result store directory
};

StatusOr<api::FlinkConfiguration> BuildDeployConfig(const api::ObjectMeta& meta,
                                                    const api::FlinkDeploymentSpec& spec,
                                                    const api::FlinkConfiguration& effective,
                                                    const DeployParams& params);

// Removes kubernetes.operator.* and job.autoscaler.* keys.
void StripOperatorKeys(api::FlinkConfiguration* conf);

// parallelism of the job: taskManager.replicas x slots when replicas are set, else
// job.parallelism (0 when neither).
int64_t JobParallelism(const api::FlinkDeploymentSpec& spec, const api::FlinkConfiguration& conf);
// Task slots per TaskManager (taskmanager.numberOfTaskSlots, default 1).
int64_t TaskSlots(const api::FlinkConfiguration& conf);
// The TaskManager count of a standalone cluster: taskManager.replicas when set (> 0), else
// kubernetes.internal.taskmanager.replicas of `conf`, else ceil(parallelism / slots) for an
// application and 1 for a session cluster (upstream FlinkConfigBuilder.applyTaskManagerSpec).
int64_t StandaloneTaskManagerReplicas(const api::FlinkDeploymentSpec& spec,
                                      const api::FlinkConfiguration& conf);


// True for Flink >= 1.19 (config.yaml), false before (flink-conf.yaml).
bool UsesConfigYaml(api::FlinkVersion version);
// The ConfigMap key of the config file: "config.yaml" or "flink-conf.yaml".
std::string ConfigFileName(api::FlinkVersion version);
// Flat `key: value` lines sorted by key; config.yaml values are single-quoted YAML strings,
// flink-conf.yaml values are written verbatim (Flink's legacy parser takes them as they are).
std::string RenderConfigFile(const api::FlinkConfiguration& conf, bool config_yaml);

// A random 32-hex Flink JobID / 32-hex id for directories.
std::string RandomHexId();

}  // namespace trimtab::op
