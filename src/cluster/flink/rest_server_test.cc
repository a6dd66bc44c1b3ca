// The simulated Flink REST API over real HTTP: routing and error shapes, the async-operation
// pattern, metrics that respond to load, the metric-store quirks and version-dependent shapes.
#include "cluster/flink/rest_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "adapters/http/test_client.h"
#include "cluster/flink/cluster_test_util.h"

namespace trimtab::sim::flink {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

class RestServerTest : public testing::FlinkClusterTest {
 protected:
  void StartServer(FlinkConfig config, std::optional<FlinkVersion> version = std::nullopt) {
    auto cluster = Start(config, "default/jm-1", version);
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
  Json Get(const std::string& target, int* status = nullptr) { return Call("GET", target, "", status); }
  Json Call(const std::string& method, const std::string& target, const std::string& body = "", int* status = nullptr) {
    http::TestHttpResponse r = client_->Request(method, target, body);
    if (status) *status = r.status;
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << target << ": " << r.body;
    return j;
  }
  std::string VertexId(int index) {
    return cluster_->Locked([&](ClusterState& s) { return s.FindJob(kJobId)->vertices()[static_cast<size_t>(index)].id; });
  }
  // The value of one aggregated metric of a vertex ("" when absent).
  Json Aggregated(int vertex, const std::string& metric, const std::string& agg) {
    Json r = Get("/jobs/" + std::string(kJobId) + "/vertices/" + VertexId(vertex) + "/subtasks/metrics?get=" + metric +
                 "&agg=" + agg);
    return r.is_array() && !r.empty() ? r[0][agg] : Json();
  }

  std::unique_ptr<FlinkCluster> cluster_;
  std::unique_ptr<FlinkRestServer> server_;
  std::unique_ptr<http::TestHttpClient> client_;
};

TEST_F(RestServerTest, RoutingVersionPrefixAndErrorShapes) {
  StartServer(BaseConfig());
  int status = 0;
  Json r = Get("/no/such/thing?x=1", &status);
  EXPECT_EQ(status, 404);
  EXPECT_EQ(r, Json::parse(R"({"errors": ["Not found: /no/such/thing?x=1"]})"));
  EXPECT_EQ(Get("/v1/jobs/" + std::string(kJobId) + "/status", &status)["status"], "INITIALIZING");
  EXPECT_EQ(status, 200);
  Get("/v2/overview", &status);
  EXPECT_EQ(status, 404);
  r = Get("/jobs/ffffffffffffffffffffffffffffffff", &status);
  EXPECT_EQ(status, 404);
  ASSERT_EQ(r["errors"].size(), 1u);
  EXPECT_THAT(r["errors"][0].get<std::string>(),
              HasSubstr("NotFoundException: Job ffffffffffffffffffffffffffffffff not found\n\tat "));
  r = Get("/jobs/not-an-id", &status);
  EXPECT_EQ(status, 400);
  EXPECT_THAT(r["errors"][0].get<std::string>(), HasSubstr("Bad request, could not parse parameters"));
  // The default scheduler cannot change resource requirements: an unexpected exception (500).
  Advance(15s);
  r = Get("/jobs/" + std::string(kJobId) + "/resource-requirements", &status);
  EXPECT_EQ(status, 500);
  ASSERT_EQ(r["errors"].size(), 2u);
  EXPECT_EQ(r["errors"][0], "Internal server error.");
  EXPECT_THAT(r["errors"][1].get<std::string>(), HasSubstr("UnsupportedOperationException"));
  // Session endpoints are not routed on an application cluster.
  Get("/jars", &status);
  EXPECT_EQ(status, 404);
}

TEST_F(RestServerTest, SavepointOperationsOverHttp) {
  FlinkConfig config = BaseConfig();
  config.Remove("execution.checkpointing.savepoint-dir");
  config.Set("trimtab.job", "{name: s, vertices: [{id: source, partitions: 2, capacityPerSubtask: 1000, stateBytes: 2e8}],"
                            " restart: {baseDowntime: 1 s}}");
  StartServer(config);
  Advance(5s);
  const std::string base = "/jobs/" + std::string(kJobId);
  int status = 0;
  Json r = Call("POST", base + "/savepoints", "{}", &status);
  EXPECT_EQ(status, 400);
  EXPECT_THAT(r["errors"][0].get<std::string>(),
              HasSubstr("Config key [execution.checkpointing.savepoint-dir] is not set. Property [target-directory] "
                        "must be provided."));
  const std::string body = R"({"target-directory": "s3://b/sp", "triggerId": "00000000000000000000000000000001"})";
  r = Call("POST", base + "/savepoints", body, &status);
  EXPECT_EQ(status, 202);
  EXPECT_EQ(r, Json::parse(R"({"request-id": "00000000000000000000000000000001"})"));
  EXPECT_EQ(Call("POST", base + "/savepoints", body, &status), r);  // a retry is acknowledged again
  r = Get(base + "/savepoints/00000000000000000000000000000001");
  EXPECT_EQ(r, Json::parse(R"({"status": {"id": "IN_PROGRESS"}, "operation": null})"));
  Advance(2s);
  r = Get(base + "/savepoints/00000000000000000000000000000001");
  EXPECT_EQ(r["status"]["id"], "COMPLETED");
  EXPECT_THAT(r["operation"]["location"].get<std::string>(), HasSubstr("s3://b/sp/savepoint-000000-"));
  EXPECT_EQ(Get(base + "/checkpoints").at("counts").at("completed"), 1);  // the one savepoint, not a second
  r = Get(base + "/savepoints/0000000000000000000000000000000f", &status);
  EXPECT_EQ(status, 404);
  EXPECT_THAT(r["errors"][0].get<std::string>(), HasSubstr("There is no savepoint operation with triggerId="));
  // Checkpoint trigger results spell failureCause in camelCase; INCREMENTAL is refused.
  Call("POST", base + "/checkpoints", R"({"checkpointType": "INCREMENTAL"})", &status);
  EXPECT_EQ(status, 400);
  r = Call("POST", base + "/checkpoints", R"({"checkpointType": "FULL"})", &status);
  EXPECT_EQ(status, 202);
  Advance(2s);
  EXPECT_TRUE(Get(base + "/checkpoints/" + r["request-id"].get<std::string>())["operation"].contains("checkpointId"));
}

TEST_F(RestServerTest, TrimtabTopicsShowTheOffsetLedger) {
  StartServer(BaseConfig());
  Advance(1s);
  Json before = Get("/trimtab/topics");
  ASSERT_EQ(before["topics"].size(), 1u) << before.dump();
  EXPECT_EQ(before["topics"][0]["key"].get<std::string>().rfind("default/wc/", 0), 0u) << before.dump();
  EXPECT_EQ(before["topics"][0]["partitions"], 4);
  EXPECT_EQ(before["topics"][0]["commits"], 0);
  Advance(25s);  // two periodic checkpoints (10 s), each committing every partition's range
  Json after = Get("/trimtab/topics")["topics"][0];
  EXPECT_GE(after["commits"].get<int>(), 8) << after.dump();
  EXPECT_EQ(after["savepointCommits"], 0);
  EXPECT_EQ(after["jobs"], Json::array({kJobId}));
  EXPECT_EQ(after["issues"], Json::array());
  EXPECT_GT(after["committedOffsets"][0].get<double>(), 0.0);
  // Live offsets of the reading job: produced >= read >= committed.
  ASSERT_EQ(after["readOffsets"].size(), 4u) << after.dump();
  EXPECT_GE(after["endOffsets"][0].get<double>(), after["readOffsets"][0].get<double>());
  EXPECT_GE(after["readOffsets"][0].get<double>(), after["committedOffsets"][0].get<double>());
  EXPECT_GT(after["endOffsets"][0].get<double>(), after["committedOffsets"][0].get<double>());
}

TEST_F(RestServerTest, MetricsRespondToLoad) {
  FlinkConfig config = BaseConfig();
  config.Set("trimtab.job", testing::SmallJob(/*sink_capacity=*/100));  // the sink carries 200/s of 500/s
  StartServer(config);
  Advance(90s);
  // The sink is the bottleneck: busy; the source upstream of it is backpressured.
  EXPECT_NEAR(Aggregated(1, "busyTimeMsPerSecond", "max").get<double>(), 1000, 1);
  EXPECT_GT(Aggregated(0, "backPressuredTimeMsPerSecond", "max").get<double>(), 700);
  EXPECT_LT(Aggregated(0, "busyTimeMsPerSecond", "max").get<double>(), 300);
  EXPECT_NEAR(Aggregated(1, "numRecordsInPerSecond", "sum").get<double>(), 200, 5);
  Json bp = Get("/jobs/" + std::string(kJobId) + "/vertices/" + VertexId(0) + "/backpressure");
  EXPECT_EQ(bp["status"], "ok");
  EXPECT_EQ(bp["backpressureLevel"], "high");
  const double pending1 = Aggregated(0, "Source__source.pendingRecords", "sum").get<double>();
  Advance(30s);
  const double pending2 = Aggregated(0, "Source__source.pendingRecords", "sum").get<double>();
  EXPECT_NEAR(pending2 - pending1, 300.0 * 30, 300.0 * 10);  // backlog grows at 500 - 200 records/s
  Json tm = Get("/taskmanagers/metrics?get=Status.JVM.Memory.Heap.Used,Status.JVM.CPU.Load&agg=max");
  ASSERT_EQ(tm.size(), 2u);
  EXPECT_GT(tm[1]["max"].get<double>(), 0.5);  // a busy slot on a 1-core TaskManager
  Json jm = Get("/jobmanager/metrics?get=taskSlotsTotal,taskSlotsAvailable,numRegisteredTaskManagers,numRunningJobs");
  EXPECT_EQ(jm, Json::parse(R"([{"id": "taskSlotsTotal", "value": "2"}, {"id": "taskSlotsAvailable", "value": "0"},
                                {"id": "numRegisteredTaskManagers", "value": "2"}, {"id": "numRunningJobs", "value": "1"}])"));
}

TEST_F(RestServerTest, MetricStoreQuirks) {
  StartServer(BaseConfig());
  Advance(80s);
  const std::string vertex = "/jobs/" + std::string(kJobId) + "/vertices/" + VertexId(0);
  // Discovery without `get`: ids only, operator-scoped source metrics and Kafka partition gauges.
  Json ids = Get(vertex + "/subtasks/metrics");
  std::set<std::string> names;
  for (const Json& m : ids) {
    EXPECT_EQ(m.size(), 1u);
    names.insert(m["id"].get<std::string>());
  }
  for (const char* id : {"busyTimeMsPerSecond", "Source__source.numRecordsInPerSecond", "Source__source.pendingRecords",
                         "Source__source.KafkaSourceReader.topic.source.partition.3.currentOffset",
                         "Source__source.KafkaSourceReader.topic.source.partition.3.committedOffset"}) {
    EXPECT_TRUE(names.count(id)) << id;
  }
  // One missing metric empties the whole aggregated answer.
  EXPECT_EQ(Get(vertex + "/subtasks/metrics?get=busyTimeMsPerSecond,noSuchMetric"), Json::array());
  // Aggregated values are numbers, plain values strings; subtasks filter; case-insensitive agg.
  Json all = Get(vertex + "/subtasks/metrics?get=numRecordsIn&agg=SUM,min");
  Json first = Get(vertex + "/subtasks/metrics?get=numRecordsIn&agg=sum&subtasks=0");
  ASSERT_TRUE(all[0]["sum"].is_number());
  EXPECT_EQ(all[0].size(), 3u);  // id, sum, min
  EXPECT_LT(first[0]["sum"].get<double>(), all[0]["sum"].get<double>());
  Json plain = Get(vertex + "/metrics?get=0.numRecordsIn,1.numRecordsIn");
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_TRUE(plain[0]["value"].is_string());
  EXPECT_EQ(Get(vertex + "/subtasks/0/metrics?get=numRecordsIn")[0]["value"], plain[0]["value"]);
  int status = 0;
  Get(vertex + "/subtasks/metrics?agg=median", &status);
  EXPECT_EQ(status, 400);
  // The metric store is refetched at most every 10 s.
  const Json before = Get(vertex + "/metrics?get=0.numRecordsIn");
  Advance(4s);
  EXPECT_EQ(Get(vertex + "/metrics?get=0.numRecordsIn"), before);
  Advance(7s);
  EXPECT_NE(Get(vertex + "/metrics?get=0.numRecordsIn"), before);
  // Job metrics and an unknown job's (empty) store.
  Json job = Get("/jobs/" + std::string(kJobId) + "/metrics?get=numRestarts,numberOfCompletedCheckpoints,fullRestarts");
  ASSERT_EQ(job.size(), 3u);
  EXPECT_EQ(job[0]["value"], "0");
  EXPECT_EQ(Get("/jobs/ffffffffffffffffffffffffffffffff/metrics?get=numRestarts"), Json::array());
}

TEST_F(RestServerTest, PendingRecordsAppearOnlyAfterTheFirstRecord) {
  FlinkConfig config = BaseConfig();
  config.Set("trimtab.workload", "0");
  StartServer(config);
  Advance(30s);
  const std::string vertex = "/jobs/" + std::string(kJobId) + "/vertices/" + VertexId(0);
  EXPECT_EQ(Get(vertex + "/subtasks/metrics?get=Source__source.pendingRecords"), Json::array());
  EXPECT_FALSE(Get(vertex + "/subtasks/metrics?get=busyTimeMsPerSecond").empty());
}

TEST_F(RestServerTest, ShapesFollowTheMimickedVersion) {
  StartServer(BaseConfig(), FlinkVersion{1, 18, 0});
  Advance(15s);
  const std::string base = "/jobs/" + std::string(kJobId);
  Json details = Get(base);
  EXPECT_FALSE(details.contains("job-type"));       // since 1.20
  EXPECT_FALSE(details.contains("pending-operators"));  // since 2.0
  EXPECT_EQ(Get("/config")["flink-version"], "1.18.0");
  Json vertex = Get(base + "/vertices/" + VertexId(0));
  EXPECT_TRUE(vertex["subtasks"][0].contains("host"));  // removed in 2.0
  EXPECT_TRUE(Get(base + "/exceptions").contains("all-exceptions"));
  Json job_metrics = Get(base + "/metrics");
  bool full_restarts = false;
  for (const Json& m : job_metrics) full_restarts = full_restarts || m["id"] == "fullRestarts";
  EXPECT_TRUE(full_restarts);  // removed in 2.0
  EXPECT_EQ(Get("/taskmanagers")["taskmanagers"][0]["path"].get<std::string>().substr(0, 6), "pekko.");
}

TEST_F(RestServerTest, JarUploadAndRunInASessionCluster) {
  FlinkConfig config = BaseConfig();
  config.Remove("$internal.pipeline.job-id");
  config.Set("execution.target", "kubernetes-session");
  StartServer(config);
  EXPECT_EQ(Get("/jobs")["jobs"], Json::array());
  http::TestHttpResponse r = client_->Request(
      "POST", "/jars/upload",
      "--b\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"TopSpeedWindowing.jar\"\r\n"
      "Content-Type: application/x-java-archive\r\n\r\nPK\r\n--b--\r\n",
      {"Content-Type: multipart/form-data; boundary=b"});
  ASSERT_EQ(r.status, 200) << r.body;
  Json uploaded = Json::parse(r.body);
  EXPECT_EQ(uploaded["status"], "success");
  const std::string path = uploaded["filename"];
  const std::string jar = path.substr(path.rfind('/') + 1);
  EXPECT_THAT(jar, ::testing::EndsWith("_TopSpeedWindowing.jar"));
  Json jars = Get("/jars");
  EXPECT_EQ(jars["files"][0]["entry"][0]["name"], "org.apache.flink.streaming.examples.windowing.TopSpeedWindowing");
  int status = 0;
  Json run = Call("POST", "/jars/" + jar + "/run?parallelism=3",
                  R"({"jobId": "0000000000000000000000000000beef", "flinkConfiguration": {"pipeline.name": "tsw"}})",
                  &status);
  ASSERT_EQ(status, 200) << run.dump();
  EXPECT_EQ(run["jobid"], "0000000000000000000000000000beef");
  Advance(20s);
  Json job = Get("/jobs/0000000000000000000000000000beef");
  EXPECT_EQ(job["name"], "tsw");
  EXPECT_EQ(job["state"], "RUNNING");
  EXPECT_EQ(job["vertices"].size(), 2u);  // the config's trimtab.job wins over the jar default
  EXPECT_EQ(job["vertices"][0]["parallelism"], 3);
  Call("POST", "/jars/" + jar + "/run", R"({"jobId": "0000000000000000000000000000beef"})", &status);
  EXPECT_EQ(status, 409);  // duplicate job id
  Call("DELETE", "/jars/" + jar, "", &status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(Get("/jars")["files"], Json::array());
}

TEST(JavaDoubleString, FormatsAsJavaDoes) {
  EXPECT_EQ(JavaDoubleString(0), "0.0");
  EXPECT_EQ(JavaDoubleString(1000), "1000.0");
  EXPECT_EQ(JavaDoubleString(12.5), "12.5");
  EXPECT_EQ(JavaDoubleString(1.2345e7), "1.2345E7");
  EXPECT_EQ(JavaDoubleString(2e-4), "2.0E-4");
  EXPECT_EQ(JavaDoubleString(std::nan("")), "NaN");
}

TEST_F(RestServerTest, ABoundedJobShowsFinishedEverywhereAndItsTaskManagersGo) {
  FlinkConfig config = BaseConfig();
  config.Set("trimtab.job", testing::BoundedSmallJob());  // read to the end at ~8 s
  config.Set("resourcemanager.taskmanager-timeout", "5 s");
  config.Set("execution.shutdown-on-application-finish", "false");
  StartServer(config);
  const std::string job = std::string("/jobs/") + kJobId;
  Advance(10s);
  EXPECT_EQ(Get(job + "/execution-result")["status"]["id"], "IN_PROGRESS");
  Advance(4s);  // after the final checkpoint (~12.5 s)
  Json overview = Get("/jobs/overview");
  ASSERT_EQ(overview["jobs"].size(), 1u);
  const Json& o = overview["jobs"][0];
  EXPECT_EQ(o["state"], "FINISHED");
  EXPECT_EQ(o["tasks"]["finished"], 4);
  EXPECT_EQ(o["tasks"]["total"], 4);
  EXPECT_GT(o["end-time"].get<int64_t>(), o["start-time"].get<int64_t>());
  Json details = Get(job);
  EXPECT_EQ(details["state"], "FINISHED");
  for (const Json& v : details["vertices"]) EXPECT_EQ(v["status"], "FINISHED") << v["name"];
  EXPECT_EQ(details["status-counts"]["FINISHED"], 4);
  EXPECT_EQ(Get(job + "/status")["status"], "FINISHED");
  Json result = Get(job + "/execution-result");
  EXPECT_EQ(result["status"]["id"], "COMPLETED");
  EXPECT_EQ(result["job-execution-result"]["application-status"], "SUCCEEDED");
  Json cluster = Get("/overview");
  EXPECT_EQ(cluster["jobs-finished"], 1);
  EXPECT_EQ(cluster["jobs-running"], 0);
  EXPECT_EQ(cluster["slots-available"], cluster["slots-total"]);  // idle TaskManagers ...
  Advance(6s);
  EXPECT_TRUE(Get("/taskmanagers")["taskmanagers"].empty());  // ... released after the timeout
  EXPECT_EQ(Get("/overview")["taskmanagers"], 0);
  EXPECT_EQ(Get(job)["state"], "FINISHED");  // the JobManager still answers
}

}  // namespace
}  // namespace trimtab::sim::flink
