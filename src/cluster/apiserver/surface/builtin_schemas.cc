#include "cluster/apiserver/surface/builtin_schemas.h"

#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/schema_builder.h"

namespace trimtab::cluster::builtin_schemas {
namespace {

using namespace schema;  // NOLINT(google-build-using-namespace): a schema DSL

Json Condition() {
  return Object({{"type", String()},
                 {"status", Enum({"True", "False", "Unknown"})},
                 {"observedGeneration", Int64()},
                 {"lastTransitionTime", Timestamp()},
                 {"lastUpdateTime", Timestamp()},
                 {"lastProbeTime", Timestamp()},
                 {"lastHeartbeatTime", Timestamp()},
                 {"reason", String()},
                 {"message", String()}},
                {"type", "status"});
}

Json ResourceRequirements() {
  return Object({{"limits", Map(IntOrString())},
                 {"requests", Map(IntOrString())},
                 {"claims", Array(OpenObject({{"name", String()}}))}});
}

Json Container() {
  Json port = Object({{"name", String()},
                      {"containerPort", Int32()},
                      {"hostPort", Int32()},
                      {"hostIP", String()},
                      {"protocol", Enum({"TCP", "UDP", "SCTP"})}},
                     {"containerPort"});
  Json env = Object({{"name", String()}, {"value", String()}, {"valueFrom", OpenObject()}},
                    {"name"});
  Json mount = Object({{"name", String()},
                       {"mountPath", String()},
                       {"subPath", String()},
                       {"subPathExpr", String()},
                       {"readOnly", Boolean()},
                       {"recursiveReadOnly", String()},
                       {"mountPropagation", String()}},
                      {"name", "mountPath"});
  return Object(
      {
          {"name", String()},
          {"image", String()},
          {"command", Array(String())},
          {"args", Array(String())},
          {"workingDir", String()},
          {"ports", Array(port)},
          {"envFrom", Array(OpenObject())},
          {"env", Array(env)},
          {"resources", ResourceRequirements()},
          {"resizePolicy", Array(OpenObject())},
          {"restartPolicy", String()},
          {"volumeMounts", Array(mount)},
          {"volumeDevices", Array(OpenObject())},
          {"livenessProbe", OpenObject()},
          {"readinessProbe", OpenObject()},
          {"startupProbe", OpenObject()},
          {"lifecycle", OpenObject()},
          {"terminationMessagePath", String()},
          {"terminationMessagePolicy", Enum({"File", "FallbackToLogsOnError"})},
          {"imagePullPolicy", Enum({"Always", "Never", "IfNotPresent"})},
          {"securityContext", OpenObject()},
          {"stdin", Boolean()},
          {"stdinOnce", Boolean()},
          {"tty", Boolean()},
      },
      {"name"});
}

Json Toleration() {
  return Object({{"key", String()},
                 {"operator", Enum({"Exists", "Equal"})},
                 {"value", String()},
                 {"effect", String()},
                 {"tolerationSeconds", Int64()}});
}

Json PodSpec() {
  Json volume = OpenObject({{"name", String()}});
  volume["required"] = Json::array({"name"});
  return Object(
      {
          {"volumes", Array(volume)},
          {"initContainers", Array(Container())},
          {"containers", Array(Container())},
          {"ephemeralContainers", Array(OpenObject({{"name", String()}}))},
          {"restartPolicy", Enum({"Always", "OnFailure", "Never"})},
          {"terminationGracePeriodSeconds", Int64()},
          {"activeDeadlineSeconds", Int64()},
          {"dnsPolicy", String()},
          {"nodeSelector", StringMap()},
          {"serviceAccountName", String()},
          {"serviceAccount", String()},
          {"automountServiceAccountToken", Boolean()},
          {"nodeName", String()},
          {"hostNetwork", Boolean()},
          {"hostPID", Boolean()},
          {"hostIPC", Boolean()},
          {"shareProcessNamespace", Boolean()},
          {"securityContext", OpenObject()},
          {"imagePullSecrets", Array(Object({{"name", String()}}))},
          {"hostname", String()},
          {"subdomain", String()},
          {"affinity", OpenObject()},
          {"schedulerName", String()},
          {"tolerations", Array(Toleration())},
          {"hostAliases", Array(OpenObject())},
          {"priorityClassName", String()},
          {"priority", Int32()},
          {"dnsConfig", OpenObject()},
          {"readinessGates", Array(OpenObject())},
          {"runtimeClassName", String()},
          {"enableServiceLinks", Boolean()},
          {"preemptionPolicy", String()},
          {"overhead", Map(IntOrString())},
          {"topologySpreadConstraints", Array(OpenObject())},
          {"setHostnameAsFQDN", Boolean()},
          {"os", OpenObject()},
          {"hostUsers", Boolean()},
          {"schedulingGates", Array(OpenObject())},
          {"resourceClaims", Array(OpenObject())},
          {"resources", ResourceRequirements()},
      },
      {"containers"});
}

Json PodStatus() {
  Json container_status = OpenObject({{"name", String()},
                                      {"ready", Boolean()},
                                      {"started", Boolean()},
                                      {"restartCount", Int32()},
                                      {"image", String()},
                                      {"imageID", String()},
                                      {"containerID", String()},
                                      {"state", OpenObject()},
                                      {"lastState", OpenObject()}});
  return OpenObject({{"phase", Enum({"Pending", "Running", "Succeeded", "Failed", "Unknown"})},
                     {"conditions", Array(Condition())},
                     {"message", String()},
                     {"reason", String()},
                     {"nominatedNodeName", String()},
                     {"hostIP", String()},
                     {"podIP", String()},
                     {"podIPs", Array(OpenObject())},
                     {"startTime", Timestamp()},
                     {"initContainerStatuses", Array(container_status)},
                     {"containerStatuses", Array(container_status)},
                     {"qosClass", String()}});
}

Json LabelSelector() {
  Json requirement = Object({{"key", String()},
                             {"operator", String()},
                             {"values", Array(String())}},
                            {"key", "operator"});
  return Object({{"matchLabels", StringMap()}, {"matchExpressions", Array(requirement)}});
}

Json ObjectReference() {
  return Object({{"apiVersion", String()},
                 {"kind", String()},
                 {"name", String()},
                 {"namespace", String()},
                 {"uid", String()},
                 {"resourceVersion", String()},
                 {"fieldPath", String()}});
}

}  // namespace

Json PodTemplateSpecSchema() { return Object({{"metadata", ObjectMeta()}, {"spec", PodSpec()}}); }
Json LabelSelectorSchema() { return LabelSelector(); }
Json ConditionSchema() { return Condition(); }
Json ObjectReferenceSchema() { return ObjectReference(); }

Json Namespace() {
  return Kind({{"spec", Object({{"finalizers", Array(String())}})},
               {"status", Object({{"phase", Enum({"Active", "Terminating"})},
                                  {"conditions", Array(Condition())}})}},
              "Namespace provides a scope for Names.");
}

Json Pod() {
  return Kind({{"spec", PodSpec()}, {"status", PodStatus()}},
              "Pod is a collection of containers that can run on a host.");
}

Json Service() {
  Json port = Object({{"name", String()},
                      {"protocol", Enum({"TCP", "UDP", "SCTP"})},
                      {"appProtocol", String()},
                      {"port", Int32()},
                      {"targetPort", IntOrString()},
                      {"nodePort", Int32()}},
                     {"port"});
  Json spec = OpenObject({{"ports", Array(port)},
                          {"selector", StringMap()},
                          {"clusterIP", String()},
                          {"clusterIPs", Array(String())},
                          {"type", Enum({"ClusterIP", "NodePort", "LoadBalancer", "ExternalName"})},
                          {"externalIPs", Array(String())},
                          {"sessionAffinity", String()},
                          {"externalName", String()},
                          {"externalTrafficPolicy", String()},
                          {"internalTrafficPolicy", String()},
                          {"ipFamilies", Array(String())},
                          {"ipFamilyPolicy", String()},
                          {"publishNotReadyAddresses", Boolean()}});
  return Kind({{"spec", spec}, {"status", OpenObject()}},
              "Service is a named abstraction of software service.");
}

Json ConfigMap() {
  return Kind({{"data", StringMap()},
               {"binaryData", Map(Json{{"type", "string"}, {"format", "byte"}})},
               {"immutable", Boolean()}},
              "ConfigMap holds configuration data for pods to consume.");
}

Json Secret() {
  return Kind({{"data", Map(Json{{"type", "string"}, {"format", "byte"}})},
               {"stringData", StringMap()},
               {"type", String()},
               {"immutable", Boolean()}},
              "Secret holds secret data of a certain type.");
}

Json CoreEvent() {
  return Kind({{"involvedObject", ObjectReference()},
               {"reason", String()},
               {"message", String()},
               {"source", Object({{"component", String()}, {"host", String()}})},
               {"firstTimestamp", Timestamp()},
               {"lastTimestamp", Timestamp()},
               {"count", Int32()},
               {"type", String()},
               {"eventTime", String()},
               {"series", OpenObject()},
               {"action", String()},
               {"related", ObjectReference()},
               {"reportingComponent", String()},
               {"reportingInstance", String()}},
              "Event is a report of an event somewhere in the cluster.");
}

Json EventsV1Event() {
  return Kind({{"eventTime", String()},
               {"series", OpenObject()},
               {"reportingController", String()},
               {"reportingInstance", String()},
               {"action", String()},
               {"reason", String()},
               {"regarding", ObjectReference()},
               {"related", ObjectReference()},
               {"note", String()},
               {"type", String()},
               {"deprecatedSource", OpenObject()},
               {"deprecatedFirstTimestamp", Timestamp()},
               {"deprecatedLastTimestamp", Timestamp()},
               {"deprecatedCount", Int32()}},
              "Event is a report of an event somewhere in the cluster.");
}

Json Node() {
  Json spec = OpenObject({{"podCIDR", String()},
                          {"podCIDRs", Array(String())},
                          {"providerID", String()},
                          {"unschedulable", Boolean()},
                          {"taints", Array(OpenObject())}});
  Json status = OpenObject({{"capacity", Map(IntOrString())},
                            {"allocatable", Map(IntOrString())},
                            {"conditions", Array(Condition())},
                            {"addresses", Array(Object({{"type", String()},
                                                        {"address", String()}}))},
                            {"nodeInfo", OpenObject()}});
  return Kind({{"spec", spec}, {"status", status}},
              "Node is a worker node in Kubernetes.");
}

Json Deployment() {
  Json strategy = Object({{"type", Enum({"Recreate", "RollingUpdate"})},
                          {"rollingUpdate", Object({{"maxUnavailable", IntOrString()},
                                                    {"maxSurge", IntOrString()}})}});
  Json spec = Object({{"replicas", Int32()},
                      {"selector", LabelSelector()},
                      {"template", Object({{"metadata", ObjectMeta()}, {"spec", PodSpec()}})},
                      {"strategy", strategy},
                      {"minReadySeconds", Int32()},
                      {"revisionHistoryLimit", Int32()},
                      {"paused", Boolean()},
                      {"progressDeadlineSeconds", Int32()}},
                     {"selector", "template"});
  Json status = Object({{"observedGeneration", Int64()},
                        {"replicas", Int32()},
                        {"updatedReplicas", Int32()},
                        {"readyReplicas", Int32()},
                        {"availableReplicas", Int32()},
                        {"unavailableReplicas", Int32()},
                        {"terminatingReplicas", Int32()},
                        {"conditions", Array(Condition())},
                        {"collisionCount", Int32()}});
  return Kind({{"spec", spec}, {"status", status}},
              "Deployment enables declarative updates for Pods and ReplicaSets.");
}

Json ReplicaSet() {
  Json spec = Object({{"replicas", Int32()},
                      {"minReadySeconds", Int32()},
                      {"selector", LabelSelector()},
                      {"template", Object({{"metadata", ObjectMeta()}, {"spec", PodSpec()}})}},
                     {"selector"});
  Json status = Object({{"replicas", Int32()},
                        {"fullyLabeledReplicas", Int32()},
                        {"readyReplicas", Int32()},
                        {"availableReplicas", Int32()},
                        {"terminatingReplicas", Int32()},
                        {"observedGeneration", Int64()},
                        {"conditions", Array(Condition())}},
                       {"replicas"});
  return Kind({{"spec", spec}, {"status", status}},
              "ReplicaSet ensures that a specified number of pod replicas are running at any "
              "given time.");
}

Json Endpoints() {
  Json address = Object({{"ip", String()},
                         {"hostname", String()},
                         {"nodeName", String()},
                         {"targetRef", ObjectReference()}},
                        {"ip"});
  Json port = Object({{"name", String()},
                      {"port", Int32()},
                      {"protocol", Enum({"TCP", "UDP", "SCTP"})},
                      {"appProtocol", String()}},
                     {"port"});
  Json subset = Object({{"addresses", Array(address)},
                        {"notReadyAddresses", Array(address)},
                        {"ports", Array(port)}});
  return Kind({{"subsets", Array(subset)}},
              "Endpoints is a collection of endpoints that implement the actual service.");
}

Json EndpointSlice() {
  Json conditions = Object({{"ready", Boolean()}, {"serving", Boolean()}, {"terminating", Boolean()}});
  Json endpoint = Object({{"addresses", Array(String())},
                          {"conditions", conditions},
                          {"hostname", String()},
                          {"targetRef", ObjectReference()},
                          {"deprecatedTopology", StringMap()},
                          {"nodeName", String()},
                          {"zone", String()},
                          {"hints", OpenObject()}},
                         {"addresses"});
  Json port = Object({{"name", String()},
                      {"protocol", Enum({"TCP", "UDP", "SCTP"})},
                      {"port", Int32()},
                      {"appProtocol", String()}});
  Json out = Kind({{"addressType", Enum({"IPv4", "IPv6", "FQDN"})},
                   {"endpoints", Array(endpoint)},
                   {"ports", Array(port)}},
                  "EndpointSlice represents a subset of the endpoints that implement a service.");
  out["required"] = Json::array({"addressType", "endpoints"});
  return out;
}

Json ServiceAccount() {
  return Kind({{"secrets", Array(ObjectReference())},
               {"imagePullSecrets", Array(Object({{"name", String()}}))},
               {"automountServiceAccountToken", Boolean()}},
              "ServiceAccount binds together a name, a principal that can be authenticated and "
              "authorized, and a set of secrets.");
}

Json Lease() {
  return Kind({{"spec", Object({{"holderIdentity", String()},
                                {"leaseDurationSeconds", Int32()},
                                {"acquireTime", String()},
                                {"renewTime", String()},
                                {"leaseTransitions", Int32()},
                                {"strategy", String()},
                                {"preferredHolder", String()}})}},
              "Lease defines a lease concept.");
}

Json PriorityClass() {
  Json out = Kind({{"value", Int32()},
                   {"globalDefault", Boolean()},
                   {"description", String()},
                   {"preemptionPolicy", Enum({"PreemptLowerPriority", "Never"})}},
                  "PriorityClass defines mapping from a priority class name to the priority "
                  "integer value.");
  out["required"] = Json::array({"value"});
  return out;
}

Json HorizontalPodAutoscaler() {
  Json target_ref = Object({{"apiVersion", String()}, {"kind", String()}, {"name", String()}},
                           {"kind", "name"});
  Json metric = OpenObject(
      {{"type", Enum({"ContainerResource", "External", "Object", "Pods", "Resource"})}});
  metric["required"] = Json::array({"type"});
  Json spec = Object({{"scaleTargetRef", target_ref},
                      {"minReplicas", Int32()},
                      {"maxReplicas", Int32()},
                      {"metrics", Array(metric)},
                      {"behavior", OpenObject()}},
                     {"scaleTargetRef", "maxReplicas"});
  Json status = OpenObject({{"observedGeneration", Int64()},
                            {"lastScaleTime", Timestamp()},
                            {"currentReplicas", Int32()},
                            {"desiredReplicas", Int32()},
                            {"currentMetrics", Array(OpenObject())},
                            {"conditions", Array(Condition())}});
  return Kind({{"spec", spec}, {"status", status}},
              "HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler.");
}

Json HorizontalPodAutoscalerV1() {
  Json target_ref = Object({{"apiVersion", String()}, {"kind", String()}, {"name", String()}},
                           {"kind", "name"});
  Json spec = Object({{"scaleTargetRef", target_ref},
                      {"minReplicas", Int32()},
                      {"maxReplicas", Int32()},
                      {"targetCPUUtilizationPercentage", Int32()}},
                     {"scaleTargetRef", "maxReplicas"});
  Json status = Object({{"observedGeneration", Int64()},
                        {"lastScaleTime", Timestamp()},
                        {"currentReplicas", Int32()},
                        {"desiredReplicas", Int32()},
                        {"currentCPUUtilizationPercentage", Int32()}});
  return Kind({{"spec", spec}, {"status", status}},
              "configuration of a horizontal pod autoscaler.");
}

Json CustomResourceDefinition() {
  Json names = Object({{"plural", String()},
                       {"singular", String()},
                       {"shortNames", Array(String())},
                       {"kind", String()},
                       {"listKind", String()},
                       {"categories", Array(String())}},
                      {"plural", "kind"});
  Json version = OpenObject({{"name", String()},
                             {"served", Boolean()},
                             {"storage", Boolean()},
                             {"deprecated", Boolean()},
                             {"deprecationWarning", String()},
                             {"schema", OpenObject()},
                             {"subresources", OpenObject()},
                             {"additionalPrinterColumns", Array(OpenObject())},
                             {"selectableFields", Array(OpenObject())}});
  version["required"] = Json::array({"name", "served", "storage"});
  Json spec = Object({{"group", String()},
                      {"names", names},
                      {"scope", String()},
                      {"versions", Array(version)},
                      {"conversion", OpenObject()},
                      {"preserveUnknownFields", Boolean()}},
                     {"group", "names", "scope", "versions"});
  Json status = OpenObject({{"conditions", Array(Condition())},
                            {"acceptedNames", names},
                            {"storedVersions", Array(String())}});
  return Kind({{"spec", spec}, {"status", status}},
              "CustomResourceDefinition represents a resource that should be exposed on the API "
              "server.");
}

Json Scale() {
  return Kind({{"spec", Object({{"replicas", Int32()}})},
               {"status", Object({{"replicas", Int32()}, {"selector", String()}})}},
              "Scale represents a scaling request for a resource.");
}

}  // namespace trimtab::cluster::builtin_schemas
