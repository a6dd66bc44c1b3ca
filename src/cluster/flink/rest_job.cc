// REST: job endpoints (/jobs/:jobid, status, plan, config, exceptions, execution-result,
// accumulators, PATCH cancel, resource-requirements, legacy rescaling).
#include <algorithm>

#include "cluster/flink/rest_util.h"

namespace trimtab::sim::flink::rest {

namespace {

std::string SlotSharingGroupId(const FlinkJob& job) { return StableHexId(job.id(), "default-slot-sharing-group"); }

// The per-vertex entries of JobDetailsInfo.
Json VertexEntries(ClusterState& state, const FlinkJob& job) {
  Json out = Json::array();
  if (!job.has_execution_graph()) return out;
  const MetricSnapshot& metrics = state.Metrics();
  const auto jm = metrics.jobs.find(job.id());
  const int64_t now = state.now_ms();
  for (const JobVertexView& v : job.vertices()) {
    std::vector<const MetricMap*> subtasks;
    if (jm != metrics.jobs.end()) {
      auto it = jm->second.subtasks.find(v.id);
      if (it != jm->second.subtasks.end()) {
        for (const MetricMap& m : it->second) subtasks.push_back(&m);
      }
    }
    const int64_t start = job.deploy_ms() > 0 ? job.deploy_ms() : -1;
    const bool ended = job.task_state() == ExecutionState::kFinished || job.task_state() == ExecutionState::kCanceled ||
                       job.task_state() == ExecutionState::kFailed;
    const int64_t end = ended ? job.last_modification_ms() : -1;
    out.push_back({{"id", v.id},
                   {"slotSharingGroupId", SlotSharingGroupId(job)},
                   {"name", v.name},
                   {"maxParallelism", v.max_parallelism},
                   {"parallelism", v.parallelism},
                   {"status", std::string(ExecutionStateName(job.task_state()))},
                   {"start-time", start},
                   {"end-time", end},
                   {"duration", start > 0 ? (end > 0 ? end : now) - start : -1},
                   {"tasks", TaskCounts(job.task_state(), v.parallelism, false)},
                   {"metrics", IoMetrics(subtasks)}});
  }
  return out;
}

Json StreamGraph(const FlinkJob& job) {
  Json nodes = Json::array();
  if (!job.has_execution_graph()) return Json{{"nodes", nodes}};
  const std::vector<JobVertexView>& vs = job.vertices();
  for (size_t i = 0; i < vs.size(); ++i) {
    Json node = {{"id", std::to_string(i + 1)},
                 {"parallelism", vs[i].parallelism},
                 {"operator", vs[i].name},
                 {"description", vs[i].name},
                 {"job_vertex_id", vs[i].id}};
    Json inputs = Json::array();
    for (size_t k = 0; k < vs[i].inputs.size(); ++k) {
      inputs.push_back({{"num", static_cast<int>(k)},
                        {"id", std::to_string(vs[i].inputs[k].vertex + 1)},
                        {"ship_strategy", vs[i].inputs[k].ship_strategy},
                        {"exchange", "pipelined_bounded"}});
    }
    if (!inputs.empty()) node["inputs"] = inputs;
    nodes.push_back(std::move(node));
  }
  return Json{{"nodes", nodes}};
}

Json JobDetails(ClusterState& state, const FlinkJob& job) {
  const FlinkVersion& v = state.version();
  const int64_t now = state.now_ms();
  Json timestamps = Json::object();
  for (JobStatus s : kAllJobStatuses) timestamps[std::string(JobStatusName(s))] = job.status_timestamp(s);
  int total = 0;
  if (job.has_execution_graph()) {
    for (const JobVertexView& vx : job.vertices()) total += vx.parallelism;
  }
  const int64_t end = job.end_ms();
  Json j = {{"jid", job.id()},
            {"name", job.name()},
            {"isStoppable", false},
            {"state", std::string(JobStatusName(job.status()))},
            {"start-time", job.start_ms()},
            {"end-time", end},
            {"duration", (end > 0 ? end : now) - job.start_ms()},
            {"maxParallelism", job.has_execution_graph() ? job.max_parallelism() : -1},
            {"now", now},
            {"timestamps", timestamps},
            {"vertices", VertexEntries(state, job)},
            {"status-counts", TaskCounts(job.task_state(), total, false)},
            {"plan", PlanJson(job)}};
  if (v.AtLeast(1, 20)) j["job-type"] = "STREAMING";
  if (v.AtLeast(2, 0)) {
    j["stream-graph"] = StreamGraph(job);
    j["pending-operators"] = 0;
  }
  if (v.AtLeast(2, 3)) {
    j["schedulerType"] = job.scheduler() == SchedulerType::kAdaptive ? "Adaptive" : "Default";
    j["application-id"] = StableHexId(job.id(), "application");
  }
  return j;
}

std::string StackTrace(const ExceptionRecord& e) {
  return e.exception_class + ": " + e.message + "\n\tat trimtab.sim.flink.FlinkJob(simulated task failure)\n";
}

Json Exceptions(const ClusterState& state, const FlinkJob& job, int max_exceptions) {
  const bool legacy = !state.version().AtLeast(2, 0);
  Json entries = Json::array();
  Json all = Json::array();
  int n = 0;
  for (const ExceptionRecord& e : job.exceptions()) {
    if (n++ >= max_exceptions) break;
    Json entry = {{"exceptionName", e.exception_class},
                  {"stacktrace", StackTrace(e)},
                  {"timestamp", e.timestamp_ms},
                  {"failureLabels", Json::object()},
                  {"concurrentExceptions", Json::array()}};
    // Task-less (global) failures have no task, endpoint or TaskManager (NON_NULL fields).
    if (!e.task_name.empty()) entry["taskName"] = e.task_name;
    if (!e.endpoint.empty()) entry["endpoint"] = e.endpoint;
    if (!e.task_manager_id.empty()) entry["taskManagerId"] = e.task_manager_id;
    if (legacy && !e.endpoint.empty()) entry["location"] = e.endpoint;
    if (legacy) {
      all.push_back({{"exception", StackTrace(e)},
                     {"task", e.task_name},
                     {"location", e.endpoint},
                     {"endpoint", e.endpoint},
                     {"timestamp", e.timestamp_ms},
                     {"taskManagerId", e.task_manager_id}});
    }
    entries.push_back(std::move(entry));
  }
  const bool truncated = static_cast<int>(job.exceptions().size()) > max_exceptions;
  Json out = {{"exceptionHistory", {{"entries", entries}, {"truncated", truncated}}}};
  if (legacy) {
    if (!job.exceptions().empty()) {
      out["root-exception"] = StackTrace(job.exceptions().front());
      out["timestamp"] = job.exceptions().front().timestamp_ms;
    }
    out["all-exceptions"] = all;
    out["truncated"] = truncated;
  }
  return out;
}

Json ExecutionResult(const ClusterState& state, const FlinkJob& job) {
  if (!IsGloballyTerminal(job.status())) return Json{{"status", {{"id", "IN_PROGRESS"}}}};
  const char* app_status = job.status() == JobStatus::kFinished ? "SUCCEEDED"
                           : job.status() == JobStatus::kCanceled ? "CANCELED"
                                                                  : "FAILED";
  Json result = {{"id", job.id()},
                 {"application-status", app_status},
                 {"accumulator-results", Json::object()},
                 {"net-runtime", job.end_ms() - job.start_ms()}};
  if (job.status() == JobStatus::kFailed && !job.exceptions().empty()) {
    const ExceptionRecord& e = job.exceptions().front();
    result["failure-cause"] = FailureCause(e.exception_class, e.message);
  }
  if (state.version().AtLeast(2, 0)) {
    result["name"] = job.name();
    result["start-time"] = job.start_ms();
    result["end-time"] = job.end_ms();
  }
  return Json{{"status", {{"id", "COMPLETED"}}}, {"job-execution-result", result}};
}

}  // namespace

void AddJobRoutes(RestRouter& router) {
  router.Add("GET", "jobs/:jobid", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    return job ? JsonResponse(200, JobDetails(ctx.state, *job)) : error;
  });

  router.Add("GET", "jobs/:jobid/status", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    return job ? JsonResponse(200, Json{{"status", std::string(JobStatusName(job->status()))}}) : error;
  });

  router.Add("GET", "jobs/:jobid/plan", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    return job ? JsonResponse(200, Json{{"plan", PlanJson(*job)}}) : error;
  });

  router.Add("GET", "jobs/:jobid/config", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    if (!job) return error;
    Json exec = {{"restart-strategy", "Cluster level default restart strategy"},
                 {"job-parallelism", job->settings().default_parallelism},
                 {"object-reuse-mode", false},
                 {"user-config", Json::object()}};
    if (!ctx.state.version().AtLeast(2, 0)) exec["execution-mode"] = "PIPELINED";
    return JsonResponse(200, Json{{"jid", job->id()}, {"name", job->name()}, {"execution-config", exec}});
  });

  router.Add("GET", "jobs/:jobid/exceptions", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    if (!job) return error;
    int max = 20;
    if (const std::string* m = ctx.Query("maxExceptions")) {
      try {
        max = std::stoi(*m);
      } catch (...) {
        return BadParameters("Cannot resolve query parameter (maxExceptions) from value \"" + *m + "\".");
      }
    }
    return JsonResponse(200, Exceptions(ctx.state, *job, std::max(0, max)));
  });

  router.Add("GET", "jobs/:jobid/execution-result", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    return job ? JsonResponse(200, ExecutionResult(ctx.state, *job)) : error;
  });

  router.Add("GET", "jobs/:jobid/accumulators", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    if (!job) return error;
    return JsonResponse(200, Json{{"job-accumulators", Json::array()},
                                  {"user-task-accumulators", Json::array()},
                                  {"serialized-user-task-accumulators", Json::object()}});
  });

  router.Add("PATCH", "jobs/:jobid", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    if (!job) return error;
    if (const std::string* mode = ctx.Query("mode")) {
      std::string m = *mode;
      for (char& c : m) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (m == "stop") {
        return ExceptionResponse(308, "org.apache.flink.runtime.rest.handler.RestHandlerException",
                                 "The termination mode \"stop\" has been removed. For an ungraceful shutdown, please "
                                 "use \"cancel\" instead. For a graceful shutdown, please use \"jobs/:jobId/stop\" "
                                 "instead.");
      }
      if (m != "cancel") return BadParameters("Cannot resolve query parameter (mode) from value \"" + *mode + "\".");
    }
    const Status s = ctx.state.CancelJob(job->id());
    return s.ok() ? JsonResponse(202, Json::object()) : StatusResponse(s);
  });

  router.Add("PATCH", "jobs/:jobid/rescaling", [](RestContext&) {
    return ExceptionResponse(503, "org.apache.flink.runtime.rest.handler.RestHandlerException",
                             "Rescaling is temporarily disabled. See FLINK-12312.");
  });

  router.Add("GET", "jobs/:jobid/resource-requirements", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    if (!job) return error;
    if (IsTerminal(job->status())) return JobNotFound(job->id());
    if (job->scheduler() != SchedulerType::kAdaptive) {
      return InternalErrorResponse("java.lang.UnsupportedOperationException: The DefaultScheduler does not support "
                                   "changing the parallelism without a job restart. This feature is currently only "
                                   "expected to work with the AdaptiveScheduler.");
    }
    Json out = Json::object();
    for (const auto& [vid, r] : job->resource_requirements()) {
      out[vid] = {{"parallelism", {{"lowerBound", r.lower}, {"upperBound", r.upper}}}};
    }
    return JsonResponse(200, out);
  });

  router.Add("PUT", "jobs/:jobid/resource-requirements", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    if (!job) return error;
    std::optional<Json> body = ParseBody(ctx.request);
    if (!body || !body->is_object()) return BadRequestBody("JobResourceRequirementsBody");
    std::map<std::string, std::pair<int64_t, int64_t>> requirements;
    for (const auto& [vid, value] : body->items()) {
      const Json* p = value.is_object() && value.contains("parallelism") ? &value["parallelism"] : nullptr;
      if (!p || !p->is_object() || !(*p)["lowerBound"].is_number_integer() || !(*p)["upperBound"].is_number_integer()) {
        return BadRequestBody("JobResourceRequirementsBody");
      }
      requirements[vid] = {(*p)["lowerBound"].get<int64_t>(), (*p)["upperBound"].get<int64_t>()};
    }
    const Status s = ctx.state.UpdateResourceRequirements(job->id(), requirements);
    return s.ok() ? JsonResponse(200, Json::object()) : StatusResponse(s);
  });
}

}  // namespace trimtab::sim::flink::rest
