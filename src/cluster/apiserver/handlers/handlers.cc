#include "cluster/apiserver/handlers/handlers.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <exception>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/http/client.h"
#include "cluster/apiserver/surface/discovery.h"
#include "cluster/apiserver/handlers/handler_util.h"
#include "cluster/apiserver/storage/managed_fields.h"
#include "cluster/apiserver/storage/object_meta.h"
#include "cluster/apiserver/surface/openapi.h"

namespace trimtab::cluster {

using http::HttpRequest;
using http::HttpResponse;

ApiHandler::ApiHandler(ObjectService* objects, WatchHub* watches, PodLogProvider pod_logs)
    : objects_(objects),
      watches_(watches),
      pod_logs_(std::move(pod_logs)),
      log_follower_(std::make_unique<LogFollower>()),
      port_forwarder_(std::make_unique<PortForwarder>()) {
  pod_executor_ = std::make_unique<exec::PodExecutor>(
      objects_->clock(),
      [objects = objects_](const std::string& plural, const std::string& ns,
                           const std::string& name) -> std::optional<Json> {
        std::optional<ResourceType> type = objects->registry()->Find("", "v1", plural);
        if (!type) return std::nullopt;
        auto object = objects->Get(*type, ns, name);
        if (!object.ok()) return std::nullopt;
        return *object;
      });
  // Pods serving HTTPS present certificates nobody issued for their IPs; kube-apiserver's proxy
  // does not verify them either.
  auto client = http::HttpClient::Create({.tls = {.insecure_skip_verify = true},
                                          .user_agent = "trimtab-apiserver-proxy",
                                          .default_timeout = std::chrono::seconds(30),
                                          .connect_timeout = std::chrono::seconds(5)});
  if (client.ok()) {
    proxy_client_ = std::move(*client);
  } else {
    spdlog::warn("apiserver: the proxy subresources are unavailable: {}", client.status().message());
  }
}

ApiHandler::~ApiHandler() = default;

HttpResponse ApiHandler::Handle(const HttpRequest& request) {
  try {
    HttpResponse res = Route(request);
    spdlog::debug("apiserver: {} {} -> {}", request.method, request.target, res.status);
    return res;
  } catch (const std::exception& e) {
    spdlog::error("apiserver: {} {} failed: {}", request.method, request.target, e.what());
    return ErrorResponse(InternalServerError(e.what()));
  }
}

HttpResponse ApiHandler::Route(const HttpRequest& request) {
  const std::string& path = request.path;
  if (path == "/version" || path == "/version/") {
    if (request.method != "GET") return ErrorResponse(MethodNotAllowed("only GET is allowed"));
    return JsonResponse(200, VersionInfo());
  }
  for (const char* health : {"/healthz", "/readyz", "/livez"}) {
    std::string_view p(path);
    if (p == health || (p.rfind(health, 0) == 0 && p[std::strlen(health)] == '/')) {
      return HttpResponse::Text(200, "ok");
    }
  }
  if (path == "/openapi/v2" || path == "/openapi/v2/") {
    if (request.method != "GET") return ErrorResponse(MethodNotAllowed("only GET is allowed"));
    auto [type, body] = ServeOpenApiV2(request.Header("Accept"),
                                       VersionInfo()["gitVersion"].get<std::string>());
    HttpResponse res = HttpResponse::Text(200, std::move(body), type);
    res.headers.emplace_back("Vary", "Accept");
    return res;
  }
  if (metrics_) {
    if (auto served = metrics_->Serve(request)) return std::move(*served);
  }
  if (request.method == "GET") {
    if (path.rfind("/openapi/", 0) == 0 || path == "/openapi") {
      auto doc = ServeOpenApi(*objects_->registry(), path);
      if (doc) return HttpResponse::Text(200, std::move(doc->second), doc->first);
    } else if (auto doc = ServeDiscovery(*objects_->registry(), path, request.Header("Accept"))) {
      HttpResponse res = HttpResponse::Text(200, std::move(doc->second), doc->first);
      res.headers.emplace_back("Vary", "Accept");
      return res;
    }
  }
  auto info = ParseResourcePath(path, *objects_->registry());
  if (!info) {
    return ErrorResponse(ApiError{404, "NotFound",
                                  "the server could not find the requested resource", nullptr});
  }
  std::shared_ptr<const ResourceType> type =
      objects_->registry()->FindShared(info->group, info->version, info->resource);
  if (!type || !type->served) {
    return ErrorResponse(ApiError{404, "NotFound",
                                  "the server could not find the requested resource", nullptr});
  }
  Call call{request, std::move(*info), type, *type};
  return ServeResource(call);
}

HttpResponse ApiHandler::ServeResource(Call& call) {
  const RequestInfo& info = call.info;
  const std::string& method = call.req.method;
  call.table = WantsTable(call.req.Header("Accept"));
  call.rows = TableRowsFor(call.Q("includeObject"));
  call.write.dry_run = !call.Q("dryRun").empty();
  call.write.field_validation = call.Q("fieldValidation");
  call.write.warnings = &call.warnings;
  call.write.field_manager = call.Q("fieldManager");
  if (call.write.field_manager.empty()) {
    call.write.field_manager = DefaultFieldManager(call.req.Header("User-Agent"));
  }
  if (!call.type.namespaced && !info.ns.empty()) {
    return ErrorResponse(ApiError{404, "NotFound",
                                  "the server could not find the requested resource", nullptr});
  }

  if (!info.subresource.empty()) {
    const std::string& sub = info.subresource;
    if (IsConnectSubresource(call.type, sub)) return Connect(call);
    bool known = (sub == "status" && call.type.status_subresource) ||
                 (sub == "scale" && call.type.scale_subresource) ||
                 ((sub == "log" || sub == "binding" || sub == "eviction") &&
                  call.type.group.empty() && call.type.plural == "pods") ||
                 (sub == "finalize" && call.type.group.empty() && call.type.plural == "namespaces");
    if (!known) {
      return ErrorResponse(ApiError{404, "NotFound",
                                    "the server could not find the requested resource", nullptr});
    }
    if (sub == "scale") return Scale(call);
    if (sub == "binding") return PodBinding(call);
    if (sub == "eviction") return PodEviction(call);
    if (sub == "log") {
      if (method != "GET") return ErrorResponse(MethodNotAllowed("only GET is allowed on pods/log"));
      return PodLog(call);
    }
    if (sub == "finalize" && method != "PUT") {
      return ErrorResponse(MethodNotAllowed("only PUT is allowed on namespaces/finalize"));
    }
    if (method == "GET") return GetObject(call);
    if (method == "PUT") return UpdateObject(call);
    if (method == "PATCH") return PatchObject(call);
    return ErrorResponse(MethodNotAllowed(method + " is not allowed on " + sub));
  }

  bool collection = info.name.empty();
  std::string verb;
  if (method == "GET") {
    verb = collection || IsWatch(call) ? (IsWatch(call) ? "watch" : "list") : "get";
  } else if (method == "POST") {
    verb = collection ? "create" : "";
  } else if (method == "PUT") {
    verb = collection ? "" : "update";
  } else if (method == "PATCH") {
    verb = collection ? "" : "patch";
  } else if (method == "DELETE") {
    verb = collection ? "deletecollection" : "delete";
  }
  if (verb.empty() ||
      std::find(call.type.verbs.begin(), call.type.verbs.end(), verb) == call.type.verbs.end()) {
    return ErrorResponse(MethodNotAllowed("the server does not allow this method on the requested "
                                          "resource"));
  }
  if (verb == "get") return GetObject(call);
  if (verb == "list" || verb == "watch") return ListOrWatch(call);
  if (verb == "create") return CreateObject(call);
  if (verb == "update") return UpdateObject(call);
  if (verb == "patch") return PatchObject(call);
  if (verb == "delete") return DeleteObject(call);
  return DeleteCollection(call);
}

HttpResponse ApiHandler::GetObject(Call& call) {
  auto object = objects_->Get(call.type, call.info.ns, call.info.name);
  if (!object.ok()) return ErrorResponse(object.error());
  if (call.table) {
    Json table = ToTable(call.type, {*object}, call.rows, objects_->clock()->Now());
    table["metadata"] = {{"resourceVersion", MetaString(*object, "resourceVersion")}};
    return JsonResponse(200, table);
  }
  return JsonResponse(200, *object);
}

HttpResponse ApiHandler::ListOrWatch(Call& call) {
  auto labels = LabelSelector::Parse(call.Q("labelSelector"));
  if (!labels.ok()) return ErrorResponse(BadRequest(labels.status().message()));
  auto fields = ParseFieldSelectorFor(call.type, call.Q("fieldSelector"));
  if (!fields.ok()) return ErrorResponse(fields.error());
  FieldSelector field_selector = std::move(*fields);
  if (!call.info.name.empty()) {
    // Watching one object (GET .../pods/p1?watch=1) is a watch with metadata.name=p1.
    auto named = FieldSelector::Parse(
        (field_selector.Empty() ? "" : field_selector.String() + ",") + "metadata.name=" +
        call.info.name);
    if (!named.ok()) return ErrorResponse(BadRequest(named.status().message()));
    field_selector = std::move(*named);
  }

  if (IsWatch(call)) {
    WatchRequest w;
    w.type = call.type;
    w.ns = call.info.ns;
    w.labels = std::move(*labels);
    w.fields = std::move(field_selector);
    w.resource_version = call.Q("resourceVersion");
    w.send_initial_events = IsTrue(call.Q("sendInitialEvents"));
    w.bookmarks = IsTrue(call.Q("allowWatchBookmarks"));
    std::string timeout = call.Q("timeoutSeconds");
    if (!timeout.empty()) {
      auto seconds = ParseInt(timeout);
      if (!seconds || *seconds < 0) {
        return ErrorResponse(BadRequest("timeoutSeconds: Invalid value: \"" + timeout + "\""));
      }
      w.timeout = std::chrono::seconds(*seconds);
    }
    w.table = call.table;
    w.table_rows = call.rows;
    HttpResponse res;
    res.headers.emplace_back("Content-Type", "application/json");
    WatchHub* hub = watches_;
    res.on_stream = [hub, w = std::move(w)](std::shared_ptr<http::ResponseStream> stream) mutable {
      hub->Start(std::move(w), std::move(stream));
    };
    return res;
  }

  ListOptions options;
  options.labels = std::move(*labels);
  options.fields = std::move(field_selector);
  std::string limit = call.Q("limit");
  if (!limit.empty()) {
    auto n = ParseInt(limit);
    if (!n || *n < 0) return ErrorResponse(BadRequest("limit: Invalid value: \"" + limit + "\""));
    options.limit = *n;
  }
  options.continue_token = call.Q("continue");
  options.resource_version = call.Q("resourceVersion");
  options.resource_version_match = call.Q("resourceVersionMatch");
  auto list = objects_->List(call.type, call.info.ns, options);
  if (!list.ok()) return ErrorResponse(list.error());
  Json meta = {{"resourceVersion", std::to_string(list->revision)}};
  if (!list->continue_token.empty()) meta["continue"] = list->continue_token;
  if (list->remaining && *list->remaining > 0) meta["remainingItemCount"] = *list->remaining;
  if (call.table) {
    Json table = ToTable(call.type, list->items, call.rows, objects_->clock()->Now());
    table["metadata"] = meta;
    return JsonResponse(200, table);
  }
  Json out = {{"kind", call.type.list_kind},
              {"apiVersion", call.type.GroupVersion()},
              {"metadata", meta},
              {"items", Json::array()}};
  Json& items = out["items"];
  for (auto& item : list->items) items.push_back(std::move(item));
  return JsonResponse(200, out);
}

namespace {

// kube-apiserver's create and update handlers report a strict decoding error of the body as
// "<Kind> in version \"<v>\" cannot be handled as a <Kind>: strict decoding error: ..."
// (its transformDecodeError); a patch reports it without the prefix.
ApiError AsDecodeError(const ResourceType& type, ApiError error) {
  if (error.code == 400 && error.message.rfind("strict decoding error:", 0) == 0) {
    error.message = type.kind + " in version \"" + type.version + "\" cannot be handled as a " +
                    type.kind + ": " + error.message;
  }
  return error;
}

}  // namespace

HttpResponse ApiHandler::CreateObject(Call& call) {
  auto body = DecodeObjectBody(call);
  if (!body.ok()) return ErrorResponse(AsDecodeError(call.type, body.error()));
  auto created = objects_->Create(call.type, call.info.ns, std::move(*body), call.write);
  if (!created.ok()) return ErrorResponse(AsDecodeError(call.type, created.error()));
  return JsonResponse(201, *created, call.warnings);
}

HttpResponse ApiHandler::UpdateObject(Call& call) {
  auto body = DecodeObjectBody(call);
  if (!body.ok()) return ErrorResponse(AsDecodeError(call.type, body.error()));
  auto updated = objects_->Update(call.type, call.info.ns, call.info.name, std::move(*body),
                                  call.info.subresource, call.write);
  if (!updated.ok()) return ErrorResponse(AsDecodeError(call.type, updated.error()));
  return JsonResponse(200, *updated, call.warnings);
}

HttpResponse ApiHandler::DeleteObject(Call& call) {
  auto options = ParseDeleteOptions(call);
  if (!options.ok()) return ErrorResponse(options.error());
  auto outcome = objects_->Delete(call.type, call.info.ns, call.info.name, *options);
  if (!outcome.ok()) return ErrorResponse(outcome.error());
  if (!outcome->deleted || ReturnsDeletedObject(call.type)) {
    return JsonResponse(200, outcome->object);
  }
  return JsonResponse(200, SuccessStatus(call.type, call.info.name,
                                         MetaString(outcome->object, "uid")));
}

HttpResponse ApiHandler::DeleteCollection(Call& call) {
  auto options = ParseDeleteOptions(call);
  if (!options.ok()) return ErrorResponse(options.error());
  auto labels = LabelSelector::Parse(call.Q("labelSelector"));
  if (!labels.ok()) return ErrorResponse(BadRequest(labels.status().message()));
  auto fields = ParseFieldSelectorFor(call.type, call.Q("fieldSelector"));
  if (!fields.ok()) return ErrorResponse(fields.error());
  auto list = objects_->List(call.type, call.info.ns,
                             ListOptions{.labels = std::move(*labels), .fields = std::move(*fields)});
  if (!list.ok()) return ErrorResponse(list.error());
  Json out = {{"kind", call.type.list_kind},
              {"apiVersion", call.type.GroupVersion()},
              {"metadata", {{"resourceVersion", std::to_string(list->revision)}}},
              {"items", Json::array()}};
  for (const auto& item : list->items) {
    auto outcome = objects_->Delete(call.type, MetaString(item, "namespace"),
                                    MetaString(item, "name"), *options);
    if (!outcome.ok()) {
      if (outcome.error().code == 404) continue;  // deleted meanwhile
      return ErrorResponse(outcome.error());
    }
    out["items"].push_back(outcome->object);
  }
  out["metadata"]["resourceVersion"] = std::to_string(objects_->store()->Revision());
  return JsonResponse(200, out);
}

}  // namespace trimtab::cluster
