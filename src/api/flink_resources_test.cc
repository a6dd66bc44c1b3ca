// Codecs of FlinkDeployment / FlinkSessionJob against the upstream example manifests and
// hand-written error cases.
#include "api/flink_resources.h"

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::api {
namespace {

const std::string kExamples = TRIMTAB_SOURCE_DIR "/../shared/reference/flink-operator/examples";

std::vector<Json> LoadExample(const std::string& name) {
  StatusOr<std::string> text = ReadFile(kExamples + "/" + name);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  if (!text.ok()) return {};
  StatusOr<std::vector<Json>> docs = ParseYamlStream(*text, name);
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  return docs.ok() ? *docs : std::vector<Json>{};
}

Json FindKind(const std::vector<Json>& docs, std::string_view kind) {
  for (const Json& d : docs) {
    if (d.value("kind", "") == kind) return d;
  }
  return nullptr;
}

TEST(FlinkResourcesTest, EveryUpstreamExampleDecodesAndRoundTrips) {
  int deployments = 0;
  int session_jobs = 0;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    ++files;
    const std::string name = entry.path().filename().string();
    for (const Json& doc : LoadExample(name)) {
      const std::string kind = doc.value("kind", "");
      if (kind == kFlinkDeploymentKind) {
        StatusOr<FlinkDeployment> fd = DecodeFlinkDeployment(doc);
        ASSERT_TRUE(fd.ok()) << name << ": " << fd.status().ToString();
        StatusOr<FlinkDeployment> again = DecodeFlinkDeployment(EncodeFlinkDeployment(*fd));
        ASSERT_TRUE(again.ok()) << name << ": " << again.status().ToString();
        EXPECT_EQ(again->spec, fd->spec) << name;
        EXPECT_EQ(again->status, fd->status) << name;
        ++deployments;
      } else if (kind == kFlinkSessionJobKind) {
        StatusOr<FlinkSessionJob> sj = DecodeFlinkSessionJob(doc);
        ASSERT_TRUE(sj.ok()) << name << ": " << sj.status().ToString();
        StatusOr<FlinkSessionJob> again = DecodeFlinkSessionJob(EncodeFlinkSessionJob(*sj));
        ASSERT_TRUE(again.ok()) << name;
        EXPECT_EQ(again->spec, sj->spec) << name;
        ++session_jobs;
      }
    }
  }
  EXPECT_EQ(files, 17);
  EXPECT_EQ(deployments, 11);  // every FlinkDeployment document of the 17 files
  EXPECT_EQ(session_jobs, 3);
}

TEST(FlinkResourcesTest, BasicExampleFields) {
  StatusOr<FlinkDeployment> fd = DecodeFlinkDeployment(FindKind(LoadExample("basic.yaml"),
                                                                kFlinkDeploymentKind));
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  EXPECT_EQ(fd->metadata.name(), "basic-example");
  EXPECT_EQ(fd->spec.image, "flink:2.2");
  EXPECT_EQ(fd->spec.flink_version, FlinkVersion::kV2_2);
  EXPECT_EQ(fd->spec.service_account, "flink");
  EXPECT_EQ(fd->spec.flink_configuration.at("taskmanager.numberOfTaskSlots"), "2");
  ASSERT_TRUE(fd->spec.job.has_value());
  EXPECT_EQ(fd->spec.job->jar_uri,
            "local:///opt/flink/examples/streaming/StateMachineExample.jar");
  EXPECT_EQ(fd->spec.job->parallelism, 2);
  EXPECT_EQ(fd->spec.job->upgrade_mode, UpgradeMode::kStateless);
  EXPECT_EQ(fd->spec.job->state, JobState::kRunning);
  ASSERT_TRUE(fd->spec.job_manager.has_value());
  EXPECT_EQ(fd->spec.job_manager->replicas, 1);
  EXPECT_EQ(fd->spec.job_manager->resources["requests"]["memory"], "2048m");
  EXPECT_EQ(fd->spec.EffectiveMode(), DeploymentMode::kNative);
  EXPECT_FALSE(fd->IsSessionCluster());
}

TEST(FlinkResourcesTest, NestedFlinkConfigurationIsFlattened) {
  StatusOr<FlinkDeployment> fd = DecodeFlinkDeployment(
      FindKind(LoadExample("autoscaling-autoscaling.yaml"), kFlinkDeploymentKind));
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  const FlinkConfiguration& c = fd->spec.flink_configuration;
  EXPECT_EQ(c.at("job.autoscaler.enabled"), "true");
  EXPECT_EQ(c.at("job.autoscaler.target.utilization.boundary"), "0.1");
  EXPECT_EQ(c.at("state.savepoints.dir"), "file:///flink-data/savepoints");
  EXPECT_EQ(c.at("high-availability.type"), "kubernetes");
  EXPECT_EQ(c.at("jobmanager.scheduler"), "adaptive");
  EXPECT_EQ(fd->spec.job->upgrade_mode, UpgradeMode::kLastState);
  EXPECT_EQ(fd->spec.job->args, std::vector<std::string>{"10"});
  EXPECT_EQ(fd->spec.flink_version, FlinkVersion::kV1_20);
}

TEST(FlinkResourcesTest, ArraysJoinWithSemicolons) {
  StatusOr<FlinkConfiguration> c = FlattenFlinkConfiguration(
      Json::parse(R"({"a":{"b":["x","y"],"c":null},"d":1.5})"), "spec.flinkConfiguration");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->at("a.b"), "x;y");
  EXPECT_EQ(c->count("a.c"), 0u);
  EXPECT_EQ(c->at("d"), "1.5");
}

TEST(FlinkResourcesTest, CanaryWithoutSpecDecodes) {
  StatusOr<FlinkDeployment> fd =
      DecodeFlinkDeployment(FindKind(LoadExample("canary.yaml"), kFlinkDeploymentKind));
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  EXPECT_EQ(fd->metadata.labels().at("flink.apache.org/canary"), "true");
  EXPECT_TRUE(fd->IsSessionCluster());
  EXPECT_EQ(fd->status.job_manager_deployment_status, JobManagerDeploymentStatus::kMissing);
}

TEST(FlinkResourcesTest, SessionJobFields) {
  std::vector<Json> docs = LoadExample("basic-session-deployment-and-job.yaml");
  StatusOr<FlinkSessionJob> sj = DecodeFlinkSessionJob(FindKind(docs, kFlinkSessionJobKind));
  ASSERT_TRUE(sj.ok()) << sj.status().ToString();
  EXPECT_EQ(sj->spec.deployment_name, "basic-session-deployment-example");
  EXPECT_EQ(sj->spec.job->parallelism, 4);
}

struct BadCase {
  const char* json;
  const char* error;
};

TEST(FlinkResourcesTest, ErrorsNameTheFieldPath) {
  const BadCase cases[] = {
      {R"({"kind":"FlinkDeployment","spec":{"job":{"parallelism":"two"}}})",
       "spec.job.parallelism: expected integer, got string"},
      {R"({"kind":"FlinkDeployment","spec":{"job":{"upgradeMode":"fast"}}})",
       "spec.job.upgradeMode: unknown upgrade mode \"fast\""},
      {R"({"kind":"FlinkDeployment","spec":{"flinkVersion":"v3_0"}})",
       "spec.flinkVersion: unknown Flink version \"v3_0\""},
      {R"({"kind":"FlinkDeployment","spec":{"job":{"args":["a",1]}}})",
       "spec.job.args[1]: expected string, got number"},
      {R"({"kind":"FlinkDeployment","spec":{"flinkConfiguration":{"a":{"b":{}},"c":[{}]}}})",
       "spec.flinkConfiguration.c[0]: expected a scalar, got object"},
      {R"({"kind":"FlinkDeployment","spec":{"jobManager":{"replicas":1.5}}})",
       "spec.jobManager.replicas: expected an integer"},
      {R"({"kind":"FlinkDeployment","status":{"jobManagerDeploymentStatus":"UP"}})",
       "status.jobManagerDeploymentStatus: unknown JobManager deployment status \"UP\""},
      {R"({"kind":"FlinkSessionJob"})", "kind: expected \"FlinkDeployment\""},
  };
  for (const BadCase& c : cases) {
    StatusOr<FlinkDeployment> fd = DecodeFlinkDeployment(Json::parse(c.json));
    ASSERT_FALSE(fd.ok()) << c.json;
    EXPECT_EQ(fd.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(fd.status().message().find(c.error), std::string::npos)
        << "got: " << fd.status().message() << "\nwant: " << c.error;
  }
}

TEST(FlinkResourcesTest, StatusRoundTripKeepsEveryField) {
  FlinkDeploymentStatus st;
  st.job_status.job_id = "0123456789abcdef0123456789abcdef";
  st.job_status.job_name = "job";
  st.job_status.state = "RUNNING";
  st.job_status.start_time = "1700000000000";
  st.job_status.update_time = "1700000001000";
  st.job_status.upgrade_savepoint_path = "file:///sp/1";
  st.job_status.savepoint_info.trigger_id = "abc";
  st.job_status.savepoint_info.trigger_timestamp = 5;
  st.job_status.savepoint_info.trigger_type = SnapshotTriggerType::kManual;
  st.job_status.savepoint_info.format_type = SavepointFormatType::kCanonical;
  st.job_status.savepoint_info.last_savepoint =
      Savepoint{7, "file:///sp/0", SnapshotTriggerType::kUpgrade, SavepointFormatType::kNative, 3};
  st.job_status.savepoint_info.savepoint_history.push_back(
      *st.job_status.savepoint_info.last_savepoint);
  st.job_status.checkpoint_info.last_checkpoint =
      Checkpoint{9, SnapshotTriggerType::kPeriodic, CheckpointType::kFull, std::nullopt};
  st.error = ErrorJson("x", "boom");
  st.observed_generation = 4;
  st.reconciliation_status.state = ReconciliationState::kDeployed;
  st.reconciliation_status.last_reconciled_spec = "{\"spec\":{}}";
  st.reconciliation_status.reconciliation_timestamp = 11;
  st.cluster_info["flink-version"] = "1.20.0";
  st.job_manager_deployment_status = JobManagerDeploymentStatus::kReady;
  st.task_manager = TaskManagerInfo{"component=taskmanager,app=x", 2};
  st.conditions.push_back(Condition{"Running", "True", "Running", "Job status RUNNING",
                                    "2024-01-01T00:00:00Z", std::nullopt});
  Json encoded = EncodeFlinkDeploymentStatus(st);
  EXPECT_EQ(encoded["lifecycleState"], "DEPLOYED");
  StatusOr<FlinkDeploymentStatus> back = DecodeFlinkDeploymentStatus(encoded, "status");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  st.lifecycle_state = LifecycleState::kDeployed;
  EXPECT_EQ(*back, st);
  EXPECT_EQ(Json::parse(st.error), Json::parse(R"({"type":"x","message":"boom"})"));
}

}  // namespace
}  // namespace trimtab::api
