// Dashboard: the read-only web page of `trimtab local` (mounted at /dashboard on its API server)
// and of `trimtab operator --dashboard-port` (docs/dashboard.md). It shows every FlinkDeployment
// and FlinkSessionJob, the autoscaler's charts and decision logs from the state ConfigMaps, and
// Volcano queues, PodGroups and HPAs, all read through a ClusterWatch (list + watch on the API
// server). Routes, relative to `prefix` ("/dashboard"):
//
//   /, /index.html, /app.js, /app.css   the page (embedded in the binary: dashboard_assets.h)
//   /api/overview                       BuildOverview (dashboard_model.h), JSON
//   /api/job?kind=&namespace=&name=     BuildJobDetail, JSON (400 / 404 with a message)
//   /api/events                         Server-Sent Events: "change" with the watch revision
//                                       whenever an informer saw a change (at most every
//                                       `min_event_interval`), a comment every `heartbeat`
//
// GET and HEAD only (405 otherwise). Every response carries a strict Content-Security-Policy
// (scripts, styles and connections from the same origin only, no inline script or style, no
// frames), nosniff and no-referrer; the page builds its DOM with textContent only.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto dash, dashboard::Dashboard::Create({.client = client.get()}));
//   api_server->Mount("/dashboard", [d = dash.get()](const http::HttpRequest& r) {
//     return d->Handle(r);
//   });
//   ...
//   dash->Stop();
//
// Threading: Handle from any thread (the HTTP server's); one thread of its own feeds the event
// streams. Stop() ends the streams and the watch; idempotent.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adapters/http/server.h"
#include "adapters/kube/kube_client.h"
#include "common/clock.h"
#include "common/status.h"
#include "dashboard/cluster_watch.h"

namespace trimtab::dashboard {

inline constexpr char kContentSecurityPolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

struct DashboardOptions {
  const kube::KubeClient* client = nullptr;  // required; outlives the dashboard
  std::vector<std::string> namespaces;       // watched; empty = all
  std::string prefix = "/dashboard";         // where it is served (no trailing slash)
  Clock* clock = RealClock::Default();       // "generatedAt" of the overview
  size_t max_streams = 32;                   // open event streams; more get 503
  std::chrono::milliseconds min_event_interval{500};
  std::chrono::milliseconds heartbeat{15000};
};

class Dashboard {
 public:
  // Creates the watch and starts it and the event thread.
  static StatusOr<std::unique_ptr<Dashboard>> Create(DashboardOptions options);
  ~Dashboard();  // Stop()s
  Dashboard(const Dashboard&) = delete;
  Dashboard& operator=(const Dashboard&) = delete;

  http::HttpResponse Handle(const http::HttpRequest& request);
  void Stop();

  const ClusterWatch& watch() const { return *watch_; }

 private:
  explicit Dashboard(DashboardOptions options) : options_(std::move(options)) {}
  void EventLoop();
  http::HttpResponse Events();

  DashboardOptions options_;
  std::unique_ptr<ClusterWatch> watch_;
  std::thread events_thread_;
  std::mutex mu_;
  std::vector<std::shared_ptr<http::ResponseStream>> streams_;  // guarded by mu_
  bool stopped_ = false;                                         // guarded by mu_
};

// A dashboard on an HTTP server of its own (`trimtab operator --dashboard-port`): the page at
// "/" redirects to options.prefix.
struct DashboardServer {
  std::unique_ptr<kube::KubeClient> client;
  std::unique_ptr<Dashboard> dashboard;
  std::unique_ptr<http::HttpServer> server;
  void Stop();
};
StatusOr<std::unique_ptr<DashboardServer>> ServeDashboard(kube::RestConfig rest_config,
                                                          std::vector<std::string> namespaces,
                                                          std::string address, int port);

}  // namespace trimtab::dashboard
