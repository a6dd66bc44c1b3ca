// FlinkRestClient against the FakeFlinkRestServer (real HTTP on loopback).
#include "adapters/flink/rest_client.h"

#include <limits>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "adapters/flink/tcp_probe.h"
#include "tests/support/fake_flink_rest.h"
#include "adapters/http/test_client.h"

namespace trimtab::flink {
namespace {

using trimtab::testing::FakeFlinkJob;
using trimtab::testing::FakeFlinkRestServer;

constexpr char kJob[] = "0123456789abcdef0123456789abcdef";

class RestClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto jm = FakeFlinkRestServer::Create({.flink_version = "1.20.1"});
    ASSERT_TRUE(jm.ok()) << jm.status().ToString();
    jm_ = std::move(*jm);
    auto http = http::HttpClient::Create({});
    ASSERT_TRUE(http.ok());
    http_ = std::shared_ptr<const http::HttpClient>(std::move(*http));
    rest_ = std::make_unique<FlinkRestClient>(http_, jm_->base_url() + "/",
                                              std::chrono::milliseconds(2000));
    jm_->AddJob(FakeFlinkJob{.id = kJob, .name = "sm"});
  }

  std::unique_ptr<FakeFlinkRestServer> jm_;
  std::shared_ptr<const http::HttpClient> http_;
  std::unique_ptr<FlinkRestClient> rest_;
};

TEST_F(RestClientTest, JobsConfigAndCancel) {
  StatusOr<std::vector<JobOverview>> jobs = rest_->ListJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].id, kJob);
  EXPECT_EQ((*jobs)[0].state, "RUNNING");
  EXPECT_EQ((*jobs)[0].tasks.at("running"), 2);
  StatusOr<ClusterConfig> config = rest_->Config();
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->flink_version, "1.20.1");

  ASSERT_TRUE(rest_->Cancel(kJob).ok());
  EXPECT_EQ(jm_->Job(kJob)->state, "CANCELED");
  Status again = rest_->Cancel(kJob);
  EXPECT_EQ(again.code(), StatusCode::kConflict);
  EXPECT_NE(again.message().find("PATCH /jobs/" + std::string(kJob) + "?mode=cancel"),
            std::string::npos) << again.message();
  EXPECT_NE(again.message().find("already reached another terminal state (CANCELED)"),
            std::string::npos) << again.message();
  StatusOr<ExecutionResult> result = rest_->GetExecutionResult(kJob);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->completed);
  EXPECT_EQ(result->application_status, "CANCELED");
}

TEST_F(RestClientTest, StopWithSavepointAndCheckpointHistory) {
  jm_->HoldOperations(true);
  StatusOr<std::string> trigger =
      rest_->StopWithSavepoint(kJob, {.target_directory = "s3://b/sp", .drain = true});
  ASSERT_TRUE(trigger.ok()) << trigger.status().ToString();
  StatusOr<AsyncOperation> op = rest_->SavepointStatus(kJob, *trigger);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  EXPECT_FALSE(op->completed);
  jm_->CompleteOperations();
  op = rest_->SavepointStatus(kJob, *trigger);
  ASSERT_TRUE(op.ok());
  EXPECT_TRUE(op->completed);
  EXPECT_EQ(op->location, "s3://b/sp/savepoint-012345-1");
  EXPECT_TRUE(op->failure.empty());
  EXPECT_TRUE(jm_->Job(kJob)->last_stop_drain);
  EXPECT_EQ(jm_->Job(kJob)->state, "FINISHED");

  StatusOr<CheckpointStats> stats = rest_->Checkpoints(kJob);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_TRUE(stats->latest_savepoint.has_value());
  EXPECT_EQ(stats->latest_savepoint->external_path, "s3://b/sp/savepoint-012345-1");
  EXPECT_FALSE(stats->latest_completed.has_value());
  EXPECT_EQ(stats->history.size(), 1u);

  StatusOr<AsyncOperation> unknown = rest_->SavepointStatus(kJob, "nope");
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
}

TEST_F(RestClientTest, CheckpointTriggerDisposalAndRequirements) {
  StatusOr<std::string> trigger = rest_->TriggerCheckpoint(kJob, "FULL");
  ASSERT_TRUE(trigger.ok()) << trigger.status().ToString();
  StatusOr<AsyncOperation> op = rest_->CheckpointStatus(kJob, *trigger);
  ASSERT_TRUE(op.ok());
  EXPECT_TRUE(op->completed);
  EXPECT_EQ(op->checkpoint_id, 1);

  StatusOr<std::string> dispose = rest_->DisposeSavepoint("s3://b/sp/old");
  ASSERT_TRUE(dispose.ok());
  ASSERT_TRUE(rest_->DisposalStatus(*dispose)->completed);
  EXPECT_EQ(jm_->DisposedSavepoints(), std::vector<std::string>{"s3://b/sp/old"});

  // The default scheduler rejects requirements with a 500 whose first error line is kept.
  StatusOr<ResourceRequirements> req = rest_->GetResourceRequirements(kJob);
  EXPECT_EQ(req.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(req.status().message().find(
                "HTTP 500: Internal server error.; java.lang.UnsupportedOperationException: The "
                "DefaultScheduler does not support changing the parallelism without a job restart."),
            std::string::npos) << req.status().message();

  jm_->AddJob(FakeFlinkJob{.id = kJob, .scheduler = "adaptive",
                      .requirements = {{"v1", {1, 2}}, {"v2", {1, 4}}}});
  req = rest_->GetResourceRequirements(kJob);
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_EQ(req->at("v2"), (ParallelismBounds{1, 4}));
  Status put = rest_->PutResourceRequirements(kJob, {{"v1", {1, 3}}});
  EXPECT_EQ(put.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(put.message().find("missing job vertex [v2]"), std::string::npos) << put.message();
  ASSERT_TRUE(rest_->PutResourceRequirements(kJob, {{"v1", {1, 3}}, {"v2", {1, 4}}}).ok());
  EXPECT_EQ(jm_->Job(kJob)->requirements.at("v1").upper, 3);
}

TEST_F(RestClientTest, JarsUploadRunDelete) {
  StatusOr<std::string> jar = rest_->UploadJar("top-speed.jar", std::string("PK\x03\x04jar", 7));
  ASSERT_TRUE(jar.ok()) << jar.status().ToString();
  EXPECT_TRUE(jar->ends_with("_top-speed.jar"));
  ASSERT_EQ(jm_->Jars().size(), 1u);
  EXPECT_EQ(jm_->Jars()[0].bytes, std::string("PK\x03\x04jar", 7));
  StatusOr<std::string> job = rest_->RunJar(
      *jar, {.entry_class = "org.Main", .program_args = {"a", "b"}, .parallelism = 3,
             .job_id = "00000000000000000000000000000042", .savepoint_path = "s3://sp",
             .flink_configuration = {{"k", "v"}}});
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(*job, "00000000000000000000000000000042");
  const RunJarRequest& run = jm_->Jars()[0].runs[0];
  EXPECT_EQ(run.program_args, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(run.parallelism, 3);
  EXPECT_EQ(run.savepoint_path, "s3://sp");
  EXPECT_EQ(run.flink_configuration.at("k"), "v");
  ASSERT_TRUE(rest_->DeleteJar(*jar).ok());
  EXPECT_EQ(rest_->DeleteJar(*jar).code(), StatusCode::kNotFound);
}

TEST_F(RestClientTest, ErrorsNameTheCallAndCarryFlinkErrors) {
  StatusOr<CheckpointStats> missing = rest_->Checkpoints("ffffffffffffffffffffffffffffffff");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "Flink REST GET /jobs/ffffffffffffffffffffffffffffffff/checkpoints (" +
                jm_->base_url() + "): HTTP 404: Job ffffffffffffffffffffffffffffffff not found");
  jm_->FailNext("GET", "/jobs/overview", 503, "Service temporarily unavailable\nstack");
  StatusOr<std::vector<JobOverview>> jobs = rest_->ListJobs();
  EXPECT_EQ(jobs.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(jobs.status().message().find("HTTP 503: Service temporarily unavailable"),
            std::string::npos);
  EXPECT_EQ(jobs.status().message().find("stack"), std::string::npos);

  jm_->SetDelay(std::chrono::milliseconds(600));
  FlinkRestClient impatient(http_, jm_->base_url(), std::chrono::milliseconds(100));
  StatusOr<ClusterConfig> slow = impatient.Config();
  EXPECT_EQ(slow.status().code(), StatusCode::kDeadlineExceeded) << slow.status().ToString();
  EXPECT_NE(slow.status().message().find("Flink REST GET /config"), std::string::npos);
}

// Issue 28: a 200 answer of bytes that are neither JSON nor UTF-8 (the fault proxy's "garbage")
// aborted the operator: the error quoted them and writing that message as JSON threw. Errors
// quote such bytes as \xNN and stay writable as JSON.
TEST_F(RestClientTest, GarbageAnswersGiveErrorsThatAreValidUtf8) {
  const std::string garbage = std::string(1, '\0') + "\xff<html>not json{{{";
  for (int status : {200, 503}) {
    jm_->AnswerNextRaw("GET", "/jobs/overview", status, garbage);
    StatusOr<std::vector<JobOverview>> jobs = rest_->ListJobs();
    ASSERT_FALSE(jobs.ok()) << status;
    EXPECT_EQ(jobs.status().code(), StatusCode::kUnavailable) << jobs.status().ToString();
    EXPECT_TRUE(IsValidUtf8(jobs.status().message())) << jobs.status().message();
    EXPECT_NE(jobs.status().message().find("\\xFF<html>not json"), std::string::npos)
        << jobs.status().message();
    EXPECT_NO_THROW(Json({{"message", jobs.status().message()}}).dump());
  }
}

TEST(TcpProbeTest, OpenRefusedAndBadHost) {
  auto jm = FakeFlinkRestServer::Create();
  ASSERT_TRUE(jm.ok());
  EXPECT_TRUE(ProbeTcp("127.0.0.1", (*jm)->port(), std::chrono::milliseconds(1000)).ok());
  http::RefusingPort refusing;
  EXPECT_EQ(ProbeTcp("127.0.0.1", refusing.port(), std::chrono::milliseconds(1000)).code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(ProbeTcp("no-such-host.invalid", 80, std::chrono::milliseconds(1000)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(*HostPortOf("http://sm-rest.prod:8081"), std::make_pair(std::string("sm-rest.prod"), 8081));
  EXPECT_EQ(*HostPortOf("https://[::1]/x"), std::make_pair(std::string("::1"), 443));
  EXPECT_FALSE(HostPortOf("sm-rest:8081").ok());
}

// Issue 27 (found by fuzz_flink_rest): a checkpoint id or count Flink would never send, as a
// huge floating-point number, converted to int64 with undefined behaviour; it is clamped.
TEST(ParseCheckpointStatsTest, Issue27HugeNumbersAreClamped) {
  const Json doc = Json::parse(R"({"counts": {"in_progress": 1e300, "completed": -1e300,
      "failed": 2.5},
      "latest": {"completed": {"id": 5.5e51, "status": "COMPLETED", "trigger_timestamp": 1}}})");
  CheckpointStats stats = ParseCheckpointStats(doc);
  EXPECT_EQ(stats.in_progress, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(stats.completed, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(stats.failed, 2);
  ASSERT_TRUE(stats.latest_completed.has_value());
  EXPECT_EQ(stats.latest_completed->id, std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace trimtab::flink
