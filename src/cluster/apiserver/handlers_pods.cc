// The pods/binding and pods/eviction subresources of ApiHandler (POST only), as the
// kube-apiserver's pod REST storage serves them:
//
//   binding   body v1 Binding {metadata.name = pod, target {kind Node, name}}: sets
//             spec.nodeName (plus the binding's annotations) and the PodScheduled=True
//             condition in one write. 409 Conflict when the pod is already bound or being
//             deleted, 404 when it does not exist. Answers 201 with a Success Status.
//   eviction  body policy/v1 Eviction {metadata.name = pod, deleteOptions}: deletes the pod
//             with those options (no PodDisruptionBudgets exist in the local cluster, so
//             every eviction is allowed). Answers 201 with a Success Status.
#include <nlohmann/json.hpp>

#include "cluster/apiserver/handler_util.h"
#include "cluster/apiserver/object_meta.h"

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

}  // namespace

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
