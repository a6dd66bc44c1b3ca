#include "tests/support/fake_flink_rest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "adapters/http/server.h"
#include "common/json.h"

namespace trimtab::testing {
namespace {

using flink::CheckpointRecord;
using flink::ExceptionEntry;
using flink::ResourceRequirements;
using flink::RunJarRequest;
using http::HttpRequest;
using http::HttpResponse;

constexpr const char* kJobStatuses[] = {"INITIALIZING", "CREATED",    "RUNNING",    "FAILING",
                                        "FAILED",       "CANCELLING", "CANCELED",   "FINISHED",
                                        "RESTARTING",   "SUSPENDED",  "RECONCILING"};
constexpr const char* kExecutionStates[] = {"CREATED",     "SCHEDULED",   "DEPLOYING", "RUNNING",
                                            "FINISHED",    "CANCELING",   "CANCELED",  "FAILED",
                                            "RECONCILING", "INITIALIZING"};

// A metric value as Flink's Jackson writes doubles: numbers, NaN/Infinity as strings.
Json Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

// Non-empty parts of `text` between `sep` characters.
std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    std::string part =
        text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!part.empty()) out.push_back(part);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::vector<std::string> SplitComma(const std::string& text) { return Split(text, ','); }

HttpResponse Error(int status, const std::string& message) {
  return HttpResponse::Json(status, Json{{"errors", Json::array({message})}}.dump());
}

// An aggregating metrics handler over `metrics` (subtask or TaskManager aggregates).
HttpResponse Aggregated(const HttpRequest& req,
                        const std::map<std::string, FakeAggregate>& metrics) {
  const std::string* get = req.Query("get");
  Json out = Json::array();
  if (get == nullptr) {
    for (const auto& [id, value] : metrics) out.push_back({{"id", id}});
    return HttpResponse::Json(200, out.dump());
  }
  std::vector<std::string> aggs = {"min", "max", "avg", "sum", "skew"};
  if (const std::string* agg = req.Query("agg")) {
    aggs = SplitComma(*agg);
    for (std::string& a : aggs) {
      std::transform(a.begin(), a.end(), a.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    }
  }
  for (const std::string& id : SplitComma(*get)) {
    auto it = metrics.find(id);
    // Flink's quirk: one id without a value empties the whole answer.
    if (it == metrics.end()) return HttpResponse::Json(200, "[]");
    Json item = {{"id", id}};
    for (const std::string& a : aggs) {
      if (a == "min") item["min"] = Number(it->second.min);
      if (a == "max") item["max"] = Number(it->second.max);
      if (a == "avg") item["avg"] = Number(it->second.avg);
      if (a == "sum") item["sum"] = Number(it->second.sum);
      if (a == "skew") item["skew"] = Number(it->second.skew);
    }
    out.push_back(std::move(item));
  }
  return HttpResponse::Json(200, out.dump());
}

// A non-aggregated metrics handler: string values, only the ids that exist.
HttpResponse Plain(const HttpRequest& req, const std::map<std::string, std::string>& metrics) {
  Json out = Json::array();
  const std::string* get = req.Query("get");
  if (get == nullptr) {
    for (const auto& [id, value] : metrics) out.push_back({{"id", id}});
  } else {
    for (const std::string& id : SplitComma(*get)) {
      auto it = metrics.find(id);
      if (it != metrics.end()) out.push_back({{"id", id}, {"value", it->second}});
    }
  }
  return HttpResponse::Json(200, out.dump());
}

Json IoMetrics(const FakeFlinkVertex& v) {
  return {{"read-bytes", 0},
          {"read-bytes-complete", true},
          {"write-bytes", 0},
          {"write-bytes-complete", true},
          {"read-records", static_cast<int64_t>(v.read_records)},
          {"read-records-complete", true},
          {"write-records", static_cast<int64_t>(v.write_records)},
          {"write-records-complete", true},
          {"accumulated-backpressured-time", 0},
          {"accumulated-idle-time", 0},
          {"accumulated-busy-time", Number(v.accumulated_busy_time)}};
}

Json JobDetails(const FakeFlinkJob& job, int64_t now_ms) {
  Json timestamps = Json::object();
  for (const char* s : kJobStatuses) timestamps[s] = 0;
  timestamps["INITIALIZING"] = job.start_time_ms;
  timestamps["CREATED"] = job.start_time_ms;
  if (job.running_since_ms > 0) timestamps["RUNNING"] = job.running_since_ms;
  Json vertices = Json::array();
  Json nodes = Json::array();
  Json status_counts = Json::object();
  for (const char* s : kExecutionStates) status_counts[s] = 0;
  for (const FakeFlinkVertex& v : job.vertices) {
    Json tasks = Json::object();
    for (const char* s : kExecutionStates) tasks[s] = 0;
    tasks[v.status] = v.parallelism;
    status_counts[v.status] = status_counts[v.status].get<int>() + 1;
    vertices.push_back({{"id", v.id},
                        {"slotSharingGroupId", "a9c1f5e2d3b4a6978877665544332211"},
                        {"name", v.name},
                        {"maxParallelism", v.max_parallelism},
                        {"parallelism", v.parallelism},
                        {"status", v.status},
                        {"start-time", job.running_since_ms > 0 ? job.running_since_ms : -1},
                        {"end-time", -1},
                        {"duration", job.running_since_ms > 0 ? now_ms - job.running_since_ms : -1},
                        {"tasks", tasks},
                        {"metrics", IoMetrics(v)}});
    Json node = {{"id", v.id},
                 {"parallelism", v.parallelism},
                 {"operator", ""},
                 {"operator_strategy", ""},
                 {"description", v.name},
                 {"optimizer_properties", Json::object()}};
    if (!v.inputs.empty()) {
      Json inputs = Json::array();
      int num = 0;
      for (const auto& [from, strategy] : v.inputs) {
        inputs.push_back({{"num", num++},
                          {"id", from},
                          {"ship_strategy", strategy},
                          {"exchange", "pipelined_bounded"}});
      }
      node["inputs"] = std::move(inputs);
    }
    nodes.push_back(std::move(node));
  }
  return {{"jid", job.id},
          {"name", job.name},
          {"isStoppable", false},
          {"state", job.state},
          {"job-type", "STREAMING"},
          {"start-time", job.start_time_ms},
          {"end-time", -1},
          {"duration", now_ms - job.start_time_ms},
          {"maxParallelism", -1},
          {"now", now_ms},
          {"timestamps", timestamps},
          {"vertices", vertices},
          {"status-counts", status_counts},
          {"plan", {{"jid", job.id}, {"name", job.name}, {"type", "STREAMING"}, {"nodes", nodes}}}};
}

struct Operation {
  enum class Kind { kSavepoint, kStop, kCheckpoint, kDispose } kind;
  std::string job_id;
  std::string target_dir;
  bool completed = false;
  std::string location;
  int64_t checkpoint_id = 0;
  bool cancel_job = false;
};

struct Failure {
  std::string method;  // "" = any
  std::string prefix;
  int status;
  std::string message;
  int count;
  bool raw = false;  // message is the whole body, sent as it is
};

http::HttpResponse Ok(int status, const Json& body) {
  return http::HttpResponse::Json(status, body.dump());
}

// The segments of a path ("/jobs/x/stop" -> jobs, x, stop).
std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

Json RecordJson(const CheckpointRecord& r) {
  return Json{{"className", "completed"}, {"id", r.id},
              {"status", r.status},       {"is_savepoint", r.is_savepoint},
              {"external_path", r.external_path},
              {"trigger_timestamp", r.trigger_timestamp},
              {"latest_ack_timestamp", r.latest_ack_timestamp},
              {"state_size", r.state_size}, {"discarded", false}};
}

}  // namespace

class FakeFlinkRestServer::Impl {
 public:
  explicit Impl(Options options) : options_(std::move(options)) {}

  HttpResponse Handle(const HttpRequest& req) {
    std::chrono::milliseconds delay;
    std::function<void(const std::string&)> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      delay = delay_;
      hook = hook_;
    }
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    if (hook) hook(req.method + " " + req.target);
    std::string path = req.path;
    if (path.starts_with("/v1/")) path = path.substr(3);
    std::unique_lock<std::mutex> lock(mu_);
    requests_.push_back({req.method + " " + req.target, path});
    for (Failure& f : failures_) {
      if (f.count > 0 && (f.method.empty() || f.method == req.method) &&
          path.starts_with(f.prefix)) {
        --f.count;
        if (f.raw) return http::HttpResponse::Json(f.status, f.message);
        return Error(f.status, f.message);
      }
    }
    for (const std::string& prefix : hang_) {
      if (path.starts_with(prefix)) {
        const uint64_t generation = release_generation_;
        cv_.wait(lock, [&] { return release_generation_ != generation; });
        return Error(503, "released after hanging");
      }
    }
    return Route(req, path);
  }

  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    hang_.clear();
    ++release_generation_;
    cv_.notify_all();
  }

  http::HttpResponse Route(const http::HttpRequest& req, const std::string& path) {
    const std::vector<std::string> p = Segments(path);
    const std::string& m = req.method;
    if (m == "GET" && path == "/config") {
      return Ok(200, {{"refresh-interval", 3000}, {"timezone-name", "UTC"},
                      {"timezone-offset", 0}, {"flink-version", options_.flink_version},
                      {"flink-revision", "abc @ 2024"},
                      {"features", {{"web-submit", false}, {"web-cancel", false},
                                    {"web-rescale", false}, {"web-history", false}}}});
    }
    if (m == "GET" && path == "/jobs/overview") return Overview();
    if (m == "GET" && path == "/jobmanager/metrics") return Plain(req, jm_metrics_);
    if (m == "GET" && path == "/taskmanagers/metrics") return Aggregated(req, tm_metrics_);
    if (p.size() >= 1 && p[0] == "savepoint-disposal") return Disposal(req, p);
    if (p.size() >= 1 && p[0] == "jars") return Jars(req, p);
    if (p.size() < 2 || p[0] != "jobs") return Error(404, "Not found: " + req.target);
    auto job = jobs_.find(p[1]);
    if (job == jobs_.end()) return Error(404, "Job " + p[1] + " not found");
    FakeFlinkJob& j = job->second;
    if (p.size() == 2 && m == "PATCH") return CancelJob(j);
    if (p.size() == 2 && m == "GET") return Ok(200, JobDetails(j, j.running_since_ms + 1));
    if (p.size() == 3 && p[2] == "metrics" && m == "GET") return Plain(req, j.job_metrics);
    if (p.size() == 6 && p[2] == "vertices" && p[4] == "subtasks" && p[5] == "metrics" &&
        m == "GET") {
      for (const FakeFlinkVertex& v : j.vertices) {
        if (v.id == p[3]) return Aggregated(req, v.metrics);
      }
      return Error(404, "JobVertex " + p[3] + " not found");
    }
    const std::string& what = p[2];
    if (what == "stop" && m == "POST") return Trigger(req, j, Operation::Kind::kStop);
    if (what == "savepoints" && m == "POST") return Trigger(req, j, Operation::Kind::kSavepoint);
    if (what == "savepoints" && m == "GET" && p.size() == 4) return Poll(p[3], j.id, false);
    if (what == "checkpoints" && m == "POST") return Trigger(req, j, Operation::Kind::kCheckpoint);
    if (what == "checkpoints" && m == "GET" && p.size() == 4) return Poll(p[3], j.id, true);
    if (what == "checkpoints" && m == "GET") return Checkpoints(j);
    if (what == "exceptions" && m == "GET") {
      Json entries = Json::array();
      for (const ExceptionEntry& e : j.exceptions) {
        entries.push_back({{"exceptionName", e.exception_name}, {"stacktrace", e.stacktrace},
                           {"timestamp", e.timestamp}, {"taskName", e.task_name},
                           {"failureLabels", Json::object()},
                           {"concurrentExceptions", Json::array()}});
      }
      return Ok(200, {{"exceptionHistory", {{"entries", entries}, {"truncated", false}}}});
    }
    if (what == "execution-result" && m == "GET") {
      if (!api_terminal(j.state)) return Ok(200, {{"status", {{"id", "IN_PROGRESS"}}}});
      Json result = {{"id", j.id}, {"name", j.name},
                     {"application-status", j.state == "FINISHED" ? "SUCCEEDED" : j.state},
                     {"accumulator-results", Json::object()}, {"net-runtime", 1}};
      if (!j.failure.empty()) {
        result["failure-cause"] = {{"class", "java.lang.RuntimeException"},
                                   {"stack-trace", j.failure},
                                   {"serialized-throwable", ""}};
      }
      return Ok(200, {{"status", {{"id", "COMPLETED"}}}, {"job-execution-result", result}});
    }
    if (what == "resource-requirements") return Requirements(req, j);
    return Error(404, "Not found: " + req.path);
  }

  static bool api_terminal(const std::string& s) {
    return s == "FINISHED" || s == "CANCELED" || s == "FAILED";
  }

  http::HttpResponse Overview() {
    Json jobs = Json::array();
    for (const auto& [id, j] : jobs_) {
      const int n = 2;
      Json tasks = {{"total", n}, {"created", 0}, {"scheduled", 0}, {"deploying", 0},
                    {"running", 0}, {"finished", 0}, {"canceling", 0}, {"canceled", 0},
                    {"failed", 0}, {"reconciling", 0}, {"initializing", 0}};
      if (j.state == "RUNNING") tasks["running"] = n;
      if (j.state == "FINISHED") tasks["finished"] = n;
      if (j.state == "CANCELED") tasks["canceled"] = n;
      if (j.state == "CREATED") tasks["created"] = n;
      jobs.push_back({{"jid", j.id}, {"name", j.name}, {"state", j.state},
                      {"start-time", j.start_time_ms}, {"end-time", api_terminal(j.state) ? j.start_time_ms + 1 : -1},
                      {"duration", 1}, {"last-modification", j.start_time_ms}, {"tasks", tasks},
                      {"pending-operators", 0}});
    }
    return Ok(200, {{"jobs", jobs}});
  }

  http::HttpResponse CancelJob(FakeFlinkJob& j) {
    if (api_terminal(j.state)) {
      return Error(409, "Job cancellation failed because the job has already reached another "
                        "terminal state (" + j.state + ").");
    }
    j.state = hold_ ? "CANCELLING" : "CANCELED";
    if (hold_) pending_cancels_.push_back(j.id);
    return Ok(202, Json::object());
  }

  http::HttpResponse Trigger(const http::HttpRequest& req, FakeFlinkJob& j, Operation::Kind kind) {
    Json body = req.body.empty() ? Json::object() : Json::parse(req.body, nullptr, false);
    if (body.is_discarded()) return Error(400, "Request did not match expected format.");
    if (j.state != "RUNNING") {
      return Error(500, "Internal server error.");
    }
    Operation op{.kind = kind, .job_id = j.id};
    if (kind == Operation::Kind::kStop || kind == Operation::Kind::kSavepoint) {
      const char* key = kind == Operation::Kind::kStop ? "targetDirectory" : "target-directory";
      op.target_dir = body.value(key, options_.default_savepoint_dir);
      if (op.target_dir.empty()) {
        return Error(400, "Config key [execution.checkpointing.savepoint-dir] is not set. "
                          "Property [targetDirectory] must be provided.");
      }
      op.cancel_job = body.value("cancel-job", false);
      j.last_savepoint_dir = op.target_dir;
      j.last_stop_drain = body.value("drain", false);
    }
    // A client-chosen trigger id makes the request idempotent (Flink's TriggerIdPathParameter).
    std::string trigger = body.value("triggerId", "");
    if (!trigger.empty() && operations_.count(trigger)) return Ok(202, {{"request-id", trigger}});
    if (trigger.empty()) trigger = "t" + std::to_string(++next_trigger_);
    operations_[trigger] = op;
    if (!hold_) Complete(trigger);
    return Ok(202, {{"request-id", trigger}});
  }

  void Complete(const std::string& trigger) {
    Operation& op = operations_[trigger];
    if (op.completed) return;
    op.completed = true;
    if (op.kind == Operation::Kind::kDispose) {
      disposed_.push_back(op.location);
      return;
    }
    FakeFlinkJob& j = jobs_[op.job_id];
    CheckpointRecord r;
    r.id = static_cast<int64_t>(j.checkpoints.size()) + 1;
    r.status = "COMPLETED";
    r.trigger_timestamp = j.start_time_ms + 100 * r.id;
    r.latest_ack_timestamp = r.trigger_timestamp + 10;
    r.state_size = 1024;
    if (op.kind == Operation::Kind::kCheckpoint) {
      r.external_path = "file:///checkpoints/" + j.id + "/chk-" + std::to_string(r.id);
      op.checkpoint_id = r.id;
    } else {
      r.is_savepoint = true;
      r.external_path = op.target_dir + "/savepoint-" + j.id.substr(0, 6) + "-" +
                        std::to_string(r.id);
      op.location = r.external_path;
      if (op.kind == Operation::Kind::kStop) j.state = "FINISHED";
      if (op.cancel_job) j.state = "CANCELED";
    }
    j.checkpoints.push_back(r);
  }

  http::HttpResponse Poll(const std::string& trigger, const std::string& job_id, bool checkpoint) {
    auto it = operations_.find(trigger);
    if (it == operations_.end() || it->second.job_id != job_id) {
      return Error(404, "There is no savepoint operation with triggerId=" + trigger +
                            " for job " + job_id + ".");
    }
    const Operation& op = it->second;
    if (!op.completed) return Ok(200, {{"status", {{"id", "IN_PROGRESS"}}}, {"operation", nullptr}});
    Json operation = checkpoint ? Json{{"checkpointId", op.checkpoint_id}}
                                : Json{{"location", op.location}};
    return Ok(200, {{"status", {{"id", "COMPLETED"}}}, {"operation", operation}});
  }

  http::HttpResponse Checkpoints(const FakeFlinkJob& j) {
    if (!j.checkpointing) {
      return Ok(404, {{"errors", Json::array({"org.apache.flink.runtime.rest.handler."
                                              "RestHandlerException: Checkpointing has not been "
                                              "enabled."})}});
    }
    if (j.checkpoints.empty()) return ScriptedCheckpoint(j);
    Json history = Json::array();
    Json latest = {{"completed", nullptr}, {"savepoint", nullptr}, {"failed", nullptr},
                   {"restored", nullptr}};
    int64_t completed = 0;
    for (auto it = j.checkpoints.rbegin(); it != j.checkpoints.rend(); ++it) {
      history.push_back(RecordJson(*it));
      if (it->status != "COMPLETED") continue;
      ++completed;
      const char* slot = it->is_savepoint ? "savepoint" : "completed";
      if (latest[slot].is_null()) latest[slot] = RecordJson(*it);
    }
    return Ok(200, {{"counts", {{"restored", 0}, {"total", j.checkpoints.size()},
                                {"in_progress", 0}, {"completed", completed}, {"failed", 0}}},
                    {"summary", Json::object()},
                    {"latest", latest},
                    {"history", history}});
  }

  // CheckpointingStatistics with one completed checkpoint, or none.
  static HttpResponse ScriptedCheckpoint(const FakeFlinkJob& job) {
    Json completed = nullptr;
    if (job.last_checkpoint_duration_ms) {
      completed = {{"className", "completed"},
                   {"id", 1},
                   {"status", "COMPLETED"},
                   {"is_savepoint", false},
                   {"end_to_end_duration", *job.last_checkpoint_duration_ms},
                   {"checkpointed_size", 1024},
                   {"state_size", 1024}};
    }
    const int n = job.last_checkpoint_duration_ms ? 1 : 0;
    const Json body = {
        {"counts", {{"restored", 0}, {"total", n}, {"in_progress", 0}, {"completed", n},
                    {"failed", 0}}},
        {"summary", Json::object()},
        {"latest", {{"completed", completed}, {"savepoint", nullptr}, {"failed", nullptr},
                    {"restored", nullptr}}},
        {"history", completed.is_null() ? Json::array() : Json::array({completed})}};
    return HttpResponse::Json(200, body.dump());
  }

  http::HttpResponse Requirements(const http::HttpRequest& req, FakeFlinkJob& j) {
    if (j.scheduler != "adaptive") {
      return Ok(500, {{"errors",
                       Json::array({"Internal server error.",
                                    "<Exception on server side:\njava.lang.UnsupportedOperation"
                                    "Exception: The DefaultScheduler does not support changing "
                                    "the parallelism without a job restart.\n\tat x.y(Z.java:1)"
                                    "\n\nEnd of exception on server side>"})}});
    }
    if (req.method == "GET") {
      Json out = Json::object();
      for (const auto& [v, b] : j.requirements) {
        out[v] = {{"parallelism", {{"lowerBound", b.lower}, {"upperBound", b.upper}}}};
      }
      return Ok(200, out);
    }
    if (req.method != "PUT") return Error(405, "Method not allowed");
    Json body = Json::parse(req.body, nullptr, false);
    if (!body.is_object()) return Error(400, "Request did not match expected format.");
    for (const auto& [v, b] : j.requirements) {
      if (!body.contains(v)) {
        return Error(400, "The request is incomplete, missing job vertex [" + v + "] resource requirements.");
      }
    }
    ResourceRequirements next;
    for (auto it = body.begin(); it != body.end(); ++it) {
      if (!j.requirements.count(it.key())) return Error(400, "Unknown job vertex " + it.key());
      const Json& par = (*it)["parallelism"];
      next[it.key()] = {par.value("lowerBound", 1), par.value("upperBound", 1)};
    }
    j.requirements = next;
    return Ok(200, Json::object());
  }

  http::HttpResponse Disposal(const http::HttpRequest& req, const std::vector<std::string>& p) {
    if (req.method == "POST" && p.size() == 1) {
      Json body = Json::parse(req.body, nullptr, false);
      Operation op{.kind = Operation::Kind::kDispose};
      op.location = body.is_object() ? body.value("savepoint-path", "") : "";
      const std::string trigger = "d" + std::to_string(++next_trigger_);
      operations_[trigger] = op;
      if (!hold_) Complete(trigger);
      return Ok(200, {{"request-id", trigger}});
    }
    if (req.method == "GET" && p.size() == 2) {
      auto it = operations_.find(p[1]);
      if (it == operations_.end()) return Error(404, "There is no disposal operation " + p[1]);
      if (!it->second.completed) return Ok(200, {{"status", {{"id", "IN_PROGRESS"}}}, {"operation", nullptr}});
      return Ok(200, {{"status", {{"id", "COMPLETED"}}}, {"operation", Json::object()}});
    }
    return Error(404, "Not found: " + req.path);
  }

  http::HttpResponse Jars(const http::HttpRequest& req, const std::vector<std::string>& p) {
    if (req.method == "POST" && p.size() == 2 && p[1] == "upload") {
      const std::string& b = req.body;
      const size_t fn = b.find("filename=\"");
      const size_t start = b.find("\r\n\r\n");
      const size_t end = b.rfind("\r\n--");
      if (fn == std::string::npos || start == std::string::npos || end == std::string::npos ||
          end < start) {
        return Error(400, "Exactly 1 file must be sent, received 0.");
      }
      const size_t fn_end = b.find('"', fn + 10);
      UploadedJar jar;
      jar.file_name = b.substr(fn + 10, fn_end - fn - 10);
      jar.bytes = b.substr(start + 4, end - start - 4);
      jar.id = "uuid" + std::to_string(++next_trigger_) + "_" + jar.file_name;
      jars_.push_back(jar);
      return Ok(200, {{"filename", "/tmp/flink-web/flink-web-upload/" + jar.id},
                      {"status", "success"}});
    }
    auto jar = std::find_if(jars_.begin(), jars_.end(),
                            [&](const UploadedJar& j) { return p.size() >= 2 && j.id == p[1]; });
    if (jar == jars_.end()) return Error(404, "Jar file not found");
    if (req.method == "DELETE" && p.size() == 2) {
      jars_.erase(jar);
      return Ok(200, Json::object());
    }
    if (req.method == "POST" && p.size() == 3 && p[2] == "run") {
      Json body = Json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
      RunJarRequest run;
      run.entry_class = body.value("entryClass", "");
      run.job_id = body.value("jobId", "");
      run.savepoint_path = body.value("savepointPath", "");
      if (body.contains("parallelism")) run.parallelism = body["parallelism"].get<int64_t>();
      if (body.contains("programArgsList")) {
        run.program_args = body["programArgsList"].get<std::vector<std::string>>();
      }
      if (body.contains("flinkConfiguration")) {
        run.flink_configuration = body["flinkConfiguration"].get<std::map<std::string, std::string>>();
      }
      jar->runs.push_back(run);
      const std::string id = run.job_id.empty() ? "f" + std::string(31, '0') : run.job_id;
      FakeFlinkJob job;
      job.id = id;
      job.name = jar->file_name;
      jobs_[id] = job;
      return Ok(200, {{"jobid", id}});
    }
    return Error(404, "Not found: " + req.path);
  }

  Options options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, FakeFlinkJob> jobs_;        // guarded by mu_
  std::string single_job_;                           // guarded by mu_: SetJob's id
  std::map<std::string, std::string> jm_metrics_;    // guarded by mu_
  std::map<std::string, FakeAggregate> tm_metrics_;  // guarded by mu_
  std::map<std::string, Operation> operations_;      // guarded by mu_
  std::vector<std::string> pending_cancels_;         // guarded by mu_
  std::vector<Failure> failures_;                    // guarded by mu_
  std::vector<std::string> hang_;                    // guarded by mu_
  uint64_t release_generation_ = 0;                  // guarded by mu_
  std::vector<std::pair<std::string, std::string>> requests_;  // guarded by mu_: (line, path)
  std::vector<std::string> disposed_;                // guarded by mu_
  std::vector<UploadedJar> jars_;                    // guarded by mu_
  std::chrono::milliseconds delay_{0};               // guarded by mu_
  std::function<void(const std::string&)> hook_;     // guarded by mu_
  bool hold_ = false;                                // guarded by mu_
  int next_trigger_ = 0;                             // guarded by mu_
  std::unique_ptr<http::HttpServer> server_;
};

StatusOr<std::unique_ptr<FakeFlinkRestServer>> FakeFlinkRestServer::Create(Options options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  Impl* raw = impl.get();
  TRIMTAB_ASSIGN_OR_RETURN(
      raw->server_,
      http::HttpServer::Create({.address = "127.0.0.1", .port = 0, .threads = 4},
                               [raw](const HttpRequest& req) { return raw->Handle(req); }));
  return std::unique_ptr<FakeFlinkRestServer>(new FakeFlinkRestServer(std::move(impl)));
}

FakeFlinkRestServer::FakeFlinkRestServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FakeFlinkRestServer::~FakeFlinkRestServer() {
  impl_->Release();
  if (impl_->server_) impl_->server_->Stop();
}

std::string FakeFlinkRestServer::base_url() const { return impl_->server_->base_url(); }
int FakeFlinkRestServer::port() const { return impl_->server_->port(); }

void FakeFlinkRestServer::SetJob(FakeFlinkJob job) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->jobs_.clear();
  impl_->single_job_ = job.id;
  impl_->jobs_[job.id] = std::move(job);
}

void FakeFlinkRestServer::UpdateJob(const std::function<void(FakeFlinkJob&)>& change) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  FakeFlinkJob& job = impl_->jobs_[impl_->single_job_];
  change(job);
  if (job.id != impl_->single_job_) {  // the change gave the job another id
    FakeFlinkJob moved = std::move(job);
    impl_->jobs_.erase(impl_->single_job_);
    impl_->single_job_ = moved.id;
    impl_->jobs_[moved.id] = std::move(moved);
  }
}

FakeFlinkJob FakeFlinkRestServer::Job() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  auto it = impl_->jobs_.find(impl_->single_job_);
  return it == impl_->jobs_.end() ? FakeFlinkJob{} : it->second;
}

void FakeFlinkRestServer::AddJob(FakeFlinkJob job) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->jobs_[job.id] = std::move(job);
}

void FakeFlinkRestServer::RemoveJobs() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->jobs_.clear();
}

std::optional<FakeFlinkJob> FakeFlinkRestServer::Job(const std::string& id) const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  auto it = impl_->jobs_.find(id);
  if (it == impl_->jobs_.end()) return std::nullopt;
  return it->second;
}

std::vector<FakeFlinkJob> FakeFlinkRestServer::Jobs() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  std::vector<FakeFlinkJob> out;
  for (const auto& [id, j] : impl_->jobs_) out.push_back(j);
  return out;
}

void FakeFlinkRestServer::SetJobState(const std::string& id, const std::string& state) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->jobs_[id].state = state;
}

void FakeFlinkRestServer::AddCheckpoint(const std::string& job_id, const std::string& path,
                                        bool is_savepoint) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  FakeFlinkJob& j = impl_->jobs_[job_id];
  CheckpointRecord r;
  r.id = static_cast<int64_t>(j.checkpoints.size()) + 1;
  r.status = "COMPLETED";
  r.is_savepoint = is_savepoint;
  r.external_path = path;
  r.trigger_timestamp = j.start_time_ms + 100 * r.id;
  r.latest_ack_timestamp = r.trigger_timestamp + 10;
  j.checkpoints.push_back(r);
}

void FakeFlinkRestServer::SetJobManagerMetrics(std::map<std::string, std::string> values) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->jm_metrics_ = std::move(values);
}

void FakeFlinkRestServer::SetTaskManagerMetrics(std::map<std::string, FakeAggregate> values) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->tm_metrics_ = std::move(values);
}

void FakeFlinkRestServer::ForgetOperations() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->operations_.clear();
}

void FakeFlinkRestServer::HoldOperations(bool hold) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->hold_ = hold;
}

void FakeFlinkRestServer::CompleteOperations() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  for (auto& [trigger, op] : impl_->operations_) impl_->Complete(trigger);
  for (const std::string& id : impl_->pending_cancels_) impl_->jobs_[id].state = "CANCELED";
  impl_->pending_cancels_.clear();
}

void FakeFlinkRestServer::FailNext(const std::string& path_prefix, int status, int count,
                                   const std::string& message) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->failures_.push_back({"", path_prefix, status, message, count});
}

void FakeFlinkRestServer::FailNext(const std::string& method, const std::string& path_prefix,
                                   int status, const std::string& message, int count) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->failures_.push_back({method, path_prefix, status, message, count});
}

void FakeFlinkRestServer::AnswerNextRaw(const std::string& method, const std::string& path_prefix,
                                        int status, const std::string& body, int count) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->failures_.push_back({method, path_prefix, status, body, count, /*raw=*/true});
}

void FakeFlinkRestServer::Hang(const std::string& path_prefix) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->hang_.push_back(path_prefix);
}

void FakeFlinkRestServer::Release() { impl_->Release(); }

void FakeFlinkRestServer::SetDelay(std::chrono::milliseconds delay) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->delay_ = delay;
}

void FakeFlinkRestServer::SetRequestHook(std::function<void(const std::string& request)> hook) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->hook_ = std::move(hook);
}

std::vector<std::string> FakeFlinkRestServer::Requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  std::vector<std::string> out;
  for (const auto& [line, path] : impl_->requests_) out.push_back(line);
  return out;
}

int FakeFlinkRestServer::CountRequests(std::string_view path_prefix) const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  int n = 0;
  for (const auto& [line, path] : impl_->requests_) n += path.starts_with(path_prefix);
  return n;
}

int FakeFlinkRestServer::Count(const std::string& method, const std::string& prefix) const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  int n = 0;
  for (const auto& [line, path] : impl_->requests_) n += line.starts_with(method + " " + prefix);
  return n;
}

void FakeFlinkRestServer::ClearRequests() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->requests_.clear();
}

std::vector<std::string> FakeFlinkRestServer::DisposedSavepoints() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->disposed_;
}

std::vector<UploadedJar> FakeFlinkRestServer::Jars() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->jars_;
}

}  // namespace trimtab::testing
