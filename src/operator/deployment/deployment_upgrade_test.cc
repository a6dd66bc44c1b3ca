// The upgrade flows of FlinkDeploymentController: savepoint, last-state and stateless upgrades,
// an operator restart in the middle of an upgrade, status write conflicts, the autoscaler hook
// with in-place rescaling, and rollback.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "operator/testing/controller_test_fixture.h"

namespace trimtab::op::testing {
namespace {

using namespace std::chrono_literals;
using JmStatus = api::JobManagerDeploymentStatus;
using api::ReconciliationState;

bool Redeployed(const api::FlinkDeployment& d) {
  return d.status.reconciliation_status.state == ReconciliationState::kDeployed &&
         d.status.job_manager_deployment_status == JmStatus::kDeploying;
}

class UpgradeTest : public ControllerTest {
 protected:
  void SetParallelism(int p) {
    ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [p](Json& spec) {
      spec["job"]["parallelism"] = p;
    }).ok());
  }
  std::string SavepointOf(const std::string& job, int n) {
    return "file:///flink-data/savepoints/savepoint-" + job.substr(0, 6) + "-" + std::to_string(n);
  }
};

TEST_F(UpgradeTest, SavepointUpgradeStopsWithSavepointAndRestoresFromIt) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  SetParallelism(4);
  ReconcileResult r = Pass("sm");
  EXPECT_EQ(r.requeue_after, Duration::zero());  // moved to UPGRADING: continue at once
  api::FlinkDeployment fd = Get("sm");
  // Issue 25: the recorded upgradeMode is the restore mode of the first deployment (stateless,
  // no savepoint existed); the user changed only the parallelism, and the event says only that.
  EXPECT_EQ(env_.Events("sm", "SpecChanged"),
            std::vector<std::string>{"UPGRADE change(s) detected (Diff: FlinkDeploymentSpec["
                                     "job.parallelism : 2 -> 4]), starting reconciliation."});
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 1);
  EXPECT_EQ(fd.status.reconciliation_status.state, ReconciliationState::kUpgrading);
  EXPECT_EQ(Lifecycle(fd), "UPGRADING");
  EXPECT_EQ(fd.status.job_status.upgrade_savepoint_path, SavepointOf(job, 1));
  EXPECT_EQ(fd.status.job_status.savepoint_info.last_savepoint->trigger_type,
            api::SnapshotTriggerType::kUpgrade);
  // The new spec is recorded before anything is deployed, suspended, with the restore mode.
  EXPECT_EQ(Recorded(fd)["job"]["parallelism"], 4);
  EXPECT_EQ(Recorded(fd)["job"]["state"], "suspended");
  EXPECT_EQ(Recorded(fd)["job"]["upgradeMode"], "savepoint");
  EXPECT_EQ(fd.status.observed_generation, 2);

  ASSERT_TRUE(PassUntil("sm", Redeployed));
  StatusOr<Json> conf = env_.DeployedConfig("sm");
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ((*conf)["execution.savepoint.path"], SavepointOf(job, 1));
  EXPECT_EQ((*conf)["parallelism.default"], "4");
  EXPECT_NE((*conf)["$internal.pipeline.job-id"], job);
  EXPECT_EQ(DeploymentAnnotation("sm"), "2");
  EXPECT_EQ(Recorded(Get("sm"))["job"]["state"], "running");
  StartAndStabilize("sm");
}

TEST_F(UpgradeTest, LastStateUpgradeKeepsHaMetadataAndRestoresFromIt) {
  const std::string job = DeployToStable(
      AppYaml("sm", "last-state",
              "    high-availability.type: kubernetes\n"
              "    high-availability.storageDir: file:///flink-data/ha\n"),
      "sm");
  ASSERT_TRUE(env_.WriteHaCheckpoint("sm", job, "file:///flink-data/checkpoints/" + job + "/chk-1").ok());
  SetParallelism(4);
  Pass("sm");
  api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(fd.status.reconciliation_status.state, ReconciliationState::kUpgrading);
  EXPECT_EQ(Recorded(fd)["job"]["upgradeMode"], "last-state");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 0);
  EXPECT_EQ(env_.jm()->Count("PATCH", "/jobs/" + job), 0);
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  StatusOr<Json> conf = env_.DeployedConfig("sm");
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ((*conf)["execution.savepoint.path"], "KUBERNETES_OPERATOR_LAST_STATE");
  EXPECT_EQ((*conf)["$internal.pipeline.job-id"], job);  // HA recovers the same job
  EXPECT_EQ((*conf)["high-availability.cluster-id"], "sm");
  const std::string jrs = (*conf)["job-result-store.storage-path"].get<std::string>();
  EXPECT_TRUE(jrs.starts_with("file:///flink-data/ha/job-result-store/sm/")) << jrs;
  EXPECT_TRUE(env_.client()->Get(kube::ConfigMapsResource(), "default", "sm-" + job + "-config-map").ok());
  EXPECT_EQ(Get("sm").status.job_status.upgrade_savepoint_path, "KUBERNETES_OPERATOR_LAST_STATE");
  StartAndStabilize("sm");
}

TEST_F(UpgradeTest, LastStateWithoutHaMetadataCancelsAndRestoresFromTheCheckpoint) {
  const std::string job = DeployToStable(AppYaml("sm", "last-state"), "sm");
  env_.jm()->AddCheckpoint(job, "file:///flink-data/checkpoints/" + job + "/chk-7", false);
  SetParallelism(3);
  Pass("sm");
  EXPECT_EQ(env_.jm()->Count("PATCH", "/jobs/" + job + "?mode=cancel"), 1);
  api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(Recorded(fd)["job"]["upgradeMode"], "savepoint");
  EXPECT_EQ(fd.status.job_status.upgrade_savepoint_path,
            "file:///flink-data/checkpoints/" + job + "/chk-7");
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  EXPECT_EQ((*env_.DeployedConfig("sm"))["execution.savepoint.path"],
            "file:///flink-data/checkpoints/" + job + "/chk-7");
}

TEST_F(UpgradeTest, StatelessUpgradeCancelsAndStartsEmpty) {
  const std::string job = DeployToStable(AppYaml("sm", "stateless"), "sm");
  SetParallelism(3);
  Pass("sm");
  EXPECT_EQ(env_.jm()->Count("PATCH", "/jobs/" + job + "?mode=cancel"), 1);
  EXPECT_EQ(Recorded(Get("sm"))["job"]["upgradeMode"], "stateless");
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  StatusOr<Json> conf = env_.DeployedConfig("sm");
  ASSERT_TRUE(conf.ok());
  EXPECT_FALSE(conf->contains("execution.savepoint.path"));
  EXPECT_NE((*conf)["$internal.pipeline.job-id"], job);
}

TEST_F(UpgradeTest, RestartDuringUpgradeResumesFromTheRecordedSavepoint) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  SetParallelism(4);
  Pass("sm");  // stop-with-savepoint done, UPGRADING recorded
  ASSERT_EQ(Get("sm").status.reconciliation_status.state, ReconciliationState::kUpgrading);
  NewControllers();  // the operator restarts with nothing but the stored status
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  EXPECT_EQ((*env_.DeployedConfig("sm"))["execution.savepoint.path"], SavepointOf(job, 1));
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 1);  // not stopped twice
}

TEST_F(UpgradeTest, CrashBeforeTheSavepointWasRecordedDoesNotLoseIt) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  SetParallelism(4);
  // While the operator waits for the savepoint, someone else writes the status: the pass that
  // took the savepoint cannot record it (as if the operator died right after the stop).
  env_.jm()->SetRequestHook([&](const std::string& request) {
    if (request.find("/savepoints/") == std::string::npos) return;
    StatusOr<Json> o = env_.Get(FlinkDeploymentsResource(), "sm");
    if (!o.ok()) return;
    (*o)["status"]["error"] = "written by someone else";
    env_.client()->UpdateStatus(FlinkDeploymentsResource(), *o).status().IgnoreError();
  });
  StatusOr<ReconcileResult> failed = TryPass("sm");
  EXPECT_EQ(failed.status().code(), StatusCode::kConflict) << failed.status().ToString();
  env_.jm()->SetRequestHook(nullptr);
  api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(fd.status.reconciliation_status.state, ReconciliationState::kDeployed);
  EXPECT_TRUE(fd.status.job_status.upgrade_savepoint_path.empty());
  EXPECT_EQ(env_.jm()->Job(job)->state, "FINISHED");

  // The trigger was written before the stop was sent (issue 28: the savepoint is never lost).
  EXPECT_FALSE(fd.status.job_status.savepoint_info.trigger_id.empty());
  EXPECT_EQ(fd.status.job_status.savepoint_info.trigger_type, api::SnapshotTriggerType::kUpgrade);

  NewControllers();
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  EXPECT_EQ((*env_.DeployedConfig("sm"))["execution.savepoint.path"], SavepointOf(job, 1));
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 1);
  // Issue 28: the upgrade savepoint reaches lastSavepoint and the history, once.
  fd = Get("sm");
  ASSERT_TRUE(fd.status.job_status.savepoint_info.last_savepoint.has_value());
  EXPECT_EQ(fd.status.job_status.savepoint_info.last_savepoint->location, SavepointOf(job, 1));
  EXPECT_EQ(fd.status.job_status.savepoint_info.last_savepoint->trigger_type,
            api::SnapshotTriggerType::kUpgrade);
  ASSERT_EQ(fd.status.job_status.savepoint_info.savepoint_history.size(), 1u);
  EXPECT_TRUE(fd.status.job_status.savepoint_info.trigger_id.empty());
  EXPECT_EQ(env_.Events("sm", "SavepointCompleted"),
            std::vector<std::string>{"Savepoint completed (UPGRADE): " + SavepointOf(job, 1)});
  // Consumed once the restored job runs: no stale path for a later restore.
  StartAndStabilize("sm");
  EXPECT_TRUE(Get("sm").status.job_status.upgrade_savepoint_path.empty());
}

TEST_F(UpgradeTest, OperatorRestartAfterTheStopFindsTheSavepointInTheTerminalJob) {
  // The operator died after Flink completed the stop-with-savepoint and before anything was
  // recorded, not even the trigger (a status written by an older operator): upstream's savepoint
  // observer reads the terminal job's newest state, and trimtab records it in the history.
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  SetParallelism(4);
  const flink::FlinkRestClient rest(env_.Deps().http, env_.jm()->base_url(), 5s);
  StatusOr<std::string> trigger =
      rest.StopWithSavepoint(job, {.target_directory = "file:///flink-data/savepoints"});
  ASSERT_TRUE(trigger.ok()) << trigger.status().ToString();
  ASSERT_EQ(env_.jm()->Job(job)->state, "FINISHED");
  NewControllers();
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  EXPECT_EQ((*env_.DeployedConfig("sm"))["execution.savepoint.path"], SavepointOf(job, 1));
  const api::FlinkDeployment fd = Get("sm");
  ASSERT_EQ(fd.status.job_status.savepoint_info.savepoint_history.size(), 1u);
  EXPECT_EQ(fd.status.job_status.savepoint_info.savepoint_history[0].location, SavepointOf(job, 1));
}

// Issue 28, the silent rollback: the stop-with-savepoint completed, then the whole process died
// before the status recorded it; the restarted JobManager does not run the stopped job again
// (the job result store) and no longer knows the savepoint. The operator must not redeploy from
// an older path (processing input twice) nor start empty: it waits and says what to do.
TEST_F(UpgradeTest, Issue28WholeRestartAfterTheStopNeverRedeploysAnOlderSavepoint) {
  const std::string first = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  SetParallelism(3);
  ASSERT_TRUE(PassUntil("sm", Redeployed));  // an earlier upgrade: savepoint 1
  const std::string job = StartAndStabilize("sm");
  ASSERT_NE(job, first);
  EXPECT_TRUE(Get("sm").status.job_status.upgrade_savepoint_path.empty());  // consumed

  SetParallelism(4);
  env_.jm()->SetRequestHook([&](const std::string& request) {
    if (request.find("/savepoints/") == std::string::npos) return;
    StatusOr<Json> o = env_.Get(FlinkDeploymentsResource(), "sm");
    if (!o.ok()) return;
    (*o)["status"]["error"] = "the process died";
    env_.client()->UpdateStatus(FlinkDeploymentsResource(), *o).status().IgnoreError();
  });
  EXPECT_FALSE(TryPass("sm").ok());
  env_.jm()->SetRequestHook(nullptr);
  ASSERT_EQ(env_.jm()->Job(job)->state, "FINISHED");
  // The restart: the JobManager forgets its operations and lists no job.
  env_.jm()->ForgetOperations();
  env_.jm()->RemoveJobs();
  NewControllers();
  for (int i = 0; i < 5; ++i) TryPass("sm").status().IgnoreError();
  const api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(DeploymentAnnotation("sm"), "2");  // nothing redeployed
  EXPECT_NE(fd.status.error.find("Manual restore required"), std::string::npos) << fd.status.error;
  EXPECT_NE(fd.status.error.find(fd.status.job_status.savepoint_info.trigger_id), std::string::npos);
  EXPECT_TRUE(fd.status.job_status.upgrade_savepoint_path.empty());
  EXPECT_EQ(env_.Events("sm", "SavepointError").size(), 1u);
  // The way out the error names: the savepoint as initialSavepointPath, a new redeploy nonce.
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [&](Json& spec) {
    spec["job"]["initialSavepointPath"] = SavepointOf(job, 1);
    spec["job"]["savepointRedeployNonce"] = 1;
  }).ok());
  ASSERT_TRUE(PassUntil("sm", [](const api::FlinkDeployment& d) {
    return Redeployed(d) && d.status.observed_generation == 4;
  }));
  EXPECT_EQ((*env_.DeployedConfig("sm"))["execution.savepoint.path"], SavepointOf(job, 1));
}

// Issue 28: a job restored by a JobManager restart (HA) while the stop-with-savepoint was in
// flight runs again; the operator forgets the unknown trigger and upgrades it anew.
TEST_F(UpgradeTest, UnknownUpgradeTriggerOfARunningJobIsRetried) {
  const std::string job = DeployToStable(
      AppYaml("sm", "savepoint", "    kubernetes.operator.flink.client.cancel.timeout: 200 ms\n"), "sm");
  SetParallelism(4);
  env_.jm()->HoldOperations(true);
  StatusOr<ReconcileResult> r = TryPass("sm");  // waits for the savepoint, then gives up waiting
  (void)r;
  env_.jm()->ForgetOperations();
  env_.jm()->SetJobState(job, "RUNNING");
  env_.jm()->HoldOperations(false);
  NewControllers();
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 2);
  EXPECT_EQ((*env_.DeployedConfig("sm"))["execution.savepoint.path"], SavepointOf(job, 1));
}

// Issue 28, the stuck upgrade: the placeholder path of a last-state deploy stayed in the status,
// the job then ended without reporting a newer state, and the upgrade asked for a manual restore
// although the HA metadata had the checkpoints.
TEST_F(UpgradeTest, Issue28PlaceholderPathWithHaCheckpointsRestoresTheLastState) {
  constexpr char kHa[] =
      "    high-availability.type: kubernetes\n"
      "    high-availability.storageDir: file:///flink-data/ha\n";
  const std::string job = DeployToStable(AppYaml("sm", "last-state", kHa), "sm");
  ASSERT_TRUE(env_.WriteHaCheckpoint("sm", job, "file:///flink-data/checkpoints/" + job + "/chk-1").ok());
  SetParallelism(4);
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  ASSERT_EQ(Get("sm").status.job_status.upgrade_savepoint_path, "KUBERNETES_OPERATOR_LAST_STATE");
  // The restored job fails before it reports anything (its HA checkpoints stay).
  StatusOr<std::string> started = env_.StartCluster("sm");
  ASSERT_TRUE(started.ok());
  ASSERT_EQ(*started, job);
  env_.jm()->SetJobState(*started, "FAILED");
  ASSERT_TRUE(PassUntil("sm", [](const api::FlinkDeployment& d) {
    return d.status.job_status.state == "FAILED";
  }, 10));
  SetParallelism(5);
  ASSERT_TRUE(PassUntil("sm", [](const api::FlinkDeployment& d) {
    return Redeployed(d) && d.status.observed_generation == 3;
  }));
  EXPECT_TRUE(env_.Events("sm", "UpgradeFailed").empty());
  StatusOr<Json> conf = env_.DeployedConfig("sm");
  EXPECT_EQ((*conf)["execution.savepoint.path"], "KUBERNETES_OPERATOR_LAST_STATE");
  EXPECT_EQ((*conf)["$internal.pipeline.job-id"], job);  // HA recovers the same job
  EXPECT_EQ((*conf)["parallelism.default"], "5");
}

// Issue 25 item 7: upstream's basic-checkpoint-ha.yaml without checkpointing, parallelism
// changed in savepoint mode. Flink's 404 "Checkpointing has not been enabled" means no
// checkpoint: the upgrade restores from the savepoint it just took.
TEST_F(UpgradeTest, Issue25SavepointUpgradeOfAJobWithoutCheckpointingRestoresTheSavepoint) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  trimtab::testing::FakeFlinkJob fake = *env_.jm()->Job(job);
  fake.checkpointing = false;
  env_.jm()->AddJob(fake);
  SetParallelism(4);
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  StatusOr<Json> conf = env_.DeployedConfig("sm");
  EXPECT_EQ((*conf)["execution.savepoint.path"], SavepointOf(job, 1));
  EXPECT_EQ((*conf)["parallelism.default"], "4");
  EXPECT_TRUE(env_.Events("sm", "CheckpointNotFound").empty());
  StartAndStabilize("sm");
  EXPECT_EQ(Get("sm").status.job_status.state, "RUNNING");
}

// Issue 25 item 8: an untouched savepointTriggerNonce: 0 takes no savepoint.
TEST_F(UpgradeTest, Issue25UntouchedNonceZeroTakesNoSavepoint) {
  const std::string job =
      DeployToStable(AppYaml("sm", "savepoint", "", "    savepointTriggerNonce: 0\n"), "sm");
  for (int i = 0; i < 3; ++i) Pass("sm");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/savepoints"), 0);
}

TEST_F(UpgradeTest, SpecChangeDuringAPassDoesNotFailTheStatusWrite) {
  DeployToStable(AppYaml("sm", "savepoint"), "sm");
  env_.jm()->SetRequestHook([&](const std::string& request) {
    if (!request.starts_with("GET /jobs/overview")) return;
    env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
      spec["job"]["savepointTriggerNonce"] = 1;
    }).IgnoreError();
  });
  env_.jm()->SetJobState(env_.jm()->Jobs()[0].id, "RESTARTING");  // a status change to write
  StatusOr<ReconcileResult> r = TryPass("sm");
  env_.jm()->SetRequestHook(nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(fd.status.job_status.state, "RESTARTING");
  EXPECT_EQ(fd.metadata.generation(), 2);
}

TEST_F(UpgradeTest, ExternalStatusChangeIsAConflictAndTheNextPassStartsOver) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  env_.jm()->SetRequestHook([&](const std::string& request) {
    if (!request.starts_with("GET /jobs/overview")) return;
    StatusOr<Json> o = env_.Get(FlinkDeploymentsResource(), "sm");
    if (!o.ok()) return;
    (*o)["status"]["error"] = "tampered";
    env_.client()->UpdateStatus(FlinkDeploymentsResource(), *o).status().IgnoreError();
  });
  env_.jm()->SetJobState(job, "RESTARTING");
  StatusOr<ReconcileResult> r = TryPass("sm");
  EXPECT_EQ(r.status().code(), StatusCode::kConflict) << r.status().ToString();
  EXPECT_NE(r.status().message().find("Status have been modified externally"), std::string::npos);
  env_.jm()->SetRequestHook(nullptr);
  r = TryPass("sm");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Get("sm").status.job_status.state, "RESTARTING");
}

class FakeAutoscaler : public JobAutoscaler {
 public:
  StatusOr<AutoscalerOutcome> Scale(const AutoscalerJobContext& context) override {
    std::lock_guard<std::mutex> lock(mu);
    contexts.push_back(context);
    if (!fail.ok()) return fail;
    return outcome;
  }
  Status Cleanup(const std::string&, const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu);
    cleanups.push_back(name);
    return Status::Ok();
  }
  StatusOr<AutoscalerOutcome> RevertUnschedulable(const AutoscalerJobContext& context) override {
    std::lock_guard<std::mutex> lock(mu);
    reverts.push_back(context);
    return revert;
  }
  std::mutex mu;
  AutoscalerOutcome outcome;
  AutoscalerOutcome revert;  // what RevertUnschedulable answers
  std::vector<AutoscalerJobContext> reverts;
  Status fail;
  std::vector<AutoscalerJobContext> contexts;
  std::vector<std::string> cleanups;
};

constexpr char kAutoscaled[] =
    "    job.autoscaler.enabled: \"true\"\n"
    "    job.autoscaler.metrics.window: 10 min\n"
    "    jobmanager.scheduler: adaptive\n";

TEST_F(UpgradeTest, AutoscalerOverridesRescaleInPlaceWithTheAdaptiveScheduler) {
  FakeAutoscaler autoscaler;
  NewControllers(&autoscaler);
  const std::string job = DeployToStable(AppYaml("sm", "savepoint", kAutoscaled), "sm");
  ASSERT_FALSE(autoscaler.contexts.empty());
  const AutoscalerJobContext& seen = autoscaler.contexts.back();
  EXPECT_EQ(seen.job_id, job);
  EXPECT_EQ(seen.job_status, "RUNNING");
  EXPECT_EQ(seen.rest_url, env_.jm()->base_url());
  EXPECT_EQ(seen.flink_version, "v1_20");
  EXPECT_EQ(seen.flink_configuration.at("job.autoscaler.metrics.window"), "10 min");
  EXPECT_EQ(seen.task_manager_memory_bytes, 1024.0 * 1024 * 1024);

  autoscaler.outcome.parallelism_overrides = {{"vertex-a", 4}};
  autoscaler.outcome.scaled = true;
  autoscaler.outcome.decision_log = Json{{"stage", "execute"}, {"vertex-a", 4}};
  Pass("sm");
  EXPECT_EQ(env_.jm()->Job(job)->requirements.at("vertex-a"), (flink::ParallelismBounds{1, 4}));
  EXPECT_EQ(env_.jm()->Job(job)->requirements.at("vertex-b"), (flink::ParallelismBounds{1, 2}));
  EXPECT_EQ(env_.Events("sm", "Scaling"), std::vector<std::string>{"In-place scaling triggered"});
  EXPECT_EQ(env_.Events("sm", "ScalingDecision").size(), 1u);
  api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(Recorded(fd)["flinkConfiguration"]["pipeline.jobvertex-parallelism-overrides"], "vertex-a:4");
  EXPECT_EQ(fd.status.reconciliation_status.state, ReconciliationState::kDeployed);
  EXPECT_EQ(DeploymentAnnotation("sm"), "1");  // no redeploy
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 0);
  EXPECT_EQ(Json::parse(fd.metadata.annotations().at("trimtab.dev/last-scaling-decision")),
            autoscaler.outcome.decision_log);
  EXPECT_FALSE(fd.spec.flink_configuration.count("pipeline.jobvertex-parallelism-overrides"));
  // The same decision again changes nothing.
  autoscaler.outcome.scaled = false;
  Pass("sm");
  EXPECT_EQ(env_.Events("sm", "Scaling").size(), 1u);
  // An autoscaler failure keeps what runs.
  autoscaler.fail = UnavailableError("metrics not available");
  Pass("sm");
  EXPECT_EQ(Get("sm").status.reconciliation_status.state, ReconciliationState::kDeployed);
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 0);
  EXPECT_EQ(env_.Events("sm", "AutoscalerError"), std::vector<std::string>{"metrics not available"});
}

TEST_F(UpgradeTest, AutoscalerOverridesWithoutAdaptiveSchedulerUpgrade) {
  FakeAutoscaler autoscaler;
  NewControllers(&autoscaler);
  std::string config(kAutoscaled);
  config = config.substr(0, config.find("    jobmanager.scheduler"));
  const std::string job = DeployToStable(AppYaml("sm", "savepoint", config), "sm");
  autoscaler.outcome.parallelism_overrides = {{"vertex-a", 3}};
  Pass("sm");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 1);
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  EXPECT_EQ((*env_.DeployedConfig("sm"))["pipeline.jobvertex-parallelism-overrides"], "vertex-a:3");
  // Turning the autoscaler off cleans its state and goes back to the user's parallelism.
  StartAndStabilize("sm");
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["flinkConfiguration"]["job.autoscaler.enabled"] = "false";
  }).ok());
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  EXPECT_EQ(autoscaler.cleanups, std::vector<std::string>{"sm"});
  EXPECT_FALSE(env_.DeployedConfig("sm")->contains("pipeline.jobvertex-parallelism-overrides"));
}

// Issue 28: a rescale the cluster cannot schedule (the job stays CREATED, its pods unbound) goes
// back to the last running parallelism through the ordinary upgrade, restoring its state.
TEST_F(UpgradeTest, Issue28UnschedulableRescaleGoesBackToTheLastRunningParallelism) {
  FakeAutoscaler autoscaler;
  NewControllers(&autoscaler);
  std::string config(kAutoscaled);
  config = config.substr(0, config.find("    jobmanager.scheduler")) +
           "    high-availability.type: kubernetes\n"
           "    high-availability.storageDir: file:///flink-data/ha\n";
  const std::string job = DeployToStable(AppYaml("sm", "last-state", config), "sm");
  ASSERT_TRUE(env_.WriteHaCheckpoint("sm", job, "file:///flink-data/checkpoints/c1").ok());
  autoscaler.outcome.parallelism_overrides = {{"vertex-a", 128}};
  autoscaler.outcome.scaled = true;
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  EXPECT_EQ((*env_.DeployedConfig("sm"))["pipeline.jobvertex-parallelism-overrides"],
            "vertex-a:128");
  autoscaler.outcome.scaled = false;
  StatusOr<std::string> rescaled = env_.StartCluster("sm");
  ASSERT_TRUE(rescaled.ok()) << rescaled.status().ToString();
  env_.jm()->SetJobState(*rescaled, "CREATED");  // waiting for slots that never come
  ASSERT_TRUE(PassUntil("sm", [](const api::FlinkDeployment& d) {
    return d.status.job_status.state == "CREATED" &&
           d.status.job_manager_deployment_status == JmStatus::kReady;
  })) << Get("sm").status.job_status.state;
  EXPECT_TRUE(autoscaler.reverts.empty());  // every pod is scheduled: nothing to revert

  // A TaskManager pod no node can take.
  StatusOr<Json> pod = env_.client()->Create(
      kube::PodsResource(), "default",
      Json{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata", {{"name", "sm-taskmanager-1-1"},
                         {"labels", {{"app", "sm"}, {"component", "taskmanager"}}}}},
           {"spec", {{"containers", Json::array({{{"name", "flink-main-container"},
                                                  {"image", "flink:1.20"}}})}}}});
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  Pass("sm");
  ASSERT_EQ(autoscaler.reverts.size(), 1u);  // not yet due: the autoscaler keeps the overrides
  EXPECT_EQ(autoscaler.reverts[0].job_status, "CREATED");
  EXPECT_EQ(Get("sm").status.reconciliation_status.state, ReconciliationState::kDeployed);

  autoscaler.revert.parallelism_overrides = {{"vertex-a", 2}};
  autoscaler.revert.scaled = true;
  autoscaler.revert.decision_log = Json{{"outcome", "Reverted"}};
  autoscaler.outcome.parallelism_overrides = {{"vertex-a", 2}};
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  StatusOr<Json> conf = env_.DeployedConfig("sm");
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ((*conf)["pipeline.jobvertex-parallelism-overrides"], "vertex-a:2");
  // State from the HA checkpoint, never a stateless start.
  EXPECT_EQ((*conf)["execution.savepoint.path"], "KUBERNETES_OPERATOR_LAST_STATE");
  api::FlinkDeployment fd = Get("sm");
  EXPECT_EQ(Json::parse(fd.metadata.annotations().at("trimtab.dev/last-scaling-decision")),
            autoscaler.revert.decision_log);
}

// Issue 21: an HPA (or kubectl scale) on a reactive standalone FlinkDeployment changes
// spec.taskManager.replicas; the operator scales the TaskManager Deployment, as upstream's
// StandaloneFlinkService.scale, and the job stays where it is.
TEST_F(UpgradeTest, ReactiveStandaloneScalesTheTaskManagerDeploymentWithoutAnUpgrade) {
  const std::string job = DeployToStable(
      AppYaml("sm", "savepoint", "    scheduler-mode: REACTIVE\n", "  mode: standalone\n"), "sm");
  StatusOr<Json> jm = env_.client()->Get(DeploymentsResource(), "default", "sm");
  ASSERT_TRUE(jm.ok());
  EXPECT_EQ((*jm)["spec"]["template"]["spec"]["containers"][0]["args"], Json::array({"standalone-job"}));
  StatusOr<Json> tms = env_.client()->Get(DeploymentsResource(), "default", "sm-taskmanager");
  ASSERT_TRUE(tms.ok()) << tms.status().ToString();
  EXPECT_EQ((*tms)["spec"]["replicas"], 1);  // ceil(parallelism 2 / 2 slots)
  EXPECT_EQ((*tms)["spec"]["selector"]["matchLabels"],
            Json::parse(R"({"app": "sm", "component": "taskmanager", "type": "flink-standalone-kubernetes"})"));
  EXPECT_EQ((*tms)["metadata"]["ownerReferences"][0]["uid"], (*jm)["metadata"]["uid"]);
  EXPECT_EQ((*tms)["spec"]["template"]["spec"]["containers"][0]["args"], Json::array({"taskmanager"}));
  StatusOr<Json> conf = env_.DeployedConfig("sm");
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ((*conf)["execution.target"], "remote");
  EXPECT_EQ((*conf)["kubernetes.internal.taskmanager.replicas"], "1");
  api::FlinkDeployment fd = Get("sm");
  ASSERT_TRUE(fd.status.task_manager.has_value());
  EXPECT_EQ(fd.status.task_manager->label_selector, "component=taskmanager,app=sm");
  EXPECT_EQ(fd.status.task_manager->replicas, 1);

  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["taskManager"]["replicas"] = 3;
  }).ok());
  Pass("sm");
  tms = env_.client()->Get(DeploymentsResource(), "default", "sm-taskmanager");
  ASSERT_TRUE(tms.ok());
  EXPECT_EQ((*tms)["spec"]["replicas"], 3);
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 0);
  EXPECT_EQ(DeploymentAnnotation("sm"), "1");  // no redeploy
  fd = Get("sm");
  EXPECT_EQ(fd.status.reconciliation_status.state, ReconciliationState::kDeployed);
  EXPECT_EQ(Recorded(fd)["taskManager"]["replicas"], 3);
  EXPECT_EQ(fd.status.task_manager->replicas, 3);
  EXPECT_EQ(fd.status.job_status.job_id, job);
  ASSERT_EQ(env_.Events("sm", "SpecChanged").size(), 1u);
  EXPECT_EQ(env_.Events("sm", "SpecChanged")[0].rfind("SCALE change(s) detected", 0), 0u)
      << env_.Events("sm", "SpecChanged")[0];
}

TEST_F(UpgradeTest, StandaloneWithoutReactiveModeUpgradesOnAReplicasChange) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint", "", "  mode: standalone\n"), "sm");
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["taskManager"]["replicas"] = 2;
  }).ok());
  Pass("sm");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/" + job + "/stop"), 1);
}

TEST_F(UpgradeTest, RollbackToTheLastStableSpec) {
  const std::string job = DeployToStable(
      AppYaml("sm", "last-state",
              "    high-availability.type: kubernetes\n"
              "    high-availability.storageDir: file:///flink-data/ha\n"
              "    kubernetes.operator.deployment.rollback.enabled: \"true\"\n"),
      "sm");
  ASSERT_TRUE(env_.WriteHaCheckpoint("sm", job, "file:///flink-data/checkpoints/c1").ok());
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["image"] = "flink:broken";
  }).ok());
  ASSERT_TRUE(PassUntil("sm", Redeployed));
  // The new JobManager never becomes ready; after the readiness timeout the operator rolls back.
  Pass("sm");
  EXPECT_EQ(Lifecycle(Get("sm")), "DEPLOYED");
  env_.clock()->Advance(std::chrono::minutes(6));
  ASSERT_TRUE(PassUntil("sm", [](const api::FlinkDeployment& d) {
    return d.status.reconciliation_status.state == ReconciliationState::kRolledBack;
  }));
  EXPECT_EQ(env_.Events("sm", "Rollback"), std::vector<std::string>{"Rolling back failed deployment."});
  StatusOr<Json> dep = env_.client()->Get(DeploymentsResource(), "default", "sm");
  ASSERT_TRUE(dep.ok());
  EXPECT_EQ((*dep)["spec"]["template"]["spec"]["containers"][0]["image"], "flink:1.20");
  EXPECT_EQ((*env_.DeployedConfig("sm"))["execution.savepoint.path"], "KUBERNETES_OPERATOR_LAST_STATE");
  EXPECT_EQ(Lifecycle(Get("sm")), "ROLLED_BACK");
}

}  // namespace
}  // namespace trimtab::op::testing
