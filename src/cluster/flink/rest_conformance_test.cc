// Conformance of the simulated Flink REST API with Flink's published OpenAPI documents
// (../shared/reference/flink-rest: rest_v1_dispatcher.yml = 2.3-SNAPSHOT, and the 1.20 one).
//
// For each document a session cluster mimicking that version runs a job (submitted through
// /jars/upload + /jars/:id/run) that has checkpointed, failed once, taken a savepoint and a
// checkpoint; a second job was cancelled. Every operation of the document is then called over
// real HTTP and, when the document gives a response schema, the body is validated strictly:
// no undocumented properties, every documented property present. The only exceptions are the
// wire quirks listed below (each is how real Flink writes it, notes flink-rest-and-sim.md §1.5)
// and the endpoints the simulator deliberately does not serve (kNotServed, also listed in
// docs/flink-sim.md), which must answer 404.
#include <filesystem>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "adapters/http/test_client.h"
#include "cluster/flink/cluster_test_util.h"
#include "cluster/flink/rest_server.h"
#include "tests/support/openapi_validator.h"

namespace trimtab::sim::flink {
namespace {

using namespace std::chrono_literals;
using trimtab::testing::OpenApiSpec;
using trimtab::testing::ValidateJson;
using trimtab::testing::ValidationOptions;

const std::string kReference = std::string(TRIMTAB_SOURCE_DIR) + "/../shared/reference/flink-rest/";

// "METHOD /path" -> why the simulator does not serve it.
const std::map<std::string, std::string> kNotServed = {
    {"GET /applications/overview", "2.3 application management: one job per application here"},
    {"GET /applications/{applicationid}", "2.3 application management"},
    {"POST /applications/{applicationid}/cancel", "2.3 application management"},
    {"GET /applications/{applicationid}/exceptions", "2.3 application management"},
    {"GET /applications/{applicationid}/jobmanager/config", "2.3 application management"},
    {"GET /datasets", "cluster data sets belong to batch jobs; the simulator runs streaming jobs"},
    {"GET /datasets/delete/{triggerid}", "batch cluster data sets"},
    {"DELETE /datasets/{datasetid}", "batch cluster data sets"},
    {"POST /jars/{jarid}/plan", "plan preview of an uploaded jar; not used by the operator"},
    {"POST /jars/{jarid}/run-application", "2.3 application submission"},
    {"GET /jobmanager/logs", "no log files: use kubectl logs"},
    {"GET /jobmanager/thread-dump", "no JVM threads to dump"},
    {"GET /jobs/{jobid}/jobmanager/log-url", "no history server / log URLs"},
    {"GET /jobs/{jobid}/taskmanagers/{taskmanagerid}/log-url", "no history server / log URLs"},
    {"GET /jobs/{jobid}/vertices/{vertexid}/flamegraph", "no JVM stacks to sample"},
    {"GET /jobs/{jobid}/vertices/{vertexid}/jm-operator-metrics", "no operator coordinators"},
    {"PATCH /jobs/{jobid}/clientHeartbeat", "attached-client heartbeats (batch application mode)"},
    {"GET /jobs/{jobid}/rescales/config", "2.3 adaptive rescale history"},
    {"GET /jobs/{jobid}/rescales/history", "2.3 adaptive rescale history"},
    {"GET /jobs/{jobid}/rescales/details/{rescaleuuid}", "2.3 adaptive rescale history"},
    {"GET /jobs/{jobid}/rescaling/{triggerid}", "legacy rescaling never creates an operation (FLINK-12312)"},
    {"POST /jobs", "JobGraph submission: the simulator runs programs from jars, not serialized JobGraphs"},
    {"GET /taskmanagers/{taskmanagerid}/logs", "no log files: use kubectl logs"},
    {"GET /taskmanagers/{taskmanagerid}/thread-dump", "no JVM threads to dump"},
};

// Served on purpose with an error status, as real Flink does.
const std::map<std::string, int> kErrorByDesign = {
    {"PATCH /jobs/{jobid}/rescaling", 503},  // "Rescaling is temporarily disabled. See FLINK-12312."
};

Json HexString() { return Json{{"type", "string"}, {"pattern", "[0-9a-f]{32}"}}; }

// The documented wire quirks: the spec generator's view differs from what Flink writes.
void ApplyWireQuirks(OpenApiSpec& spec, ValidationOptions& o) {
  // Metric bodies are bare JSON arrays (MetricCollectionResponseBody's custom serializer).
  spec.OverrideSchema("MetricCollectionResponseBody",
                      Json{{"type", "array"}, {"items", {{"$ref", "#/components/schemas/Metric"}}}});
  // Aggregated metrics: a bare array of {id, min, max, avg, sum, skew} (numbers; absent
  // aggregations and, without `get`, all of them are left out).
  spec.OverrideSchema("AggregatedMetricsResponseBody",
                      Json{{"type", "array"},
                           {"items", {{"type", "object"},
                                      {"required", {"id"}},
                                      {"properties", {{"id", {{"type", "string"}}},
                                                      {"min", {{"type", "number"}}},
                                                      {"max", {{"type", "number"}}},
                                                      {"avg", {{"type", "number"}}},
                                                      {"sum", {{"type", "number"}}},
                                                      {"skew", {{"type", "number"}}}}}}}});
  // Without `get` the metric endpoints list ids only.
  o.optional.insert("Metric.value");
  for (const char* a : {"min", "max", "avg", "sum", "skew"}) {
    o.optional.insert(std::string("AggregatedMetricsResponseBody.") + a);
  }
  // JobConfigInfo has a custom serializer: jid, name, execution-config.
  spec.OverrideSchema("JobConfigInfo",
                      Json{{"type", "object"},
                           {"properties", {{"jid", {{"$ref", "#/components/schemas/JobID"}}},
                                           {"name", {{"type", "string"}}},
                                           {"execution-config", {{"$ref", "#/components/schemas/ExecutionConfigInfo"}}}}}});
  // Ids serialized with toString(): hex strings, not {bytes, lowerPart, upperPart}.
  spec.OverrideSchema("SlotSharingGroupId", HexString());
  spec.OverrideSchema("ApplicationID", HexString());
  // A TaskManager's ResourceID is any string (the pod name in native Kubernetes mode).
  spec.OverrideSchema("ResourceID", Json{{"type", "string"}});
  // CheckpointConfigInfo.mode is written lower-case.
  spec.OverrideSchema("ProcessingMode", Json{{"type", "string"}, {"enum", {"at_least_once", "exactly_once"}}});
  // SerializedThrowable's serializer writes class, stack-trace and serialized-throwable.
  spec.OverrideSchema("SerializedThrowable", Json{{"type", "object"},
                                                  {"properties", {{"class", {{"type", "string"}}},
                                                                  {"stack-trace", {{"type", "string"}}},
                                                                  {"serialized-throwable", {{"type", "string"}}}}}});
  // JobResult (in /execution-result) has a custom serializer.
  spec.OverrideSchema(
      "JobResult",
      Json{{"type", "object"},
           {"properties", {{"id", {{"$ref", "#/components/schemas/JobID"}}},
                           {"name", {{"type", "string"}}},
                           {"application-status", {{"type", "string"}, {"enum", {"SUCCEEDED", "FAILED", "CANCELED", "UNKNOWN"}}}},
                           {"accumulator-results", {{"type", "object"}}},
                           {"net-runtime", {{"type", "integer"}}},
                           {"failure-cause", {{"$ref", "#/components/schemas/SerializedThrowable"}}},
                           {"start-time", {{"type", "integer"}}},
                           {"end-time", {{"type", "integer"}}}}}});
  o.optional.insert("JobResult.failure-cause");  // only for failed jobs
  for (const char* f : {"name", "start-time", "end-time"}) o.optional.insert(std::string("JobResult.") + f);  // 2.x
  // Jackson writes @Nullable fields without NON_NULL as null.
  o.nullable = {"AsynchronousOperationResult.operation",  // null while IN_PROGRESS
                "LatestCheckpoints.completed", "LatestCheckpoints.savepoint", "LatestCheckpoints.failed",
                "LatestCheckpoints.restored", "CheckpointStatistics.savepointFormat", "JarEntryInfo.description"};
  // NON_NULL / NON_EMPTY / NON_DEFAULT fields, present only when they have a value.
  for (const char* f : {
           "ClusterOverviewWithVersion.taskmanagers-blocked", "ClusterOverviewWithVersion.slots-free-and-blocked",
           "PlanNode.inputs", "Input.local_strategy", "Input.caching",
           "SubtaskExecutionAttemptDetailsInfo.other-concurrent-attempts",
           "SubtaskBackPressureInfo.other-concurrent-attempts", "TaskManagerInfo.blocked",
           "TaskManagerDetailsInfo.blocked",
           // One of location / failure-cause (SavepointInfo), checkpointId / failureCause.
           "SavepointInfo.location", "SavepointInfo.failure-cause", "CheckpointInfo.checkpointId",
           "CheckpointInfo.failureCause", "AsynchronousOperationInfo.failure-cause",
           "JobExecutionResultResponseBody.job-execution-result",  // absent while in progress
           // Global (task-less) failures have no task, endpoint or TaskManager.
           "RootExceptionInfo.taskName", "RootExceptionInfo.endpoint", "RootExceptionInfo.taskManagerId",
           "RootExceptionInfo.location", "ExceptionInfo.taskName", "ExceptionInfo.endpoint",
           "ExceptionInfo.taskManagerId", "ExceptionInfo.location"}) {
    o.optional.insert(f);
  }
}

std::string Multipart(const std::string& file_name, const std::string& content) {
  return "--trimtab-boundary\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"" + file_name +
         "\"\r\nContent-Type: application/x-java-archive\r\n\r\n" + content + "\r\n--trimtab-boundary--\r\n";
}

class RestConformanceTest : public testing::FlinkClusterTest,
                            public ::testing::WithParamInterface<std::pair<std::string, FlinkVersion>> {
 protected:
  void SetUp() override {
    FlinkConfig config = BaseConfig();
    config.Remove("$internal.pipeline.job-id");
    config.Set("execution.target", "kubernetes-session");
    config.Set("jobmanager.scheduler", "adaptive");
    auto cluster = Start(config, "default/session", GetParam().second);
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    cluster_ = std::move(*cluster);
    auto server = FlinkRestServer::Create({.address = "127.0.0.1", .port = 0}, cluster_.get());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    client_ = std::make_unique<http::TestHttpClient>(server_->base_url());
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
  }

  Json Call(const std::string& method, const std::string& target, const std::string& body = "",
            std::vector<std::string> headers = {}, int* status = nullptr) {
    http::TestHttpResponse r = client_->Request(method, target, body, headers);
    if (status) *status = r.status;
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << method << " " << target << ": " << r.body;
    return j;
  }

  std::string UploadJar(const std::string& name) {
    Json r = Call("POST", "/jars/upload", Multipart(name, "PK\x03\x04 simulated"),
                  {"Content-Type: multipart/form-data; boundary=trimtab-boundary"});
    const std::string path = r.value("filename", "");
    return path.substr(path.rfind('/') + 1);
  }

  std::unique_ptr<FlinkCluster> cluster_;
  std::unique_ptr<FlinkRestServer> server_;
  std::unique_ptr<http::TestHttpClient> client_;
};

TEST_P(RestConformanceTest, EveryDocumentedResponseMatchesTheSpec) {
  auto loaded = OpenApiSpec::Load(kReference + GetParam().first);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  OpenApiSpec spec = std::move(*loaded);
  ValidationOptions options;
  ApplyWireQuirks(spec, options);

  // A job that has run, checkpointed, failed once and taken snapshots.
  const std::string jar = UploadJar("StateMachineExample.jar");
  ASSERT_FALSE(jar.empty());
  const std::string job = Call("POST", "/jars/" + jar + "/run", R"({"parallelism": 2})").value("jobid", "");
  ASSERT_TRUE(IsHexId(job));
  Advance(35s);
  ASSERT_TRUE(cluster_->Locked([&](ClusterState& s) { return s.FailJobForTest(job, "injected"); }).ok());
  Advance(30s);
  const std::string sp_trigger = Call("POST", "/jobs/" + job + "/savepoints", R"({"target-directory": "s3://b/sp"})")["request-id"];
  const std::string cp_trigger = Call("POST", "/jobs/" + job + "/checkpoints", "{}")["request-id"];
  Advance(12s);
  const std::string location = Call("GET", "/jobs/" + job + "/savepoints/" + sp_trigger)["operation"].value("location", "");
  ASSERT_FALSE(location.empty());
  const std::string disposal = Call("POST", "/savepoint-disposal", Json{{"savepoint-path", location}}.dump())["request-id"];
  // A second job, cancelled (execution-result COMPLETED, stop on a terminal job).
  const std::string other = Call("POST", "/jars/" + jar + "/run",
                                 R"({"flinkConfiguration": {"pipeline.name": "other"}})").value("jobid", "");
  Advance(5s);
  int status = 0;
  Call("PATCH", "/jobs/" + other + "?mode=cancel", "", {}, &status);
  EXPECT_EQ(status, 202);
  Advance(1s);
  const std::string extra_jar = UploadJar("Extra.jar");
  const std::string to_cancel = Call("POST", "/jars/" + jar + "/run",
                                     R"({"flinkConfiguration": {"pipeline.name": "cancel-me"}})").value("jobid", "");

  std::string vertex, tm;
  int64_t checkpoint = 0;
  int attempt = 0;
  cluster_->Locked([&](ClusterState& s) {
    const FlinkJob* j = s.FindJob(job);
    vertex = j->vertices().front().id;
    attempt = j->attempt();
    checkpoint = j->checkpoint_stats().latest_completed->id;
    tm = s.slots().task_managers().front().info.id;
  });

  int validated = 0;
  std::set<std::string> seen_not_served;
  for (const OpenApiSpec::Operation& op : spec.operations()) {
    const std::string key = op.method + " " + op.path;
    std::string target = op.path;
    const auto sub = [&](const std::string& param, const std::string& value) {
      const size_t at = target.find("{" + param + "}");
      if (at != std::string::npos) target.replace(at, param.size() + 2, value);
    };
    // stop and the legacy rescaling go to the cancelled job, cancel to a job of its own.
    sub("jobid", op.path == "/jobs/{jobid}" && op.method == "PATCH" ? to_cancel
                 : op.path == "/jobs/{jobid}/stop" || op.method == "PATCH" ? other
                                                                           : job);
    sub("vertexid", vertex);
    sub("checkpointid", std::to_string(checkpoint));
    sub("subtaskindex", "0");
    sub("attempt", std::to_string(attempt));
    sub("taskmanagerid", tm);
    sub("jarid", op.method == "DELETE" ? extra_jar : jar);
    if (op.path.find("/savepoints/") != std::string::npos) sub("triggerid", sp_trigger);
    if (op.path.find("/checkpoints/{triggerid}") != std::string::npos) sub("triggerid", cp_trigger);
    if (op.path.starts_with("/savepoint-disposal/")) sub("triggerid", disposal);
    for (const char* p : {"triggerid", "datasetid", "applicationid", "rescaleuuid"}) sub(p, std::string(32, 'f'));
    std::string body;
    if (op.method == "POST" || op.method == "PUT") body = "{}";
    if (op.path == "/jobs/{jobid}/savepoints") body = R"({"target-directory": "s3://b/sp"})";
    if (op.path == "/savepoint-disposal") body = Json{{"savepoint-path", "s3://b/missing"}}.dump();
    if (op.path == "/jars/{jarid}/run") body = R"({"flinkConfiguration": {"pipeline.name": "third"}})";
    if (op.method == "PUT" && op.path.ends_with("resource-requirements")) {
      body = Call("GET", "/jobs/" + job + "/resource-requirements").dump();
    }
    if (op.path == "/cluster") continue;  // shuts the cluster down: checked separately below
    std::vector<std::string> headers;
    if (op.path == "/jars/upload") {
      body = Multipart("Another.jar", "PK");
      headers.push_back("Content-Type: multipart/form-data; boundary=trimtab-boundary");
    }
    std::vector<std::string> targets = {target};
    if (op.path.find("metrics") != std::string::npos) {  // also with values (`get`)
      const std::string get = op.path.find("taskmanagers") != std::string::npos ? "Status.JVM.Memory.Heap.Used"
                              : op.path.find("jobmanager") != std::string::npos ? "taskSlotsTotal"
                              : op.path.find("vertices") == std::string::npos   ? "numRestarts"
                              : op.path.find("subtasks/metrics") != std::string::npos ? "busyTimeMsPerSecond"
                              : op.path.find("{subtaskindex}") != std::string::npos   ? "busyTimeMsPerSecond"
                                                                                    : "0.busyTimeMsPerSecond";
      targets.push_back(target + "?get=" + get);
    }
    for (const std::string& t : targets) {
      http::TestHttpResponse r = client_->Request(op.method, "/v1" + t, body, headers);
      if (kNotServed.count(key)) {
        seen_not_served.insert(key);
        EXPECT_EQ(r.status, 404) << key << " is listed as not served but answered: " << r.body;
        continue;
      }
      if (auto e = kErrorByDesign.find(key); e != kErrorByDesign.end()) {
        EXPECT_EQ(r.status, e->second) << key << ": " << r.body;
        continue;
      }
      ASSERT_EQ(std::to_string(r.status), op.status) << key << " (" << t << "): " << r.body;
      if (op.schema.is_null()) continue;
      Json parsed = Json::parse(r.body, nullptr, false);
      ASSERT_FALSE(parsed.is_discarded()) << key << ": not JSON: " << r.body;
      const std::vector<std::string> problems = ValidateJson(spec, op.schema, parsed, options);
      EXPECT_TRUE(problems.empty()) << key << " (" << t << ") does not match " << spec.version() << ":\n"
                                    << ::testing::PrintToString(problems) << "\nbody: " << r.body.substr(0, 3000);
      ++validated;
    }
  }
  EXPECT_GE(validated, 50);
  // Also validate the cancelled job's completed execution result.
  Json result = Call("GET", "/jobs/" + other + "/execution-result");
  EXPECT_EQ(result["job-execution-result"]["application-status"], "CANCELED");
  for (const OpenApiSpec::Operation& op : spec.operations()) {
    if (op.path == "/jobs/{jobid}/execution-result") {
      EXPECT_THAT(ValidateJson(spec, op.schema, result, options), ::testing::IsEmpty());
    }
  }
  // DELETE /cluster answers 200 and asks the JobManager to shut down.
  Call("DELETE", "/cluster", "", {}, &status);
  EXPECT_EQ(status, 200);
  EXPECT_TRUE(cluster_->Locked([](ClusterState& s) { return s.shutdown_requested(); }));
}

INSTANTIATE_TEST_SUITE_P(FlinkVersions, RestConformanceTest,
                         ::testing::Values(std::make_pair(std::string("rest_v1_dispatcher.yml"), FlinkVersion{2, 3, 0}),
                                           std::make_pair(std::string("rest_v1_dispatcher-1.20-SNAPSHOT.yml"),
                                                          FlinkVersion{1, 20, 0})),
                         [](const auto& info) { return "Flink_" + std::to_string(info.param.second.major) + "_" +
                                                       std::to_string(info.param.second.minor); });

}  // namespace
}  // namespace trimtab::sim::flink
