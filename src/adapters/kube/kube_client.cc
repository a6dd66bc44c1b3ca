#include "adapters/kube/kube_client.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include <nlohmann/json.hpp>

#include "adapters/kube/api_errors.h"

namespace trimtab::kube {
namespace {

constexpr std::string_view kJson = "application/json";

std::string TrimToken(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

void AppendParam(std::string* query, std::string_view name, std::string_view value) {
  *query += query->empty() ? "?" : "&";
  *query += name;
  *query += "=";
  *query += http::UrlEncode(value);
}

std::string WriteQuery(const WriteOptions& options, bool is_patch) {
  std::string q;
  if (!options.field_manager.empty()) AppendParam(&q, "fieldManager", options.field_manager);
  if (options.dry_run) AppendParam(&q, "dryRun", "All");
  if (is_patch && options.force) AppendParam(&q, "force", "true");
  return q;
}

std::string_view PropagationName(PropagationPolicy p) {
  switch (p) {
    case PropagationPolicy::kOrphan: return "Orphan";
    case PropagationPolicy::kBackground: return "Background";
    case PropagationPolicy::kForeground: return "Foreground";
    case PropagationPolicy::kDefault: return "";
  }
  return "";
}

}  // namespace

std::string_view PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kJson: return "application/json-patch+json";
    case PatchType::kMerge: return "application/merge-patch+json";
    case PatchType::kStrategic: return "application/strategic-merge-patch+json";
    case PatchType::kApply: return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

KubeClient::KubeClient(RestConfig config, KubeClientOptions options,
                       std::unique_ptr<http::HttpClient> http)
    : config_(std::move(config)), options_(std::move(options)), http_(std::move(http)) {
  token_ = config_.bearer_token;
  token_read_at_ = options_.clock->Now();
}

StatusOr<std::unique_ptr<KubeClient>> KubeClient::Create(RestConfig config,
                                                         KubeClientOptions options) {
  if (config.server.empty()) return InvalidArgumentError("kube client: no server address");
  if (options.clock == nullptr) return InvalidArgumentError("kube client: clock is required");
  StatusOr<std::unique_ptr<http::HttpClient>> http =
      http::HttpClient::Create({.tls = config.tls,
                                .user_agent = options.user_agent,
                                .default_timeout = options.request_timeout});
  if (!http.ok()) return http.status().WithContext("kube client");
  return std::unique_ptr<KubeClient>(
      new KubeClient(std::move(config), std::move(options), std::move(http).value()));
}

std::string KubeClient::AuthorizationHeader() const {
  std::lock_guard<std::mutex> lock(token_mu_);
  if (!config_.bearer_token_file.empty() &&
      options_.clock->Now() - token_read_at_ >= options_.token_reload_interval) {
    // Projected service account tokens are rotated by the kubelet; keep the old one if the
    // file is momentarily unreadable.
    StatusOr<std::string> fresh = ReadFile(config_.bearer_token_file);
    if (fresh.ok() && !TrimToken(*fresh).empty()) token_ = TrimToken(*fresh);
    token_read_at_ = options_.clock->Now();
  }
  return token_.empty() ? "" : "Bearer " + token_;
}

std::string KubeClient::ListQuery(const ListOptions& options, bool watch) {
  std::string q;
  if (watch) AppendParam(&q, "watch", "true");
  if (!options.label_selector.empty()) AppendParam(&q, "labelSelector", options.label_selector);
  if (!options.field_selector.empty()) AppendParam(&q, "fieldSelector", options.field_selector);
  if (!watch && options.limit > 0) AppendParam(&q, "limit", std::to_string(options.limit));
  if (!watch && !options.continue_token.empty()) {
    AppendParam(&q, "continue", options.continue_token);
  }
  if (!options.resource_version.empty()) {
    AppendParam(&q, "resourceVersion", options.resource_version);
  }
  if (!options.resource_version_match.empty()) {
    AppendParam(&q, "resourceVersionMatch", options.resource_version_match);
  }
  if (options.timeout_seconds) {
    AppendParam(&q, "timeoutSeconds", std::to_string(*options.timeout_seconds));
  }
  if (watch && options.allow_watch_bookmarks) AppendParam(&q, "allowWatchBookmarks", "true");
  return q;
}

StatusOr<http::ClientResponse> KubeClient::Raw(const http::ClientRequest& request) const {
  std::string verb = request.method;
  for (char& c : verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return Send(request, verb);
}

StatusOr<http::ClientResponse> KubeClient::Send(const http::ClientRequest& request,
                                                std::string_view verb) const {
  http::ClientRequest r = request;
  if (r.url.starts_with("/")) r.url = config_.server + r.url;
  if (!http::FindHeader(r.headers, "Authorization")) {
    if (std::string auth = AuthorizationHeader(); !auth.empty()) {
      r.headers.emplace_back("Authorization", std::move(auth));
    }
  }
  const auto start = std::chrono::steady_clock::now();
  StatusOr<http::ClientResponse> response = http_->Do(r);
  if (options_.on_request) {
    options_.on_request({.verb = verb,
                         .code = response.ok() ? response->status : 0,
                         .latency = std::chrono::steady_clock::now() - start});
  }
  return response;
}

StatusOr<Json> KubeClient::DoJson(std::string_view verb, const std::string& method,
                                  const std::string& path_and_query, std::string_view body,
                                  std::string_view content_type) const {
  http::ClientRequest request{.method = method, .url = config_.server + path_and_query};
  request.headers.emplace_back("Accept", std::string(kJson));
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    request.headers.emplace_back("Content-Type", std::string(content_type));
    request.body = std::string(body);
  }
  const std::string operation = method + " " + path_and_query;
  StatusOr<http::ClientResponse> response = Send(request, verb);
  if (!response.ok()) return response.status();
  if (response->status < 200 || response->status >= 300) {
    return StatusFromResponse(response->status, response->body, operation);
  }
  if (response->body.empty()) return Json::object();
  Json doc = Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return InternalError(operation + ": response is not JSON: " + response->body.substr(0, 200));
  }
  return doc;
}

StatusOr<Json> KubeClient::Get(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name) const {
  if (name.empty()) return InvalidArgumentError("get " + gvr.String() + ": empty name");
  return DoJson("get", "GET", ItemPath(gvr, ns, name), "", kJson);
}

StatusOr<Json> KubeClient::ListPage(const GroupVersionResource& gvr, std::string_view ns,
                                    const ListOptions& options) const {
  return DoJson("list", "GET", CollectionPath(gvr, ns) + ListQuery(options, false), "", kJson);
}

StatusOr<std::vector<Json>> KubeClient::List(const GroupVersionResource& gvr, std::string_view ns,
                                             const ReadOptions& options) const {
  ListOptions list{.label_selector = options.labels.IsNothing() ? "" : options.labels.String(),
                   .field_selector = options.fields.String(),
                   .limit = 500};
  if (options.labels.IsNothing()) return std::vector<Json>{};
  std::vector<Json> items;
  while (true) {
    TRIMTAB_ASSIGN_OR_RETURN(Json page, ListPage(gvr, ns, list));
    if (auto it = page.find("items"); it != page.end() && it->is_array()) {
      for (Json& item : *it) items.push_back(std::move(item));
    }
    std::string next;
    if (auto meta = page.find("metadata"); meta != page.end() && meta->is_object()) {
      next = meta->value("continue", "");
    }
    if (next.empty()) break;
    list.continue_token = next;
  }
  std::stable_sort(items.begin(), items.end(), [](const Json& a, const Json& b) {
    return ObjectKey(a) < ObjectKey(b);
  });
  return items;
}

StatusOr<Json> KubeClient::Create(const GroupVersionResource& gvr, std::string_view ns,
                                  const Json& object, const WriteOptions& options) const {
  return DoJson("create", "POST", CollectionPath(gvr, ns) + WriteQuery(options, false),
                object.dump(), kJson);
}

StatusOr<Json> KubeClient::Update(const GroupVersionResource& gvr, const Json& object,
                                  const WriteOptions& options) const {
  const std::string name = ObjectName(object);
  if (name.empty()) return InvalidArgumentError("update " + gvr.String() + ": object has no name");
  return DoJson("update", "PUT",
                ItemPath(gvr, ObjectNamespace(object), name, options.subresource) +
                    WriteQuery(options, false),
                object.dump(), kJson);
}

StatusOr<Json> KubeClient::UpdateStatus(const GroupVersionResource& gvr, const Json& object,
                                        const WriteOptions& options) const {
  WriteOptions o = options;
  o.subresource = "status";
  return Update(gvr, object, o);
}

StatusOr<Json> KubeClient::Patch(const GroupVersionResource& gvr, std::string_view ns,
                                 std::string_view name, PatchType type, std::string_view patch,
                                 const WriteOptions& options) const {
  if (name.empty()) return InvalidArgumentError("patch " + gvr.String() + ": empty name");
  if (type == PatchType::kApply && options.field_manager.empty()) {
    return InvalidArgumentError("apply patch " + gvr.String() + " " + std::string(name) +
                                ": fieldManager is required");
  }
  return DoJson("patch", "PATCH",
                ItemPath(gvr, ns, name, options.subresource) + WriteQuery(options, true), patch,
                PatchContentType(type));
}

Status KubeClient::Delete(const GroupVersionResource& gvr, std::string_view ns,
                          std::string_view name, const DeleteOptions& options) const {
  if (name.empty()) return InvalidArgumentError("delete " + gvr.String() + ": empty name");
  Json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (options.propagation != PropagationPolicy::kDefault) {
    body["propagationPolicy"] = PropagationName(options.propagation);
  }
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (!options.precondition_uid.empty()) {
    body["preconditions"]["uid"] = options.precondition_uid;
  }
  if (!options.precondition_resource_version.empty()) {
    body["preconditions"]["resourceVersion"] = options.precondition_resource_version;
  }
  if (options.dry_run) body["dryRun"] = Json::array({"All"});
  StatusOr<Json> result = DoJson("delete", "DELETE", ItemPath(gvr, ns, name), body.dump(), kJson);
  return result.status();
}

Status KubeClient::Watch(const GroupVersionResource& gvr, std::string_view ns,
                         const ListOptions& options, const WatchHandler& handler,
                         std::shared_ptr<http::Cancellation> cancel) const {
  const std::string path = CollectionPath(gvr, ns) + ListQuery(options, true);
  const std::string operation = "WATCH " + path;
  http::ClientRequest request{.method = "GET", .url = config_.server + path};
  if (options.timeout_seconds) {
    // Safety net for a silent peer: the server ends the stream at timeoutSeconds.
    request.timeout = std::chrono::seconds(*options.timeout_seconds + 30);
  }
  request.headers.emplace_back("Accept", std::string(kJson));
  if (std::string auth = AuthorizationHeader(); !auth.empty()) {
    request.headers.emplace_back("Authorization", std::move(auth));
  }
  Status stream_error;
  http::StreamOptions stream{
      .split_lines = true,
      .on_data =
          [&](std::string_view line) {
            if (line.empty()) return true;
            Json doc = Json::parse(line, nullptr, /*allow_exceptions=*/false);
            if (!doc.is_object() || !doc.contains("type") || !doc["type"].is_string()) {
              stream_error = UnavailableError(operation + ": malformed watch event: " +
                                              std::string(line.substr(0, 200)));
              return false;
            }
            const std::string type = doc["type"].get<std::string>();
            Json object = doc.contains("object") ? std::move(doc["object"]) : Json::object();
            return handler(WatchEvent{.type = type, .object = &object});
          },
      .cancel = std::move(cancel)};
  const auto start = std::chrono::steady_clock::now();
  StatusOr<http::ClientResponse> response = http_->Stream(request, stream);
  if (options_.on_request) {
    options_.on_request({.verb = "watch",
                         .code = response.ok() ? response->status : 0,
                         .latency = std::chrono::steady_clock::now() - start});
  }
  if (!response.ok()) return response.status().WithContext("watch " + gvr.String());
  if (response->status < 200 || response->status >= 300) {
    return StatusFromResponse(response->status, response->body, operation);
  }
  return stream_error;
}

}  // namespace trimtab::kube
