// The pods/binding and pods/eviction subresources of ApiHandler (POST only), as the
// kube-apiserver's pod REST storage serves them:
//
//   binding   body v1 Binding {metadata.name = pod, target {kind Node, name}}: sets
//             spec.nodeName (plus the binding's annotations) and the PodScheduled=True
//             condition in one write. 409 Conflict when the pod is already bound or being
//             deleted, 404 when it does not exist. Answers 201 with a Success Status.
//   eviction  body policy/v1 Eviction {metadata.name = pod, deleteOptions}: deletes the pod
//             with those options when its PodDisruptionBudget allows (a running pod whose one
//             matching budget has disruptionsAllowed 0, or is not processed yet: 429
//             TooManyRequests with a DisruptionBudget cause, as upstream; more than one
//             budget: 500); the disruption is counted in the budget's status.disruptedPods.
//             Answers 201 with a Success Status.
//
// pods/log (GET): a container's log from the runtime; `previous` the log of its previous run
// (400 as upstream when it has not restarted), `follow` streams what it appends until the pod
// finishes or goes away (log_follower.h), `tailLines` its last lines.
//
// Connect subresources: pods/portforward is served (port_forward.h: SPDY over a WebSocket or a
// raw SPDY upgrade, to the pod's IP); the proxy subresources of pods and services are served by
// Proxy (handlers_proxy.cc). The local cluster's containers are simulated or plain processes
// without a container runtime, so pods exec/attach (what `kubectl exec`, `attach` and `cp` use)
// and nodes/proxy answer 400 BadRequest with a Status saying so, not 404.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>

#include "cluster/apiserver/handlers/handler_util.h"
#include "cluster/apiserver/storage/object_meta.h"

namespace trimtab::cluster {

using http::HttpResponse;

namespace {

ResourceType KindOnly(std::string group, std::string kind, std::string plural) {
  ResourceType t;
  t.group = std::move(group);
  t.version = "v1";
  t.kind = std::move(kind);
  t.plural = std::move(plural);
  return t;
}

Json CreatedStatus() {
  return Json{{"kind", "Status"},
              {"apiVersion", "v1"},
              {"metadata", Json::object()},
              {"status", "Success"},
              {"code", 201}};
}

// Sets condition `type` to True (lastTransitionTime now when it changes).
void SetConditionTrue(Json* pod, const std::string& type, const std::string& now) {
  Json& status = (*pod)["status"];
  if (!status.is_object()) status = Json::object();
  Json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  for (Json& c : conditions) {
    if (c.is_object() && c.value("type", "") == type) {
      if (c.value("status", "") != "True") c["lastTransitionTime"] = now;
      c["status"] = "True";
      c.erase("reason");
      c.erase("message");
      c["lastProbeTime"] = nullptr;
      return;
    }
  }
  conditions.push_back(
      {{"type", type}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", now}});
}

// The status of container `name` in the pod (null when absent).
Json ContainerStatus(const Json& pod, const std::string& name) {
  const Json* statuses = nullptr;
  if (pod.contains("status") && pod["status"].is_object() &&
      pod["status"].contains("containerStatuses")) {
    statuses = &pod["status"]["containerStatuses"];
  }
  if (statuses && statuses->is_array()) {
    for (const Json& c : *statuses) {
      if (c.is_object() && c.value("name", "") == name) return c;
    }
  }
  return nullptr;
}

// Whether the followed log of `container` can still grow.
bool LogFinished(const Json& pod, const std::string& container) {
  std::string phase = pod.contains("status") && pod["status"].is_object()
                          ? pod["status"].value("phase", "")
                          : "";
  if (phase == "Succeeded" || phase == "Failed") return true;
  Json cs = ContainerStatus(pod, container);
  std::string policy = pod.contains("spec") && pod["spec"].is_object()
                           ? pod["spec"].value("restartPolicy", "Always")
                           : "Always";
  return policy == "Never" && cs.is_object() && cs.contains("state") &&
         cs["state"].is_object() && cs["state"].contains("terminated");
}

std::string PodIp(const Json& pod) {
  return pod.contains("status") && pod["status"].is_object() ? pod["status"].value("podIP", "")
                                                             : "";
}

}  // namespace

bool IsConnectSubresource(const ResourceType& type, const std::string& sub) {
  if (!type.group.empty()) return false;
  if (type.plural == "pods") {
    return sub == "exec" || sub == "attach" || sub == "portforward" || sub == "proxy";
  }
  return (type.plural == "services" || type.plural == "nodes") && sub == "proxy";
}

HttpResponse ApiHandler::Connect(Call& call) {
  const std::string& sub = call.info.subresource;
  if (sub == "proxy" && (call.type.plural == "pods" || call.type.plural == "services")) {
    return Proxy(call);
  }
  auto object = objects_->Get(call.type, call.info.ns, call.info.name);
  if (!object.ok()) return ErrorResponse(object.error());
  const std::string what = call.type.plural + " \"" + call.info.name + "\"";
  std::string message;
  if (call.type.plural == "pods" && sub == "exec") {
    const Json& spec = object->value("spec", Json::object());
    if (!spec.is_object() || spec.value("nodeName", "").empty()) {
      return ErrorResponse(BadRequest("pod " + call.info.name + " does not have a host assigned"));
    }
    StatusOr<exec::ExecOptions> options = exec::ParseExecOptions(call.req, *object);
    if (!options.ok()) return ErrorResponse(BadRequest(options.status().message()));
    if (auto upgrade = pod_executor_->Upgrade(call.req, *object, std::move(*options))) {
      return std::move(*upgrade);
    }
    message = "pods/exec of trimtab local is served over a WebSocket with the subprotocol "
              "v5.channel.k8s.io or v4.channel.k8s.io (what kubectl 1.30 and later use); exec "
              "over SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false) is not supported";
  } else if (call.type.plural == "pods" && sub == "attach") {
    message = "attach is not supported for the simulated pods of trimtab local: " + what +
              " runs no process whose input and output could be attached to; its output is in "
              "`kubectl logs -f`, and `kubectl exec` runs commands in its container";
  } else if (call.type.plural == "pods" && sub == "portforward") {
    const Json& spec = object->value("spec", Json::object());
    std::string ip = PodIp(*object);
    if (!spec.is_object() || spec.value("nodeName", "").empty() || ip.empty()) {
      return ErrorResponse(BadRequest("pod " + call.info.name +
                                      " does not have a host assigned"));
    }
    PortForwardTarget target{.ns = call.info.ns,
                             .name = call.info.name,
                             .uid = MetaString(*object, "uid"),
                             .ip = ip};
    if (auto upgrade = port_forwarder_->Upgrade(call.req, std::move(target))) {
      return std::move(*upgrade);
    }
    message = "pods/portforward needs a connection upgrade: a WebSocket with the subprotocol "
              "SPDY/3.1+portforward.k8s.io or an Upgrade: SPDY/3.1 request with "
              "X-Stream-Protocol-Version portforward.k8s.io (what kubectl port-forward sends)";
  } else {
    message = "the " + call.type.plural + "/proxy subresource is not supported by trimtab "
              "local (" + what + " is simulated); pod and Service IPs are loopback addresses "
              "reachable from this machine: connect to them directly";
  }
  return ErrorResponse(BadRequest(std::move(message)));
}

HttpResponse ApiHandler::PodLog(Call& call) {
  if (call.req.method != "GET") {
    return ErrorResponse(MethodNotAllowed("only GET is allowed on pods/log"));
  }
  auto pod = objects_->Get(call.type, call.info.ns, call.info.name);
  if (!pod.ok()) return ErrorResponse(pod.error());
  std::string container = call.Q("container");
  const Json* containers = nullptr;
  if (pod->contains("spec") && (*pod)["spec"].contains("containers")) {
    containers = &(*pod)["spec"]["containers"];
  }
  if (container.empty()) {
    if (containers && containers->is_array() && containers->size() == 1) {
      container = (*containers)[0].value("name", "");
    } else if (containers && containers->is_array() && containers->size() > 1) {
      std::string names;
      for (const auto& c : *containers) names += (names.empty() ? "" : " ") + c.value("name", "");
      return ErrorResponse(BadRequest("a container name must be specified for pod " +
                                      call.info.name + ", choose one of: [" + names + "]"));
    }
  } else if (containers && containers->is_array()) {
    bool found = false;
    for (const auto& c : *containers) found = found || c.value("name", "") == container;
    if (!found) {
      return ErrorResponse(BadRequest("container " + container + " is not valid for pod " +
                                      call.info.name));
    }
  }
  const bool previous = IsTrue(call.Q("previous"));
  std::string text;
  if (pod_logs_) {
    std::optional<std::string> log = pod_logs_(*pod, container, previous);
    if (!log && previous) {
      return ErrorResponse(BadRequest("previous terminated container \"" + container +
                                      "\" in pod \"" + call.info.name + "\" not found"));
    }
    text = log.value_or("");
  } else if (previous) {
    return ErrorResponse(BadRequest("previous terminated container \"" + container +
                                    "\" in pod \"" + call.info.name + "\" not found"));
  }
  const size_t full = text.size();
  if (auto n = ParseInt(call.Q("tailLines")); n && *n >= 0) text = TailLines(text, *n);
  if (!IsTrue(call.Q("follow")) || previous || !pod_logs_) {
    return HttpResponse::Text(200, std::move(text));
  }
  HttpResponse res;
  res.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
  const std::string ns = call.info.ns;
  const std::string name = call.info.name;
  const std::string uid = MetaString(*pod, "uid");
  ResourceType type = call.type;
  LogFollower::Fetch fetch = [this, type, ns, name, uid,
                              container]() -> std::optional<LogFollower::Snapshot> {
    auto now = objects_->Get(type, ns, name);
    if (!now.ok() || MetaString(*now, "uid") != uid) return std::nullopt;
    LogFollower::Snapshot snap;
    snap.text = pod_logs_(*now, container, false).value_or("");
    snap.finished = LogFinished(*now, container);
    return snap;
  };
  LogFollower* follower = log_follower_.get();
  res.on_stream = [follower, text = std::move(text), fetch = std::move(fetch),
                   full](std::shared_ptr<http::ResponseStream> stream) mutable {
    stream->Write(std::move(text));
    follower->Follow(std::move(stream), std::move(fetch), full);
  };
  return res;
}

HttpResponse ApiHandler::PodBinding(Call& call) {
  static const ResourceType kBinding = KindOnly("", "Binding", "pods/binding");
  if (call.req.method != "POST") {
    return ErrorResponse(MethodNotAllowed(call.req.method + " is not allowed on pods/binding"));
  }
  auto body = DecodeBody(call.req);
  if (!body.ok()) return ErrorResponse(body.error());
  if (!body->is_object()) return ErrorResponse(BadRequest("a Binding must be a JSON object"));
  const std::string& pod_name = call.info.name;
  std::string name = MetaString(*body, "name");
  if (!name.empty() && name != pod_name) {
    return ErrorResponse(BadRequest("name in URL (" + pod_name +
                                    ") does not match name in binding object (" + name + ")"));
  }
  const Json target = body->contains("target") ? (*body)["target"] : Json::object();
  std::string kind = target.is_object() ? target.value("kind", "") : "";
  std::string node = target.is_object() ? target.value("name", "") : "";
  std::vector<Json> causes;
  if (!kind.empty() && kind != "Node") {
    causes.push_back(Cause("FieldValueNotSupported", "target.kind",
                           "Unsupported value: \"" + kind + "\": supported values: \"Node\", \"\""));
  }
  if (node.empty()) causes.push_back(Cause("FieldValueRequired", "target.name", "Required value"));
  if (!causes.empty()) return ErrorResponse(Invalid(kBinding, pod_name, std::move(causes)));
  Json annotations = Json::object();
  if (body->contains("metadata") && (*body)["metadata"].is_object() &&
      (*body)["metadata"].contains("annotations") &&
      (*body)["metadata"]["annotations"].is_object()) {
    annotations = (*body)["metadata"]["annotations"];
  }
  const std::string now = FormatRfc3339(objects_->clock()->Now());
  auto bound = objects_->Modify(
      call.type, call.info.ns, pod_name,
      [&](const Json& current) -> ApiResult<Json> {
        if (IsDeleting(current)) {
          return Conflict(kBinding, pod_name,
                          "pod " + pod_name + " is being deleted, cannot be assigned to a host");
        }
        const Json& spec = current.contains("spec") ? current["spec"] : Json();
        std::string assigned = spec.is_object() ? spec.value("nodeName", "") : "";
        if (!assigned.empty()) {
          return Conflict(kBinding, pod_name,
                          "pod " + pod_name + " is already assigned to node \"" + assigned + "\"");
        }
        if (spec.is_object() && spec.contains("schedulingGates") &&
            spec["schedulingGates"].is_array() && !spec["schedulingGates"].empty()) {
          return Conflict(kBinding, pod_name,
                          "pod " + pod_name + " has non-empty .spec.schedulingGates");
        }
        Json next = current;
        next["spec"]["nodeName"] = node;
        for (auto& [k, v] : annotations.items()) next["metadata"]["annotations"][k] = v;
        SetConditionTrue(&next, "PodScheduled", now);
        return next;
      },
      kSubresourceBinding, call.write);
  if (!bound.ok()) return ErrorResponse(bound.error());
  return JsonResponse(201, CreatedStatus());
}

std::optional<ApiError> ApiHandler::CheckDisruptionBudgets(const std::string& ns,
                                                           const std::string& pod_name,
                                                           bool dry_run) {
  auto budget_type = objects_->registry()->Find("policy", "v1", "poddisruptionbudgets");
  auto pod_type = objects_->registry()->Find("", "v1", "pods");
  if (!budget_type || !pod_type) return std::nullopt;
  auto pod = objects_->Get(*pod_type, ns, pod_name);
  if (!pod.ok()) return std::nullopt;  // the delete reports it
  // A pod that is not running and ready, or already terminal, can always be evicted (upstream:
  // unhealthy pods with IfHealthyBudget when the budget is met; terminal ones always).
  std::string phase = (*pod)["status"].is_object() ? (*pod)["status"].value("phase", "") : "";
  if (phase == "Succeeded" || phase == "Failed" || phase == "Pending") return std::nullopt;
  auto budgets = objects_->List(*budget_type, ns, ListOptions{});
  if (!budgets.ok()) return std::nullopt;
  const Json& labels = (*pod)["metadata"].value("labels", Json::object());
  std::vector<Json> matching;
  for (const Json& b : budgets->items) {
    auto selector = LabelSelector::FromJson(b.contains("spec") && b["spec"].is_object()
                                                ? b["spec"].value("selector", Json())
                                                : Json());
    if (!selector.ok() || selector->Empty()) continue;
    LabelMap pod_labels;
    if (labels.is_object()) {
      for (auto& [k, v] : labels.items()) {
        if (v.is_string()) pod_labels[k] = v.get<std::string>();
      }
    }
    if (selector->Matches(pod_labels)) matching.push_back(b);
  }
  if (matching.empty()) return std::nullopt;
  if (matching.size() > 1) {
    return InternalServerError(
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
        "not support.");
  }
  const Json& budget = matching[0];
  const Json status = budget.value("status", Json::object());
  const std::string budget_name = MetaString(budget, "name");
  auto refuse = [&](std::string message) {
    ApiError e = TooManyRequests("Cannot evict pod as it would violate the pod's disruption "
                                 "budget.");
    e.details = {{"causes", Json::array({{{"reason", "DisruptionBudget"},
                                          {"message", std::move(message)}}})}};
    return e;
  };
  if (!status.contains("observedGeneration") ||
      status.value("observedGeneration", int64_t{0}) <
          budget["metadata"].value("generation", int64_t{0})) {
    return refuse("The disruption budget " + budget_name +
                  " is still being processed by the server.");
  }
  if (status.value("disruptionsAllowed", int64_t{0}) <= 0) {
    return refuse("The disruption budget " + budget_name + " needs " +
                  std::to_string(status.value("desiredHealthy", int64_t{0})) +
                  " healthy pods and has " +
                  std::to_string(status.value("currentHealthy", int64_t{0})) + " currently");
  }
  if (dry_run) return std::nullopt;
  // Count the disruption, so a second eviction waits for the controller's next count.
  const std::string now = FormatRfc3339(objects_->clock()->Now());
  auto counted = objects_->Modify(
      *budget_type, ns, budget_name,
      [&](const Json& current) -> ApiResult<Json> {
        Json next = current;
        Json& st = next["status"];
        int64_t allowed = st.value("disruptionsAllowed", int64_t{0});
        if (allowed <= 0) return TooManyRequests("no disruptions allowed");
        st["disruptionsAllowed"] = allowed - 1;
        st["disruptedPods"][pod_name] = now;
        return next;
      },
      "status", WriteOptions{});
  if (!counted.ok()) {
    return refuse("The disruption budget " + budget_name + " allows no more disruptions now");
  }
  return std::nullopt;
}

HttpResponse ApiHandler::PodEviction(Call& call) {
  static const ResourceType kEviction = KindOnly("policy", "Eviction", "pods/eviction");
  if (call.req.method != "POST") {
    return ErrorResponse(MethodNotAllowed(call.req.method + " is not allowed on pods/eviction"));
  }
  auto body = DecodeBody(call.req);
  if (!body.ok()) return ErrorResponse(body.error());
  if (!body->is_object()) return ErrorResponse(BadRequest("an Eviction must be a JSON object"));
  std::string name = MetaString(*body, "name");
  if (!name.empty() && name != call.info.name) {
    return ErrorResponse(BadRequest("name in URL (" + call.info.name +
                                    ") does not match name in Eviction object (" + name + ")"));
  }
  DeleteOptions options;
  options.dry_run = call.write.dry_run;
  const Json opts = body->contains("deleteOptions") ? (*body)["deleteOptions"] : Json();
  if (opts.is_object()) {
    if (opts.contains("gracePeriodSeconds") && opts["gracePeriodSeconds"].is_number_integer()) {
      options.grace_period_seconds = opts["gracePeriodSeconds"].get<int64_t>();
    }
    if (opts.contains("propagationPolicy") && opts["propagationPolicy"].is_string()) {
      options.propagation = opts["propagationPolicy"].get<std::string>();
    }
    if (opts.contains("preconditions") && opts["preconditions"].is_object()) {
      options.precondition_uid = opts["preconditions"].value("uid", "");
      options.precondition_resource_version = opts["preconditions"].value("resourceVersion", "");
    }
    if (opts.contains("dryRun") && opts["dryRun"].is_array() && !opts["dryRun"].empty()) {
      options.dry_run = true;
    }
  }
  if (auto refused = CheckDisruptionBudgets(call.info.ns, call.info.name, options.dry_run)) {
    return ErrorResponse(*refused);
  }
  auto outcome = objects_->Delete(call.type, call.info.ns, call.info.name, options);
  if (!outcome.ok()) {
    if (outcome.error().code == 409) {
      return ErrorResponse(Conflict(kEviction, call.info.name, outcome.error().message));
    }
    return ErrorResponse(outcome.error());
  }
  return JsonResponse(201, CreatedStatus());
}

}  // namespace trimtab::cluster
