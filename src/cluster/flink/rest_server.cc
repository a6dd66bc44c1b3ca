#include "cluster/flink/rest_server.h"

#include <exception>

#include "cluster/flink/rest_util.h"

namespace trimtab::sim::flink {

FlinkRestServer::FlinkRestServer(FlinkCluster* cluster)
    : cluster_(cluster), router_(std::make_unique<rest::RestRouter>()) {
  rest::AddClusterRoutes(*router_);
  rest::AddJobRoutes(*router_);
  rest::AddVertexRoutes(*router_);
  rest::AddMetricRoutes(*router_);
  rest::AddCheckpointRoutes(*router_);
  rest::AddJarRoutes(*router_);
  rest::AddTrimtabRoutes(*router_);
}

FlinkRestServer::~FlinkRestServer() { Stop(); }

StatusOr<std::unique_ptr<FlinkRestServer>> FlinkRestServer::Create(FlinkRestServerOptions options,
                                                                   FlinkCluster* cluster) {
  std::unique_ptr<FlinkRestServer> server(new FlinkRestServer(cluster));
  http::HttpServerOptions http_options;
  http_options.address = options.address;
  http_options.port = options.port;
  http_options.threads = options.threads;
  http_options.max_body_bytes = 100 * 1024 * 1024;  // jar uploads (rest.server.max-content-length)
  FlinkRestServer* self = server.get();
  TRIMTAB_ASSIGN_OR_RETURN(server->http_,
                           http::HttpServer::Create(http_options, [self](const http::HttpRequest& r) {
                             return self->Handle(r);
                           }));
  return server;
}

int FlinkRestServer::port() const { return http_ ? http_->port() : 0; }
std::string FlinkRestServer::base_url() const { return http_ ? http_->base_url() : ""; }

void FlinkRestServer::Stop() {
  if (http_) http_->Stop();
}

http::HttpResponse FlinkRestServer::Handle(const http::HttpRequest& request) {
  std::vector<std::string> segments;
  size_t i = 0;
  const std::string& path = request.path;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) segments.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  if (!segments.empty() && segments.front() == "v1") segments.erase(segments.begin());
  std::map<std::string, std::string> params;
  const rest::RestHandler* handler = router_->Match(request.method, segments, &params);
  if (!handler) return rest::ErrorResponse(404, "Not found: " + request.target);
  try {
    return cluster_->Locked([&](ClusterState& state) {
      rest::RestContext ctx{request, std::move(params), state};
      return (*handler)(ctx);
    });
  } catch (const std::exception& e) {
    return rest::InternalErrorResponse(std::string("java.lang.RuntimeException: ") + e.what());
  }
}

}  // namespace trimtab::sim::flink
