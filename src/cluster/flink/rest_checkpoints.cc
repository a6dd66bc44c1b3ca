// REST: savepoints, stop-with-savepoint, checkpoint triggers (the async-operation pattern),
// checkpoint statistics and configuration, savepoint disposal.
#include <algorithm>
#include <cmath>

#include "cluster/flink/rest_util.h"

namespace trimtab::sim::flink::rest {

namespace {

const char* StatusName(CheckpointRecord::Status s) {
  switch (s) {
    case CheckpointRecord::Status::kInProgress: return "IN_PROGRESS";
    case CheckpointRecord::Status::kCompleted: return "COMPLETED";
    case CheckpointRecord::Status::kFailed: return "FAILED";
  }
  return "FAILED";
}

int TotalSubtasks(const FlinkJob& job) {
  int n = 0;
  for (const JobVertexView& v : job.vertices()) n += v.parallelism;
  return n;
}

Json TaskStats(const FlinkJob& job, const CheckpointRecord& r, const JobVertexView& v, int64_t now) {
  const bool done = r.status != CheckpointRecord::Status::kInProgress;
  const int total = std::max(1, TotalSubtasks(job));
  const int64_t size = r.state_bytes * v.parallelism / total;
  const int64_t ack = done ? r.end_ms : 0;
  return Json{{"id", r.id},
              {"status", StatusName(r.status)},
              {"latest_ack_timestamp", ack},
              {"checkpointed_size", size},
              {"state_size", size},
              {"end_to_end_duration", (done ? r.end_ms : now) - r.trigger_ms},
              {"alignment_buffered", 0},
              {"processed_data", 0},
              {"persisted_data", 0},
              {"num_subtasks", v.parallelism},
              {"num_acknowledged_subtasks", r.status == CheckpointRecord::Status::kCompleted ? v.parallelism : 0}};
}

Json CheckpointJson(const FlinkJob& job, const CheckpointRecord& r, int64_t now) {
  const bool completed = r.status == CheckpointRecord::Status::kCompleted;
  const bool done = r.status != CheckpointRecord::Status::kInProgress;
  Json tasks = Json::object();
  for (const JobVertexView& v : job.vertices()) tasks[v.id] = TaskStats(job, r, v, now);
  const int subtasks = TotalSubtasks(job);
  Json j = {{"className", completed ? "completed" : done ? "failed" : "in_progress"},
            {"id", r.id},
            {"status", StatusName(r.status)},
            {"is_savepoint", r.savepoint},
            {"savepointFormat", r.savepoint ? Json(r.savepoint_format) : Json(nullptr)},
            {"trigger_timestamp", r.trigger_ms},
            {"latest_ack_timestamp", done ? r.end_ms : r.trigger_ms},
            {"checkpointed_size", r.state_bytes},
            {"state_size", r.state_bytes},
            {"end_to_end_duration", (done ? r.end_ms : now) - r.trigger_ms},
            {"alignment_buffered", 0},
            {"processed_data", 0},
            {"persisted_data", 0},
            {"num_subtasks", subtasks},
            {"num_acknowledged_subtasks", completed ? subtasks : 0},
            {"checkpoint_type", r.checkpoint_type},
            {"tasks", tasks}};
  if (completed) {
    j["external_path"] = r.external_path;
    j["discarded"] = r.discarded;
  } else if (done) {
    j["failure_timestamp"] = r.end_ms;
    j["failure_message"] = r.failure_message;
  }
  return j;
}

Json Summary(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    if (v.empty()) return 0.0;
    const size_t i = std::min(v.size() - 1, static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())) - 1));
    return v[i];
  };
  double sum = 0;
  for (double x : v) sum += x;
  return Json{{"min", std::llround(v.empty() ? 0 : v.front())},
              {"max", std::llround(v.empty() ? 0 : v.back())},
              {"avg", std::llround(v.empty() ? 0 : sum / static_cast<double>(v.size()))},
              {"p50", q(0.5)},
              {"p90", q(0.9)},
              {"p95", q(0.95)},
              {"p99", q(0.99)},
              {"p999", q(0.999)}};
}

std::string SavepointDirKey(const ClusterState& s) {
  return s.version().AtLeast(1, 20) ? "execution.checkpointing.savepoint-dir" : "state.savepoints.dir";
}

// Reads an optional client trigger id; false with a 400 when malformed.
bool TriggerIdField(const Json& body, std::string* out, http::HttpResponse* error, const char* request_class) {
  if (!body.contains("triggerId") || body["triggerId"].is_null()) return true;
  if (!body["triggerId"].is_string() || !IsHexId(body["triggerId"].get<std::string>())) {
    *error = BadRequestBody(request_class);
    return false;
  }
  *out = body["triggerId"].get<std::string>();
  for (char& c : *out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return true;
}

http::HttpResponse OperationResponse(RestContext& ctx, AsyncOperations::Kind kind, const std::string& job_id,
                                     const char* what) {
  const std::string& trigger = ctx.params["triggerid"];
  if (!IsHexId(trigger)) return BadParameters("Cannot resolve path parameter (triggerid) from value \"" + trigger + "\".");
  std::optional<Json> result = ctx.state.OperationResult(kind, job_id, trigger);
  if (!result) {
    return ExceptionResponse(404, "org.apache.flink.runtime.rest.NotFoundException",
                             std::string("There is no ") + what + " operation with triggerId=" + trigger +
                                 (job_id.empty() ? "." : " for job " + job_id + "."));
  }
  return JsonResponse(200, *result);
}

http::HttpResponse TriggerSavepointLike(RestContext& ctx, bool stop) {
  const std::string& job_id = ctx.params["jobid"];
  if (!IsHexId(job_id)) return BadParameters("Cannot resolve path parameter (jobid) from value \"" + job_id + "\".");
  const char* request_class = stop ? "StopWithSavepointRequestBody" : "SavepointTriggerRequestBody";
  std::optional<Json> body = ParseBody(ctx.request);
  if (!body || !body->is_object()) return BadRequestBody(request_class);
  SavepointRequest req;
  const char* dir_field = stop ? "targetDirectory" : "target-directory";
  if (body->contains(dir_field) && !(*body)[dir_field].is_null()) {
    if (!(*body)[dir_field].is_string()) return BadRequestBody(request_class);
    req.target_dir = (*body)[dir_field].get<std::string>();
  }
  if (body->contains("formatType") && !(*body)["formatType"].is_null()) {
    const Json& f = (*body)["formatType"];
    if (!f.is_string() || (f != "CANONICAL" && f != "NATIVE")) return BadRequestBody(request_class);
    req.format_type = f.get<std::string>();
  }
  const char* flag = stop ? "drain" : "cancel-job";
  bool flag_value = false;
  if (body->contains(flag) && !(*body)[flag].is_null()) {
    if (!(*body)[flag].is_boolean()) return BadRequestBody(request_class);
    flag_value = (*body)[flag].get<bool>();
  }
  req.mode = stop ? SavepointRequest::Mode::kStop
                  : flag_value ? SavepointRequest::Mode::kCancelWithSavepoint : SavepointRequest::Mode::kSavepoint;
  req.drain = stop && flag_value;
  std::string trigger;
  http::HttpResponse error;
  if (!TriggerIdField(*body, &trigger, &error, request_class)) return error;
  if (req.target_dir.empty()) req.target_dir = ctx.state.settings().checkpoints.savepoint_dir;
  if (req.target_dir.empty()) {
    return ExceptionResponse(400, "org.apache.flink.runtime.rest.handler.RestHandlerException",
                             "Config key [" + SavepointDirKey(ctx.state) + "] is not set. Property [" + dir_field +
                                 "] must be provided.");
  }
  std::string lower = job_id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string id = ctx.state.TriggerSavepoint(lower, req, trigger);
  return JsonResponse(202, Json{{"request-id", id}});
}

}  // namespace

void AddCheckpointRoutes(RestRouter& router) {
  router.Add("POST", "jobs/:jobid/savepoints", [](RestContext& ctx) { return TriggerSavepointLike(ctx, false); });
  router.Add("POST", "jobs/:jobid/stop", [](RestContext& ctx) { return TriggerSavepointLike(ctx, true); });
  router.Add("GET", "jobs/:jobid/savepoints/:triggerid", [](RestContext& ctx) {
    const std::string& job_id = ctx.params["jobid"];
    if (!IsHexId(job_id)) return BadParameters("Cannot resolve path parameter (jobid) from value \"" + job_id + "\".");
    return OperationResponse(ctx, AsyncOperations::Kind::kSavepoint, job_id, "savepoint");
  });

  router.Add("POST", "jobs/:jobid/checkpoints", [](RestContext& ctx) {
    const std::string& job_id = ctx.params["jobid"];
    if (!IsHexId(job_id)) return BadParameters("Cannot resolve path parameter (jobid) from value \"" + job_id + "\".");
    std::optional<Json> body = ParseBody(ctx.request);
    if (!body || !body->is_object()) return BadRequestBody("CheckpointTriggerRequestBody");
    if (body->contains("checkpointType") && !(*body)["checkpointType"].is_null()) {
      const Json& t = (*body)["checkpointType"];
      if (t == "INCREMENTAL") {
        return ExceptionResponse(400, "org.apache.flink.runtime.rest.handler.RestHandlerException",
                                 "Triggering an incremental checkpoint through the REST API is not supported.");
      }
      if (t != "CONFIGURED" && t != "FULL") return BadRequestBody("CheckpointTriggerRequestBody");
    }
    std::string trigger;
    http::HttpResponse error;
    if (!TriggerIdField(*body, &trigger, &error, "CheckpointTriggerRequestBody")) return error;
    return JsonResponse(202, Json{{"request-id", ctx.state.TriggerCheckpoint(job_id, trigger)}});
  });
  router.Add("GET", "jobs/:jobid/checkpoints/:triggerid", [](RestContext& ctx) {
    const std::string& job_id = ctx.params["jobid"];
    if (!IsHexId(job_id)) return BadParameters("Cannot resolve path parameter (jobid) from value \"" + job_id + "\".");
    return OperationResponse(ctx, AsyncOperations::Kind::kCheckpoint, job_id, "checkpoint");
  });

  router.Add("GET", "jobs/:jobid/checkpoints", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    if (!job) return error;
    if (!job->settings().checkpoints.enabled) {
      return ExceptionResponse(404, "org.apache.flink.runtime.rest.handler.RestHandlerException",
                               "Checkpointing has not been enabled.");
    }
    const CheckpointStats& st = job->checkpoint_stats();
    const int64_t now = ctx.state.now_ms();
    Json history = Json::array();
    for (const CheckpointRecord& r : st.history) history.push_back(CheckpointJson(*job, r, now));
    std::vector<double> sizes, durations;
    for (const CheckpointRecord& r : st.completed_window) {
      sizes.push_back(static_cast<double>(r.state_bytes));
      durations.push_back(static_cast<double>(r.end_ms - r.trigger_ms));
    }
    Json restored = nullptr;
    if (st.latest_restored) {
      restored = {{"id", st.latest_restored->id},
                  {"restore_timestamp", st.latest_restored->restore_ms},
                  {"is_savepoint", st.latest_restored->savepoint},
                  {"external_path", st.latest_restored->path}};
    }
    const auto latest = [&](const std::optional<CheckpointRecord>& r) {
      return r ? CheckpointJson(*job, *r, now) : Json(nullptr);
    };
    const Json zeros = Summary({});
    return JsonResponse(200, Json{{"counts", {{"restored", st.restored},
                                              {"total", st.total},
                                              {"in_progress", st.in_progress},
                                              {"completed", st.completed},
                                              {"failed", st.failed}}},
                                  {"summary", {{"checkpointed_size", Summary(sizes)},
                                               {"state_size", Summary(sizes)},
                                               {"end_to_end_duration", Summary(durations)},
                                               {"alignment_buffered", zeros},
                                               {"processed_data", zeros},
                                               {"persisted_data", zeros}}},
                                  {"latest", {{"completed", latest(st.latest_completed)},
                                              {"savepoint", latest(st.latest_savepoint)},
                                              {"failed", latest(st.latest_failed)},
                                              {"restored", restored}}},
                                  {"history", history}});
  });

  router.Add("GET", "jobs/:jobid/checkpoints/config", [](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = RequireJob(ctx, &error);
    if (!job) return error;
    const CheckpointSettings& c = job->settings().checkpoints;
    if (!c.enabled) {
      return ExceptionResponse(404, "org.apache.flink.runtime.rest.handler.RestHandlerException",
                               "Checkpointing is not enabled for this job (" + job->id() + ").");
    }
    const bool externalized = c.retention != "NO_EXTERNALIZED_CHECKPOINTS";
    return JsonResponse(200, Json{{"mode", c.exactly_once ? "exactly_once" : "at_least_once"},
                                  {"interval", c.interval.count()},
                                  {"timeout", c.timeout.count()},
                                  {"min_pause", c.min_pause.count()},
                                  {"max_concurrent", c.max_concurrent},
                                  {"externalization", {{"enabled", externalized},
                                                       {"delete_on_cancellation", c.retention == "DELETE_ON_CANCELLATION"}}},
                                  {"state_backend", c.state_backend == "rocksdb" ? "EmbeddedRocksDBStateBackend"
                                                                                 : "HashMapStateBackend"},
                                  {"checkpoint_storage", c.dir.empty() ? "JobManagerCheckpointStorage"
                                                                       : "FileSystemCheckpointStorage"},
                                  {"unaligned_checkpoints", c.unaligned},
                                  {"tolerable_failed_checkpoints", c.tolerable_failures},
                                  {"aligned_checkpoint_timeout", 0},
                                  {"checkpoints_after_tasks_finish", true},
                                  {"state_changelog_enabled", false},
                                  {"changelog_periodic_materialization_interval", 600000},
                                  {"changelog_storage", "memory"}});
  });

  const auto find_record = [](RestContext& ctx, FlinkJob** job, const CheckpointRecord** record,
                              http::HttpResponse* error) {
    *job = RequireJob(ctx, error);
    if (!*job) return false;
    int64_t id = -1;
    try {
      id = std::stoll(ctx.params["checkpointid"]);
    } catch (...) {
      *error = BadParameters("Cannot resolve path parameter (checkpointid) from value \"" + ctx.params["checkpointid"] + "\".");
      return false;
    }
    for (const CheckpointRecord& r : (*job)->checkpoint_stats().history) {
      if (r.id == id) *record = &r;
    }
    if (!*record) {
      *error = ExceptionResponse(404, "org.apache.flink.runtime.rest.NotFoundException",
                                 "Could not find checkpointing statistics for checkpoint " + std::to_string(id) + ".");
      return false;
    }
    return true;
  };

  router.Add("GET", "jobs/:jobid/checkpoints/details/:checkpointid", [find_record](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = nullptr;
    const CheckpointRecord* record = nullptr;
    if (!find_record(ctx, &job, &record, &error)) return error;
    return JsonResponse(200, CheckpointJson(*job, *record, ctx.state.now_ms()));
  });

  router.Add("GET", "jobs/:jobid/checkpoints/details/:checkpointid/subtasks/:vertexid", [find_record](RestContext& ctx) {
    http::HttpResponse error;
    FlinkJob* job = nullptr;
    const CheckpointRecord* record = nullptr;
    if (!find_record(ctx, &job, &record, &error)) return error;
    const int vi = RequireVertex(ctx, *job, &error);
    if (vi < 0) return error;
    const JobVertexView& v = job->vertices()[static_cast<size_t>(vi)];
    const int64_t now = ctx.state.now_ms();
    Json j = TaskStats(*job, *record, v, now);
    const bool completed = record->status == CheckpointRecord::Status::kCompleted;
    const int64_t size = j["state_size"].get<int64_t>() / std::max(1, v.parallelism);
    const int64_t e2e = j["end_to_end_duration"].get<int64_t>();
    Json subtasks = Json::array();
    for (int i = 0; i < v.parallelism; ++i) {
      Json s = {{"index", i}, {"status", completed ? "completed" : "pending_or_failed"}};
      if (completed) {
        s["className"] = "completed";
        s["ack_timestamp"] = record->end_ms;
        s["end_to_end_duration"] = e2e;
        s["checkpointed_size"] = size;
        s["state_size"] = size;
        s["checkpoint"] = {{"sync", 1}, {"async", std::max<int64_t>(0, e2e - 1)}};
        s["alignment"] = {{"buffered", 0}, {"processed", 0}, {"persisted", 0}, {"duration", 0}};
        s["start_delay"] = 0;
        s["unaligned_checkpoint"] = false;
        s["aborted"] = false;
      } else {
        s["className"] = "pending";
      }
      subtasks.push_back(std::move(s));
    }
    const Json sizes = Summary(std::vector<double>(static_cast<size_t>(v.parallelism), static_cast<double>(size)));
    const Json e2es = Summary(std::vector<double>(static_cast<size_t>(v.parallelism), static_cast<double>(e2e)));
    const Json zeros = Summary({});
    j["summary"] = {{"checkpointed_size", sizes},
                    {"state_size", sizes},
                    {"end_to_end_duration", e2es},
                    {"checkpoint_duration", {{"sync", zeros}, {"async", e2es}}},
                    {"alignment", {{"buffered", zeros}, {"processed", zeros}, {"persisted", zeros}, {"duration", zeros}}},
                    {"start_delay", zeros}};
    j["subtasks"] = subtasks;
    return JsonResponse(200, j);
  });

  router.Add("POST", "savepoint-disposal", [](RestContext& ctx) {
    std::optional<Json> body = ParseBody(ctx.request);
    if (!body || !body->is_object() || !(*body)["savepoint-path"].is_string()) {
      return BadRequestBody("SavepointDisposalRequest");
    }
    return JsonResponse(200, Json{{"request-id", ctx.state.DisposeSavepoint((*body)["savepoint-path"].get<std::string>())}});
  });
  router.Add("GET", "savepoint-disposal/:triggerid", [](RestContext& ctx) {
    return OperationResponse(ctx, AsyncOperations::Kind::kDisposal, "", "savepoint disposal");
  });
}

}  // namespace trimtab::sim::flink::rest
