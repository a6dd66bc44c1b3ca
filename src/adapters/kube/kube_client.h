// KubeClient: the Kubernetes REST client trimtab's operator uses. It speaks the real API
// protocol (JSON bodies, list paging with limit/continue, watch as newline-delimited JSON events,
// patch content types, DeleteOptions, metav1.Status errors), so it works against a real
// kube-apiserver and against the local API server alike.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto client, KubeClient::Create(config, {}));
//   TRIMTAB_ASSIGN_OR_RETURN(Json pod, client->Get(PodsResource(), "default", "web-0"));
//   TRIMTAB_ASSIGN_OR_RETURN(Json lease, client->Patch(LeasesResource(), "ns", "lock",
//                                                     PatchType::kMerge, R"({"spec":{...}})"));
//
// Errors: see api_errors.h for the HTTP -> StatusCode mapping; transport errors come from
// http::HttpClient (kUnavailable / kDeadlineExceeded). Each message names the operation and path.
//
// Thread-safety: all methods are safe to call concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/client.h"
#include "adapters/kube/reader.h"
#include "adapters/kube/rest_config.h"
#include "common/clock.h"

namespace trimtab::kube {

struct ListOptions {
  std::string label_selector;  // string form, see LabelSelector::String()
  std::string field_selector;  // string form, see FieldSelector::String()
  int64_t limit = 0;           // 0: no paging
  std::string continue_token;
  std::string resource_version;        // "" (most recent, quorum), "0" (any), or a version
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
  std::optional<int64_t> timeout_seconds;  // watch: server-side end of the stream
  bool allow_watch_bookmarks = false;
};

enum class PatchType {
  kJson,       // application/json-patch+json (RFC 6902)
  kMerge,      // application/merge-patch+json (RFC 7386)
  kStrategic,  // application/strategic-merge-patch+json (built-in kinds only)
  kApply,      // application/apply-patch+yaml (server-side apply; field_manager required)
};
std::string_view PatchContentType(PatchType type);

struct WriteOptions {
  std::string field_manager;  // ?fieldManager=
  bool dry_run = false;       // ?dryRun=All
  bool force = false;         // apply patches only: ?force=true
  std::string subresource;    // patch/update of e.g. "status" or "scale"
};

enum class PropagationPolicy { kDefault, kOrphan, kBackground, kForeground };

struct DeleteOptions {
  PropagationPolicy propagation = PropagationPolicy::kDefault;
  std::optional<int64_t> grace_period_seconds;
  std::string precondition_uid;
  std::string precondition_resource_version;
  bool dry_run = false;
};

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  Json* object = nullptr;  // valid during the handler call only
};
// Return false to stop watching.
using WatchHandler = std::function<bool(const WatchEvent& event)>;

// One request as the instrumentation hook sees it (KubeClientOptions::on_request).
struct KubeRequestRecord {
  // The Kubernetes verb: get, list, watch, create, update, patch, delete; for Raw() the
  // lower-case HTTP method.
  std::string_view verb;
  int code = 0;  // HTTP status; 0 when no response arrived (transport error, timeout)
  // Real time until the response was read (a watch: until its stream ended).
  std::chrono::duration<double> latency{0};
};

struct KubeClientOptions {
  // Used to decide when to re-read a bearer token file.
  Clock* clock = RealClock::Default();
  std::chrono::seconds token_reload_interval{60};
  std::string user_agent = "trimtab-operator";
  std::chrono::milliseconds request_timeout{30000};
  // Instrumentation hook, called after every request on the calling thread (null = none); must
  // be safe for concurrent calls. See client_metrics.h for the Prometheus one.
  std::function<void(const KubeRequestRecord&)> on_request;
};

class KubeClient final : public Reader {
 public:
  static StatusOr<std::unique_ptr<KubeClient>> Create(RestConfig config,
                                                      KubeClientOptions options);

  // Reader.
  StatusOr<Json> Get(const GroupVersionResource& gvr, std::string_view ns,
                     std::string_view name) const override;
  // All pages; filters server-side.
  StatusOr<std::vector<Json>> List(const GroupVersionResource& gvr, std::string_view ns,
                                   const ReadOptions& options) const override;

  // One list page: the List document ({"metadata":{"resourceVersion","continue"},"items":[]}).
  StatusOr<Json> ListPage(const GroupVersionResource& gvr, std::string_view ns,
                          const ListOptions& options) const;
  StatusOr<Json> Create(const GroupVersionResource& gvr, std::string_view ns, const Json& object,
                        const WriteOptions& options = {}) const;
  // PUT; optimistic concurrency on metadata.resourceVersion (kConflict when stale).
  StatusOr<Json> Update(const GroupVersionResource& gvr, const Json& object,
                        const WriteOptions& options = {}) const;
  StatusOr<Json> UpdateStatus(const GroupVersionResource& gvr, const Json& object,
                              const WriteOptions& options = {}) const;
  StatusOr<Json> Patch(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                       PatchType type, std::string_view patch,
                       const WriteOptions& options = {}) const;
  Status Delete(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                const DeleteOptions& options = {}) const;

  // Streams watch events until the server ends the stream (OK), `handler` returns false (OK),
  // `cancel` fires (OK) or the request fails (error; HTTP 410 satisfies IsExpired). An ERROR
  // event is passed to the handler like any other.
  Status Watch(const GroupVersionResource& gvr, std::string_view ns, const ListOptions& options,
               const WatchHandler& handler,
               std::shared_ptr<http::Cancellation> cancel = nullptr) const;

  // Raw access for endpoints without a helper (discovery, /version, custom metrics).
  StatusOr<http::ClientResponse> Raw(const http::ClientRequest& request) const;

  const RestConfig& config() const { return config_; }
  // "?labelSelector=...&limit=..." (or "") as sent for `options`; exposed for tests.
  static std::string ListQuery(const ListOptions& options, bool watch);

 private:
  KubeClient(RestConfig config, KubeClientOptions options, std::unique_ptr<http::HttpClient> http);

  std::string AuthorizationHeader() const;
  // Adds the server and credentials, sends, and reports the request to on_request as `verb`.
  StatusOr<http::ClientResponse> Send(const http::ClientRequest& request,
                                      std::string_view verb) const;
  StatusOr<Json> DoJson(std::string_view verb, const std::string& method,
                        const std::string& path_and_query, std::string_view body,
                        std::string_view content_type) const;

  RestConfig config_;
  KubeClientOptions options_;
  std::unique_ptr<http::HttpClient> http_;

  mutable std::mutex token_mu_;
  mutable std::string token_;          // guarded by token_mu_
  mutable TimePoint token_read_at_{};  // guarded by token_mu_
};

}  // namespace trimtab::kube
