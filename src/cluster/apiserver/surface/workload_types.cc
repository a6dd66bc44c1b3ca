#include "cluster/apiserver/surface/workload_types.h"

#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_schemas.h"
#include "cluster/apiserver/surface/schema_builder.h"
#include "cluster/apiserver/surface/table.h"

namespace trimtab::cluster {
namespace {

using namespace schema;  // NOLINT(google-build-using-namespace): a schema DSL

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};

PrinterColumn Col(std::string name, std::string type, int32_t priority = 0,
                  std::string json_path = "", std::string description = "") {
  PrinterColumn c;
  c.name = std::move(name);
  c.type = std::move(type);
  c.priority = priority;
  c.json_path = std::move(json_path);
  c.description = std::move(description);
  return c;
}

PrinterColumn Age() {
  return Col("Age", "string", 0, "",
             "CreationTimestamp is a timestamp representing the server time when this object "
             "was created.");
}

ResourceType Base(std::string group, std::string kind, std::string plural, bool namespaced) {
  ResourceType t;
  t.group = std::move(group);
  t.version = "v1";
  t.kind = kind;
  t.list_kind = kind + "List";
  t.singular = plural.substr(0, plural.size() - 1);
  t.plural = std::move(plural);
  t.namespaced = namespaced;
  t.verbs = kAllVerbs;
  t.merge_keys["metadata.ownerReferences"] = "uid";
  t.merge_keys["metadata.finalizers"] = "";
  return t;
}

void AddPodTemplateKeys(ResourceType& t, const std::string& prefix) {
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    const std::string base = prefix + ".spec." + list;
    t.merge_keys[base] = "name";
    t.merge_keys[base + "[].ports"] = "containerPort";
    t.merge_keys[base + "[].env"] = "name";
    t.merge_keys[base + "[].volumeMounts"] = "mountPath";
  }
  t.merge_keys[prefix + ".spec.volumes"] = "name";
  t.merge_keys[prefix + ".spec.imagePullSecrets"] = "name";
  t.merge_keys[prefix + ".spec.tolerations"] = "";
}

Json Conditions() { return Array(builtin_schemas::ConditionSchema()); }

Json JobSpec() {
  return Object({{"parallelism", Int32()},
                 {"completions", Int32()},
                 {"activeDeadlineSeconds", Int64()},
                 {"podFailurePolicy", OpenObject()},
                 {"successPolicy", OpenObject()},
                 {"backoffLimit", Int32()},
                 {"backoffLimitPerIndex", Int32()},
                 {"maxFailedIndexes", Int32()},
                 {"selector", builtin_schemas::LabelSelectorSchema()},
                 {"manualSelector", Boolean()},
                 {"template", builtin_schemas::PodTemplateSpecSchema()},
                 {"ttlSecondsAfterFinished", Int32()},
                 {"completionMode", Enum({"NonIndexed", "Indexed"})},
                 {"suspend", Boolean()},
                 {"podReplacementPolicy", String()},
                 {"managedBy", String()}},
                {"template"});
}

ResourceType Jobs() {
  ResourceType t = Base("batch", "Job", "jobs", true);
  t.categories = {"all"};
  t.status_subresource = true;
  Json status = Object({{"conditions", Conditions()},
                        {"startTime", Timestamp()},
                        {"completionTime", Timestamp()},
                        {"active", Int32()},
                        {"succeeded", Int32()},
                        {"failed", Int32()},
                        {"terminating", Int32()},
                        {"completedIndexes", String()},
                        {"failedIndexes", String()},
                        {"uncountedTerminatedPods", OpenObject()},
                        {"ready", Int32()}});
  t.schema = Kind({{"spec", JobSpec()}, {"status", status}},
                  "Job represents the configuration of a single job.");
  t.printer_columns = {
      Col("Status", "string", 0, "", "Status of the job."),
      Col("Completions", "string", 0, "", "The desired number of successfully finished pods."),
      Col("Duration", "string", 0, "", "Time required to complete the job."), Age(),
      Col("Containers", "string", 1, "", "Names of each container in the template."),
      Col("Images", "string", 1, "", "Images referenced by each container in the template."),
      Col("Selector", "string", 1, "", "Label selector for pods.")};
  AddPodTemplateKeys(t, "spec.template");
  t.merge_keys["status.conditions"] = "type";
  return t;
}

ResourceType CronJobs() {
  ResourceType t = Base("batch", "CronJob", "cronjobs", true);
  t.short_names = {"cj"};
  t.categories = {"all"};
  t.status_subresource = true;
  Json spec = Object(
      {{"schedule", String()},
       {"timeZone", String()},
       {"startingDeadlineSeconds", Int64()},
       {"concurrencyPolicy", Enum({"Allow", "Forbid", "Replace"})},
       {"suspend", Boolean()},
       {"jobTemplate", Object({{"metadata", ObjectMeta()}, {"spec", JobSpec()}})},
       {"successfulJobsHistoryLimit", Int32()},
       {"failedJobsHistoryLimit", Int32()}},
      {"schedule", "jobTemplate"});
  Json status = Object({{"active", Array(builtin_schemas::ObjectReferenceSchema())},
                        {"lastScheduleTime", Timestamp()},
                        {"lastSuccessfulTime", Timestamp()}});
  t.schema = Kind({{"spec", spec}, {"status", status}},
                  "CronJob represents the configuration of a single cron job.");
  t.printer_columns = {
      Col("Schedule", "string", 0, ".spec.schedule", "The schedule in Cron format."),
      Col("Timezone", "string", 0, "", "The time zone of the schedule."),
      Col("Suspend", "boolean", 0, "", "Whether subsequent executions are suspended."),
      Col("Active", "integer", 0, "", "The number of running jobs."),
      Col("Last Schedule", "string", 0, "", "When the job was last scheduled."), Age(),
      Col("Containers", "string", 1, "", "Names of each container in the template."),
      Col("Images", "string", 1, "", "Images referenced by each container in the template."),
      Col("Selector", "string", 1, "", "Label selector for pods.")};
  AddPodTemplateKeys(t, "spec.jobTemplate.spec.template");
  return t;
}

ResourceType StatefulSets() {
  ResourceType t = Base("apps", "StatefulSet", "statefulsets", true);
  t.short_names = {"sts"};
  t.categories = {"all"};
  t.status_subresource = true;
  t.scale_subresource = ScaleSubresource{.spec_replicas_path = ".spec.replicas",
                                         .status_replicas_path = ".status.replicas",
                                         .label_selector_path = ".spec.selector"};
  Json spec = Object({{"replicas", Int32()},
                      {"selector", builtin_schemas::LabelSelectorSchema()},
                      {"template", builtin_schemas::PodTemplateSpecSchema()},
                      {"volumeClaimTemplates", Array(OpenObject({{"metadata", ObjectMeta()}}))},
                      {"serviceName", String()},
                      {"podManagementPolicy", Enum({"OrderedReady", "Parallel"})},
                      {"updateStrategy", OpenObject()},
                      {"revisionHistoryLimit", Int32()},
                      {"minReadySeconds", Int32()},
                      {"persistentVolumeClaimRetentionPolicy", OpenObject()},
                      {"ordinals", OpenObject()}},
                     {"selector", "template"});
  Json status = Object({{"observedGeneration", Int64()},
                        {"replicas", Int32()},
                        {"readyReplicas", Int32()},
                        {"currentReplicas", Int32()},
                        {"updatedReplicas", Int32()},
                        {"currentRevision", String()},
                        {"updateRevision", String()},
                        {"collisionCount", Int32()},
                        {"conditions", Conditions()},
                        {"availableReplicas", Int32()}});
  t.schema = Kind({{"spec", spec}, {"status", status}},
                  "StatefulSet represents a set of pods with consistent identities.");
  t.printer_columns = {
      Col("Ready", "string", 0, "", "Number of the pod with ready state"), Age(),
      Col("Containers", "string", 1, "", "Names of each container in the template."),
      Col("Images", "string", 1, "", "Images referenced by each container in the template.")};
  AddPodTemplateKeys(t, "spec.template");
  t.merge_keys["status.conditions"] = "type";
  return t;
}

ResourceType DaemonSets() {
  ResourceType t = Base("apps", "DaemonSet", "daemonsets", true);
  t.short_names = {"ds"};
  t.categories = {"all"};
  t.status_subresource = true;
  Json spec = Object({{"selector", builtin_schemas::LabelSelectorSchema()},
                      {"template", builtin_schemas::PodTemplateSpecSchema()},
                      {"updateStrategy", OpenObject()},
                      {"minReadySeconds", Int32()},
                      {"revisionHistoryLimit", Int32()}},
                     {"selector", "template"});
  Json status = Object({{"currentNumberScheduled", Int32()},
                        {"numberMisscheduled", Int32()},
                        {"desiredNumberScheduled", Int32()},
                        {"numberReady", Int32()},
                        {"observedGeneration", Int64()},
                        {"updatedNumberScheduled", Int32()},
                        {"numberAvailable", Int32()},
                        {"numberUnavailable", Int32()},
                        {"collisionCount", Int32()},
                        {"conditions", Conditions()}});
  t.schema = Kind({{"spec", spec}, {"status", status}},
                  "DaemonSet represents the configuration of a daemon set.");
  t.printer_columns = {
      Col("Desired", "integer", 0, ".status.desiredNumberScheduled",
          "The number of nodes that should be running the daemon pod."),
      Col("Current", "integer", 0, ".status.currentNumberScheduled",
          "The number of nodes running at least one daemon pod."),
      Col("Ready", "integer", 0, ".status.numberReady",
          "The number of nodes that should be running the daemon pod and have one or more "
          "of the daemon pod running and ready."),
      Col("Up-to-date", "integer", 0, ".status.updatedNumberScheduled",
          "The total number of nodes that are running updated daemon pod."),
      Col("Available", "integer", 0, ".status.numberAvailable",
          "The number of nodes that should be running the daemon pod and have one or more of "
          "the daemon pod running and available."),
      Col("Node Selector", "string", 0, "", "The node selector of the daemon set."), Age(),
      Col("Containers", "string", 1, "", "Names of each container in the template."),
      Col("Images", "string", 1, "", "Images referenced by each container in the template."),
      Col("Selector", "string", 1, "", "Label selector for pods.")};
  AddPodTemplateKeys(t, "spec.template");
  t.merge_keys["status.conditions"] = "type";
  return t;
}

ResourceType PodDisruptionBudgets() {
  ResourceType t = Base("policy", "PodDisruptionBudget", "poddisruptionbudgets", true);
  t.short_names = {"pdb"};
  t.status_subresource = true;
  Json spec = Object({{"minAvailable", IntOrString()},
                      {"maxUnavailable", IntOrString()},
                      {"selector", builtin_schemas::LabelSelectorSchema()},
                      {"unhealthyPodEvictionPolicy", Enum({"IfHealthyBudget", "AlwaysAllow"})}});
  Json status = Object({{"observedGeneration", Int64()},
                        {"disruptedPods", Map(Timestamp())},
                        {"disruptionsAllowed", Int32()},
                        {"currentHealthy", Int32()},
                        {"desiredHealthy", Int32()},
                        {"expectedPods", Int32()},
                        {"conditions", Conditions()}});
  t.schema = Kind({{"spec", spec}, {"status", status}},
                  "PodDisruptionBudget is an object to define the max disruption that can be "
                  "caused to a collection of pods");
  t.printer_columns = {
      Col("Min Available", "string", 0, "", "The minimum number of pods that must be available."),
      Col("Max Unavailable", "string", 0, "",
          "The maximum number of pods that may be unavailable."),
      Col("Allowed Disruptions", "integer", 0, ".status.disruptionsAllowed",
          "Number of pod disruptions that are currently allowed."),
      Age()};
  t.merge_keys["status.conditions"] = "type";
  return t;
}

Json VolumeResources() {
  return Object({{"requests", Map(IntOrString())}, {"limits", Map(IntOrString())}});
}

ResourceType PersistentVolumeClaims() {
  ResourceType t = Base("", "PersistentVolumeClaim", "persistentvolumeclaims", true);
  t.short_names = {"pvc"};
  t.status_subresource = true;
  Json spec = Object({{"accessModes", Array(String())},
                      {"selector", builtin_schemas::LabelSelectorSchema()},
                      {"resources", VolumeResources()},
                      {"volumeName", String()},
                      {"storageClassName", String()},
                      {"volumeMode", Enum({"Block", "Filesystem"})},
                      {"dataSource", OpenObject()},
                      {"dataSourceRef", OpenObject()},
                      {"volumeAttributesClassName", String()}});
  Json status = OpenObject({{"phase", Enum({"Pending", "Bound", "Lost"})},
                            {"accessModes", Array(String())},
                            {"capacity", Map(IntOrString())}});
  t.schema = Kind({{"spec", spec}, {"status", status}},
                  "PersistentVolumeClaim is a user's request for and claim to a persistent "
                  "volume");
  t.printer_columns = {
      Col("Status", "string", 0, ".status.phase", "The phase of the claim."),
      Col("Volume", "string", 0, ".spec.volumeName", "The volume bound to the claim."),
      Col("Capacity", "string", 0, "", "The capacity of the bound volume."),
      Col("Access Modes", "string", 0, "", "The access modes of the bound volume."),
      Col("StorageClass", "string", 0, ".spec.storageClassName", "The storage class."),
      Col("VolumeAttributesClass", "string", 0, "", "The volume attributes class."), Age(),
      Col("VolumeMode", "string", 1, ".spec.volumeMode", "The volume mode.")};
  t.merge_keys["status.conditions"] = "type";
  return t;
}

ResourceType PersistentVolumes() {
  ResourceType t = Base("", "PersistentVolume", "persistentvolumes", false);
  t.short_names = {"pv"};
  t.status_subresource = true;
  Json spec = OpenObject({{"capacity", Map(IntOrString())},
                          {"accessModes", Array(String())},
                          {"claimRef", builtin_schemas::ObjectReferenceSchema()},
                          {"persistentVolumeReclaimPolicy", Enum({"Recycle", "Delete", "Retain"})},
                          {"storageClassName", String()},
                          {"mountOptions", Array(String())},
                          {"volumeMode", Enum({"Block", "Filesystem"})},
                          {"nodeAffinity", OpenObject()},
                          {"hostPath", Object({{"path", String()}, {"type", String()}})},
                          {"local", Object({{"path", String()}, {"fsType", String()}})},
                          {"volumeAttributesClassName", String()}});
  Json status = Object({{"phase", Enum({"Pending", "Available", "Bound", "Released", "Failed"})},
                        {"message", String()},
                        {"reason", String()},
                        {"lastPhaseTransitionTime", Timestamp()}});
  t.schema = Kind({{"spec", spec}, {"status", status}},
                  "PersistentVolume (PV) is a storage resource provisioned by an administrator.");
  t.printer_columns = {
      Col("Capacity", "string", 0, "", "The capacity of the volume."),
      Col("Access Modes", "string", 0, "", "The access modes of the volume."),
      Col("Reclaim Policy", "string", 0, ".spec.persistentVolumeReclaimPolicy",
          "What happens to the volume when its claim is released."),
      Col("Status", "string", 0, ".status.phase", "The phase of the volume."),
      Col("Claim", "string", 0, "", "The claim bound to the volume."),
      Col("StorageClass", "string", 0, ".spec.storageClassName", "The storage class."),
      Col("VolumeAttributesClass", "string", 0, "", "The volume attributes class."),
      Col("Reason", "string", 0, ".status.reason", "Why the volume is in its phase."), Age(),
      Col("VolumeMode", "string", 1, ".spec.volumeMode", "The volume mode.")};
  return t;
}

ResourceType StorageClasses() {
  ResourceType t = Base("storage.k8s.io", "StorageClass", "storageclasses", false);
  t.singular = "storageclass";
  t.short_names = {"sc"};
  t.schema = Kind({{"provisioner", String()},
                   {"parameters", StringMap()},
                   {"reclaimPolicy", Enum({"Recycle", "Delete", "Retain"})},
                   {"mountOptions", Array(String())},
                   {"allowVolumeExpansion", Boolean()},
                   {"volumeBindingMode", Enum({"Immediate", "WaitForFirstConsumer"})},
                   {"allowedTopologies", Array(OpenObject())}},
                  "StorageClass describes the parameters for a class of storage.");
  t.schema["required"] = Json::array({"provisioner"});
  t.printer_columns = {
      Col("Provisioner", "string", 0, ".provisioner", "The provisioner of the class."),
      Col("ReclaimPolicy", "string", 0, "", "The reclaim policy of its volumes."),
      Col("VolumeBindingMode", "string", 0, "", "When its volumes are bound."),
      Col("AllowVolumeExpansion", "string", 0, "", "Whether its volumes can grow."), Age()};
  return t;
}

Json IngressBackend() {
  Json port = Object({{"name", String()}, {"number", Int32()}});
  return Object({{"service", Object({{"name", String()}, {"port", port}}, {"name"})},
                 {"resource", OpenObject()}});
}

ResourceType Ingresses() {
  ResourceType t = Base("networking.k8s.io", "Ingress", "ingresses", true);
  t.singular = "ingress";
  t.short_names = {"ing"};
  t.status_subresource = true;
  Json path = Object({{"path", String()},
                      {"pathType", Enum({"Exact", "Prefix", "ImplementationSpecific"})},
                      {"backend", IngressBackend()}},
                     {"pathType", "backend"});
  Json rule = Object({{"host", String()},
                      {"http", Object({{"paths", Array(path)}}, {"paths"})}});
  Json spec = Object({{"ingressClassName", String()},
                      {"defaultBackend", IngressBackend()},
                      {"tls", Array(Object({{"hosts", Array(String())},
                                            {"secretName", String()}}))},
                      {"rules", Array(rule)}});
  t.schema = Kind({{"spec", spec}, {"status", OpenObject()}},
                  "Ingress is a collection of rules that allow inbound connections to reach the "
                  "endpoints defined by a backend.");
  t.printer_columns = {
      Col("Class", "string", 0, "", "The ingress class."),
      Col("Hosts", "string", 0, "", "The hosts of the rules."),
      Col("Address", "string", 0, "", "The load balancer address."),
      Col("Ports", "string", 0, "", "The ports served."), Age()};
  return t;
}

ResourceType IngressClasses() {
  ResourceType t = Base("networking.k8s.io", "IngressClass", "ingressclasses", false);
  t.singular = "ingressclass";
  t.schema = Kind({{"spec", Object({{"controller", String()}, {"parameters", OpenObject()}})}},
                  "IngressClass represents the class of the Ingress, referenced by the Ingress "
                  "Spec.");
  t.printer_columns = {Col("Controller", "string", 0, ".spec.controller", "The controller."),
                       Col("Parameters", "string", 0, "", "The parameters."), Age()};
  return t;
}

ResourceType ResourceQuotas() {
  ResourceType t = Base("", "ResourceQuota", "resourcequotas", true);
  t.short_names = {"quota"};
  t.status_subresource = true;
  Json spec = Object({{"hard", Map(IntOrString())},
                      {"scopes", Array(String())},
                      {"scopeSelector", OpenObject()}});
  Json status = Object({{"hard", Map(IntOrString())}, {"used", Map(IntOrString())}});
  t.schema = Kind({{"spec", spec}, {"status", status}},
                  "ResourceQuota sets aggregate quota restrictions enforced per namespace");
  t.printer_columns = {Age(), Col("Request", "string", 0, "", "The requests and their use."),
                       Col("Limit", "string", 0, "", "The limits and their use.")};
  return t;
}

// ---- printer cells ---------------------------------------------------------------------------

const Json& Get(const Json& obj, std::initializer_list<const char*> keys) {
  static const Json kNull;
  const Json* cur = &obj;
  for (const char* k : keys) {
    if (!cur->is_object()) return kNull;
    auto it = cur->find(k);
    if (it == cur->end()) return kNull;
    cur = &*it;
  }
  return *cur;
}

std::string Text(const Json& v, const std::string& fallback = "<none>") {
  if (v.is_string()) return v.get<std::string>().empty() ? fallback : v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return fallback;
}

int64_t Number(const Json& v) { return v.is_number_integer() ? v.get<int64_t>() : 0; }

std::string Joined(const std::vector<std::string>& parts, const std::string& empty = "<none>") {
  if (parts.empty()) return empty;
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// The containers' names or images of a pod template.
std::string TemplateContainers(const Json& tmpl, const char* field) {
  std::vector<std::string> out;
  const Json& containers = Get(tmpl, {"spec", "containers"});
  if (containers.is_array()) {
    for (const Json& c : containers) out.push_back(Text(Get(c, {field}), ""));
  }
  return Joined(out);
}

std::string Selector(const Json& selector) {
  std::vector<std::string> parts;
  const Json& labels = Get(selector, {"matchLabels"});
  if (labels.is_object()) {
    for (auto& [k, v] : labels.items()) parts.push_back(k + "=" + Text(v, ""));
  }
  const Json& exprs = Get(selector, {"matchExpressions"});
  if (exprs.is_array()) {
    for (const Json& e : exprs) {
      std::string op = Text(Get(e, {"operator"}), "");
      std::vector<std::string> values;
      if (Get(e, {"values"}).is_array()) {
        for (const Json& v : Get(e, {"values"})) values.push_back(Text(v, ""));
      }
      std::string key = Text(Get(e, {"key"}), "");
      if (op == "Exists") {
        parts.push_back(key);
      } else if (op == "DoesNotExist") {
        parts.push_back("!" + key);
      } else {
        parts.push_back(key + " " + (op == "In" ? "in" : "notin") + " (" + Joined(values, "") +
                        ")");
      }
    }
  }
  return Joined(parts);
}

bool HasCondition(const Json& obj, const std::string& type) {
  const Json& conds = Get(obj, {"status", "conditions"});
  if (!conds.is_array()) return false;
  for (const Json& c : conds) {
    if (Text(Get(c, {"type"}), "") == type && Text(Get(c, {"status"}), "") == "True") return true;
  }
  return false;
}

std::optional<Json> JobCell(const std::string& col, const Json& job, TimePoint now) {
  if (col == "Status") {
    if (HasCondition(job, "Complete")) return std::string("Complete");
    if (HasCondition(job, "Failed")) return std::string("Failed");
    if (HasCondition(job, "FailureTarget")) return std::string("FailureTarget");
    if (HasCondition(job, "SuccessCriteriaMet")) return std::string("SuccessCriteriaMet");
    if (HasCondition(job, "Suspended")) return std::string("Suspended");
    if (Get(job, {"metadata", "deletionTimestamp"}).is_string()) {
      return std::string("Terminating");
    }
    return std::string("Running");
  }
  if (col == "Completions") {
    const Json& completions = Get(job, {"spec", "completions"});
    int64_t succeeded = Number(Get(job, {"status", "succeeded"}));
    if (completions.is_number_integer()) {
      return std::to_string(succeeded) + "/" + std::to_string(completions.get<int64_t>());
    }
    int64_t parallelism = Number(Get(job, {"spec", "parallelism"}));
    if (parallelism > 1) {
      return std::to_string(succeeded) + "/1 of " + std::to_string(parallelism);
    }
    return std::to_string(succeeded) + "/1";
  }
  if (col == "Duration") {
    auto start = ParseRfc3339(Text(Get(job, {"status", "startTime"}), ""));
    if (!start.ok()) return std::string("");
    auto end = ParseRfc3339(Text(Get(job, {"status", "completionTime"}), ""));
    return HumanDuration((end.ok() ? *end : now) - *start);
  }
  if (col == "Containers") return TemplateContainers(Get(job, {"spec", "template"}), "name");
  if (col == "Images") return TemplateContainers(Get(job, {"spec", "template"}), "image");
  if (col == "Selector") return Selector(Get(job, {"spec", "selector"}));
  return std::nullopt;
}

std::optional<Json> CronJobCell(const std::string& col, const Json& cj, TimePoint now) {
  if (col == "Timezone") return Text(Get(cj, {"spec", "timeZone"}));
  if (col == "Suspend") {
    const Json& v = Get(cj, {"spec", "suspend"});
    return v.is_boolean() && v.get<bool>();
  }
  if (col == "Active") {
    const Json& active = Get(cj, {"status", "active"});
    return static_cast<int64_t>(active.is_array() ? active.size() : 0);
  }
  if (col == "Last Schedule") {
    const Json& last = Get(cj, {"status", "lastScheduleTime"});
    return last.is_string() ? HumanAge(last, now) : std::string("<none>");
  }
  const Json& tmpl = Get(cj, {"spec", "jobTemplate", "spec", "template"});
  if (col == "Containers") return TemplateContainers(tmpl, "name");
  if (col == "Images") return TemplateContainers(tmpl, "image");
  if (col == "Selector") return Selector(Get(cj, {"spec", "jobTemplate", "spec", "selector"}));
  return std::nullopt;
}

std::string AccessModes(const Json& modes) {
  std::vector<std::string> out;
  if (modes.is_array()) {
    for (const Json& m : modes) {
      std::string s = Text(m, "");
      if (s == "ReadWriteOnce") out.push_back("RWO");
      if (s == "ReadOnlyMany") out.push_back("ROX");
      if (s == "ReadWriteMany") out.push_back("RWX");
      if (s == "ReadWriteOncePod") out.push_back("RWOP");
    }
  }
  return Joined(out, "");
}

std::string IntOrStringText(const Json& v) {
  if (v.is_string() || v.is_number_integer()) return Text(v);
  return "N/A";
}

std::string QuotaUse(const Json& quota, bool limits) {
  std::vector<std::string> out;
  const Json& hard = Get(quota, {"status", "hard"});
  const Json& used = Get(quota, {"status", "used"});
  const Json& spec_hard = hard.is_object() ? hard : Get(quota, {"spec", "hard"});
  if (!spec_hard.is_object()) return "";
  for (auto& [k, v] : spec_hard.items()) {
    bool is_limit = k.rfind("limits.", 0) == 0;
    if (is_limit != limits) continue;
    std::string u = used.is_object() && used.contains(k) ? Text(used[k], "0") : "0";
    out.push_back(k + ": " + u + "/" + Text(v, "0"));
  }
  std::string joined;
  for (const auto& p : out) joined += (joined.empty() ? "" : ", ") + p;
  return joined;
}

}  // namespace

std::vector<ResourceType> WorkloadTypes() {
  return {Jobs(),           CronJobs(),   StatefulSets(),   DaemonSets(),
          PodDisruptionBudgets(), PersistentVolumeClaims(), PersistentVolumes(),
          StorageClasses(), Ingresses(),  IngressClasses(), ResourceQuotas()};
}

std::optional<Json> WorkloadCell(const std::string& kind, const std::string& col,
                                 const Json& obj, TimePoint now) {
  if (kind == "Job") return JobCell(col, obj, now);
  if (kind == "CronJob") return CronJobCell(col, obj, now);
  if (kind == "StatefulSet") {
    if (col == "Ready") {
      return std::to_string(Number(Get(obj, {"status", "readyReplicas"}))) + "/" +
             std::to_string(Get(obj, {"spec", "replicas"}).is_number_integer()
                                ? Number(Get(obj, {"spec", "replicas"}))
                                : 1);
    }
    if (col == "Containers") return TemplateContainers(Get(obj, {"spec", "template"}), "name");
    if (col == "Images") return TemplateContainers(Get(obj, {"spec", "template"}), "image");
  }
  if (kind == "DaemonSet") {
    if (col == "Node Selector") {
      std::vector<std::string> parts;
      const Json& sel = Get(obj, {"spec", "template", "spec", "nodeSelector"});
      if (sel.is_object()) {
        for (auto& [k, v] : sel.items()) parts.push_back(k + "=" + Text(v, ""));
      }
      return Joined(parts);
    }
    if (col == "Containers") return TemplateContainers(Get(obj, {"spec", "template"}), "name");
    if (col == "Images") return TemplateContainers(Get(obj, {"spec", "template"}), "image");
    if (col == "Selector") return Selector(Get(obj, {"spec", "selector"}));
  }
  if (kind == "PodDisruptionBudget") {
    if (col == "Min Available") return IntOrStringText(Get(obj, {"spec", "minAvailable"}));
    if (col == "Max Unavailable") return IntOrStringText(Get(obj, {"spec", "maxUnavailable"}));
  }
  if (kind == "PersistentVolumeClaim") {
    if (col == "Capacity") return Text(Get(obj, {"status", "capacity", "storage"}), "");
    if (col == "Access Modes") return AccessModes(Get(obj, {"status", "accessModes"}));
    if (col == "VolumeAttributesClass") {
      return Text(Get(obj, {"spec", "volumeAttributesClassName"}), "<unset>");
    }
  }
  if (kind == "PersistentVolume") {
    if (col == "Capacity") return Text(Get(obj, {"spec", "capacity", "storage"}), "");
    if (col == "Access Modes") return AccessModes(Get(obj, {"spec", "accessModes"}));
    if (col == "Claim") {
      const Json& ref = Get(obj, {"spec", "claimRef"});
      if (!ref.is_object()) return std::string("");
      return Text(Get(ref, {"namespace"}), "") + "/" + Text(Get(ref, {"name"}), "");
    }
    if (col == "VolumeAttributesClass") {
      return Text(Get(obj, {"spec", "volumeAttributesClassName"}), "<unset>");
    }
  }
  if (kind == "StorageClass") {
    if (col == "ReclaimPolicy") return Text(Get(obj, {"reclaimPolicy"}), "Delete");
    if (col == "VolumeBindingMode") return Text(Get(obj, {"volumeBindingMode"}), "Immediate");
    if (col == "AllowVolumeExpansion") return Text(Get(obj, {"allowVolumeExpansion"}), "false");
    if (col == "Name") return std::nullopt;
  }
  if (kind == "Ingress") {
    if (col == "Class") return Text(Get(obj, {"spec", "ingressClassName"}));
    if (col == "Hosts") {
      std::vector<std::string> hosts;
      const Json& rules = Get(obj, {"spec", "rules"});
      if (rules.is_array()) {
        for (const Json& r : rules) hosts.push_back(Text(Get(r, {"host"}), "*"));
      }
      return Joined(hosts, "*");
    }
    if (col == "Address") {
      std::vector<std::string> out;
      const Json& lbs = Get(obj, {"status", "loadBalancer", "ingress"});
      if (lbs.is_array()) {
        for (const Json& lb : lbs) {
          std::string a = Text(Get(lb, {"ip"}), "");
          if (a.empty()) a = Text(Get(lb, {"hostname"}), "");
          if (!a.empty()) out.push_back(a);
        }
      }
      return Joined(out, "");
    }
    if (col == "Ports") {
      const Json& tls = Get(obj, {"spec", "tls"});
      return std::string(tls.is_array() && !tls.empty() ? "80, 443" : "80");
    }
  }
  if (kind == "IngressClass" && col == "Parameters") {
    const Json& p = Get(obj, {"spec", "parameters"});
    if (!p.is_object()) return std::string("<none>");
    return Text(Get(p, {"kind"}), "") + "/" + Text(Get(p, {"name"}), "");
  }
  if (kind == "ResourceQuota") {
    if (col == "Request") return QuotaUse(obj, false);
    if (col == "Limit") return QuotaUse(obj, true);
  }
  return std::nullopt;
}

}  // namespace trimtab::cluster
