#include "cluster/apiserver/surface/builtin_types.h"

#include <nlohmann/json.hpp>

#include "cluster/apiserver/auth/rbac_types.h"
#include "cluster/apiserver/surface/builtin_schemas.h"
#include "cluster/apiserver/surface/workload_types.h"

namespace trimtab::cluster {
namespace {

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

// Columns whose cells builtin_printers computes (json_path empty) or reads by JSONPath.
PrinterColumn Age() {
  return Col("Age", "string", 0, "",
             "CreationTimestamp is a timestamp representing the server time when this object "
             "was created.");
}

ResourceType Base(std::string group, std::string version, std::string kind, std::string plural,
                  bool namespaced) {
  ResourceType t;
  t.group = std::move(group);
  t.version = std::move(version);
  t.kind = kind;
  t.list_kind = kind + "List";
  t.singular = plural.substr(0, plural.size() - 1);
  t.plural = std::move(plural);
  t.namespaced = namespaced;
  t.verbs = kAllVerbs;
  return t;
}

void AddMetadataKeys(ResourceType& t) {
  t.merge_keys["metadata.ownerReferences"] = "uid";
  t.merge_keys["metadata.finalizers"] = "";
}

// Strategic-merge keys of a PodSpec found at `prefix` ("spec" or "spec.template.spec").
void AddPodSpecKeys(ResourceType& t, const std::string& prefix) {
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    const std::string base = prefix + "." + list;
    t.merge_keys[base] = "name";
    t.merge_keys[base + "[].ports"] = "containerPort";
    t.merge_keys[base + "[].env"] = "name";
    t.merge_keys[base + "[].volumeMounts"] = "mountPath";
    t.merge_keys[base + "[].volumeDevices"] = "devicePath";
  }
  t.merge_keys[prefix + ".volumes"] = "name";
  t.merge_keys[prefix + ".imagePullSecrets"] = "name";
  t.merge_keys[prefix + ".hostAliases"] = "ip";
  t.merge_keys[prefix + ".topologySpreadConstraints"] = "topologyKey";
  t.merge_keys[prefix + ".schedulingGates"] = "name";
  t.merge_keys[prefix + ".resourceClaims"] = "name";
}

ResourceType Namespaces() {
  ResourceType t = Base("", "v1", "Namespace", "namespaces", false);
  t.short_names = {"ns"};
  t.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  t.status_subresource = true;
  t.schema = builtin_schemas::Namespace();
  t.printer_columns = {Col("Status", "string", 0, ".status.phase",
                           "The status of the namespace"),
                       Age()};
  AddMetadataKeys(t);
  t.merge_keys["status.conditions"] = "type";
  return t;
}

ResourceType Pods() {
  ResourceType t = Base("", "v1", "Pod", "pods", true);
  t.short_names = {"po"};
  t.categories = {"all"};
  t.status_subresource = true;
  t.schema = builtin_schemas::Pod();
  t.printer_columns = {
      Col("Ready", "string", 0, "", "The aggregate readiness state of this pod for accepting traffic."),
      Col("Status", "string", 0, "", "The aggregate status of the containers in this pod."),
      Col("Restarts", "string", 0, "",
          "The number of times the containers in this pod have been restarted and when the last "
          "container in this pod has restarted."),
      Age(),
      Col("IP", "string", 1, ".status.podIP", "IP address allocated to the pod."),
      Col("Node", "string", 1, ".spec.nodeName", "Name of the Node this pod is assigned to."),
      Col("Nominated Node", "string", 1, ".status.nominatedNodeName",
          "Name of the node this pod is nominated to run on."),
      Col("Readiness Gates", "string", 1, "", "Pod readiness gates."),
  };
  AddMetadataKeys(t);
  AddPodSpecKeys(t, "spec");
  t.merge_keys["status.conditions"] = "type";
  t.merge_keys["status.podIPs"] = "ip";
  return t;
}

ResourceType Services() {
  ResourceType t = Base("", "v1", "Service", "services", true);
  t.short_names = {"svc"};
  t.categories = {"all"};
  t.status_subresource = true;
  t.schema = builtin_schemas::Service();
  t.printer_columns = {
      Col("Type", "string", 0, ".spec.type", "The type of the service."),
      Col("Cluster-IP", "string", 0, ".spec.clusterIP", "The cluster IP of the service."),
      Col("External-IP", "string", 0, "", "The external IP of the service."),
      Col("Port(s)", "string", 0, "", "The ports of the service."),
      Age(),
      Col("Selector", "string", 1, "", "The selector of the service."),
  };
  AddMetadataKeys(t);
  t.merge_keys["spec.ports"] = "port";
  t.merge_keys["status.conditions"] = "type";
  return t;
}

ResourceType ConfigMaps() {
  ResourceType t = Base("", "v1", "ConfigMap", "configmaps", true);
  t.short_names = {"cm"};
  t.schema = builtin_schemas::ConfigMap();
  t.printer_columns = {Col("Data", "integer", 0, "", "The number of data entries."), Age()};
  AddMetadataKeys(t);
  return t;
}

ResourceType Secrets() {
  ResourceType t = Base("", "v1", "Secret", "secrets", true);
  t.schema = builtin_schemas::Secret();
  t.printer_columns = {Col("Type", "string", 0, ".type", "The type of the secret."),
                       Col("Data", "integer", 0, "", "The number of data entries."), Age()};
  AddMetadataKeys(t);
  return t;
}

std::vector<PrinterColumn> EventColumns() {
  return {
      Col("Last Seen", "string", 0, "", "The time since the event was last seen."),
      Col("Type", "string", 0, "", "The type of the event."),
      Col("Reason", "string", 0, ".reason", "The reason for the event."),
      Col("Object", "string", 0, "", "The object the event is about."),
      Col("Subobject", "string", 1, "", "The subobject the event is about."),
      Col("Source", "string", 1, "", "The component reporting the event."),
      Col("Message", "string", 0, "", "A human-readable description of the event."),
      Col("First Seen", "string", 1, "", "The time since the event was first seen."),
      Col("Count", "string", 1, "", "The number of times the event has occurred."),
      Col("Name", "string", 1, ".metadata.name", "The name of the event."),
  };
}

ResourceType CoreEvents() {
  ResourceType t = Base("", "v1", "Event", "events", true);
  t.short_names = {"ev"};
  t.schema = builtin_schemas::CoreEvent();
  t.printer_columns = EventColumns();
  AddMetadataKeys(t);
  return t;
}

ResourceType EventsV1() {
  ResourceType t = Base("events.k8s.io", "v1", "Event", "events", true);
  t.short_names = {"ev"};
  t.schema = builtin_schemas::EventsV1Event();
  t.printer_columns = EventColumns();
  AddMetadataKeys(t);
  return t;
}

ResourceType Nodes() {
  ResourceType t = Base("", "v1", "Node", "nodes", false);
  t.short_names = {"no"};
  t.status_subresource = true;
  t.schema = builtin_schemas::Node();
  t.printer_columns = {
      Col("Status", "string", 0, "", "The status of the node"),
      Col("Roles", "string", 0, "", "The roles of the node"),
      Age(),
      Col("Version", "string", 0, ".status.nodeInfo.kubeletVersion",
          "Kubelet Version reported by the node."),
      Col("Internal-IP", "string", 1, "", "List of internal IPs for the node."),
      Col("External-IP", "string", 1, "", "List of external IPs for the node."),
      Col("OS-Image", "string", 1, ".status.nodeInfo.osImage", "OS Image reported by the node."),
      Col("Kernel-Version", "string", 1, ".status.nodeInfo.kernelVersion",
          "Kernel Version reported by the node."),
      Col("Container-Runtime", "string", 1, ".status.nodeInfo.containerRuntimeVersion",
          "Container Runtime Version reported by the node."),
  };
  AddMetadataKeys(t);
  t.merge_keys["status.conditions"] = "type";
  t.merge_keys["status.addresses"] = "type";
  return t;
}

ResourceType Deployments() {
  ResourceType t = Base("apps", "v1", "Deployment", "deployments", true);
  t.short_names = {"deploy"};
  t.categories = {"all"};
  t.status_subresource = true;
  t.scale_subresource = ScaleSubresource{.spec_replicas_path = ".spec.replicas",
                                         .status_replicas_path = ".status.replicas",
                                         .label_selector_path = ".status.selector"};
  t.schema = builtin_schemas::Deployment();
  t.printer_columns = {
      Col("Ready", "string", 0, "", "Number of the pod with ready state"),
      Col("Up-to-date", "integer", 0, ".status.updatedReplicas",
          "Total number of non-terminated pods targeted by this deployment that have the desired "
          "template spec."),
      Col("Available", "integer", 0, ".status.availableReplicas",
          "Total number of available pods (ready for at least minReadySeconds) targeted by this "
          "deployment."),
      Age(),
      Col("Containers", "string", 1, "", "Names of each container in the template."),
      Col("Images", "string", 1, "", "Images referenced by each container in the template."),
      Col("Selector", "string", 1, "", "Label selector for pods."),
  };
  AddMetadataKeys(t);
  AddPodSpecKeys(t, "spec.template.spec");
  t.merge_keys["spec.template.metadata.ownerReferences"] = "uid";
  t.merge_keys["status.conditions"] = "type";
  return t;
}

ResourceType ReplicaSets() {
  ResourceType t = Base("apps", "v1", "ReplicaSet", "replicasets", true);
  t.short_names = {"rs"};
  t.categories = {"all"};
  t.status_subresource = true;
  t.scale_subresource = ScaleSubresource{.spec_replicas_path = ".spec.replicas",
                                         .status_replicas_path = ".status.replicas",
                                         .label_selector_path = ".spec.selector"};
  t.schema = builtin_schemas::ReplicaSet();
  t.printer_columns = {
      Col("Desired", "integer", 0, "", "Number of desired pods."),
      Col("Current", "integer", 0, "", "Number of actual replicas."),
      Col("Ready", "integer", 0, "", "Number of ready replicas."),
      Age(),
      Col("Containers", "string", 1, "", "Names of each container in the template."),
      Col("Images", "string", 1, "", "Images referenced by each container in the template."),
      Col("Selector", "string", 1, "", "Label selector for pods."),
  };
  AddMetadataKeys(t);
  AddPodSpecKeys(t, "spec.template.spec");
  t.merge_keys["status.conditions"] = "type";
  return t;
}

ResourceType EndpointsType() {
  ResourceType t = Base("", "v1", "Endpoints", "endpoints", true);
  t.singular = "endpoints";
  t.short_names = {"ep"};
  t.schema = builtin_schemas::Endpoints();
  t.printer_columns = {Col("Endpoints", "string", 0, "", "Endpoints of the service."), Age()};
  AddMetadataKeys(t);
  return t;
}

ResourceType EndpointSlices() {
  ResourceType t = Base("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true);
  t.schema = builtin_schemas::EndpointSlice();
  t.printer_columns = {
      Col("AddressType", "string", 0, ".addressType", "The type of address of the endpoints."),
      Col("Ports", "string", 0, "", "Ports of the endpoint slice."),
      Col("Endpoints", "string", 0, "", "Addresses of the endpoints."),
      Age()};
  AddMetadataKeys(t);
  return t;
}

ResourceType ServiceAccounts() {
  ResourceType t = Base("", "v1", "ServiceAccount", "serviceaccounts", true);
  t.short_names = {"sa"};
  t.schema = builtin_schemas::ServiceAccount();
  t.printer_columns = {Col("Secrets", "string", 0, "", "The number of secrets."), Age()};
  AddMetadataKeys(t);
  t.merge_keys["secrets"] = "name";
  t.merge_keys["imagePullSecrets"] = "name";
  return t;
}

ResourceType Leases() {
  ResourceType t = Base("coordination.k8s.io", "v1", "Lease", "leases", true);
  t.schema = builtin_schemas::Lease();
  t.printer_columns = {Col("Holder", "string", 0, ".spec.holderIdentity", "The holder of the lease."),
                       Age()};
  AddMetadataKeys(t);
  return t;
}

ResourceType PriorityClasses() {
  ResourceType t = Base("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false);
  t.singular = "priorityclass";
  t.short_names = {"pc"};
  t.schema = builtin_schemas::PriorityClass();
  t.printer_columns = {
      Col("Value", "integer", 0, ".value", "The value of the priority class."),
      Col("Global-Default", "boolean", 0, "", "Whether the priority class is the global default."),
      Col("Preemption-Policy", "string", 0, "", "The preemption policy of the priority class."),
      Age()};
  AddMetadataKeys(t);
  return t;
}

ResourceType HorizontalPodAutoscalers() {
  ResourceType t = Base("autoscaling", "v2", "HorizontalPodAutoscaler",
                        "horizontalpodautoscalers", true);
  t.short_names = {"hpa"};
  t.categories = {"all"};
  t.status_subresource = true;
  t.schema = builtin_schemas::HorizontalPodAutoscaler();
  t.printer_columns = {
      Col("Reference", "string", 0, "", "The reference to the object being scaled."),
      Col("Targets", "string", 0, "", "The current and target metric values."),
      Col("MinPods", "string", 0, "", "The minimum number of replicas."),
      Col("MaxPods", "integer", 0, ".spec.maxReplicas", "The maximum number of replicas."),
      Col("Replicas", "integer", 0, ".status.currentReplicas", "The current number of replicas."),
      Age()};
  AddMetadataKeys(t);
  t.merge_keys["status.conditions"] = "type";
  return t;
}

// Served for kubectl autoscale and older clients; stored as v2 (version_conversion.h).
ResourceType HorizontalPodAutoscalersV1() {
  ResourceType t = HorizontalPodAutoscalers();
  t.version = "v1";
  t.storage_version = false;
  t.schema = builtin_schemas::HorizontalPodAutoscalerV1();
  return t;
}

ResourceType CustomResourceDefinitions() {
  ResourceType t = Base("apiextensions.k8s.io", "v1", "CustomResourceDefinition",
                        "customresourcedefinitions", false);
  t.short_names = {"crd", "crds"};
  t.categories = {"api-extensions"};
  t.status_subresource = true;
  t.schema = builtin_schemas::CustomResourceDefinition();
  t.printer_columns = {Col("Created At", "date", 0, ".metadata.creationTimestamp",
                           "CreationTimestamp is a timestamp representing the server time when "
                           "this object was created.")};
  AddMetadataKeys(t);
  t.merge_keys["status.conditions"] = "type";
  return t;
}

}  // namespace

std::vector<ResourceType> BuiltinTypes() {
  std::vector<ResourceType> types = {Namespaces(),      Pods(),           Services(),        ConfigMaps(),
          Secrets(),         CoreEvents(),     Nodes(),           EndpointsType(),
          ServiceAccounts(), Deployments(),    ReplicaSets(),     EventsV1(),
          Leases(),          PriorityClasses(), HorizontalPodAutoscalers(), HorizontalPodAutoscalersV1(),
          EndpointSlices(),  CustomResourceDefinitions()};
  for (ResourceType& t : auth::AuthResourceTypes()) types.push_back(std::move(t));
  for (ResourceType& t : WorkloadTypes()) types.push_back(std::move(t));
  return types;
}

void RegisterBuiltinTypes(ResourceRegistry& registry) {
  for (ResourceType& t : BuiltinTypes()) registry.Put(std::move(t));
}

}  // namespace trimtab::cluster
