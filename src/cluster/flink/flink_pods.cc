#include "cluster/flink/flink_pods.h"

#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

namespace trimtab::sim::flink {

namespace {

std::string Label(const Json& pod, const std::string& key) {
  const Json* labels = pod.contains("metadata") && pod["metadata"].contains("labels") ? &pod["metadata"]["labels"] : nullptr;
  if (!labels || !labels->contains(key) || !(*labels)[key].is_string()) return "";
  return (*labels)[key].get<std::string>();
}

// The whitespace-separated tokens of the main container's command and args.
std::vector<std::string> ArgTokens(const Json& pod) {
  std::vector<std::string> out;
  const Json* c = MainContainer(pod);
  if (!c) return out;
  for (const std::string& a : ContainerArgs(*c)) {
    std::string token;
    for (char ch : a + " ") {
      if (std::isspace(static_cast<unsigned char>(ch))) {
        if (!token.empty()) out.push_back(token);
        token.clear();
      } else {
        token += ch;
      }
    }
  }
  return out;
}

// A token that contains one of `contains` or equals one of `equals`.
bool HasToken(const Json& pod, std::initializer_list<const char*> contains, std::initializer_list<const char*> equals) {
  for (const std::string& t : ArgTokens(pod)) {
    for (const char* w : contains) {
      if (t.find(w) != std::string::npos) return true;
    }
    for (const char* w : equals) {
      if (t == w) return true;
    }
  }
  return false;
}

}  // namespace

const Json* MainContainer(const Json& pod) {
  if (!pod.contains("spec") || !pod["spec"].contains("containers") || !pod["spec"]["containers"].is_array() ||
      pod["spec"]["containers"].empty()) {
    return nullptr;
  }
  for (const Json& c : pod["spec"]["containers"]) {
    if (c.value("name", "") == "flink-main-container") return &c;
  }
  return &pod["spec"]["containers"][0];
}

std::vector<std::string> ContainerArgs(const Json& container) {
  std::vector<std::string> out;
  for (const char* field : {"command", "args"}) {
    if (!container.contains(field) || !container[field].is_array()) continue;
    for (const Json& a : container[field]) {
      if (a.is_string()) out.push_back(a.get<std::string>());
    }
  }
  return out;
}

std::string ContainerEnv(const Json& container, const std::string& name) {
  if (!container.contains("env") || !container["env"].is_array()) return "";
  for (const Json& e : container["env"]) {
    if (e.value("name", "") == name && e.contains("value") && e["value"].is_string()) return e["value"].get<std::string>();
  }
  return "";
}

bool IsTaskManagerPod(const Json& pod) {
  if (Label(pod, "component") == "taskmanager") return true;
  if (Label(pod, "component") == "jobmanager") return false;
  return HasToken(pod, {"taskmanager.sh"}, {"taskmanager"});
}

bool IsJobManagerPod(const Json& pod) {
  if (IsTaskManagerPod(pod)) return false;
  return Label(pod, "component") == "jobmanager" ||
         HasToken(pod, {"jobmanager.sh", "standalone-job"}, {"jobmanager"});
}

std::optional<DeploymentMode> ModeFromArgs(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a.find("kubernetes-session") != std::string::npos) return DeploymentMode::kSession;
    if (a.find("kubernetes-application") != std::string::npos || a.find("standalone-job") != std::string::npos) {
      return DeploymentMode::kApplication;
    }
  }
  return std::nullopt;
}

bool IsStandaloneEntrypoint(const std::vector<std::string>& args) {
  bool standalone = false;
  for (const std::string& a : args) {
    if (a.find("kubernetes-jobmanager.sh") != std::string::npos) return false;
    if (a.find("standalone-job") != std::string::npos || a == "jobmanager") standalone = true;
  }
  return standalone;
}

std::string ConfigMapForConfDir(const Json& pod, const Json& container) {
  std::string conf_dir = ContainerEnv(container, "FLINK_CONF_DIR");
  if (conf_dir.empty()) conf_dir = "/opt/flink/conf";
  std::string volume;
  if (container.contains("volumeMounts") && container["volumeMounts"].is_array()) {
    for (const Json& m : container["volumeMounts"]) {
      std::string path = m.value("mountPath", "");
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      if (path == conf_dir) volume = m.value("name", "");
    }
  }
  if (!pod.contains("spec") || !pod["spec"].contains("volumes") || !pod["spec"]["volumes"].is_array()) return "";
  std::string fallback;
  for (const Json& v : pod["spec"]["volumes"]) {
    if (!v.contains("configMap")) continue;
    const std::string cm = v["configMap"].value("name", "");
    if (!volume.empty() && v.value("name", "") == volume) return cm;
    if (fallback.empty() && cm.starts_with("flink-config-")) fallback = cm;
  }
  return fallback;
}

std::string TaskManagerPodName(const std::string& cluster_id, int attempt, int index) {
  return cluster_id + "-taskmanager-" + std::to_string(attempt) + "-" + std::to_string(index);
}

std::optional<std::pair<int, int>> ParseTaskManagerPodName(const std::string& cluster_id, const std::string& name) {
  const std::string prefix = cluster_id + "-taskmanager-";
  if (!name.starts_with(prefix)) return std::nullopt;
  const std::string rest = name.substr(prefix.size());
  const size_t dash = rest.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 >= rest.size()) return std::nullopt;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (i != dash && !std::isdigit(static_cast<unsigned char>(rest[i]))) return std::nullopt;
  }
  return std::make_pair(std::stoi(rest.substr(0, dash)), std::stoi(rest.substr(dash + 1)));
}

std::string CpuQuantity(double cores) {
  const int64_t millis = std::llround(cores * 1000.0);
  if (millis % 1000 == 0) return std::to_string(millis / 1000);
  return std::to_string(millis) + "m";
}

std::string MemoryQuantity(int64_t bytes) {
  if (bytes % (1LL << 20) == 0) return std::to_string(bytes >> 20) + "Mi";
  return std::to_string(bytes);
}

std::optional<ConfigMapFile> ConfigMapFileForPath(const Json& pod, const Json& container,
                                                  const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash + 1 >= path.size()) return std::nullopt;
  const std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  const std::string file = path.substr(slash + 1);
  if (!container.contains("volumeMounts") || !container["volumeMounts"].is_array()) return std::nullopt;
  for (const Json& m : container["volumeMounts"]) {
    if (!m.is_object()) continue;
    std::string mount = m.value("mountPath", "");
    while (mount.size() > 1 && mount.back() == '/') mount.pop_back();
    const std::string sub_path = m.value("subPath", "");
    // A directory mount holding the file, or a single file mounted with subPath.
    const bool directory = sub_path.empty() && mount == dir;
    const bool single = !sub_path.empty() && mount == path;
    if (!directory && !single) continue;
    const std::string volume_name = m.value("name", "");
    if (!pod.contains("spec") || !pod["spec"].contains("volumes") || !pod["spec"]["volumes"].is_array()) {
      return std::nullopt;
    }
    for (const Json& v : pod["spec"]["volumes"]) {
      if (v.value("name", "") != volume_name || !v.contains("configMap") || !v["configMap"].is_object()) continue;
      const Json& cm = v["configMap"];
      const std::string wanted = single ? sub_path : file;
      std::string key = wanted;
      if (cm.contains("items") && cm["items"].is_array()) {
        key.clear();
        for (const Json& item : cm["items"]) {
          if (item.value("path", "") == wanted) key = item.value("key", "");
        }
        if (key.empty()) return std::nullopt;
      }
      return ConfigMapFile{cm.value("name", ""), key};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

namespace {

// `object[field]` as an object (created when absent or not an object).
Json& ObjectField(Json& object, const char* field) {
  if (!object.contains(field) || !object[field].is_object()) object[field] = Json::object();
  return object[field];
}

// `object[field]` as an array (created when absent or not an array).
Json& ArrayField(Json& object, const char* field) {
  if (!object.contains(field) || !object[field].is_array()) object[field] = Json::array();
  return object[field];
}

// Flink's pod on top of the template `base` (see TaskManagerPod in the header).
Json MergeWithTemplate(const TaskManagerPodSpec& spec, const Json& flink) {
  Json pod = spec.pod_template.is_object() ? spec.pod_template : Json::object();
  pod["apiVersion"] = "v1";
  pod["kind"] = "Pod";
  pod.erase("status");
  Json& meta = ObjectField(pod, "metadata");
  for (const char* field : {"uid", "resourceVersion", "creationTimestamp", "generateName", "generation",
                            "managedFields", "deletionTimestamp", "deletionGracePeriodSeconds", "finalizers"}) {
    meta.erase(field);
  }
  meta["name"] = flink["metadata"]["name"];
  meta["namespace"] = flink["metadata"]["namespace"];
  Json& labels = ObjectField(meta, "labels");
  for (auto it = flink["metadata"]["labels"].begin(); it != flink["metadata"]["labels"].end(); ++it) {
    labels[it.key()] = *it;
  }
  if (flink["metadata"].contains("ownerReferences")) {
    meta["ownerReferences"] = flink["metadata"]["ownerReferences"];
  } else {
    meta.erase("ownerReferences");
  }

  Json& pod_spec = ObjectField(pod, "spec");
  const Json& flink_spec = flink["spec"];
  pod_spec["restartPolicy"] = flink_spec["restartPolicy"];
  std::string template_account = pod_spec.value("serviceAccountName", "");
  if (template_account.empty()) template_account = pod_spec.value("serviceAccount", "");
  const std::string flink_account = flink_spec.value("serviceAccountName", "");
  const std::string account =
      spec.service_account_configured || template_account.empty() ? flink_account : template_account;
  if (account.empty()) {
    pod_spec.erase("serviceAccountName");
    pod_spec.erase("serviceAccount");
  } else {
    pod_spec["serviceAccountName"] = account;
    pod_spec["serviceAccount"] = account;
  }
  if (flink_spec.contains("volumes")) {
    for (const Json& v : flink_spec["volumes"]) ArrayField(pod_spec, "volumes").push_back(v);
  }

  // The template's main container, taken out of its containers; the others stay in order.
  Json main = Json::object();
  Json others = Json::array();
  if (pod_spec.contains("containers") && pod_spec["containers"].is_array()) {
    for (const Json& c : pod_spec["containers"]) {
      if (c.is_object() && c.value("name", "") == "flink-main-container") {
        main = c;
      } else {
        others.push_back(c);
      }
    }
  }
  const Json& flink_main = flink_spec["containers"][0];
  main["name"] = flink_main["name"];
  if (spec.image_configured || !main.contains("image") || !main["image"].is_string() ||
      main["image"].get<std::string>().empty()) {
    main["image"] = flink_main["image"];
  }
  main.erase("command");
  main["args"] = flink_main["args"];
  Json& resources = ObjectField(main, "resources");
  for (const char* which : {"requests", "limits"}) {
    Json& list = ObjectField(resources, which);
    for (auto it = flink_main["resources"][which].begin(); it != flink_main["resources"][which].end(); ++it) {
      list[it.key()] = *it;
    }
  }
  for (const char* field : {"ports", "env", "volumeMounts"}) {
    if (!flink_main.contains(field)) continue;
    for (const Json& item : flink_main[field]) ArrayField(main, field).push_back(item);
  }
  others.push_back(std::move(main));
  pod_spec["containers"] = std::move(others);
  return pod;
}

}  // namespace

Json TaskManagerPod(const TaskManagerPodSpec& spec) {
  const TaskManagerSettings& tm = *spec.shape;
  const Json labels = {{"app", spec.cluster_id}, {"component", "taskmanager"}, {"type", "flink-native-kubernetes"}};
  const std::string dynamic =
      "kubernetes-taskmanager.sh -Dtaskmanager.resource-id=" + spec.name + " -D taskmanager.memory.framework.off-heap.size=" +
      std::to_string(tm.framework_off_heap) + "b -D taskmanager.memory.network.max=" + std::to_string(tm.network) +
      "b -D taskmanager.memory.network.min=" + std::to_string(tm.network) +
      "b -D taskmanager.memory.framework.heap.size=" + std::to_string(tm.framework_heap) +
      "b -D taskmanager.memory.managed.size=" + std::to_string(tm.managed) + "b -D taskmanager.cpu.cores=" +
      std::to_string(tm.cpu) + " -D taskmanager.memory.task.heap.size=" + std::to_string(tm.task_heap) +
      "b -D taskmanager.memory.task.off-heap.size=" + std::to_string(tm.task_off_heap) +
      "b -D taskmanager.memory.jvm-metaspace.size=" + std::to_string(tm.metaspace) +
      "b -D taskmanager.memory.jvm-overhead.max=" + std::to_string(tm.overhead) +
      "b -D taskmanager.memory.jvm-overhead.min=" + std::to_string(tm.overhead) + "b";
  const Json resources = {{"cpu", CpuQuantity(tm.cpu)}, {"memory", MemoryQuantity(tm.process_bytes)}};
  Json container = {{"name", "flink-main-container"},
                    {"image", spec.image},
                    {"args", Json::array({"bash", "-c", dynamic})},
                    {"resources", {{"requests", resources}, {"limits", resources}}},
                    {"ports", Json::array({{{"name", "rpc"}, {"containerPort", 6122}, {"protocol", "TCP"}}})},
                    {"env", Json::array({{{"name", "FLINK_TM_JVM_MEM_OPTS"},
                                          {"value", "-Xmx" + std::to_string(tm.HeapMax()) + " -Xms" +
                                                        std::to_string(tm.HeapMax())}}})}};
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", spec.name}, {"namespace", spec.namespace_name}, {"labels", labels}}},
              {"spec", {{"containers", Json::array({container})}, {"restartPolicy", "Never"}}}};
  if (!spec.config_map.empty()) {
    pod["spec"]["containers"][0]["volumeMounts"] = Json::array({{{"name", "flink-config-volume"}, {"mountPath", "/opt/flink/conf"}}});
    pod["spec"]["volumes"] = Json::array({{{"name", "flink-config-volume"}, {"configMap", {{"name", spec.config_map}}}}});
  }
  if (!spec.service_account.empty()) pod["spec"]["serviceAccountName"] = spec.service_account;
  if (!spec.owner.is_null()) pod["metadata"]["ownerReferences"] = Json::array({spec.owner});
  if (!spec.pod_template.is_null()) return MergeWithTemplate(spec, pod);
  return pod;
}

}  // namespace trimtab::sim::flink
