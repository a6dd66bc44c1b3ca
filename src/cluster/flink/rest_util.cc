#include "cluster/flink/rest_util.h"

#include <algorithm>
#include <cstdlib>

namespace trimtab::sim::flink::rest {

namespace {

constexpr char kStackTrace[] = "\n\tat trimtab.sim.flink.FlinkRestServer(simulated JobManager)\n";

double MetricNumber(const MetricMap& m, const std::string& id, bool* complete) {
  auto it = m.find(id);
  if (it == m.end()) {
    *complete = false;
    return 0;
  }
  return std::strtod(it->second.c_str(), nullptr);
}

}  // namespace

// ---- Router -----------------------------------------------------------------------------------

void RestRouter::Add(std::string method, std::string pattern, RestHandler handler) {
  Route r;
  r.method = std::move(method);
  size_t i = 0;
  while (i <= pattern.size()) {
    size_t j = pattern.find('/', i);
    if (j == std::string::npos) j = pattern.size();
    if (j > i) r.segments.push_back(pattern.substr(i, j - i));
    i = j + 1;
  }
  r.handler = std::move(handler);
  routes_.push_back(std::move(r));
}

const RestHandler* RestRouter::Match(const std::string& method, const std::vector<std::string>& segments,
                                     std::map<std::string, std::string>* params) const {
  const Route* best = nullptr;
  std::string best_key;
  for (const Route& r : routes_) {
    if (r.method != method || r.segments.size() != segments.size()) continue;
    std::string key;  // '1' for a literal, '0' for a parameter: the lexicographically largest wins
    bool ok = true;
    for (size_t i = 0; i < segments.size() && ok; ++i) {
      if (r.segments[i][0] == ':') {
        key += '0';
      } else if (r.segments[i] == segments[i]) {
        key += '1';
      } else {
        ok = false;
      }
    }
    if (ok && (!best || key > best_key)) {
      best = &r;
      best_key = key;
    }
  }
  if (!best) return nullptr;
  params->clear();
  for (size_t i = 0; i < segments.size(); ++i) {
    if (best->segments[i][0] == ':') (*params)[best->segments[i].substr(1)] = segments[i];
  }
  return &best->handler;
}

// ---- Responses ---------------------------------------------------------------------------------

http::HttpResponse JsonResponse(int status, const Json& body) {
  http::HttpResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "application/json; charset=UTF-8"}, {"Access-Control-Allow-Origin", "*"}};
  r.body = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  return r;
}

http::HttpResponse ErrorResponse(int status, const std::string& message) {
  return JsonResponse(status, Json{{"errors", Json::array({message})}});
}

http::HttpResponse ExceptionResponse(int status, const std::string& exception_class, const std::string& message) {
  return ErrorResponse(status, exception_class + ": " + message + kStackTrace);
}

http::HttpResponse InternalErrorResponse(const std::string& exception) {
  return JsonResponse(500, Json{{"errors", Json::array({"Internal server error.",
                                                        "<Exception on server side:\n" + exception + kStackTrace +
                                                            "\nEnd of exception on server side>"})}});
}

http::HttpResponse StatusResponse(const Status& status) {
  switch (status.code()) {
    case StatusCode::kNotFound:
      return ExceptionResponse(404, "org.apache.flink.runtime.rest.NotFoundException", status.message());
    case StatusCode::kInvalidArgument:
      return ExceptionResponse(400, "org.apache.flink.runtime.rest.handler.RestHandlerException", status.message());
    case StatusCode::kConflict:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kAlreadyExists:
      return ExceptionResponse(409, "org.apache.flink.runtime.rest.handler.RestHandlerException", status.message());
    case StatusCode::kUnavailable:
      return ErrorResponse(503, status.message());
    default:
      return InternalErrorResponse(status.message());
  }
}

http::HttpResponse JobNotFound(const std::string& job_id) {
  return ExceptionResponse(404, "org.apache.flink.runtime.rest.NotFoundException", "Job " + job_id + " not found");
}

http::HttpResponse BadParameters(const std::string& detail) {
  return ErrorResponse(400, "Bad request, could not parse parameters: " + detail);
}

http::HttpResponse BadRequestBody(const std::string& request_class) {
  return ErrorResponse(400, "Request did not match expected format " + request_class + ".");
}

// ---- Requests ----------------------------------------------------------------------------------

std::optional<Json> ParseBody(const http::HttpRequest& request) {
  if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) return Json::object();
  Json body = Json::parse(request.body, nullptr, false);
  if (body.is_discarded()) return std::nullopt;
  return body;
}

FlinkJob* RequireJob(RestContext& ctx, http::HttpResponse* error) {
  const std::string& id = ctx.params["jobid"];
  if (!IsHexId(id)) {
    *error = BadParameters("Cannot resolve path parameter (jobid) from value \"" + id + "\".");
    return nullptr;
  }
  std::string lower = id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  FlinkJob* job = ctx.state.FindJob(lower);
  if (!job) *error = JobNotFound(lower);
  return job;
}

int RequireVertex(RestContext& ctx, const FlinkJob& job, http::HttpResponse* error) {
  const std::string& id = ctx.params["vertexid"];
  if (!IsHexId(id)) {
    *error = BadParameters("Cannot resolve path parameter (vertexid) from value \"" + id + "\".");
    return -1;
  }
  const int index = job.has_execution_graph() ? job.VertexIndex(id) : -1;
  if (index < 0) {
    *error = ExceptionResponse(404, "org.apache.flink.runtime.rest.NotFoundException",
                               "JobVertex with id " + id + " could not be found");
  }
  return index;
}

// ---- Shared JSON pieces --------------------------------------------------------------------------

Json TaskCounts(ExecutionState state, int count, bool lower_case) {
  Json out = Json::object();
  for (ExecutionState s : kAllExecutionStates) {
    const std::string name = lower_case ? ExecutionStateLowerName(s) : std::string(ExecutionStateName(s));
    out[name] = s == state ? count : 0;
  }
  return out;
}

Json IoMetrics(const std::vector<const MetricMap*>& subtasks) {
  bool complete = !subtasks.empty();
  double read_bytes = 0, write_bytes = 0, read_records = 0, write_records = 0, bp = 0, idle = 0, busy = 0;
  for (const MetricMap* m : subtasks) {
    read_bytes += MetricNumber(*m, "numBytesIn", &complete);
    write_bytes += MetricNumber(*m, "numBytesOut", &complete);
    read_records += MetricNumber(*m, "numRecordsIn", &complete);
    write_records += MetricNumber(*m, "numRecordsOut", &complete);
    bp += MetricNumber(*m, "accumulateBackPressuredTimeMs", &complete);
    idle += MetricNumber(*m, "accumulateIdleTimeMs", &complete);
    busy += MetricNumber(*m, "accumulateBusyTimeMs", &complete);
  }
  return Json{{"read-bytes", std::llround(read_bytes)},
              {"read-bytes-complete", complete},
              {"write-bytes", std::llround(write_bytes)},
              {"write-bytes-complete", complete},
              {"read-records", std::llround(read_records)},
              {"read-records-complete", complete},
              {"write-records", std::llround(write_records)},
              {"write-records-complete", complete},
              {"accumulated-backpressured-time", std::llround(bp)},
              {"accumulated-idle-time", std::llround(idle)},
              {"accumulated-busy-time", busy}};
}

Json PlanJson(const FlinkJob& job) {
  Json nodes = Json::array();
  if (job.has_execution_graph()) {
    for (const JobVertexView& v : job.vertices()) {
      Json node = {{"id", v.id},
                   {"parallelism", v.parallelism},
                   {"operator", ""},
                   {"operator_strategy", ""},
                   {"description", v.name},
                   {"optimizer_properties", Json::object()}};
      if (!v.inputs.empty()) {
        Json inputs = Json::array();
        for (size_t i = 0; i < v.inputs.size(); ++i) {
          inputs.push_back({{"num", static_cast<int>(i)},
                            {"id", job.vertices()[static_cast<size_t>(v.inputs[i].vertex)].id},
                            {"ship_strategy", v.inputs[i].ship_strategy},
                            {"exchange", "pipelined_bounded"}});
        }
        node["inputs"] = inputs;
      }
      nodes.push_back(std::move(node));
    }
  }
  return Json{{"jid", job.id()}, {"name", job.name()}, {"type", "STREAMING"}, {"nodes", nodes}};
}

Json StatusDurations(const FlinkJob& job, int64_t now) {
  static constexpr ExecutionState kStates[] = {ExecutionState::kCreated, ExecutionState::kScheduled,
                                               ExecutionState::kDeploying, ExecutionState::kInitializing,
                                               ExecutionState::kRunning};
  Json out = Json::object();
  for (size_t i = 0; i < std::size(kStates); ++i) {
    const int64_t start = job.task_state_timestamp(kStates[i]);
    int64_t end = 0;
    for (size_t k = i + 1; k < std::size(kStates) && end == 0; ++k) end = job.task_state_timestamp(kStates[k]);
    int64_t d = 0;
    if (start > 0) d = (job.task_state() == kStates[i] ? now : (end > 0 ? end : now)) - start;
    out[std::string(ExecutionStateName(kStates[i]))] = std::max<int64_t>(0, d);
  }
  return out;
}

std::string SubtaskEndpoint(const FlinkJob& job, int index) {
  const TaskManagerInfo* tm = job.SubtaskTaskManager(index);
  return tm ? tm->host + ":" + std::to_string(tm->data_port) : "(unassigned)";
}

std::string SubtaskTaskManagerId(const FlinkJob& job, int index) {
  const TaskManagerInfo* tm = job.SubtaskTaskManager(index);
  return tm ? tm->id : "(unassigned)";
}

}  // namespace trimtab::sim::flink::rest
