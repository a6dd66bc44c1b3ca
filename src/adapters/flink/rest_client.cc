#include "adapters/flink/rest_client.h"

#include <cmath>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

namespace trimtab::flink {
namespace {

// A number field as int64; a floating-point value beyond int64 is clamped (converting it was
// undefined behaviour: issue 27, found by fuzz_flink_rest), NaN is the fallback.
int64_t Int(const Json& j, const char* key, int64_t fallback = 0) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  if (it->is_number_integer()) return it->get<int64_t>();
  const double d = it->get<double>();
  if (std::isnan(d)) return fallback;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

CheckpointRecord Record(const Json& j) {
  CheckpointRecord r;
  r.id = Int(j, "id");
  r.status = Str(j, "status");
  auto sp = j.find("is_savepoint");
  r.is_savepoint = sp != j.end() && sp->is_boolean() && sp->get<bool>();
  r.external_path = Str(j, "external_path");
  r.trigger_timestamp = Int(j, "trigger_timestamp");
  r.latest_ack_timestamp = Int(j, "latest_ack_timestamp");
  r.state_size = Int(j, "state_size");
  if (auto d = j.find("end_to_end_duration"); d != j.end() && d->is_number()) {
    r.end_to_end_duration = Int(j, "end_to_end_duration");
  }
  return r;
}

std::optional<CheckpointRecord> OptionalRecord(const Json& parent, const char* key) {
  auto it = parent.find(key);
  if (it == parent.end() || !it->is_object()) return std::nullopt;
  return Record(*it);
}

std::string FailureText(const Json& op) {
  for (const char* key : {"failure-cause", "failureCause"}) {
    auto it = op.find(key);
    if (it == op.end() || it->is_null()) continue;
    std::string text = Str(*it, "class");
    const std::string trace = FlinkFirstLine(Str(*it, "stack-trace"));
    if (!trace.empty()) text = trace;
    return text.empty() ? "failed (no failure cause)" : text;
  }
  return "";
}

StatusOr<AsyncOperation> ParseAsync(const Json& body, const std::string& what) {
  AsyncOperation out;
  auto status = body.find("status");
  if (status == body.end() || !status->is_object()) {
    return InternalError(what + ": response has no status.id");
  }
  const std::string id = Str(*status, "id");
  if (id == "IN_PROGRESS") return out;
  if (id != "COMPLETED") return InternalError(what + ": unknown operation status \"" + id + "\"");
  out.completed = true;
  auto op = body.find("operation");
  if (op == body.end() || !op->is_object()) return out;
  out.failure = FailureText(*op);
  out.location = Str(*op, "location");
  out.checkpoint_id = Int(*op, "checkpointId");
  return out;
}

StatusOr<std::string> TriggerId(const Json& body, const std::string& what) {
  std::string id = Str(body, "request-id");
  if (id.empty()) return InternalError(what + ": response has no request-id");
  return id;
}

}  // namespace

FlinkRestClient::FlinkRestClient(std::shared_ptr<const http::HttpClient> http,
                                 std::string base_url, std::chrono::milliseconds timeout)
    : http_(std::move(http)), transport_(http_.get(), std::move(base_url)), timeout_(timeout) {}

StatusOr<Json> FlinkRestClient::Call(const std::string& method, const std::string& path,
                                     const std::string& body,
                                     const std::string& content_type) const {
  return transport_.Call({.method = method, .path = path, .body = body,
                          .content_type = content_type, .timeout = timeout_});
}

StatusOr<std::vector<JobOverview>> FlinkRestClient::ListJobs() const {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("GET", "/jobs/overview"));
  std::vector<JobOverview> out;
  auto jobs = doc.find("jobs");
  if (jobs == doc.end() || !jobs->is_array()) return out;
  for (const Json& j : *jobs) {
    JobOverview o;
    o.id = Str(j, "jid");
    o.name = Str(j, "name");
    o.state = Str(j, "state");
    o.start_time = Int(j, "start-time");
    o.end_time = Int(j, "end-time", -1);
    o.last_modification = Int(j, "last-modification");
    if (auto tasks = j.find("tasks"); tasks != j.end() && tasks->is_object()) {
      for (auto t = tasks->begin(); t != tasks->end(); ++t) {
        if (t->is_number()) o.tasks[t.key()] = t->get<int64_t>();
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

StatusOr<Json> FlinkRestClient::JobDetails(const std::string& job_id) const {
  return Call("GET", "/jobs/" + job_id);
}

StatusOr<std::vector<ExceptionEntry>> FlinkRestClient::Exceptions(const std::string& job_id,
                                                                  int max) const {
  const std::string path = "/jobs/" + job_id + "/exceptions?maxExceptions=" + std::to_string(max);
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("GET", path));
  std::vector<ExceptionEntry> out;
  auto hist = doc.find("exceptionHistory");
  if (hist == doc.end() || !hist->is_object()) return out;
  auto entries = hist->find("entries");
  if (entries == hist->end() || !entries->is_array()) return out;
  for (const Json& e : *entries) {
    out.push_back({Str(e, "exceptionName"), Str(e, "stacktrace"), Int(e, "timestamp"),
                   Str(e, "taskName")});
  }
  return out;
}

StatusOr<ExecutionResult> FlinkRestClient::GetExecutionResult(const std::string& job_id) const {
  const std::string path = "/jobs/" + job_id + "/execution-result";
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("GET", path));
  ExecutionResult out;
  auto status = doc.find("status");
  out.completed = status != doc.end() && status->is_object() && Str(*status, "id") == "COMPLETED";
  auto result = doc.find("job-execution-result");
  if (result != doc.end() && result->is_object()) {
    out.application_status = Str(*result, "application-status");
    auto cause = result->find("failure-cause");
    if (cause != result->end() && cause->is_object()) {
      out.failure_class = Str(*cause, "class");
      out.failure_stacktrace = Str(*cause, "stack-trace");
    }
  }
  return out;
}

Status FlinkRestClient::Cancel(const std::string& job_id) const {
  const std::string path = "/jobs/" + job_id + "?mode=cancel";
  return Call("PATCH", path).status();
}

StatusOr<ClusterConfig> FlinkRestClient::Config() const {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("GET", "/config"));
  return ClusterConfig{Str(doc, "flink-version"), Str(doc, "flink-revision")};
}

StatusOr<CheckpointStats> FlinkRestClient::Checkpoints(const std::string& job_id) const {
  const std::string path = "/jobs/" + job_id + "/checkpoints";
  StatusOr<Json> doc = Call("GET", path);
  if (!doc.ok()) {
    // The only place that reads this answer's text: Flink has no other way of saying it (its
    // CheckpointingStatisticsHandler throws a RestHandlerException with NOT_FOUND), and the
    // upstream operator reads it the same way (AbstractFlinkService.getLastCheckpoint).
    if (doc.status().code() == StatusCode::kNotFound &&
        doc.status().message().find("Checkpointing has not been enabled") != std::string::npos) {
      CheckpointStats none;
      none.checkpointing_enabled = false;
      return none;
    }
    return doc.status();
  }
  return ParseCheckpointStats(*doc);
}

CheckpointStats ParseCheckpointStats(const Json& doc) {
  CheckpointStats out;
  if (!doc.is_object()) return out;
  if (auto counts = doc.find("counts"); counts != doc.end() && counts->is_object()) {
    out.in_progress = Int(*counts, "in_progress");
    out.completed = Int(*counts, "completed");
    out.failed = Int(*counts, "failed");
  }
  if (auto latest = doc.find("latest"); latest != doc.end() && latest->is_object()) {
    out.latest_completed = OptionalRecord(*latest, "completed");
    out.latest_savepoint = OptionalRecord(*latest, "savepoint");
    out.latest_failed = OptionalRecord(*latest, "failed");
    out.latest_restored = OptionalRecord(*latest, "restored");
    if (out.latest_restored) {
      out.latest_restored->trigger_timestamp = Int((*latest)["restored"], "restore_timestamp");
    }
  }
  if (auto hist = doc.find("history"); hist != doc.end() && hist->is_array()) {
    for (const Json& h : *hist) out.history.push_back(Record(h));
  }
  return out;
}

StatusOr<std::string> FlinkRestClient::TriggerSavepoint(const std::string& job_id,
                                                        const SavepointRequest& r) const {
  Json body = {{"cancel-job", r.cancel_job}};
  if (!r.target_directory.empty()) body["target-directory"] = r.target_directory;
  if (!r.format_type.empty()) body["formatType"] = r.format_type;
  if (!r.trigger_id.empty()) body["triggerId"] = r.trigger_id;
  const std::string path = "/jobs/" + job_id + "/savepoints";
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("POST", path, body.dump()));
  return TriggerId(doc, "POST " + path);
}

StatusOr<std::string> FlinkRestClient::StopWithSavepoint(const std::string& job_id,
                                                         const SavepointRequest& r) const {
  Json body = {{"drain", r.drain}};
  if (!r.target_directory.empty()) body["targetDirectory"] = r.target_directory;
  if (!r.format_type.empty()) body["formatType"] = r.format_type;
  if (!r.trigger_id.empty()) body["triggerId"] = r.trigger_id;
  const std::string path = "/jobs/" + job_id + "/stop";
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("POST", path, body.dump()));
  return TriggerId(doc, "POST " + path);
}

StatusOr<AsyncOperation> FlinkRestClient::SavepointStatus(const std::string& job_id,
                                                          const std::string& trigger_id) const {
  const std::string path = "/jobs/" + job_id + "/savepoints/" + trigger_id;
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("GET", path));
  return ParseAsync(doc, "GET " + path);
}

StatusOr<std::string> FlinkRestClient::TriggerCheckpoint(const std::string& job_id,
                                                         const std::string& type) const {
  Json body = Json::object();
  if (!type.empty()) body["checkpointType"] = type;
  const std::string path = "/jobs/" + job_id + "/checkpoints";
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("POST", path, body.dump()));
  return TriggerId(doc, "POST " + path);
}

StatusOr<AsyncOperation> FlinkRestClient::CheckpointStatus(const std::string& job_id,
                                                           const std::string& trigger_id) const {
  const std::string path = "/jobs/" + job_id + "/checkpoints/" + trigger_id;
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("GET", path));
  return ParseAsync(doc, "GET " + path);
}

StatusOr<std::string> FlinkRestClient::DisposeSavepoint(const std::string& path_to_dispose) const {
  Json body = {{"savepoint-path", path_to_dispose}};
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("POST", "/savepoint-disposal",
                                          body.dump()));
  return TriggerId(doc, "POST /savepoint-disposal");
}

StatusOr<AsyncOperation> FlinkRestClient::DisposalStatus(const std::string& trigger_id) const {
  const std::string path = "/savepoint-disposal/" + trigger_id;
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("GET", path));
  return ParseAsync(doc, "GET " + path);
}

StatusOr<std::map<std::string, std::string>> FlinkRestClient::JobConfiguration(
    const std::string& job_id) const {
  const std::string path = "/jobs/" + job_id + "/jobmanager/config";
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("GET", path));
  std::map<std::string, std::string> out;
  if (!doc.is_array()) return InternalError("GET " + path + ": expected an array of entries");
  for (const Json& entry : doc) {
    if (!entry.is_object() || !entry.contains("key") || !entry["key"].is_string()) continue;
    const Json& value = entry.value("value", Json());
    out[entry["key"].get<std::string>()] =
        value.is_string() ? value.get<std::string>() : (value.is_null() ? "" : value.dump());
  }
  return out;
}

StatusOr<ResourceRequirements> FlinkRestClient::GetResourceRequirements(
    const std::string& job_id) const {
  const std::string path = "/jobs/" + job_id + "/resource-requirements";
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("GET", path));
  ResourceRequirements out;
  if (!doc.is_object()) return out;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    auto p = it->find("parallelism");
    if (p == it->end() || !p->is_object()) {
      return InternalError("GET " + path + ": vertex " + it.key() + " has no parallelism");
    }
    out[it.key()] = ParallelismBounds{static_cast<int>(Int(*p, "lowerBound", 1)),
                                      static_cast<int>(Int(*p, "upperBound", 1))};
  }
  return out;
}

Status FlinkRestClient::PutResourceRequirements(const std::string& job_id,
                                                const ResourceRequirements& r) const {
  Json body = Json::object();
  for (const auto& [vertex, bounds] : r) {
    body[vertex] = {{"parallelism", {{"lowerBound", bounds.lower}, {"upperBound", bounds.upper}}}};
  }
  const std::string path = "/jobs/" + job_id + "/resource-requirements";
  return Call("PUT", path, body.dump()).status();
}

StatusOr<std::string> FlinkRestClient::UploadJar(const std::string& file_name,
                                                 const std::string& bytes) const {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const std::string boundary = "----trimtab" + std::to_string(rng());
  std::string body = "--" + boundary + "\r\n";
  body += "Content-Disposition: form-data; name=\"jarfile\"; filename=\"" + file_name + "\"\r\n";
  body += "Content-Type: application/x-java-archive\r\n\r\n";
  body += bytes;
  body += "\r\n--" + boundary + "--\r\n";
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("POST", "/jars/upload", body,
                                          "multipart/form-data; boundary=" + boundary));
  std::string stored = Str(doc, "filename");
  if (stored.empty()) return InternalError("POST /jars/upload: response has no filename");
  const size_t slash = stored.find_last_of('/');
  return slash == std::string::npos ? stored : stored.substr(slash + 1);
}

StatusOr<std::string> FlinkRestClient::RunJar(const std::string& jar_id,
                                              const RunJarRequest& r) const {
  Json body = Json::object();
  if (!r.entry_class.empty()) body["entryClass"] = r.entry_class;
  if (!r.program_args.empty()) body["programArgsList"] = r.program_args;
  if (r.parallelism) body["parallelism"] = *r.parallelism;
  if (!r.job_id.empty()) body["jobId"] = r.job_id;
  if (r.allow_non_restored_state) body["allowNonRestoredState"] = *r.allow_non_restored_state;
  if (!r.savepoint_path.empty()) body["savepointPath"] = r.savepoint_path;
  if (!r.flink_configuration.empty()) body["flinkConfiguration"] = r.flink_configuration;
  const std::string path = "/jars/" + jar_id + "/run";
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, Call("POST", path, body.dump()));
  std::string id = Str(doc, "jobid");
  if (id.empty()) return InternalError("POST " + path + ": response has no jobid");
  return id;
}

Status FlinkRestClient::DeleteJar(const std::string& jar_id) const {
  return Call("DELETE", "/jars/" + jar_id).status();
}

}  // namespace trimtab::flink
