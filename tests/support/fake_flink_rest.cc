#include "tests/support/fake_flink_rest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>

#include "adapters/http/server.h"
#include "common/json.h"

namespace trimtab::testing {
namespace {

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

}  // namespace

class FakeFlinkRestServer::Impl {
 public:
  HttpResponse Handle(const HttpRequest& req) {
    std::string path = req.path;
    if (path.rfind("/v1/", 0) == 0) path = path.substr(3);
    std::unique_lock<std::mutex> lock(mu_);
    requests_.push_back({req.method + " " + req.target, path});
    for (auto& f : failures_) {
      if (f.count > 0 && path.rfind(f.prefix, 0) == 0) {
        --f.count;
        return Error(f.status, f.message);
      }
    }
    for (const std::string& prefix : hang_) {
      if (path.rfind(prefix, 0) == 0) {
        const uint64_t generation = release_generation_;
        cv_.wait(lock, [&] { return release_generation_ != generation; });
        return Error(503, "released after hanging");
      }
    }
    if (req.method != "GET") return Error(405, "Method not allowed: " + req.method);
    const std::vector<std::string> seg = Split(path, '/');
    const int64_t now_ms = job_.running_since_ms + 1;
    if (seg.size() == 2 && seg[0] == "jobmanager" && seg[1] == "metrics") {
      return Plain(req, jm_metrics_);
    }
    if (seg.size() == 2 && seg[0] == "taskmanagers" && seg[1] == "metrics") {
      return Aggregated(req, tm_metrics_);
    }
    if (seg.size() >= 2 && seg[0] == "jobs") {
      if (seg[1] != job_.id) return Error(404, "Job " + seg[1] + " not found");
      if (seg.size() == 2) return HttpResponse::Json(200, JobDetails(job_, now_ms).dump());
      if (seg.size() == 3 && seg[2] == "metrics") return Plain(req, job_.job_metrics);
      if (seg.size() == 3 && seg[2] == "checkpoints") return Checkpoints(job_);
      if (seg.size() == 6 && seg[2] == "vertices" && seg[4] == "subtasks" && seg[5] == "metrics") {
        for (const FakeFlinkVertex& v : job_.vertices) {
          if (v.id == seg[3]) return Aggregated(req, v.metrics);
        }
        return Error(404, "JobVertex " + seg[3] + " not found");
      }
    }
    return Error(404, "Not found: " + req.target);
  }

  // CheckpointingStatistics with one completed checkpoint, or none.
  static HttpResponse Checkpoints(const FakeFlinkJob& job) {
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

  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    hang_.clear();
    ++release_generation_;
    cv_.notify_all();
  }

  struct Failure {
    std::string prefix;
    int status;
    int count;
    std::string message;
  };

  std::unique_ptr<http::HttpServer> server_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  FakeFlinkJob job_;                                           // guarded by mu_
  std::map<std::string, std::string> jm_metrics_;              // guarded by mu_
  std::map<std::string, FakeAggregate> tm_metrics_;            // guarded by mu_
  std::vector<Failure> failures_;                              // guarded by mu_
  std::vector<std::string> hang_;                              // guarded by mu_
  uint64_t release_generation_ = 0;                            // guarded by mu_
  std::vector<std::pair<std::string, std::string>> requests_;  // guarded by mu_: (line, path)
};

FakeFlinkRestServer::FakeFlinkRestServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FakeFlinkRestServer::~FakeFlinkRestServer() {
  impl_->Release();
  if (impl_->server_) impl_->server_->Stop();
}

StatusOr<std::unique_ptr<FakeFlinkRestServer>> FakeFlinkRestServer::Create() {
  auto impl = std::make_unique<Impl>();
  Impl* raw = impl.get();
  auto server =
      http::HttpServer::Create({.address = "127.0.0.1", .port = 0, .threads = 4},
                               [raw](const HttpRequest& req) { return raw->Handle(req); });
  if (!server.ok()) return server.status();
  impl->server_ = std::move(server).value();
  return std::unique_ptr<FakeFlinkRestServer>(new FakeFlinkRestServer(std::move(impl)));
}

std::string FakeFlinkRestServer::base_url() const { return impl_->server_->base_url(); }

void FakeFlinkRestServer::SetJob(FakeFlinkJob job) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->job_ = std::move(job);
}

void FakeFlinkRestServer::UpdateJob(const std::function<void(FakeFlinkJob&)>& change) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  change(impl_->job_);
}

FakeFlinkJob FakeFlinkRestServer::Job() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->job_;
}

void FakeFlinkRestServer::SetJobManagerMetrics(std::map<std::string, std::string> values) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->jm_metrics_ = std::move(values);
}

void FakeFlinkRestServer::SetTaskManagerMetrics(std::map<std::string, FakeAggregate> values) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->tm_metrics_ = std::move(values);
}

void FakeFlinkRestServer::FailNext(const std::string& path_prefix, int status, int count,
                                   const std::string& message) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->failures_.push_back({path_prefix, status, count, message});
}

void FakeFlinkRestServer::Hang(const std::string& path_prefix) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->hang_.push_back(path_prefix);
}

void FakeFlinkRestServer::Release() { impl_->Release(); }

std::vector<std::string> FakeFlinkRestServer::Requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  std::vector<std::string> out;
  for (const auto& [line, path] : impl_->requests_) out.push_back(line);
  return out;
}

int FakeFlinkRestServer::CountRequests(std::string_view path_prefix) const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  int n = 0;
  for (const auto& [line, path] : impl_->requests_) n += path.rfind(path_prefix, 0) == 0;
  return n;
}

void FakeFlinkRestServer::ClearRequests() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->requests_.clear();
}

}  // namespace trimtab::testing
