// Session clusters and FlinkSessionJobs: a session FlinkDeployment, a job submitted to it by jar
// upload + run with a persisted job id, a savepoint upgrade, and deletion in the right order.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "operator/testing/controller_test_fixture.h"

namespace trimtab::op::testing {
namespace {

using namespace std::chrono_literals;
using api::ReconciliationState;

constexpr char kSession[] =
    "apiVersion: flink.apache.org/v1beta1\n"
    "kind: FlinkDeployment\n"
    "metadata: {name: session, namespace: default}\n"
    "spec:\n"
    "  image: flink:1.20\n"
    "  flinkVersion: v1_20\n"
    "  serviceAccount: flink\n"
    "  flinkConfiguration:\n"
    "    taskmanager.numberOfTaskSlots: \"2\"\n"
    "    state.savepoints.dir: file:///flink-data/savepoints\n"
    "    state.checkpoints.dir: file:///flink-data/checkpoints\n"
    "  jobManager: {resource: {memory: 1g, cpu: 1}}\n"
    "  taskManager: {resource: {memory: 1g, cpu: 1}}\n";

class SessionJobTest : public ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    default_config_["kubernetes.operator.user.artifacts.allowed-schemes"] = "https;file";
    NewControllers();
    dir_ = std::filesystem::temp_directory_path() /
           ("trimtab-session-job-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    jar_ = (dir_ / "TopSpeedWindowing.jar").string();
    std::ofstream(jar_) << "PK-fake-jar";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string JobYaml(const std::string& mode) {
    return "apiVersion: flink.apache.org/v1beta1\n"
           "kind: FlinkSessionJob\n"
           "metadata: {name: sj, namespace: default}\n"
           "spec:\n"
           "  deploymentName: session\n"
           "  job:\n"
           "    jarURI: file://" + jar_ + "\n"
           "    parallelism: 2\n"
           "    upgradeMode: " + mode + "\n";
  }
  api::FlinkSessionJob Job() {
    StatusOr<api::FlinkSessionJob> j = env_.GetSessionJob("sj");
    EXPECT_TRUE(j.ok()) << j.status().ToString();
    return j.ok() ? *j : api::FlinkSessionJob{};
  }

  std::filesystem::path dir_;
  std::string jar_;
};

TEST_F(SessionJobTest, SubmitUpgradeAndDelete) {
  // The job waits for its session cluster.
  ASSERT_TRUE(env_.Apply(JobYaml("savepoint")).ok());
  EXPECT_EQ(JobPass("sj").requeue_after, Duration(60s));
  EXPECT_TRUE(env_.jm()->Jars().empty());
  // Issue 25: not silently (a Warning event and status.error say why).
  const std::string missing =
      "Session cluster FlinkDeployment session does not exist in namespace default; the job is "
      "submitted once it is deployed";
  EXPECT_EQ(env_.Events("sj", "Missing"), std::vector<std::string>{missing});
  EXPECT_EQ(Job().status.error, missing);

  ASSERT_TRUE(env_.Apply(kSession).ok());
  ASSERT_TRUE(PassUntil("session", [](const api::FlinkDeployment& d) {
    return d.status.reconciliation_status.state == ReconciliationState::kDeployed;
  }));
  StatusOr<Json> dep = env_.client()->Get(DeploymentsResource(), "default", "session");
  ASSERT_TRUE(dep.ok());
  EXPECT_EQ((*dep)["spec"]["template"]["spec"]["containers"][0]["args"][2],
            "kubernetes-jobmanager.sh kubernetes-session");
  EXPECT_FALSE(env_.DeployedConfig("session")->contains("$internal.pipeline.job-id"));
  StartAndStabilize("session");
  EXPECT_EQ(Get("session").status.conditions[0].reason, "JobManagerReady");

  // First submission: jar upload + run with a job id persisted first.
  JobPass("sj");
  api::FlinkSessionJob job = Job();
  EXPECT_EQ(job.status.reconciliation_status.state, ReconciliationState::kDeployed);
  ASSERT_EQ(job.status.job_status.job_id.size(), 32u);
  ASSERT_EQ(env_.jm()->Jars().size(), 0u);  // uploaded, run, deleted
  EXPECT_EQ(env_.jm()->Count("POST", "/jars/upload"), 1);
  const std::string first_id = job.status.job_status.job_id;
  ASSERT_TRUE(env_.jm()->Job(first_id).has_value());
  EXPECT_EQ(env_.jm()->Job(first_id)->name.substr(env_.jm()->Job(first_id)->name.find('_') + 1),
            "TopSpeedWindowing.jar");
  EXPECT_TRUE(job.metadata.HasFinalizer("flinksessionjobs.flink.apache.org/finalizer"));
  JobPass("sj");
  job = Job();
  EXPECT_EQ(job.status.job_status.state, "RUNNING");
  EXPECT_EQ(std::string(api::Name(api::DeriveLifecycleState(job.status))), "STABLE");
  EXPECT_EQ(job.status.error, "");  // the old error went once the job ran (issue 25)

  // A savepoint upgrade: stop-with-savepoint, then a new submission from the savepoint.
  ASSERT_TRUE(env_.UpdateSpec(FlinkSessionJobsResource(), "sj", [](Json& spec) {
    spec["job"]["parallelism"] = 3;
  }).ok());
  JobPass("sj");
  job = Job();
  EXPECT_EQ(job.status.reconciliation_status.state, ReconciliationState::kUpgrading);
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + first_id + "/stop"), 1);
  const std::string savepoint = job.status.job_status.upgrade_savepoint_path;
  EXPECT_FALSE(savepoint.empty());
  JobPass("sj");
  job = Job();
  EXPECT_EQ(job.status.reconciliation_status.state, ReconciliationState::kDeployed);
  EXPECT_NE(job.status.job_status.job_id, first_id);
  EXPECT_EQ(env_.jm()->Count("POST", "/jars/upload"), 2);
  EXPECT_EQ(env_.jm()->Job(job.status.job_status.job_id)->state, "RUNNING");

  // The session cluster cannot go while it has session jobs.
  ASSERT_TRUE(env_.client()->Delete(FlinkDeploymentsResource(), "default", "session").ok());
  EXPECT_EQ(Pass("session").requeue_after, Duration(60s));
  EXPECT_EQ(env_.Events("session", "CleanupFailed"),
            std::vector<std::string>{"The session jobs [sj] should be deleted first"});

  // Deleting the job cancels it and releases the finalizer.
  const std::string second_id = job.status.job_status.job_id;
  ASSERT_TRUE(env_.client()->Delete(FlinkSessionJobsResource(), "default", "sj").ok());
  JobPass("sj");
  EXPECT_EQ(env_.GetSessionJob("sj").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(env_.jm()->Job(second_id)->state, "CANCELED");

  // Now the session cluster goes too.
  for (int i = 0; i < 300 && env_.Get(FlinkDeploymentsResource(), "session").ok(); ++i) {
    ASSERT_TRUE(TryPass("session").ok());
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(env_.Get(FlinkDeploymentsResource(), "session").status().code(), StatusCode::kNotFound);
}

TEST_F(SessionJobTest, JobOnAnApplicationClusterIsInvalid) {
  DeployToStable(AppYaml("session", "stateless"), "session");
  ASSERT_TRUE(env_.Apply(JobYaml("stateless")).ok());
  EXPECT_FALSE(JobPass("sj").requeue_after.has_value());
  EXPECT_EQ(Job().status.error, "Can not submit session job to application cluster");
  EXPECT_EQ(env_.jm()->Count("POST", "/jars/upload"), 0);
}

}  // namespace
}  // namespace trimtab::op::testing
