// Builders of the Kubernetes objects of one native Flink cluster, exactly as
// docs/design/flink-pods.md specifies them (the contract with the simulated JobManager):
//
//   ConfigMap  flink-config-<name>   config.yaml / flink-conf.yaml, log4j-console.properties
//                                    (and taskmanager-pod-template.yaml when a TM template exists)
//   Deployment <name>                the JobManager: labels app/component=jobmanager/type,
//                                    annotation flinkdeployment.flink.apache.org/generation, owner
//                                    = the FlinkDeployment (controller false, blockOwnerDeletion
//                                    true), strategy Recreate, container flink-main-container
//   Service    <name>                headless, 6123 jobmanager-rpc, 6124 blobserver
//   Service    <name>-rest           ClusterIP, 8081 rest
//   Deployment <name>-taskmanager    standalone mode only (upstream StandaloneKubernetesUtils):
//                                    labels app/component=taskmanager/
//                                    type=flink-standalone-kubernetes, replicas
//                                    kubernetes.internal.taskmanager.replicas, container
//                                    flink-main-container running `taskmanager`; the JobManager
//                                    then runs `standalone-job` (application) or `jobmanager`
//                                    (session) and starts no TaskManager pods itself
//
// The ConfigMap, both Services and the TaskManager Deployment are owned by the JobManager Deployment (set once its uid is
// known: WithDeploymentOwner). spec.podTemplate is the base, jobManager.podTemplate /
// taskManager.podTemplate are merged over it (objects recursively, lists of named items by name):
// UserPodTemplates. The step decorators (decorators/decorator_chain.h) may change both templates
// before the objects are built and add objects of their own (`pre_creation`, created before the
// Deployment, e.g. a PodGroup; `accompanying`, created after it), all owned by the Deployment.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(ClusterObjects objs, BuildClusterObjects(fd.metadata, spec, conf));
//   created = Create(objs.deployment); WithDeploymentOwner(&objs, created uid); create the rest.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <vector>

#include "api/flink_resources.h"
#include "common/status.h"
#include "operator/decorators/step_decorator.h"

namespace trimtab::op {

inline constexpr char kGenerationAnnotation[] = "flinkdeployment.flink.apache.org/generation";
inline constexpr char kMainContainer[] = "flink-main-container";
inline constexpr char kNativeType[] = "flink-native-kubernetes";
inline constexpr char kStandaloneType[] = "flink-standalone-kubernetes";

struct ClusterObjects {
  Json config_map;
  Json deployment;
  Json internal_service;
  Json rest_service;
  Json task_manager_deployment;  // standalone mode only (null otherwise)
  std::vector<decorators::KubeObject> pre_creation;  // created before the Deployment
  std::vector<decorators::KubeObject> accompanying;  // created after it
};

// The pod templates of a cluster before the operator adds its own parts: spec.podTemplate with
// jobManager.podTemplate / taskManager.podTemplate merged over it (JSON objects, {} when none).
struct PodTemplates {
  Json job_manager;
  Json task_manager;
};
PodTemplates UserPodTemplates(const api::FlinkDeploymentSpec& spec);

// `conf` is the deploy configuration (flink_config_builder.h). The generation annotation is
// meta.generation(). The first form uses UserPodTemplates(spec); the second the given (decorated)
// templates. A non-empty TaskManager template becomes taskmanager-pod-template.yaml in the
// ConfigMap and kubernetes.pod-template-file.taskmanager in the configuration.
StatusOr<ClusterObjects> BuildClusterObjects(const api::ObjectMeta& meta,
                                             const api::FlinkDeploymentSpec& spec,
                                             const api::FlinkConfiguration& conf);
StatusOr<ClusterObjects> BuildClusterObjects(const api::ObjectMeta& meta,
                                             const api::FlinkDeploymentSpec& spec,
                                             const api::FlinkConfiguration& conf,
                                             const PodTemplates& templates);

// What the main container of a JobManager ("jobmanager") or TaskManager ("taskmanager") pod
// requests, from the deploy configuration (kubernetes.<component>.cpu,
// <component>.memory.process.size), exactly as the container's resources.requests say.
decorators::PodRequests ContainerRequests(const api::FlinkConfiguration& conf,
                                          const std::string& component);

// Sets the owner reference of the ConfigMap and the Services to the created JobManager Deployment.
void WithDeploymentOwner(ClusterObjects* objects, const std::string& deployment_name,
                         const std::string& deployment_uid);

// metadata.ownerReferences entry.
Json OwnerReference(const std::string& api_version, const std::string& kind,
                    const std::string& name, const std::string& uid, bool controller,
                    bool block_owner_deletion);

// Merges `override` over `base` (objects recursively; arrays whose items all have a "name" are
// merged by name, other arrays are replaced).
Json MergePodTemplates(const Json& base, const Json& override);

// Labels of the cluster's pods: app=<name>, component=<component>, type=flink-native-kubernetes.
Json ClusterLabels(const std::string& name, const std::string& component);

// Standalone mode: the TaskManager Deployment's name (<cluster-id>-taskmanager) and its pods'
// labels (app=<name>, component=taskmanager, type=flink-standalone-kubernetes).
std::string TaskManagerDeploymentName(const std::string& cluster_id);
Json StandaloneTaskManagerLabels(const std::string& name);

// Service names.
std::string RestServiceName(const std::string& cluster_id);
std::string ConfigMapName(const std::string& cluster_id);

}  // namespace trimtab::op
