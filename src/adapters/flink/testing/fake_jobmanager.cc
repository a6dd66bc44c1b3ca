#include "adapters/flink/testing/fake_jobmanager.h"

#include <algorithm>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "adapters/http/server.h"

namespace trimtab::flink::testing {
namespace {

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
  std::string method;
  std::string prefix;
  int status;
  std::string message;
  int count;
};

http::HttpResponse Error(int status, const std::string& message) {
  return http::HttpResponse::Json(status, Json{{"errors", Json::array({message})}}.dump());
}

http::HttpResponse Ok(int status, const Json& body) {
  return http::HttpResponse::Json(status, body.dump());
}

std::vector<std::string> Split(const std::string& path) {
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

class FakeJobManager::Impl {
 public:
  explicit Impl(Options options) : options_(std::move(options)) {}

  http::HttpResponse Handle(const http::HttpRequest& req) {
    std::chrono::milliseconds delay;
    std::function<void(const std::string&)> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      delay = delay_;
      hook = hook_;
    }
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    if (hook) hook(req.method + " " + req.target);
    std::lock_guard<std::mutex> lock(mu_);
    std::string path = req.path;
    if (path.starts_with("/v1/")) path = path.substr(3);
    requests_.push_back(req.method + " " + req.target);
    for (Failure& f : failures_) {
      if (f.count > 0 && (f.method.empty() || f.method == req.method) &&
          path.starts_with(f.prefix)) {
        --f.count;
        return Error(f.status, f.message);
      }
    }
    return Route(req, path);
  }

  http::HttpResponse Route(const http::HttpRequest& req, const std::string& path) {
    const std::vector<std::string> p = Split(path);
    const std::string& m = req.method;
    if (m == "GET" && path == "/config") {
      return Ok(200, {{"refresh-interval", 3000}, {"timezone-name", "UTC"},
                      {"timezone-offset", 0}, {"flink-version", options_.flink_version},
                      {"flink-revision", "abc @ 2024"},
                      {"features", {{"web-submit", false}, {"web-cancel", false},
                                    {"web-rescale", false}, {"web-history", false}}}});
    }
    if (m == "GET" && path == "/jobs/overview") return Overview();
    if (p.size() >= 1 && p[0] == "savepoint-disposal") return Disposal(req, p);
    if (p.size() >= 1 && p[0] == "jars") return Jars(req, p);
    if (p.size() < 2 || p[0] != "jobs") return Error(404, "Not found: " + req.path);
    auto job = jobs_.find(p[1]);
    if (job == jobs_.end()) return Error(404, "Job " + p[1] + " not found");
    FakeJob& j = job->second;
    if (p.size() == 2 && m == "PATCH") return CancelJob(j);
    if (p.size() == 2 && m == "GET") {
      return Ok(200, {{"jid", j.id}, {"name", j.name}, {"state", j.state},
                      {"start-time", j.start_time}, {"vertices", Json::array()}});
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
                      {"start-time", j.start_time}, {"end-time", api_terminal(j.state) ? j.start_time + 1 : -1},
                      {"duration", 1}, {"last-modification", j.start_time}, {"tasks", tasks},
                      {"pending-operators", 0}});
    }
    return Ok(200, {{"jobs", jobs}});
  }

  http::HttpResponse CancelJob(FakeJob& j) {
    if (api_terminal(j.state)) {
      return Error(409, "Job cancellation failed because the job has already reached another "
                        "terminal state (" + j.state + ").");
    }
    j.state = hold_ ? "CANCELLING" : "CANCELED";
    if (hold_) pending_cancels_.push_back(j.id);
    return Ok(202, Json::object());
  }

  http::HttpResponse Trigger(const http::HttpRequest& req, FakeJob& j, Operation::Kind kind) {
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
    FakeJob& j = jobs_[op.job_id];
    CheckpointRecord r;
    r.id = static_cast<int64_t>(j.checkpoints.size()) + 1;
    r.status = "COMPLETED";
    r.trigger_timestamp = j.start_time + 100 * r.id;
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

  http::HttpResponse Checkpoints(const FakeJob& j) {
    if (!j.checkpointing) {
      return Ok(404, {{"errors", Json::array({"org.apache.flink.runtime.rest.handler."
                                              "RestHandlerException: Checkpointing has not been "
                                              "enabled."})}});
    }
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

  http::HttpResponse Requirements(const http::HttpRequest& req, FakeJob& j) {
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
      FakeJob job;
      job.id = id;
      job.name = jar->file_name;
      jobs_[id] = job;
      return Ok(200, {{"jobid", id}});
    }
    return Error(404, "Not found: " + req.path);
  }

  Options options_;
  mutable std::mutex mu_;
  std::map<std::string, FakeJob> jobs_;
  std::map<std::string, Operation> operations_;
  std::vector<std::string> pending_cancels_;
  std::vector<Failure> failures_;
  std::vector<std::string> requests_;
  std::vector<std::string> disposed_;
  std::vector<UploadedJar> jars_;
  std::chrono::milliseconds delay_{0};
  std::function<void(const std::string&)> hook_;
  bool hold_ = false;
  int next_trigger_ = 0;
  std::unique_ptr<http::HttpServer> server_;
};

StatusOr<std::unique_ptr<FakeJobManager>> FakeJobManager::Create(Options options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  Impl* raw = impl.get();
  TRIMTAB_ASSIGN_OR_RETURN(
      raw->server_, http::HttpServer::Create({.address = "127.0.0.1", .port = 0, .threads = 2},
                                             [raw](const http::HttpRequest& r) { return raw->Handle(r); }));
  return std::unique_ptr<FakeJobManager>(new FakeJobManager(std::move(impl)));
}

FakeJobManager::FakeJobManager(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FakeJobManager::~FakeJobManager() { impl_->server_->Stop(); }

std::string FakeJobManager::base_url() const { return impl_->server_->base_url(); }
int FakeJobManager::port() const { return impl_->server_->port(); }

void FakeJobManager::AddJob(FakeJob job) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->jobs_[job.id] = std::move(job);
}

void FakeJobManager::ForgetOperations() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->operations_.clear();
}

void FakeJobManager::RemoveJobs() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->jobs_.clear();
}

std::optional<FakeJob> FakeJobManager::Job(const std::string& id) const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  auto it = impl_->jobs_.find(id);
  if (it == impl_->jobs_.end()) return std::nullopt;
  return it->second;
}

std::vector<FakeJob> FakeJobManager::Jobs() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  std::vector<FakeJob> out;
  for (const auto& [id, j] : impl_->jobs_) out.push_back(j);
  return out;
}

void FakeJobManager::SetJobState(const std::string& id, const std::string& state) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->jobs_[id].state = state;
}

void FakeJobManager::AddCheckpoint(const std::string& job_id, const std::string& path,
                                   bool is_savepoint) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  FakeJob& j = impl_->jobs_[job_id];
  CheckpointRecord r;
  r.id = static_cast<int64_t>(j.checkpoints.size()) + 1;
  r.status = "COMPLETED";
  r.is_savepoint = is_savepoint;
  r.external_path = path;
  r.trigger_timestamp = j.start_time + 100 * r.id;
  r.latest_ack_timestamp = r.trigger_timestamp + 10;
  j.checkpoints.push_back(r);
}

void FakeJobManager::HoldOperations(bool hold) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->hold_ = hold;
}

void FakeJobManager::CompleteOperations() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  for (auto& [trigger, op] : impl_->operations_) impl_->Complete(trigger);
  for (const std::string& id : impl_->pending_cancels_) impl_->jobs_[id].state = "CANCELED";
  impl_->pending_cancels_.clear();
}

void FakeJobManager::FailNext(const std::string& method, const std::string& prefix, int status,
                              const std::string& message, int count) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->failures_.push_back({method, prefix, status, message, count});
}

void FakeJobManager::SetDelay(std::chrono::milliseconds delay) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->delay_ = delay;
}

void FakeJobManager::SetRequestHook(std::function<void(const std::string& request)> hook) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->hook_ = std::move(hook);
}

std::vector<std::string> FakeJobManager::Requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->requests_;
}

int FakeJobManager::Count(const std::string& method, const std::string& prefix) const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  int n = 0;
  for (const std::string& r : impl_->requests_) {
    if (r.starts_with(method + " " + prefix)) ++n;
  }
  return n;
}

std::vector<std::string> FakeJobManager::DisposedSavepoints() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->disposed_;
}

std::vector<UploadedJar> FakeJobManager::Jars() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->jars_;
}

}  // namespace trimtab::flink::testing
