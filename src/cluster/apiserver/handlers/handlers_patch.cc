// PATCH (json, merge, strategic, apply) and the scale subresource of ApiHandler.
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_validation.h"
#include "cluster/apiserver/handlers/handler_util.h"
#include "cluster/apiserver/storage/managed_fields.h"
#include "cluster/apiserver/storage/object_meta.h"
#include "cluster/apiserver/storage/patch.h"
#include "cluster/apiserver/surface/strategic_merge.h"

namespace trimtab::cluster {

using http::HttpResponse;

namespace {

enum class PatchKind { kJson, kMerge, kStrategic, kApply, kUnsupported };

PatchKind PatchKindOf(const std::string& content_type) {
  std::string t = content_type.substr(0, content_type.find(';'));
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (t == "application/json-patch+json") return PatchKind::kJson;
  if (t == "application/merge-patch+json") return PatchKind::kMerge;
  if (t == "application/strategic-merge-patch+json") return PatchKind::kStrategic;
  if (t == "application/apply-patch+yaml" || t == "application/apply-patch+json") {
    return PatchKind::kApply;
  }
  return PatchKind::kUnsupported;
}

ApiError UnsupportedPatch(const ResourceType& type, bool strategic_ok) {
  std::string types = "application/json-patch+json, application/merge-patch+json, ";
  if (strategic_ok) types += "application/strategic-merge-patch+json, ";
  types += "application/apply-patch+yaml";
  return UnsupportedMediaType(
      "the body of the request was in an unknown format - accepted media types include: " + types);
}

// Applies one patch document to `current`.
ApiResult<Json> ApplyPatch(PatchKind kind, const ResourceType& type, const Json& current,
                           const Json& patch) {
  switch (kind) {
    case PatchKind::kJson: {
      if (patch.is_array() && patch.size() > kMaxJsonPatchOperations) {
        return ApiError{413, "RequestEntityTooLarge",
                        "Request entity too large: The allowed maximum operations in a JSON patch "
                        "is " + std::to_string(kMaxJsonPatchOperations) + ", got " +
                            std::to_string(patch.size()),
                        nullptr};
      }
      auto out = ApplyJsonPatch(current, patch);
      if (out.ok()) return std::move(*out);
      if (out.status().code() == StatusCode::kInvalidArgument) {
        return BadRequest(out.status().message());
      }
      return ApiError{422, "Invalid", out.status().message(), nullptr};
    }
    case PatchKind::kMerge:
    case PatchKind::kApply:
      if (!patch.is_object()) return BadRequest("a merge patch must be a JSON object");
      return ApplyMergePatch(current, patch);
    case PatchKind::kStrategic: {
      if (!patch.is_object()) return BadRequest("a strategic merge patch must be a JSON object");
      auto out = StrategicMergePatch(type, current, patch);
      if (out.ok()) return std::move(*out);
      return BadRequest(out.status().message());
    }
    case PatchKind::kUnsupported:
      break;
  }
  return UnsupportedPatch(type, !type.is_crd);
}

// The autoscaling/v1 Scale of an object with a scale subresource.
Json ScaleOf(const ResourceType& type, const Json& object) {
  const ScaleSubresource& scale = *type.scale_subresource;
  const Json* spec = GetDotPath(object, scale.spec_replicas_path);
  const Json* status = GetDotPath(object, scale.status_replicas_path);
  Json meta = {{"name", MetaString(object, "name")},
               {"uid", MetaString(object, "uid")},
               {"resourceVersion", MetaString(object, "resourceVersion")},
               {"creationTimestamp", MetaString(object, "creationTimestamp")}};
  if (type.namespaced) meta["namespace"] = MetaString(object, "namespace");
  Json out = {{"kind", "Scale"},
              {"apiVersion", "autoscaling/v1"},
              {"metadata", meta},
              {"spec", {{"replicas", spec && spec->is_number_integer() ? spec->get<int64_t>() : 0}}},
              {"status",
               {{"replicas", status && status->is_number_integer() ? status->get<int64_t>() : 0}}}};
  std::string selector;
  if (!scale.label_selector_path.empty()) {
    if (const Json* s = GetDotPath(object, scale.label_selector_path)) {
      selector = LabelSelectorString(*s);
    }
  }
  if (selector.empty() && !type.is_crd) {
    if (const Json* s = GetDotPath(object, ".spec.selector")) selector = LabelSelectorString(*s);
  }
  if (!selector.empty()) out["status"]["selector"] = selector;
  return out;
}

}  // namespace

HttpResponse ApiHandler::PatchObject(Call& call) {
  PatchKind kind = PatchKindOf(call.req.Header("Content-Type"));
  if (kind == PatchKind::kUnsupported || (kind == PatchKind::kStrategic && call.type.is_crd)) {
    return ErrorResponse(UnsupportedPatch(call.type, !call.type.is_crd));
  }
  auto patch = kind == PatchKind::kApply ? ParseYaml(call.req.body, "request body")
                                         : ParseJson(call.req.body, "request body");
  if (!patch.ok()) return ErrorResponse(BadRequest(patch.status().message()));

  // Server-side apply to the main resource or to the status subresource (recorded as an Apply
  // with subresource "status"); an apply to the scale subresource is merged as a merge patch.
  const bool apply =
      kind == PatchKind::kApply &&
      (call.info.subresource.empty() ||
       (call.info.subresource == "status" && call.type.status_subresource));
  const FieldManager applier{.manager = call.Q("fieldManager"),
                             .subresource = call.info.subresource,
                             .time = FormatRfc3339(objects_->clock()->Now())};
  const bool force = IsTrue(call.Q("force"));
  if (kind == PatchKind::kApply) {
    if (call.Q("fieldManager").empty()) {
      return ErrorResponse(Invalid(call.type, call.info.name,
                                   {Cause("FieldValueRequired", "fieldManager",
                                          "Required value: is required for apply patch")}));
    }
    if (!patch->is_object()) return ErrorResponse(BadRequest("an applied object must be a map"));
    auto existing = objects_->Get(call.type, call.info.ns, call.info.name);
    if (!existing.ok() && existing.error().code == 404 && call.info.subresource.empty()) {
      Json object = *patch;
      if (!object.contains("metadata") || !object["metadata"].is_object()) {
        object["metadata"] = Json::object();
      }
      std::string body_name = MetaString(object, "name");
      if (!body_name.empty() && body_name != call.info.name) {
        return ErrorResponse(BadRequest("the name of the object (" + body_name +
                                        ") does not match the name on the URL (" +
                                        call.info.name + ")"));
      }
      object["metadata"]["name"] = call.info.name;
      auto applied = ServerSideApply(call.type, nullptr, object, applier, force);
      if (!applied.ok()) return ErrorResponse(applied.error());
      WriteOptions write = call.write;
      write.apply = true;
      auto created = objects_->Create(call.type, call.info.ns, std::move(*applied), write);
      if (created.ok()) return JsonResponse(201, *created, call.warnings);
      if (created.error().code != 409) return ErrorResponse(created.error());
      // Created concurrently: fall through to the merge.
    } else if (!existing.ok()) {
      return ErrorResponse(existing.error());
    }
  } else if (!call.Q("force").empty()) {
    return ErrorResponse(BadRequest("force parameter can only be used with apply"));
  }
  if (apply) call.write.apply = true;

  const Json& body = *patch;
  auto updated = objects_->Modify(
      call.type, call.info.ns, call.info.name,
      [&](const Json& current) -> ApiResult<Json> {
        auto patched = apply ? ServerSideApply(call.type, &current, body, applier, force)
                             : ApplyPatch(kind, call.type, current, body);
        if (!patched.ok()) return patched;
        if (auto too_large = CheckStoredSize(*patched)) return *too_large;
        if (call.type.group.empty() && call.type.kind == "Secret" && patched->is_object()) {
          SecretStringDataToData(&*patched);
        }
        return patched;
      },
      call.info.subresource, call.write);
  if (!updated.ok()) return ErrorResponse(updated.error());
  return JsonResponse(200, *updated, call.warnings);
}

HttpResponse ApiHandler::Scale(Call& call) {
  const std::string& method = call.req.method;
  const ResourceType& type = call.type;
  if (method == "GET") {
    auto object = objects_->Get(type, call.info.ns, call.info.name);
    if (!object.ok()) return ErrorResponse(object.error());
    return JsonResponse(200, ScaleOf(type, *object));
  }
  if (method != "PUT" && method != "PATCH") {
    return ErrorResponse(MethodNotAllowed(method + " is not allowed on scale"));
  }
  PatchKind kind = PatchKind::kMerge;
  Json body;
  if (method == "PATCH") {
    kind = PatchKindOf(call.req.Header("Content-Type"));
    if (kind == PatchKind::kUnsupported) return ErrorResponse(UnsupportedPatch(type, true));
    if (kind == PatchKind::kStrategic) kind = PatchKind::kMerge;  // Scale has no list fields
    auto parsed = kind == PatchKind::kApply ? ParseYaml(call.req.body, "request body")
                                            : ParseJson(call.req.body, "request body");
    if (!parsed.ok()) return ErrorResponse(BadRequest(parsed.status().message()));
    body = std::move(*parsed);
  } else {
    auto parsed = DecodeBody(call.req);
    if (!parsed.ok()) return ErrorResponse(parsed.error());
    body = std::move(*parsed);
  }
  const std::string spec_path = type.scale_subresource->spec_replicas_path;
  call.write.manager_subresource = "scale";
  auto updated = objects_->Modify(
      type, call.info.ns, call.info.name,
      [&](const Json& current) -> ApiResult<Json> {
        Json scale = ScaleOf(type, current);
        Json desired;
        if (method == "PUT") {
          desired = body;
        } else {
          auto patched = ApplyPatch(kind, type, scale, body);
          if (!patched.ok()) return patched;
          desired = std::move(*patched);
        }
        const Json* replicas = GetDotPath(desired, ".spec.replicas");
        if (!replicas || !replicas->is_number_integer() || replicas->get<int64_t>() < 0) {
          Json shown = replicas ? *replicas : Json();
          return Invalid(type, call.info.name,
                         {Cause("FieldValueInvalid", "spec.replicas",
                                "Invalid value: " + shown.dump() +
                                    ": must be greater than or equal to 0")});
        }
        Json next = current;
        std::string pinned = MetaString(desired, "resourceVersion");
        next["metadata"]["resourceVersion"] = pinned;
        SetDotPath(&next, spec_path, *replicas);
        return next;
      },
      "", call.write);
  if (!updated.ok()) return ErrorResponse(updated.error());
  return JsonResponse(200, ScaleOf(type, *updated));
}

}  // namespace trimtab::cluster
