#include "cluster/apiserver/admission/builtin_defaults.h"

#include <map>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/admission/hpa_rules.h"
#include "common/quantity.h"

namespace trimtab::cluster {
namespace {

Json& Obj(Json& parent, const char* field) {
  Json& v = parent[field];
  if (!v.is_object()) v = Json::object();
  return v;
}

void SetIfAbsent(Json& object, const char* field, Json value) {
  if (!object.contains(field) || object[field].is_null()) object[field] = std::move(value);
}

bool IsCoreKind(const ResourceType& t, const char* plural) {
  return t.group.empty() && t.plural == plural;
}

// imagePullPolicy default: Always when the tag is "latest" or missing (digests count as tags).
std::string DefaultPullPolicy(const std::string& image) {
  if (image.find('@') != std::string::npos) return "IfNotPresent";
  size_t slash = image.rfind('/');
  size_t colon = image.rfind(':');
  bool has_tag = colon != std::string::npos && (slash == std::string::npos || colon > slash);
  if (!has_tag || image.substr(colon + 1) == "latest") return "Always";
  return "IfNotPresent";
}

void DefaultContainers(Json& spec, const char* list) {
  if (!spec.contains(list) || !spec[list].is_array()) return;
  for (Json& c : spec[list]) {
    if (!c.is_object()) continue;
    SetIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
    SetIfAbsent(c, "terminationMessagePolicy", "File");
    if (c.contains("image") && c["image"].is_string()) {
      SetIfAbsent(c, "imagePullPolicy", DefaultPullPolicy(c["image"].get<std::string>()));
    }
    if (c.contains("ports") && c["ports"].is_array()) {
      for (Json& p : c["ports"]) {
        if (p.is_object()) SetIfAbsent(p, "protocol", "TCP");
      }
    }
  }
}

void DefaultPodSpec(Json& spec) {
  SetIfAbsent(spec, "restartPolicy", "Always");
  SetIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  SetIfAbsent(spec, "dnsPolicy", "ClusterFirst");
  SetIfAbsent(spec, "schedulerName", "default-scheduler");
  SetIfAbsent(spec, "securityContext", Json::object());
  SetIfAbsent(spec, "enableServiceLinks", true);
  DefaultContainers(spec, "initContainers");
  DefaultContainers(spec, "containers");
}

bool HasToleration(const Json& tolerations, const std::string& key) {
  for (const Json& t : tolerations) {
    if (!t.is_object()) continue;
    std::string effect = t.value("effect", "");
    std::string op = t.value("operator", "Equal");
    // A toleration of every key (operator Exists, no key) or of this key with effect NoExecute
    // (or any effect) already covers it.
    if (t.value("key", "") == key && (effect.empty() || effect == "NoExecute")) return true;
    if (!t.contains("key") && op == "Exists" && (effect.empty() || effect == "NoExecute")) {
      return true;
    }
  }
  return false;
}

void DefaultPodAdmission(Json& pod) {
  Json& spec = Obj(pod, "spec");
  if (!spec.contains("serviceAccountName") || !spec["serviceAccountName"].is_string() ||
      spec["serviceAccountName"].get<std::string>().empty()) {
    std::string legacy = spec.value("serviceAccount", "");
    spec["serviceAccountName"] = legacy.empty() ? "default" : legacy;
  }
  spec["serviceAccount"] = spec["serviceAccountName"];
  SetIfAbsent(spec, "priority", 0);
  SetIfAbsent(spec, "preemptionPolicy", "PreemptLowerPriority");
  Json& tolerations = spec["tolerations"];
  if (!tolerations.is_array()) tolerations = Json::array();
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    if (HasToleration(tolerations, key)) continue;
    tolerations.push_back({{"key", key},
                           {"operator", "Exists"},
                           {"effect", "NoExecute"},
                           {"tolerationSeconds", 300}});
  }
}

void DefaultTemplate(Json& object) {
  Json& spec = Obj(object, "spec");
  Json& tmpl = Obj(spec, "template");
  DefaultPodSpec(Obj(tmpl, "spec"));
}

void DefaultDeployment(Json& d) {
  Json& spec = Obj(d, "spec");
  SetIfAbsent(spec, "replicas", 1);
  Json& strategy = Obj(spec, "strategy");
  SetIfAbsent(strategy, "type", "RollingUpdate");
  if (strategy["type"] == "RollingUpdate") {
    Json& rolling = Obj(strategy, "rollingUpdate");
    SetIfAbsent(rolling, "maxUnavailable", "25%");
    SetIfAbsent(rolling, "maxSurge", "25%");
  }
  SetIfAbsent(spec, "revisionHistoryLimit", 10);
  SetIfAbsent(spec, "progressDeadlineSeconds", 600);
  DefaultTemplate(d);
}

void DefaultJobSpec(Json& spec) {
  if (!spec.contains("completions") && !spec.contains("parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  SetIfAbsent(spec, "parallelism", 1);
  SetIfAbsent(spec, "backoffLimit", 6);
  SetIfAbsent(spec, "completionMode", "NonIndexed");
  SetIfAbsent(spec, "suspend", false);
  SetIfAbsent(spec, "podReplacementPolicy", "TerminatingOrFailed");
  DefaultPodSpec(Obj(Obj(spec, "template"), "spec"));
}

// A Job without manualSelector selects its pods by its uid (the job controller's labels).
void DefaultJobSelector(Json& job) {
  Json& spec = Obj(job, "spec");
  if (spec.value("manualSelector", false) || spec.contains("selector")) return;
  const std::string uid = Obj(job, "metadata").value("uid", "");
  const std::string name = Obj(job, "metadata").value("name", "");
  if (uid.empty()) return;
  spec["selector"] = {{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}};
  Json& labels = Obj(Obj(Obj(spec, "template"), "metadata"), "labels");
  labels["batch.kubernetes.io/controller-uid"] = uid;
  labels["batch.kubernetes.io/job-name"] = name;
  labels["controller-uid"] = uid;
  labels["job-name"] = name;
}

// Jobs, CronJobs, StatefulSets, DaemonSets, volumes and storage classes (workload_types.h).
void DefaultWorkload(const ResourceType& type, Json& object, bool create) {
  if (type.group == "storage.k8s.io") {
    SetIfAbsent(object, "reclaimPolicy", "Delete");
    SetIfAbsent(object, "volumeBindingMode", "Immediate");
    return;
  }
  Json& spec = Obj(object, "spec");
  if (type.group == "batch" && type.plural == "jobs") {
    DefaultJobSpec(spec);
    if (create) DefaultJobSelector(object);
  } else if (type.group == "batch" && type.plural == "cronjobs") {
    SetIfAbsent(spec, "concurrencyPolicy", "Allow");
    SetIfAbsent(spec, "suspend", false);
    SetIfAbsent(spec, "successfulJobsHistoryLimit", 3);
    SetIfAbsent(spec, "failedJobsHistoryLimit", 1);
    DefaultJobSpec(Obj(Obj(spec, "jobTemplate"), "spec"));
  } else if (type.group == "apps" && type.plural == "statefulsets") {
    SetIfAbsent(spec, "replicas", 1);
    SetIfAbsent(spec, "podManagementPolicy", "OrderedReady");
    SetIfAbsent(spec, "revisionHistoryLimit", 10);
    Json& strategy = Obj(spec, "updateStrategy");
    SetIfAbsent(strategy, "type", "RollingUpdate");
    if (strategy["type"] == "RollingUpdate") SetIfAbsent(Obj(strategy, "rollingUpdate"), "partition", 0);
    Json& retention = Obj(spec, "persistentVolumeClaimRetentionPolicy");
    SetIfAbsent(retention, "whenDeleted", "Retain");
    SetIfAbsent(retention, "whenScaled", "Retain");
    DefaultTemplate(object);
  } else if (type.group == "apps" && type.plural == "daemonsets") {
    SetIfAbsent(spec, "revisionHistoryLimit", 10);
    Json& strategy = Obj(spec, "updateStrategy");
    SetIfAbsent(strategy, "type", "RollingUpdate");
    if (strategy["type"] == "RollingUpdate") {
      Json& rolling = Obj(strategy, "rollingUpdate");
      SetIfAbsent(rolling, "maxUnavailable", 1);
      SetIfAbsent(rolling, "maxSurge", 0);
    }
    DefaultTemplate(object);
  } else if (IsCoreKind(type, "persistentvolumeclaims")) {
    SetIfAbsent(spec, "volumeMode", "Filesystem");
    if (create) SetIfAbsent(Obj(object, "status"), "phase", "Pending");
  } else if (IsCoreKind(type, "persistentvolumes")) {
    SetIfAbsent(spec, "persistentVolumeReclaimPolicy", "Retain");
    SetIfAbsent(spec, "volumeMode", "Filesystem");
    if (create) SetIfAbsent(Obj(object, "status"), "phase", "Pending");
  }
}

void DefaultService(Json& svc) {
  Json& spec = Obj(svc, "spec");
  SetIfAbsent(spec, "type", "ClusterIP");
  if (spec["type"] == "ExternalName") return;
  SetIfAbsent(spec, "sessionAffinity", "None");
  SetIfAbsent(spec, "internalTrafficPolicy", "Cluster");
  if (spec.contains("ports") && spec["ports"].is_array()) {
    for (Json& p : spec["ports"]) {
      if (!p.is_object()) continue;
      SetIfAbsent(p, "protocol", "TCP");
      if ((!p.contains("targetPort") || p["targetPort"].is_null()) && p.contains("port")) {
        p["targetPort"] = p["port"];
      }
    }
  }
}

// cpu/memory of requests or limits of one container, as milli-values; absent -> missing key.
std::map<std::string, int64_t> ResourceMap(const Json& container, const char* which) {
  std::map<std::string, int64_t> out;
  const Json* res = container.contains("resources") ? &container["resources"] : nullptr;
  if (!res || !res->is_object() || !res->contains(which) || !(*res)[which].is_object()) return out;
  for (const char* name : {"cpu", "memory"}) {
    const Json& v = (*res)[which].contains(name) ? (*res)[which][name] : Json();
    std::string text = v.is_string() ? v.get<std::string>() : (v.is_number() ? v.dump() : "");
    if (text.empty()) continue;
    auto q = Quantity::Parse(text);
    if (q.ok()) out[name] = q->MilliValue();
  }
  return out;
}

}  // namespace

std::string PodQosClass(const Json& pod) {
  const Json* spec = pod.contains("spec") && pod["spec"].is_object() ? &pod["spec"] : nullptr;
  if (!spec) return "BestEffort";
  bool any = false;
  bool guaranteed = true;
  for (const char* list : {"initContainers", "containers"}) {
    if (!spec->contains(list) || !(*spec)[list].is_array()) continue;
    for (const Json& c : (*spec)[list]) {
      auto requests = ResourceMap(c, "requests");
      auto limits = ResourceMap(c, "limits");
      if (!requests.empty() || !limits.empty()) any = true;
      // Requests default to limits when only limits are given.
      for (const auto& [name, value] : limits) requests.emplace(name, value);
      for (const char* name : {"cpu", "memory"}) {
        if (!limits.count(name) || !requests.count(name) || requests[name] != limits[name]) {
          guaranteed = false;
        }
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

void ApplyBuiltinDefaults(const ResourceType& type, Json* object, bool create) {
  if (!object->is_object()) return;
  if (IsCoreKind(type, "pods")) {
    DefaultPodSpec(Obj(*object, "spec"));
    if (create) {
      DefaultPodAdmission(*object);
      Obj(*object, "status")["qosClass"] = PodQosClass(*object);
    }
  } else if (IsCoreKind(type, "services")) {
    DefaultService(*object);
  } else if (type.group == "apps" && type.plural == "deployments") {
    DefaultDeployment(*object);
  } else if (type.group == "apps" && type.plural == "replicasets") {
    SetIfAbsent(Obj(*object, "spec"), "replicas", 1);
    DefaultTemplate(*object);
  } else if (type.group == "autoscaling" && type.plural == "horizontalpodautoscalers") {
    DefaultHorizontalPodAutoscaler(object);
  } else if (type.group == "batch" || type.group == "apps" || type.group == "storage.k8s.io" ||
             IsCoreKind(type, "persistentvolumeclaims") || IsCoreKind(type, "persistentvolumes")) {
    DefaultWorkload(type, *object, create);
  }
}

}  // namespace trimtab::cluster
