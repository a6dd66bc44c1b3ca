#include "operator/decisions/jm_resources.h"

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/quantity.h"
#include "operator/decisions/flink_config_builder.h"
#include "operator/decisions/operator_config.h"

namespace trimtab::op {
namespace {

constexpr char kDefaultLog4j[] =
    "rootLogger.level = INFO\n"
    "rootLogger.appenderRef.console.ref = ConsoleAppender\n"
    "appender.console.name = ConsoleAppender\n"
    "appender.console.type = CONSOLE\n"
    "appender.console.layout.type = PatternLayout\n"
    "appender.console.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n\n";

constexpr char kTmTemplateFile[] = "taskmanager-pod-template.yaml";

bool AllNamed(const Json& array) {
  if (!array.is_array() || array.empty()) return false;
  for (const Json& item : array) {
    if (!item.is_object() || !item.contains("name") || !item["name"].is_string()) return false;
  }
  return true;
}

int IntConf(const api::FlinkConfiguration& conf, const std::string& key, int fallback) {
  auto it = conf.find(key);
  if (it == conf.end()) return fallback;
  try {
    return std::stoi(it->second);
  } catch (...) {
    return fallback;
  }
}

double DoubleConf(const api::FlinkConfiguration& conf, const std::string& key, double fallback) {
  auto it = conf.find(key);
  if (it == conf.end()) return fallback;
  try {
    return std::stod(it->second);
  } catch (...) {
    return fallback;
  }
}

std::string MemoryQuantity(int64_t bytes) {
  if (bytes % (int64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + "Mi";
  return std::to_string(bytes);
}

std::string CpuQuantity(double cpu) {
  return Quantity::FromMilli(static_cast<int64_t>(std::llround(cpu * 1000))).String();
}

// Bytes of a process size as FormatMemorySize normalised it ("2g", "1536m", "100b").
std::optional<int64_t> ProcessBytes(const api::FlinkConfiguration& conf, const std::string& key) {
  auto mem = conf.find(key);
  if (mem == conf.end() || mem->second.empty()) return std::nullopt;
  const std::string& v = mem->second;
  int64_t n = 0;
  try {
    n = std::stoll(v);
  } catch (...) {
    return std::nullopt;
  }
  switch (v.back()) {
    case 't': return n << 40;
    case 'g': return n << 30;
    case 'm': return n << 20;
    case 'k': return n << 10;
    default: return n;
  }
}

// requests/limits of the main container from the deploy config, as Flink's native decorators.
Json ContainerResources(const api::FlinkConfiguration& conf, const std::string& component) {
  Json requests = Json::object();
  Json limits = Json::object();
  const std::string prefix = "kubernetes." + component;
  if (conf.count(prefix + ".cpu")) {
    const double c = DoubleConf(conf, prefix + ".cpu", 1.0);
    requests["cpu"] = CpuQuantity(c);
    limits["cpu"] = CpuQuantity(c * DoubleConf(conf, prefix + ".cpu.limit-factor", 1.0));
  }
  if (std::optional<int64_t> bytes = ProcessBytes(conf, component + ".memory.process.size")) {
    requests["memory"] = MemoryQuantity(*bytes);
    const double factor = DoubleConf(conf, prefix + ".memory.limit-factor", 1.0);
    limits["memory"] = MemoryQuantity(static_cast<int64_t>(std::llround(*bytes * factor)));
  }
  Json out = Json::object();
  if (!requests.empty()) out["requests"] = requests;
  if (!limits.empty()) out["limits"] = limits;
  return out;
}

// Puts the main container (image, args, ports, resources, config mount) into a pod template.
Json WithMainContainer(Json pod_spec, Json container) {
  if (!pod_spec.is_object()) pod_spec = Json::object();
  Json& containers = pod_spec["containers"];
  if (!containers.is_array()) containers = Json::array();
  for (Json& c : containers) {
    if (c.value("name", "") == kMainContainer) {
      Json mounts = c.value("volumeMounts", Json::array());
      for (const Json& m : container["volumeMounts"]) mounts.push_back(m);
      Json env = c.value("env", Json::array());
      for (const Json& e : container["env"]) env.push_back(e);
      c.update(container);
      c["volumeMounts"] = mounts;
      c["env"] = env;
      return pod_spec;
    }
  }
  containers.insert(containers.begin(), container);
  return pod_spec;
}

Json Metadata(const std::string& name, const std::string& ns, Json labels) {
  return Json{{"name", name}, {"namespace", ns}, {"labels", std::move(labels)}};
}

}  // namespace

Json ClusterLabels(const std::string& name, const std::string& component) {
  Json labels = {{"app", name}, {"type", kNativeType}};
  if (!component.empty()) labels["component"] = component;
  return labels;
}

decorators::PodRequests ContainerRequests(const api::FlinkConfiguration& conf,
                                          const std::string& component) {
  decorators::PodRequests out;
  if (conf.count("kubernetes." + component + ".cpu")) {
    // As the container requests it: rounded to millicores.
    out.cpu = std::llround(DoubleConf(conf, "kubernetes." + component + ".cpu", 1.0) * 1000) / 1000.0;
  }
  out.memory_bytes = ProcessBytes(conf, component + ".memory.process.size").value_or(0);
  return out;
}

PodTemplates UserPodTemplates(const api::FlinkDeploymentSpec& spec) {
  PodTemplates t{
      .job_manager = MergePodTemplates(spec.pod_template,
                                       spec.job_manager ? spec.job_manager->pod_template : Json()),
      .task_manager = MergePodTemplates(
          spec.pod_template, spec.task_manager ? spec.task_manager->pod_template : Json())};
  if (!t.job_manager.is_object()) t.job_manager = Json::object();
  if (!t.task_manager.is_object()) t.task_manager = Json::object();
  return t;
}

std::string RestServiceName(const std::string& cluster_id) { return cluster_id + "-rest"; }
std::string ConfigMapName(const std::string& cluster_id) { return "flink-config-" + cluster_id; }

Json OwnerReference(const std::string& api_version, const std::string& kind,
                    const std::string& name, const std::string& uid, bool controller,
                    bool block_owner_deletion) {
  return Json{{"apiVersion", api_version}, {"kind", kind},
              {"name", name},              {"uid", uid},
              {"controller", controller},  {"blockOwnerDeletion", block_owner_deletion}};
}

Json MergePodTemplates(const Json& base, const Json& over) {
  if (base.is_null()) return over;
  if (over.is_null()) return base;
  if (base.is_object() && over.is_object()) {
    Json out = base;
    for (auto it = over.begin(); it != over.end(); ++it) {
      out[it.key()] = out.contains(it.key()) ? MergePodTemplates(out[it.key()], *it) : *it;
    }
    return out;
  }
  if (AllNamed(base) && AllNamed(over)) {
    Json out = base;
    for (const Json& item : over) {
      bool merged = false;
      for (Json& existing : out) {
        if (existing["name"] == item["name"]) {
          existing = MergePodTemplates(existing, item);
          merged = true;
          break;
        }
      }
      if (!merged) out.push_back(item);
    }
    return out;
  }
  return over;
}

std::string TaskManagerDeploymentName(const std::string& cluster_id) {
  return cluster_id + "-taskmanager";
}

Json StandaloneTaskManagerLabels(const std::string& name) {
  return {{"app", name}, {"component", "taskmanager"}, {"type", kStandaloneType}};
}

namespace {

// The TaskManager Deployment of a standalone cluster (upstream
// StandaloneKubernetesTaskManagerFactory): <name>-taskmanager, the TaskManager pod template with
// the main container running the image's `taskmanager` entrypoint on the cluster's
// configuration, kubernetes.internal.taskmanager.replicas replicas (1 when unset).
Json StandaloneTaskManagerDeployment(const std::string& name, const std::string& ns,
                                     const api::FlinkDeploymentSpec& spec,
                                     const api::FlinkConfiguration& conf, const Json& tm_template,
                                     const Json& config_items) {
  const Json labels = StandaloneTaskManagerLabels(name);
  Json pod = tm_template.is_object() ? tm_template : Json::object();
  Json pod_meta = pod.value("metadata", Json::object());
  Json pod_labels = pod_meta.value("labels", Json::object());
  pod_labels.update(labels);
  pod_meta["labels"] = pod_labels;
  Json container = {
      {"name", kMainContainer},
      {"image", spec.image},
      {"args", Json::array({"taskmanager"})},
      {"ports", Json::array({{{"name", "rpc"}, {"containerPort", 6122}, {"protocol", "TCP"}}})},
      {"resources", ContainerResources(conf, "taskmanager")},
      {"volumeMounts", Json::array({{{"name", "flink-config-volume"},
                                     {"mountPath", "/opt/flink/conf"}}})}};
  if (!spec.image_pull_policy.empty()) container["imagePullPolicy"] = spec.image_pull_policy;
  Json pod_spec = WithMainContainer(pod.value("spec", Json::object()), container);
  Json volumes = pod_spec.value("volumes", Json::array());
  volumes.push_back({{"name", "flink-config-volume"},
                     {"configMap", {{"name", ConfigMapName(name)}, {"items", config_items}}}});
  pod_spec["volumes"] = volumes;
  if (!spec.service_account.empty()) pod_spec["serviceAccountName"] = spec.service_account;
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", Metadata(TaskManagerDeploymentName(name), ns, labels)},
          {"spec",
           {{"replicas", IntConf(conf, kStandaloneTaskManagerReplicas, 1)},
            {"selector", {{"matchLabels", labels}}},
            {"template", {{"metadata", pod_meta}, {"spec", pod_spec}}}}}};
}

}  // namespace

StatusOr<ClusterObjects> BuildClusterObjects(const api::ObjectMeta& meta,
                                             const api::FlinkDeploymentSpec& spec,
                                             const api::FlinkConfiguration& conf) {
  return BuildClusterObjects(meta, spec, conf, UserPodTemplates(spec));
}

StatusOr<ClusterObjects> BuildClusterObjects(const api::ObjectMeta& meta,
                                             const api::FlinkDeploymentSpec& spec,
                                             const api::FlinkConfiguration& conf_in,
                                             const PodTemplates& templates) {
  const std::string name = meta.name();
  const std::string ns = meta.namespace_name();
  if (name.empty()) return InvalidArgumentError("metadata.name: required to build the cluster");
  const api::FlinkVersion version = spec.flink_version.value_or(api::FlinkVersion::kV1_20);
  api::FlinkConfiguration conf = conf_in;
  const Json jm_labels = ClusterLabels(name, "jobmanager");
  const Json cluster_labels = ClusterLabels(name, "");
  ClusterObjects out;

  // TaskManager pod template for the JobManager's resource manager.
  const Json& tm_template = templates.task_manager;
  Json cm_data = Json::object();
  if (!tm_template.is_null() && !tm_template.empty()) {
    conf["kubernetes.pod-template-file.taskmanager"] = "/opt/flink/conf/" + std::string(kTmTemplateFile);
    cm_data[kTmTemplateFile] = ToYaml(tm_template);
  }
  const std::string file = ConfigFileName(version);
  cm_data[file] = RenderConfigFile(conf, UsesConfigYaml(version));
  auto log = spec.log_configuration.find("log4j-console.properties");
  cm_data["log4j-console.properties"] =
      log != spec.log_configuration.end() ? log->second : std::string(kDefaultLog4j);
  if (auto logback = spec.log_configuration.find("logback-console.xml");
      logback != spec.log_configuration.end()) {
    cm_data["logback-console.xml"] = logback->second;
  }
  out.config_map = {{"apiVersion", "v1"},
                    {"kind", "ConfigMap"},
                    {"metadata", Metadata(ConfigMapName(name), ns, cluster_labels)},
                    {"data", cm_data}};

  // The JobManager pod template.
  Json pod = templates.job_manager;
  if (!pod.is_object()) pod = Json::object();
  Json pod_meta = pod.value("metadata", Json::object());
  Json pod_labels = pod_meta.value("labels", Json::object());
  pod_labels.update(jm_labels);
  pod_meta["labels"] = pod_labels;
  const int rest_port = IntConf(conf, "rest.port", 8081);
  Json ports = Json::array({{{"name", "rest"}, {"containerPort", rest_port}, {"protocol", "TCP"}},
                            {{"name", "jobmanager-rpc"}, {"containerPort", 6123}, {"protocol", "TCP"}},
                            {{"name", "blobserver"}, {"containerPort", 6124}, {"protocol", "TCP"}}});
  const bool standalone = spec.EffectiveMode() == api::DeploymentMode::kStandalone;
  // Standalone mode runs Flink's standalone entrypoints (the docker image's): the JobManager
  // starts no TaskManagers; the TaskManager Deployment below provides them.
  const Json jm_args =
      standalone ? Json::array({spec.job ? "standalone-job" : "jobmanager"})
                 : Json::array({"bash", "-c",
                                std::string("kubernetes-jobmanager.sh ") +
                                    (spec.job ? "kubernetes-application" : "kubernetes-session")});
  Json container = {
      {"name", kMainContainer},
      {"image", spec.image},
      {"args", jm_args},
      {"ports", ports},
      {"resources", ContainerResources(conf, "jobmanager")},
      {"env", Json::array({{{"name", "_POD_IP_ADDRESS"},
                            {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"},
                                                         {"fieldPath", "status.podIP"}}}}}}})},
      {"volumeMounts", Json::array({{{"name", "flink-config-volume"},
                                     {"mountPath", "/opt/flink/conf"}}})}};
  if (!spec.image_pull_policy.empty()) container["imagePullPolicy"] = spec.image_pull_policy;
  Json items = Json::array({{{"key", file}, {"path", file}},
                            {{"key", "log4j-console.properties"},
                             {"path", "log4j-console.properties"}}});
  for (const char* extra : {kTmTemplateFile, "logback-console.xml"}) {
    if (cm_data.contains(extra)) items.push_back({{"key", extra}, {"path", extra}});
  }
  Json pod_spec = WithMainContainer(pod.value("spec", Json::object()), container);
  Json volumes = pod_spec.value("volumes", Json::array());
  volumes.push_back({{"name", "flink-config-volume"},
                     {"configMap", {{"name", ConfigMapName(name)}, {"items", items}}}});
  pod_spec["volumes"] = volumes;
  if (!spec.service_account.empty()) pod_spec["serviceAccountName"] = spec.service_account;

  Json dep_meta = Metadata(name, ns, jm_labels);
  dep_meta["annotations"] = {{kGenerationAnnotation, std::to_string(meta.generation())}};
  dep_meta["ownerReferences"] = Json::array(
      {OwnerReference(std::string(api::kFlinkApiVersion), std::string(api::kFlinkDeploymentKind),
                      name, meta.uid(), /*controller=*/false, /*block_owner_deletion=*/true)});
  const int replicas = spec.job_manager ? static_cast<int>(spec.job_manager->replicas) : 1;
  out.deployment = {{"apiVersion", "apps/v1"},
                    {"kind", "Deployment"},
                    {"metadata", dep_meta},
                    {"spec",
                     {{"replicas", replicas},
                      {"selector", {{"matchLabels", jm_labels}}},
                      {"strategy", {{"type", "Recreate"}}},
                      {"template", {{"metadata", pod_meta}, {"spec", pod_spec}}}}}};

  if (standalone) {
    out.task_manager_deployment =
        StandaloneTaskManagerDeployment(name, ns, spec, conf, templates.task_manager, items);
  }

  out.internal_service = {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", Metadata(name, ns, cluster_labels)},
      {"spec",
       {{"clusterIP", "None"},
        {"selector", jm_labels},
        {"ports", Json::array({{{"name", "jobmanager-rpc"}, {"port", 6123}, {"targetPort", 6123}, {"protocol", "TCP"}},
                               {{"name", "blobserver"}, {"port", 6124}, {"targetPort", 6124}, {"protocol", "TCP"}}})}}}};
  out.rest_service = {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", Metadata(RestServiceName(name), ns, cluster_labels)},
      {"spec",
       {{"type", "ClusterIP"},
        {"selector", jm_labels},
        {"ports", Json::array({{{"name", "rest"}, {"port", rest_port}, {"targetPort", rest_port}, {"protocol", "TCP"}}})}}}};
  return out;
}

void WithDeploymentOwner(ClusterObjects* objects, const std::string& deployment_name,
                         const std::string& deployment_uid) {
  const Json owner = OwnerReference("apps/v1", "Deployment", deployment_name, deployment_uid,
                                    /*controller=*/true, /*block_owner_deletion=*/true);
  for (Json* o : {&objects->config_map, &objects->internal_service, &objects->rest_service}) {
    (*o)["metadata"]["ownerReferences"] = Json::array({owner});
  }
  if (!objects->task_manager_deployment.is_null()) {
    objects->task_manager_deployment["metadata"]["ownerReferences"] = Json::array({owner});
  }
}

}  // namespace trimtab::op
