// The step decorators applied to one Flink cluster (decorators/decorator_chain.h): what the
// operator hands the chain and what it takes back. Pure; the controllers do the I/O
// (cluster_client.h creates, owns and refreshes the objects; the TaskManager pods are counted
// by the caller).
//
//   context       cluster id and namespace, application or session, JobManager replicas, what
//                 one JobManager / TaskManager container requests (jm_resources.h
//                 ContainerRequests of the deploy configuration), the desired TaskManagers
//                 (DesiredTaskManagers) and the TaskManager pods that exist
//   templates     UserPodTemplates(spec), decorated
//   objects       pre-created and accompanying objects, labelled app=<id>,
//                 type=flink-native-kubernetes and app.kubernetes.io/managed-by=trimtab-operator
//                 (the mark of what the operator created and may replace)
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(PodDecoration d, DecoratePods(registry, meta, spec, deploy_conf,
//                                                          effective_conf, existing_tms));
//   TRIMTAB_ASSIGN_OR_RETURN(ClusterObjects objs, BuildClusterObjects(meta, spec, deploy_conf, d.templates));
//   objs.pre_creation = d.pre_creation;
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/flink_resources.h"
#include "common/status.h"
#include "operator/decorators/decorator_chain.h"
#include "operator/decisions/jm_resources.h"

namespace trimtab::op {

inline constexpr char kManagedByLabel[] = "app.kubernetes.io/managed-by";
inline constexpr char kManagedByOperator[] = "trimtab-operator";

struct PodDecoration {
  PodTemplates templates;
  std::vector<decorators::KubeObject> pre_creation;
  std::vector<decorators::KubeObject> accompanying;
  std::vector<decorators::ObjectReference> references;
  std::vector<std::string> undecorated_schedulers;  // scheduler names without a decorator
  std::optional<std::string> volcano_queue;         // the TaskManagers' Volcano queue, if any
  std::string chain;                                // DecoratorChain::Describe()
};

// TaskManagers the cluster is meant to run: application clusters ceil(slots / slots per
// TaskManager), where slots = the largest vertex parallelism (slot sharing): the largest
// pipeline.jobvertex-parallelism-overrides value when the autoscaler wrote them (it writes every
// vertex), else the larger of the job parallelism and any override. Session clusters:
// taskManager.replicas when set, else the TaskManagers that exist (`existing`).
int DesiredTaskManagers(const api::FlinkDeploymentSpec& spec, const api::FlinkConfiguration& conf,
                        int existing);

// Runs the chain of the cluster. `deploy_conf` is the deploy configuration (BuildDeployConfig),
// `effective_conf` the effective one (with kubernetes.operator.* keys: the decorator map).
// Errors name the key and field (and the decorator).
StatusOr<PodDecoration> DecoratePods(const decorators::DecoratorRegistry& registry,
                                     const api::ObjectMeta& meta,
                                     const api::FlinkDeploymentSpec& spec,
                                     const api::FlinkConfiguration& deploy_conf,
                                     const api::FlinkConfiguration& effective_conf,
                                     int existing_task_managers, int placed_task_managers);

}  // namespace trimtab::op
