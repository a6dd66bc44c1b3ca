// FlinkRestServer: Flink's JobManager REST API (notes flink-rest-and-sim.md §1) served for one
// simulated cluster on an HttpServer bound to the JobManager's address and rest.port. Every
// path is also served under /v1; an unknown route is 404 {"errors":["Not found: <uri>"]}.
// The served endpoints and their differences from real Flink are listed in docs/flink-sim.md.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(auto rest, FlinkRestServer::Create({.address = pod_ip, .port = 8081},
//                                                               cluster.get()));
//   ... rest->Stop();
//
// Thread-safety: requests are served on the server's I/O threads; each runs under the
// cluster's lock. `cluster` must outlive the server.
#pragma once

#include <memory>
#include <string>

#include "adapters/http/server.h"
#include "common/status.h"
#include "cluster/flink/flink_cluster.h"

namespace trimtab::sim::flink {

struct FlinkRestServerOptions {
  std::string address = "127.0.0.1";
  int port = 8081;  // 0: any free port
  int threads = 2;
};

namespace rest {
class RestRouter;
}

class FlinkRestServer {
 public:
  static StatusOr<std::unique_ptr<FlinkRestServer>> Create(FlinkRestServerOptions options, FlinkCluster* cluster);
  ~FlinkRestServer();

  int port() const;
  std::string base_url() const;
  void Stop();

  // The response to one request without going through HTTP (tests, tools).
  http::HttpResponse Handle(const http::HttpRequest& request);

 private:
  FlinkRestServer(FlinkCluster* cluster);
  FlinkCluster* cluster_;
  std::unique_ptr<rest::RestRouter> router_;
  std::unique_ptr<http::HttpServer> http_;
};

}  // namespace trimtab::sim::flink
