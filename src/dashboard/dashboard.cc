#include "dashboard/dashboard.h"

#include <spdlog/spdlog.h>

#include <string_view>
#include <utility>

#include "dashboard/dashboard_assets.h"
#include "dashboard/dashboard_model.h"

namespace trimtab::dashboard {
namespace {

void AddSecurityHeaders(http::HttpResponse* r, bool cacheable) {
  r->headers.emplace_back("Content-Security-Policy", kContentSecurityPolicy);
  r->headers.emplace_back("X-Content-Type-Options", "nosniff");
  r->headers.emplace_back("Referrer-Policy", "no-referrer");
  r->headers.emplace_back("X-Frame-Options", "DENY");
  r->headers.emplace_back("Cache-Control", cacheable ? "no-cache" : "no-store");
}

http::HttpResponse Secured(http::HttpResponse r, bool cacheable = false) {
  AddSecurityHeaders(&r, cacheable);
  return r;
}

http::HttpResponse Error(int status, const std::string& message) {
  return Secured(http::HttpResponse::Json(status, Json{{"error", message}}.dump()));
}

std::string_view ContentType(std::string_view file) {
  if (file.ends_with(".html")) return "text/html; charset=utf-8";
  if (file.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (file.ends_with(".css")) return "text/css; charset=utf-8";
  return "text/plain; charset=utf-8";
}

}  // namespace

StatusOr<std::unique_ptr<Dashboard>> Dashboard::Create(DashboardOptions options) {
  if (options.client == nullptr) return InvalidArgumentError("dashboard: client is required");
  if (options.prefix.empty() || options.prefix.front() != '/' || options.prefix.back() == '/') {
    return InvalidArgumentError("dashboard: prefix: expected /path without a trailing slash");
  }
  std::unique_ptr<Dashboard> d(new Dashboard(std::move(options)));
  TRIMTAB_ASSIGN_OR_RETURN(d->watch_, ClusterWatch::Create({.client = d->options_.client,
                                                            .namespaces = d->options_.namespaces}));
  d->watch_->Start();
  d->events_thread_ = std::thread([p = d.get()] { p->EventLoop(); });
  return d;
}

Dashboard::~Dashboard() { Stop(); }

void Dashboard::Stop() {
  std::vector<std::shared_ptr<http::ResponseStream>> streams;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    streams.swap(streams_);
  }
  if (watch_) watch_->Stop();  // wakes the event loop
  if (events_thread_.joinable()) events_thread_.join();
  for (auto& s : streams) s->Close();
}

void Dashboard::EventLoop() {
  uint64_t sent = 0;
  while (true) {
    const uint64_t revision = watch_->WaitForChange(sent, options_.heartbeat);
    std::vector<std::shared_ptr<http::ResponseStream>> streams;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
      std::erase_if(streams_, [](const auto& s) { return !s->IsOpen(); });
      streams = streams_;
    }
    const std::string message = revision != sent
                                    ? "event: change\ndata: " + std::to_string(revision) + "\n\n"
                                    : std::string(": keep-alive\n\n");
    for (auto& s : streams) s->Write(message);
    sent = revision;
    // Coalesce bursts (a pass writes status, ConfigMap and events within milliseconds).
    std::unique_lock<std::mutex> lock(mu_);
    if (stopped_) return;
    lock.unlock();
    std::this_thread::sleep_for(options_.min_event_interval);
  }
}

http::HttpResponse Dashboard::Events() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase_if(streams_, [](const auto& s) { return !s->IsOpen(); });
    if (stopped_) return Error(503, "dashboard stopping");
    if (streams_.size() >= options_.max_streams) {
      return Error(503, "too many open dashboard event streams");
    }
  }
  http::HttpResponse r;
  r.status = 200;
  r.headers.emplace_back("Content-Type", "text/event-stream");
  AddSecurityHeaders(&r, false);
  const uint64_t revision = watch_->Revision();
  r.on_stream = [this, revision](std::shared_ptr<http::ResponseStream> stream) {
    stream->Write("retry: 2000\nevent: change\ndata: " + std::to_string(revision) + "\n\n");
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) {
      stream->Close();
      return;
    }
    streams_.push_back(std::move(stream));
  };
  return r;
}

http::HttpResponse Dashboard::Handle(const http::HttpRequest& request) {
  if (request.method != "GET" && request.method != "HEAD") {
    http::HttpResponse r = Error(405, "the dashboard is read-only");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  const std::string& prefix = options_.prefix;
  if (request.path == prefix) {
    http::HttpResponse r = Secured(http::HttpResponse::Text(301, "moved\n"));
    r.headers.emplace_back("Location", prefix + "/");
    return r;
  }
  if (!request.path.starts_with(prefix + "/")) return Error(404, "not found");
  std::string_view rest = std::string_view(request.path).substr(prefix.size() + 1);
  if (rest.empty()) rest = "index.html";
  if (rest == "api/overview") {
    return Secured(http::HttpResponse::Json(
        200, BuildOverview(watch_->Snapshot(), options_.clock->Now()).dump()));
  }
  if (rest == "api/job") {
    auto param = [&](const char* name) {
      const std::string* v = request.Query(name);
      return v == nullptr ? std::string() : *v;
    };
    StatusOr<Json> detail = BuildJobDetail(watch_->Snapshot(), param("kind"), param("namespace"),
                                           param("name"));
    if (!detail.ok()) {
      return Error(detail.status().code() == StatusCode::kNotFound ? 404 : 400,
                   detail.status().message());
    }
    return Secured(http::HttpResponse::Json(200, detail->dump()));
  }
  if (rest == "api/events") return Events();
  for (const EmbeddedFile& f : DashboardAssets()) {
    if (f.name == rest) {
      return Secured(http::HttpResponse::Text(200, std::string(f.text),
                                              std::string(ContentType(f.name))),
                     true);
    }
  }
  return Error(404, "not found");
}

void DashboardServer::Stop() {
  if (server) server->Stop();
  if (dashboard) dashboard->Stop();
}

StatusOr<std::unique_ptr<DashboardServer>> ServeDashboard(kube::RestConfig rest_config,
                                                          std::vector<std::string> namespaces,
                                                          std::string address, int port) {
  auto out = std::make_unique<DashboardServer>();
  TRIMTAB_ASSIGN_OR_RETURN(out->client,
                           kube::KubeClient::Create(std::move(rest_config),
                                                    {.user_agent = "trimtab-dashboard"}));
  TRIMTAB_ASSIGN_OR_RETURN(out->dashboard, Dashboard::Create({.client = out->client.get(),
                                                              .namespaces = std::move(namespaces)}));
  Dashboard* d = out->dashboard.get();
  auto served = http::HttpServer::Create(
      {.address = std::move(address), .port = port, .threads = 2},
      [d](const http::HttpRequest& request) {
        if (request.path == "/") {
          http::HttpResponse r = http::HttpResponse::Text(302, "see /dashboard/\n");
          r.headers.emplace_back("Location", "/dashboard/");
          return r;
        }
        return d->Handle(request);
      });
  if (!served.ok()) {
    out->dashboard->Stop();
    return served.status().WithContext("dashboard");
  }
  out->server = std::move(served).value();
  return out;
}

}  // namespace trimtab::dashboard
