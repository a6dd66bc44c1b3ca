#include "cluster/runtime/pod_status.h"

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"

namespace trimtab::cluster::runtime {
namespace {

Json TerminatedJson(const TerminationInfo& t) {
  Json out = {{"exitCode", t.exit_code},
              {"reason", t.reason},
              {"startedAt", FormatRfc3339(t.started_at)},
              {"finishedAt", FormatRfc3339(t.finished_at)}};
  if (!t.message.empty()) out["message"] = t.message;
  if (!t.container_id.empty()) out["containerID"] = t.container_id;
  return out;
}

// Go's %s of a []string: "[a b]".
std::string GoList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + items[i];
  return out + "]";
}

const Json* CurrentCondition(const Json& pod, const std::string& type) {
  return FindCondition(pod, type);
}

Json Condition(const std::string& type, bool status, const std::string& reason = "",
               const std::string& message = "") {
  Json c = {{"type", type}, {"status", status ? "True" : "False"}, {"lastProbeTime", nullptr}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

}  // namespace

Json ContainerStateJson(const ContainerView& c) {
  switch (c.state) {
    case ContainerView::State::kRunning:
      return {{"running", {{"startedAt", FormatRfc3339(c.started_at)}}}};
    case ContainerView::State::kTerminated:
      return {{"terminated", TerminatedJson(c.terminated.value_or(TerminationInfo{}))}};
    case ContainerView::State::kWaiting:
      break;
  }
  Json waiting = {{"reason", c.waiting_reason}};
  if (!c.waiting_message.empty()) waiting["message"] = c.waiting_message;
  return {{"waiting", waiting}};
}

std::string PodPhase(const std::string& restart_policy,
                     const std::vector<ContainerView>& containers) {
  int waiting = 0, running = 0, stopped = 0, succeeded = 0;
  for (const ContainerView& c : containers) {
    switch (c.state) {
      case ContainerView::State::kRunning:
        ++running;
        break;
      case ContainerView::State::kTerminated:
        ++stopped;
        if (c.terminated && c.terminated->exit_code == 0) ++succeeded;
        break;
      case ContainerView::State::kWaiting:
        if (c.last_termination) {
          ++stopped;  // restarting after a termination
        } else {
          ++waiting;
        }
        break;
    }
  }
  if (waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped > 0) {
    if (restart_policy == "Always") return "Running";
    if (stopped == succeeded) return "Succeeded";
    if (restart_policy == "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}

Json BuildPodStatus(const Json& pod, const PodStatusInput& in) {
  const std::string restart_policy = Str(pod, {"spec", "restartPolicy"}, "Always");
  std::string phase = PodPhase(restart_policy, in.containers);
  if (in.deleted) {
    bool all_zero = true;
    for (const ContainerView& c : in.containers) {
      all_zero = all_zero && c.terminated && c.terminated->exit_code == 0;
    }
    phase = all_zero ? "Succeeded" : "Failed";
  }
  const bool terminal = phase == "Succeeded" || phase == "Failed";
  const std::string now = FormatRfc3339(in.now);

  Json statuses = Json::array();
  std::vector<std::string> unready;
  for (const ContainerView& c : in.containers) {
    Json s = {{"name", c.name},
              {"state", ContainerStateJson(c)},
              {"lastState", c.last_termination
                                ? Json{{"terminated", TerminatedJson(*c.last_termination)}}
                                : Json::object()},
              {"ready", c.ready},
              {"restartCount", c.restart_count},
              {"image", c.image},
              {"imageID", c.image_id},
              {"started", c.started}};
    if (!c.container_id.empty()) s["containerID"] = c.container_id;
    statuses.push_back(std::move(s));
    if (!c.ready) unready.push_back(c.name);
  }

  Json init_statuses = Json::array();
  const Json& inits = At(pod, {"spec", "initContainers"});
  if (inits.is_array()) {
    for (const Json& c : inits) {
      TerminationInfo done{.exit_code = 0,
                           .reason = "Completed",
                           .started_at = in.start_time,
                           .finished_at = in.start_time};
      init_statuses.push_back({{"name", Str(c, {"name"})},
                               {"state", {{"terminated", TerminatedJson(done)}}},
                               {"lastState", Json::object()},
                               {"ready", true},
                               {"restartCount", 0},
                               {"image", Str(c, {"image"})},
                               {"imageID", ""},
                               {"started", false}});
    }
  }

  Json containers_ready;
  if (terminal) {
    containers_ready = Condition("ContainersReady", false,
                                 phase == "Succeeded" ? "PodCompleted" : "PodFailed");
  } else if (!unready.empty()) {
    containers_ready = Condition("ContainersReady", false, "ContainersNotReady",
                                 "containers with unready status: " + GoList(unready));
  } else {
    containers_ready = Condition("ContainersReady", true);
  }
  Json ready = containers_ready;
  ready["type"] = "Ready";
  if (containers_ready["status"] == "True") {
    const Json& gates = At(pod, {"spec", "readinessGates"});
    std::vector<std::string> missing;
    if (gates.is_array()) {
      for (const Json& g : gates) {
        const std::string type = Str(g, {"conditionType"});
        const Json* cond = CurrentCondition(pod, type);
        if (!cond || cond->value("status", "") != "True") missing.push_back(type);
      }
    }
    if (!missing.empty()) {
      ready = Condition("Ready", false, "ReadinessGatesNotReady",
                        "the status of pod readiness gate \"" + missing[0] + "\" is not \"True\"");
    }
  }

  Json conditions = At(pod, {"status", "conditions"});
  if (!conditions.is_array()) conditions = Json::array();
  SetCondition(&conditions, Condition("PodReadyToStartContainers", !terminal), now);
  SetCondition(&conditions,
               terminal ? Condition("Initialized", true, "PodCompleted") : Condition("Initialized", true),
               now);
  SetCondition(&conditions, ready, now);
  SetCondition(&conditions, containers_ready, now);
  if (!CurrentCondition(pod, "PodScheduled")) {
    SetCondition(&conditions, Condition("PodScheduled", true), now);
  }
  // kubectl describe lists conditions in the kubelet's order.
  static const char* const kOrder[] = {"PodReadyToStartContainers", "Initialized", "Ready",
                                        "ContainersReady", "PodScheduled"};
  Json ordered = Json::array();
  for (const char* type : kOrder) {
    for (const Json& c : conditions) {
      if (c.value("type", "") == type) ordered.push_back(c);
    }
  }
  for (const Json& c : conditions) {
    bool known = false;
    for (const char* type : kOrder) known = known || c.value("type", "") == type;
    if (!known) ordered.push_back(c);
  }

  Json status = {{"phase", phase},
                 {"conditions", std::move(ordered)},
                 {"hostIP", in.host_ip},
                 {"hostIPs", Json::array({{{"ip", in.host_ip}}})},
                 {"startTime", FormatRfc3339(in.start_time)},
                 {"containerStatuses", std::move(statuses)}};
  if (!in.pod_ip.empty()) {
    status["podIP"] = in.pod_ip;
    status["podIPs"] = Json::array({{{"ip", in.pod_ip}}});
  }
  if (!init_statuses.empty()) status["initContainerStatuses"] = std::move(init_statuses);
  std::string qos = Str(pod, {"status", "qosClass"});
  if (!qos.empty()) status["qosClass"] = qos;
  return status;
}

}  // namespace trimtab::cluster::runtime
