// Private to the REST layer (rest_*.cc): the router, the request context handlers get, and the
// helpers that write Flink's response and error shapes (notes flink-rest-and-sim.md §1.1).
//
// Thread-safety: the router is built once and read concurrently; handlers run with the cluster
// locked (FlinkCluster::Locked).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/http/server.h"
#include "common/json.h"
#include "common/status.h"
#include "cluster/flink/cluster_state.h"

namespace trimtab::sim::flink::rest {

struct RestContext {
  const http::HttpRequest& request;
  std::map<std::string, std::string> params;  // path parameters by name (":jobid" -> "jobid")
  ClusterState& state;

  const std::string* Query(std::string_view name) const { return request.Query(name); }
};

using RestHandler = std::function<http::HttpResponse(RestContext&)>;

class RestRouter {
 public:
  // `pattern` like "jobs/:jobid/vertices/:vertexid" (no leading slash, no /v1).
  void Add(std::string method, std::string pattern, RestHandler handler);
  // The best match (literal segments beat parameters), or nullptr.
  const RestHandler* Match(const std::string& method, const std::vector<std::string>& segments,
                           std::map<std::string, std::string>* params) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    RestHandler handler;
  };
  std::vector<Route> routes_;
};

// Registration per file.
void AddClusterRoutes(RestRouter& router);     // rest_cluster.cc
void AddJobRoutes(RestRouter& router);         // rest_job.cc
void AddVertexRoutes(RestRouter& router);      // rest_vertex.cc
void AddMetricRoutes(RestRouter& router);      // rest_metrics.cc
void AddCheckpointRoutes(RestRouter& router);  // rest_checkpoints.cc
void AddJarRoutes(RestRouter& router);         // rest_jars.cc
void AddTrimtabRoutes(RestRouter& router);     // rest_trimtab.cc (not Flink's: /trimtab/...)

// ---- Responses -------------------------------------------------------------------------------
http::HttpResponse JsonResponse(int status, const Json& body);
// {"errors": [message]}.
http::HttpResponse ErrorResponse(int status, const std::string& message);
// A RestHandlerException as Flink writes it: the exception and a stack trace.
http::HttpResponse ExceptionResponse(int status, const std::string& exception_class, const std::string& message);
// An unexpected exception: 500 {"errors": ["Internal server error.", "<Exception on server side: ...>"]}.
http::HttpResponse InternalErrorResponse(const std::string& exception);
// Maps a Status from ClusterState: NotFound 404, InvalidArgument 400, Conflict 409,
// FailedPrecondition 409, Internal 500 (unexpected exception), Unavailable 503.
http::HttpResponse StatusResponse(const Status& status);
http::HttpResponse JobNotFound(const std::string& job_id);
// 400 "Bad request, could not parse parameters: ...".
http::HttpResponse BadParameters(const std::string& detail);
// 400 "Request did not match expected format <request class>."
http::HttpResponse BadRequestBody(const std::string& request_class);

// ---- Requests --------------------------------------------------------------------------------
// The JSON body ("" is {}); nullopt when malformed.
std::optional<Json> ParseBody(const http::HttpRequest& request);
// The job of `:jobid`: a 400 for a malformed id or a 404 when unknown goes to *error.
FlinkJob* RequireJob(RestContext& ctx, http::HttpResponse* error);
// The vertex of `:vertexid` in `job`.
int RequireVertex(RestContext& ctx, const FlinkJob& job, http::HttpResponse* error);

// ---- Shared JSON pieces ------------------------------------------------------------------------
// {"<STATE>": count} for every ExecutionState (upper-case) of `count` tasks in `state`.
Json TaskCounts(ExecutionState state, int count, bool lower_case);
// IOMetricsInfo of a vertex or subtask from the metric store (sums over `subtasks`).
Json IoMetrics(const std::vector<const MetricMap*>& subtasks);
// The job plan ({jid, name, type, nodes: [...]}).
Json PlanJson(const FlinkJob& job);
// Per-state durations of the current attempt ({"CREATED": ms, ...}).
Json StatusDurations(const FlinkJob& job, int64_t now);
// The host:port endpoint of subtask `index` ("(unassigned)" before deployment).
std::string SubtaskEndpoint(const FlinkJob& job, int index);
std::string SubtaskTaskManagerId(const FlinkJob& job, int index);

}  // namespace trimtab::sim::flink::rest
