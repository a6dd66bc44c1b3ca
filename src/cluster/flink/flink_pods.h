// How the simulated JobManager reads the pods of docs/design/flink-pods.md and writes the
// TaskManager pods Flink's native Kubernetes resource manager creates. Pure functions over pod
// JSON, so they are testable without an API server.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "cluster/flink/cluster_settings.h"

namespace trimtab::sim::flink {

// A TaskManager pod: label component=taskmanager, or a token of its main container's command or
// args that contains `taskmanager.sh` or is `taskmanager` (checked before the JobManager rules:
// TaskManager args carry -Djobmanager.* options, which is why whole tokens are compared).
bool IsTaskManagerPod(const Json& pod);
// A JobManager pod: label component=jobmanager, or a token that contains `jobmanager.sh`
// (kubernetes-jobmanager.sh) or `standalone-job`, or is `jobmanager` (docker entrypoint).
bool IsJobManagerPod(const Json& pod);

// The container named flink-main-container, else the first one (nullptr when none).
const Json* MainContainer(const Json& pod);
// command + args of a container.
std::vector<std::string> ContainerArgs(const Json& container);
// The value of env var `name` of a container ("" when absent or not a literal value).
std::string ContainerEnv(const Json& container, const std::string& name);
// kubernetes-application / standalone-job -> application, kubernetes-session -> session.
std::optional<DeploymentMode> ModeFromArgs(const std::vector<std::string>& args);
// Whether a JobManager runs Flink's standalone entrypoint (a token containing `standalone-job`,
// or the docker entrypoint's `jobmanager`) rather than the native Kubernetes one
// (`kubernetes-jobmanager.sh`): its resource manager then starts no TaskManager pods; the
// TaskManagers are whatever pods labelled app=<cluster-id>,component=taskmanager run (the
// TaskManager Deployment of the operator's standalone mode).
bool IsStandaloneEntrypoint(const std::vector<std::string>& args);
// The ConfigMap mounted at /opt/flink/conf (or the FLINK_CONF_DIR env) in `container`, else the
// first ConfigMap volume holding a Flink configuration by name (flink-config-*); "" when none.
std::string ConfigMapForConfDir(const Json& pod, const Json& container);

// "<cluster-id>-taskmanager-<attempt>-<index>" and its parse (nullopt when `name` is not one).
std::string TaskManagerPodName(const std::string& cluster_id, int attempt, int index);
std::optional<std::pair<int, int>> ParseTaskManagerPodName(const std::string& cluster_id, const std::string& name);

// The ConfigMap file behind `path` in `container` of `pod`: the configMap volume mounted at the
// path's directory (or at the path itself with subPath) and the key the file comes from (the
// file name, or the key of the volume's items[] entry whose path it is). nullopt when `path` is
// not on a ConfigMap volume.
struct ConfigMapFile {
  std::string config_map;
  std::string key;
};
std::optional<ConfigMapFile> ConfigMapFileForPath(const Json& pod, const Json& container,
                                                  const std::string& path);

// The TaskManager pod template file of a Flink configuration: kubernetes.pod-template-file.taskmanager,
// else kubernetes.pod-template-file.default, else the deprecated kubernetes.pod-template-file.
inline const std::vector<std::string>& TaskManagerPodTemplateKeys() {
  static const std::vector<std::string> keys = {"kubernetes.pod-template-file.taskmanager",
                                                "kubernetes.pod-template-file.default",
                                                "kubernetes.pod-template-file"};
  return keys;
}

struct TaskManagerPodSpec {
  std::string name;
  std::string namespace_name;
  std::string cluster_id;
  std::string image;
  std::string config_map;       // the Flink configuration ConfigMap to mount ("" = none)
  std::string service_account;  // "" = default
  Json owner;                   // ownerReference (the JobManager Deployment), null = none
  const TaskManagerSettings* shape = nullptr;
  // The TaskManager pod template (a Pod, as kubernetes.pod-template-file.taskmanager holds it);
  // null = none.
  Json pod_template;
  // Whether the Flink configuration sets the image (kubernetes.container.image[.ref]) or the
  // service account (kubernetes.taskmanager.service-account, kubernetes.service-account)
  // explicitly: Flink's value then wins over the template's.
  bool image_configured = false;
  bool service_account_configured = false;
};
// The pod Flink's KubernetesResourceManagerDriver would create (labels app, component,
// type; owner reference; resources from taskmanager.memory.process.size and
// kubernetes.taskmanager.cpu; args `kubernetes-taskmanager.sh -Dtaskmanager.resource-id=<name>`).
//
// With a pod template, the template is the starting point and Flink's settings go on top as
// Flink's InitTaskManagerDecorator puts them:
//  - overwritten: metadata.name/namespace/ownerReferences, spec.restartPolicy (Never), the main
//    container's name (flink-main-container), command/args, and its cpu/memory requests and
//    limits (other resources stay); image and service account: the explicitly configured value,
//    else the template's, else Flink's default;
//  - merged: labels and annotations (Flink's keys win), volumes and the main container's
//    volumeMounts, ports and env (Flink's appended after the template's);
//  - kept as the template has them: everything else (schedulerName, priorityClassName,
//    nodeSelector, tolerations, affinity, other containers and init containers...).
// The main container is the template's container named flink-main-container (none = an empty
// one); it comes after the template's other containers.
Json TaskManagerPod(const TaskManagerPodSpec& spec);

// Kubernetes quantity text for CPU cores ("1", "500m") and bytes ("1728Mi").
std::string CpuQuantity(double cores);
std::string MemoryQuantity(int64_t bytes);

}  // namespace trimtab::sim::flink
