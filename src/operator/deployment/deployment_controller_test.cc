// FlinkDeploymentController against the in-process API server and a fake JobManager: first
// deployment per the pod contract, readiness, snapshots, suspend/resume, invalid specs,
// JobManager recovery and deletion.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "operator/testing/controller_test_fixture.h"

namespace trimtab::op::testing {
namespace {

using namespace std::chrono_literals;
using JmStatus = api::JobManagerDeploymentStatus;

TEST_F(ControllerTest, FirstDeployCreatesTheContractObjectsAndBecomesStable) {
  ASSERT_TRUE(env_.Apply(AppYaml("sm", "savepoint")).ok());
  ReconcileResult r = Pass("sm");
  EXPECT_EQ(r.requeue_after, Duration(10s));  // progress check while the JobManager deploys

  api::FlinkDeployment fd = Get("sm");
  EXPECT_TRUE(fd.metadata.HasFinalizer("flinkdeployments.flink.apache.org/finalizer"));
  EXPECT_EQ(fd.status.reconciliation_status.state, api::ReconciliationState::kDeployed);
  EXPECT_EQ(fd.status.job_manager_deployment_status, JmStatus::kDeploying);
  EXPECT_EQ(fd.status.job_status.state, "RECONCILING");
  EXPECT_EQ(fd.status.observed_generation, 1);
  ASSERT_EQ(fd.status.job_status.job_id.size(), 32u);
  EXPECT_EQ(Lifecycle(fd), "DEPLOYED");
  StatusOr<api::SpecWithMeta> recorded =
      api::ParseSpecWithMeta(fd.status.reconciliation_status.last_reconciled_spec);
  ASSERT_TRUE(recorded.ok());
  EXPECT_TRUE(recorded->meta->first_deployment);
  EXPECT_EQ(recorded->spec["job"]["state"], "running");
  EXPECT_EQ(recorded->spec["job"]["upgradeMode"], "stateless");  // nothing to restore from yet

  // The objects of docs/design/flink-pods.md.
  StatusOr<Json> dep = env_.client()->Get(DeploymentsResource(), "default", "sm");
  ASSERT_TRUE(dep.ok()) << dep.status().ToString();
  EXPECT_EQ((*dep)["metadata"]["labels"]["component"], "jobmanager");
  EXPECT_EQ((*dep)["metadata"]["annotations"]["flinkdeployment.flink.apache.org/generation"], "1");
  EXPECT_EQ((*dep)["metadata"]["ownerReferences"][0]["uid"], fd.metadata.uid());
  EXPECT_EQ((*dep)["spec"]["template"]["spec"]["containers"][0]["args"][2],
            "kubernetes-jobmanager.sh kubernetes-application");
  StatusOr<Json> rest = env_.client()->Get(ServicesResource(), "default", "sm-rest");
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ((*rest)["metadata"]["ownerReferences"][0]["uid"], (*dep)["metadata"]["uid"]);
  EXPECT_TRUE(env_.client()->Get(ServicesResource(), "default", "sm").ok());
  StatusOr<Json> conf = env_.DeployedConfig("sm");
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  EXPECT_EQ((*conf)["$internal.pipeline.job-id"], fd.status.job_status.job_id);
  EXPECT_EQ((*conf)["kubernetes.cluster-id"], "sm");
  EXPECT_EQ((*conf)["parallelism.default"], "2");
  EXPECT_FALSE(conf->contains("execution.savepoint.path"));
  EXPECT_EQ(env_.Events("sm", "Submit"), std::vector<std::string>{"Starting deployment"});

  // Not available yet: still deploying.
  Pass("sm");
  EXPECT_EQ(Get("sm").status.job_manager_deployment_status, JmStatus::kDeploying);
  // Available and the REST port accepts connections: one rest-ready delay, then READY.
  ASSERT_TRUE(env_.StartCluster("sm").ok());
  r = Pass("sm");
  EXPECT_EQ(Get("sm").status.job_manager_deployment_status, JmStatus::kDeployedNotReady);
  EXPECT_EQ(r.requeue_after, Duration(10s));
  r = Pass("sm");
  fd = Get("sm");
  EXPECT_EQ(fd.status.job_manager_deployment_status, JmStatus::kReady);
  EXPECT_EQ(fd.status.job_status.state, "RUNNING");
  EXPECT_EQ(Lifecycle(fd), "STABLE");
  EXPECT_EQ(r.requeue_after, Duration(60s));
  ASSERT_EQ(fd.status.conditions.size(), 1u);
  EXPECT_EQ(fd.status.conditions[0].status, "True");
  EXPECT_EQ(fd.status.conditions[0].reason, "Running");
  EXPECT_EQ(fd.status.task_manager->replicas, 1);
  EXPECT_EQ(fd.status.task_manager->label_selector, "component=taskmanager,app=sm");
  EXPECT_EQ(fd.status.cluster_info.at("flink-version"), "1.20.0");
  EXPECT_TRUE(fd.status.error.empty());
  EXPECT_EQ(env_.Events("sm", "JobStatusChanged"),
            std::vector<std::string>{"Job status changed from RECONCILING to RUNNING"});
  // A pass without changes writes nothing.
  const int64_t writes = deployments_->status_recorder().WritesForTest();
  Pass("sm");
  EXPECT_EQ(deployments_->status_recorder().WritesForTest(), writes);
}

// Issue 28 (found with RBAC): the first deploy failed after the JobManager Deployment was
// created (403 creating the REST Service), and the next passes only waited for a JobManager
// nobody could reach. The observer creates the Services that are missing.
TEST_F(ControllerTest, ServicesMissingAfterAHalfFailedDeployAreCreated) {
  ASSERT_TRUE(env_.Apply(AppYaml("sm", "savepoint")).ok());
  ASSERT_TRUE(PassUntil("sm", [](const api::FlinkDeployment& fd) {
    return fd.status.job_manager_deployment_status == api::JobManagerDeploymentStatus::kDeploying;
  }));
  for (const char* name : {"sm", "sm-rest"}) {
    ASSERT_TRUE(env_.client()->Delete(ServicesResource(), "default", name, {}).ok());
  }
  Pass("sm");
  for (const char* name : {"sm", "sm-rest"}) {
    StatusOr<Json> svc = env_.client()->Get(ServicesResource(), "default", name);
    ASSERT_TRUE(svc.ok()) << name << ": " << svc.status().ToString();
    EXPECT_EQ((*svc)["metadata"]["ownerReferences"][0]["kind"], "Deployment") << name;
  }
  EXPECT_EQ(env_.Events("sm", "RecoverDeployment").size(), 2u);
  StartAndStabilize("sm");
}

TEST_F(ControllerTest, ManualSavepointNonce) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["job"]["savepointTriggerNonce"] = 7;
  }).ok());
  ReconcileResult r = Pass("sm");
  api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/savepoints"), 1);
  EXPECT_FALSE(fd.status.job_status.savepoint_info.trigger_id.empty());
  EXPECT_EQ(fd.status.job_status.savepoint_info.trigger_type, api::SnapshotTriggerType::kManual);
  EXPECT_EQ(r.requeue_after, Duration(10s));  // progress check while a savepoint is pending
  EXPECT_EQ(Lifecycle(fd), "STABLE");         // IGNORE-class change: no upgrade

  Pass("sm");
  fd = Get("sm");
  const api::SavepointInfo& info = fd.status.job_status.savepoint_info;
  EXPECT_TRUE(info.trigger_id.empty());
  ASSERT_TRUE(info.last_savepoint.has_value());
  EXPECT_EQ(info.last_savepoint->location, "file:///flink-data/savepoints/savepoint-" + job.substr(0, 6) + "-1");
  EXPECT_EQ(info.last_savepoint->trigger_type, api::SnapshotTriggerType::kManual);
  EXPECT_EQ(info.last_savepoint->trigger_nonce, 7);
  EXPECT_EQ(info.savepoint_history.size(), 1u);
  EXPECT_EQ(Recorded(fd)["job"]["savepointTriggerNonce"], 7);
  EXPECT_EQ(env_.jm()->Job(job)->last_savepoint_dir, "file:///flink-data/savepoints");
  // The nonce is reconciled: no second savepoint.
  Pass("sm");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/savepoints"), 1);
  EXPECT_EQ(Lifecycle(Get("sm")), "STABLE");
  EXPECT_EQ(DeploymentAnnotation("sm"), "1");
}

TEST_F(ControllerTest, PeriodicCheckpoints) {
  const std::string job = DeployToStable(
      AppYaml("sm", "savepoint", "    kubernetes.operator.periodic.checkpoint.interval: 5 min\n"), "sm");
  const int before = env_.jm()->Count("POST", "/jobs/" + job + "/checkpoints");
  env_.clock()->Advance(std::chrono::minutes(6));
  Pass("sm");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/checkpoints"), before + 1);
  Pass("sm");
  api::FlinkDeployment fd = Get("sm");
  ASSERT_TRUE(fd.status.job_status.checkpoint_info.last_checkpoint.has_value());
  EXPECT_EQ(fd.status.job_status.checkpoint_info.last_checkpoint->trigger_type,
            api::SnapshotTriggerType::kPeriodic);
  EXPECT_GT(fd.status.job_status.checkpoint_info.last_periodic_checkpoint_timestamp, 0);
  Pass("sm");  // not due again yet
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/checkpoints"), before + 1);
}

TEST_F(ControllerTest, InvalidSpecKeepsTheJobRunningOnTheLastValidSpec) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["job"]["parallelism"] = 0;
    spec["image"] = "flink:1.20.1";  // would be an upgrade if the spec were valid
  }).ok());
  Pass("sm");
  Pass("sm");
  api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(fd.status.error, "Job parallelism must be larger than 0");
  EXPECT_EQ(env_.Events("sm", "ValidationError"),
            std::vector<std::string>{"Job parallelism must be larger than 0"});
  EXPECT_EQ(fd.status.job_status.state, "RUNNING");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 0);
  EXPECT_EQ(DeploymentAnnotation("sm"), "1");
  EXPECT_EQ(fd.status.observed_generation, 1);  // the invalid generation is not reconciled

  // Fixing the spec upgrades to it.
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["job"]["parallelism"] = 3;
  }).ok());
  Pass("sm");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 1);
  EXPECT_EQ(Get("sm").status.reconciliation_status.state, api::ReconciliationState::kUpgrading);
}

TEST_F(ControllerTest, InvalidFirstSpecIsNotDeployed) {
  ASSERT_TRUE(env_.Apply(AppYaml("sm", "savepoint", "    kubernetes.cluster-id: other\n")).ok());
  ReconcileResult r = Pass("sm");
  EXPECT_FALSE(r.requeue_after.has_value());
  api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(fd.status.error, "Forbidden Flink config key: kubernetes.cluster-id");
  EXPECT_EQ(Lifecycle(fd), "FAILED");
  EXPECT_FALSE(env_.client()->Get(DeploymentsResource(), "default", "sm").ok());
}

TEST_F(ControllerTest, SuspendAndResumeWithSavepoint) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["job"]["state"] = "suspended";
  }).ok());
  Pass("sm");
  api::FlinkDeployment fd = Get("sm");
  const std::string savepoint = "file:///flink-data/savepoints/savepoint-" + job.substr(0, 6) + "-1";
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 1);
  EXPECT_EQ(fd.status.job_status.upgrade_savepoint_path, savepoint);
  EXPECT_EQ(fd.status.reconciliation_status.state, api::ReconciliationState::kDeployed);
  EXPECT_EQ(Lifecycle(fd), "SUSPENDED");
  EXPECT_EQ(env_.Events("sm", "Suspended"), std::vector<std::string>{"Suspending existing deployment."});
  Pass("sm");  // nothing more happens while suspended
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 1);
  EXPECT_EQ(Lifecycle(Get("sm")), "SUSPENDED");

  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["job"]["state"] = "running";
  }).ok());
  ASSERT_TRUE(PassUntil("sm", [](const api::FlinkDeployment& d) {
    return d.status.reconciliation_status.state == api::ReconciliationState::kDeployed &&
           d.status.job_manager_deployment_status == JmStatus::kDeploying;
  }));
  StatusOr<Json> conf = env_.DeployedConfig("sm");
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ((*conf)["execution.savepoint.path"], savepoint);
  EXPECT_EQ(DeploymentAnnotation("sm"), "3");
  const std::string resumed = StartAndStabilize("sm");
  EXPECT_NE(resumed, job);  // every deployment gets a fresh job id
}

TEST_F(ControllerTest, MissingJobManagerIsRecoveredForStatelessJobs) {
  DeployToStable(AppYaml("sm", "stateless"), "sm");
  ASSERT_TRUE(env_.client()->Delete(DeploymentsResource(), "default", "sm",
                                    {.propagation = kube::PropagationPolicy::kBackground}).ok());
  // Let the API server's garbage collector take the owned ConfigMap first: it deletes by name,
  // so a collection still in flight could hit the recreated object.
  for (int i = 0; i < 300 && env_.client()->Get(kube::ConfigMapsResource(), "default",
                                                "flink-config-sm").ok(); ++i) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(PassUntil("sm", [&](const api::FlinkDeployment&) {
    return !env_.Events("sm", "RecoverDeployment").empty();
  }));
  EXPECT_EQ(env_.Events("sm", "Missing"), std::vector<std::string>{"Missing JobManager deployment"});
  EXPECT_TRUE(PassUntil("sm", [](const api::FlinkDeployment& d) {
    return d.status.job_manager_deployment_status == JmStatus::kDeploying;
  }));
  EXPECT_TRUE(env_.client()->Get(DeploymentsResource(), "default", "sm").ok());
  StartAndStabilize("sm");
}

TEST_F(ControllerTest, DeletionCancelsTheJobAndRemovesTheCluster) {
  const std::string job = DeployToStable(
      AppYaml("sm", "last-state",
              "    high-availability.type: kubernetes\n"
              "    high-availability.storageDir: file:///flink-data/ha\n"),
      "sm");
  ASSERT_TRUE(env_.WriteHaCheckpoint("sm", job, "file:///flink-data/checkpoints/x/chk-1").ok());
  ASSERT_TRUE(env_.client()->Delete(FlinkDeploymentsResource(), "default", "sm").ok());
  for (int i = 0; i < 300 && env_.Get(FlinkDeploymentsResource(), "sm").ok(); ++i) {
    ASSERT_TRUE(TryPass("sm").ok());
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(env_.Get(FlinkDeploymentsResource(), "sm").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(env_.jm()->Count("PATCH", "/jobs/" + job), 1);
  EXPECT_EQ(env_.client()->Get(DeploymentsResource(), "default", "sm").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(env_.client()->Get(kube::ConfigMapsResource(), "default",
                               "sm-" + job + "-config-map").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(env_.Events("sm", "Cleanup"), std::vector<std::string>{"Cleaning up FlinkDeployment"});
}

TEST_F(ControllerTest, UnsupportedVersionAndCanaryAreNotReconciled) {
  std::string yaml = AppYaml("old", "stateless");
  yaml.replace(yaml.find("v1_20"), 5, "v1_14");
  ASSERT_TRUE(env_.Apply(yaml).ok());
  EXPECT_FALSE(Pass("old").requeue_after.has_value());
  EXPECT_EQ(env_.Events("old", "UnsupportedFlinkVersion").size(), 1u);
  EXPECT_FALSE(env_.client()->Get(DeploymentsResource(), "default", "old").ok());
  ASSERT_TRUE(env_.Apply("apiVersion: flink.apache.org/v1beta1\nkind: FlinkDeployment\n"
                         "metadata: {name: canary, labels: {flink.apache.org/canary: \"true\"}}\n").ok());
  EXPECT_FALSE(Pass("canary").requeue_after.has_value());
  EXPECT_TRUE(Get("canary").status.reconciliation_status.last_reconciled_spec.empty());
}

}  // namespace
}  // namespace trimtab::op::testing
