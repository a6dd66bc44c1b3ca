#include "cluster/apiserver/handlers/request_metrics.h"

#include <atomic>
#include <memory>

#include "cluster/apiserver/handlers/request_info.h"

namespace trimtab::cluster {
namespace {

// Counts the chunks a watch writes as events, and closes its "open" count once.
class CountingStream final : public http::ResponseStream {
 public:
  CountingStream(std::shared_ptr<http::ResponseStream> inner, MetricFamily* events,
                 LabelValues labels)
      : inner_(std::move(inner)), events_(events), labels_(std::move(labels)) {}
  bool Write(std::string data) override {
    if (data.empty()) return inner_->IsOpen();
    const bool written = inner_->Write(std::move(data));
    if (written) events_->Inc(labels_);
    return written;
  }
  void Close() override { inner_->Close(); }
  bool IsOpen() const override { return inner_->IsOpen(); }
  void OnClose(std::function<void()> callback) override { inner_->OnClose(std::move(callback)); }

 private:
  std::shared_ptr<http::ResponseStream> inner_;
  MetricFamily* events_;
  LabelValues labels_;
};

bool WatchRequested(const http::HttpRequest& request) {
  const std::string* watch = request.Query("watch");
  return watch != nullptr && (*watch == "true" || *watch == "1");
}

}  // namespace

ApiServerMetrics::ApiServerMetrics(MetricsRegistry* registry, const ResourceRegistry* resources)
    : resources_(resources) {
  const std::vector<std::string> resource_labels = {"verb", "group", "version", "resource",
                                                    "subresource"};
  std::vector<std::string> with_code = resource_labels;
  with_code.push_back("code");
  requests_ = &registry->Counter(
      "apiserver_request_total",
      "Requests to the API server, by verb, group, version, resource, subresource and HTTP "
      "response code.",
      with_code);
  durations_ = &registry->Histogram(
      "apiserver_request_duration_seconds",
      "Time to the response of API server requests (watches excluded).", resource_labels,
      {0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 10, 30, 60});
  longrunning_ = &registry->Gauge("apiserver_longrunning_requests",
                                  "Long-running requests (watches) open now.",
                                  {"verb", "group", "version", "resource"});
  watch_events_ = &registry->Counter("apiserver_watch_events_total",
                                     "Watch events sent to clients.",
                                     {"group", "version", "resource"});
  storage_ = &registry->Histogram(
      "etcd_request_duration_seconds",
      "Time of storage calls (the SQLite store), by operation and resource type.",
      {"operation", "type"},
      {0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5});
}

std::string ApiServerMetrics::Verb(const http::HttpRequest& request, bool resource,
                                   bool collection) {
  const std::string& m = request.method;
  if (!resource) return m;
  if (m == "GET") {
    if (WatchRequested(request)) return "WATCH";
    return collection ? "LIST" : "GET";
  }
  if (m == "DELETE" && collection) return "DELETECOLLECTION";
  if (m == "PATCH" && request.Header("Content-Type").rfind("application/apply-patch", 0) == 0) {
    return "APPLY";
  }
  return m;
}

std::string ApiServerMetrics::StorageType(std::string_view key) {
  constexpr std::string_view kPrefix = "/registry/";
  if (key.rfind(kPrefix, 0) != 0) return "";
  key.remove_prefix(kPrefix.size());
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return "";
  const std::string_view group = key.substr(0, slash);
  std::string_view rest = key.substr(slash + 1);
  const std::string_view resource = rest.substr(0, rest.find('/'));
  if (group == "core" || group.empty()) return std::string(resource);
  return std::string(resource) + "." + std::string(group);
}

http::HttpHandler ApiServerMetrics::Wrap(http::HttpHandler next) {
  return [this, next = std::move(next)](const http::HttpRequest& request) {
    const auto start = std::chrono::steady_clock::now();
    http::HttpResponse response = next(request);
    std::optional<RequestInfo> info = ParseResourcePath(request.path, *resources_);
    const bool watch = info && (info->legacy_watch || (request.method == "GET" &&
                                                       WatchRequested(request)));
    std::string verb = Verb(request, info.has_value(), info && info->name.empty());
    if (info && info->legacy_watch) verb = "WATCH";
    LabelValues labels = {verb, info ? info->group : "", info ? info->version : "",
                          info ? info->resource : "", info ? info->subresource : ""};
    LabelValues with_code = labels;
    with_code.push_back(std::to_string(response.status));
    requests_->Inc(with_code);
    if (!watch || !response.on_stream) {
      durations_->Observe(
          labels, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    if (response.on_stream && watch) {
      LabelValues open = {verb, labels[1], labels[2], labels[3]};
      LabelValues events = {labels[1], labels[2], labels[3]};
      longrunning_->Add(open, 1);
      auto stream_fn = std::move(response.on_stream);
      MetricFamily* longrunning = longrunning_;
      MetricFamily* watch_events = watch_events_;
      response.on_stream = [stream_fn, open, events, longrunning,
                            watch_events](std::shared_ptr<http::ResponseStream> stream) {
        auto closed = std::make_shared<std::atomic<bool>>(false);
        stream->OnClose([longrunning, open, closed] {
          if (!closed->exchange(true)) longrunning->Add(open, -1);
        });
        stream_fn(std::make_shared<CountingStream>(stream, watch_events, events));
      };
    }
    return response;
  };
}

std::function<void(std::string_view, std::string_view, std::chrono::duration<double>)>
ApiServerMetrics::StorageObserver() {
  return [this](std::string_view operation, std::string_view key,
                std::chrono::duration<double> took) {
    storage_->Observe({std::string(operation), StorageType(key)}, took.count());
  };
}

}  // namespace trimtab::cluster
