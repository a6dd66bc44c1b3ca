#include "cluster/apiserver/admission/pod_priority_admission.h"

#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

constexpr char kPreemptLowerPriority[] = "PreemptLowerPriority";

std::string Name(const Json& object) {
  const Json& meta = object.value("metadata", Json::object());
  return meta.is_object() ? meta.value("name", "") : "";
}

// The globalDefault class with the lowest value, or nullptr.
const Json* DefaultClass(const std::vector<Json>& classes) {
  const Json* best = nullptr;
  for (const Json& pc : classes) {
    if (!pc.is_object() || !pc.value("globalDefault", false)) continue;
    if (!best || pc.value("value", int64_t{0}) < best->value("value", int64_t{0})) best = &pc;
  }
  return best;
}

Json SystemClass(const std::string& name, int64_t value, const std::string& description) {
  return {{"apiVersion", "scheduling.k8s.io/v1"},
          {"kind", "PriorityClass"},
          {"metadata", {{"name", name}}},
          {"value", value},
          {"description", description},
          {"preemptionPolicy", kPreemptLowerPriority}};
}

}  // namespace

std::optional<std::string> AdmitPodPriority(const std::vector<Json>& classes, Json* pod) {
  if (!pod->contains("spec") || !(*pod)["spec"].is_object()) (*pod)["spec"] = Json::object();
  Json& spec = (*pod)["spec"];
  const std::string wanted =
      spec.contains("priorityClassName") && spec["priorityClassName"].is_string()
          ? spec["priorityClassName"].get<std::string>()
          : "";
  std::string class_name;
  int64_t priority = 0;
  std::optional<std::string> policy;
  if (wanted.empty()) {
    if (const Json* pc = DefaultClass(classes)) {
      class_name = Name(*pc);
      priority = pc->value("value", int64_t{0});
      policy = pc->value("preemptionPolicy", std::string(kPreemptLowerPriority));
    }
  } else {
    const Json* found = nullptr;
    for (const Json& pc : classes) {
      if (Name(pc) == wanted) found = &pc;
    }
    if (!found) return "no PriorityClass with name " + wanted + " was found";
    class_name = wanted;
    priority = found->value("value", int64_t{0});
    policy = found->value("preemptionPolicy", std::string(kPreemptLowerPriority));
  }
  if (spec.contains("priority") && spec["priority"].is_number_integer() &&
      spec["priority"].get<int64_t>() != priority) {
    return "the integer value of priority (" + std::to_string(spec["priority"].get<int64_t>()) +
           ") must not be provided in pod spec; priority admission controller computed " +
           std::to_string(priority) + " from the given PriorityClass name";
  }
  if (policy && spec.contains("preemptionPolicy") && spec["preemptionPolicy"].is_string() &&
      spec["preemptionPolicy"].get<std::string>() != *policy) {
    return "the string value of PreemptionPolicy (" +
           spec["preemptionPolicy"].get<std::string>() +
           ") must not be provided in pod spec; priority admission controller computed " +
           *policy + " from the given PriorityClass name";
  }
  if (!class_name.empty()) spec["priorityClassName"] = class_name;
  spec["priority"] = priority;
  if (policy) spec["preemptionPolicy"] = *policy;
  return std::nullopt;
}

std::optional<std::string> AdmitPriorityClass(const std::vector<Json>& classes, Json* pc) {
  if (!pc->contains("preemptionPolicy") || (*pc)["preemptionPolicy"].is_null()) {
    (*pc)["preemptionPolicy"] = kPreemptLowerPriority;
  }
  if (!pc->value("globalDefault", false)) return std::nullopt;
  const std::string name = Name(*pc);
  for (const Json& other : classes) {
    if (other.is_object() && other.value("globalDefault", false) && Name(other) != name) {
      return "PriorityClass " + Name(other) +
             " is already marked as default. Only one default can exist";
    }
  }
  return std::nullopt;
}

std::vector<Json> SystemPriorityClasses() {
  return {SystemClass("system-node-critical", 2000001000,
                      "Used for system critical pods that must not be moved from their current "
                      "node."),
          SystemClass("system-cluster-critical", 2000000000,
                      "Used for system critical pods that must run in the cluster, but can be "
                      "moved to another node if necessary.")};
}

}  // namespace trimtab::cluster
