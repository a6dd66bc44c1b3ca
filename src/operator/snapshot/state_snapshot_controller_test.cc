// FlinkStateSnapshotController against the in-process API server and a fake JobManager:
// savepoints and checkpoints of a running FlinkDeployment through TRIGGER_PENDING -> IN_PROGRESS
// -> COMPLETED, already existing savepoints, validation errors, retries with exponential backoff
// on the test clock, abandonment when the job stops, and disposal on deletion.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "operator/snapshot/flink_state_snapshot_controller.h"
#include "operator/testing/controller_test_fixture.h"

namespace trimtab::op::testing {
namespace {

using namespace std::chrono_literals;

class SnapshotTest : public ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    // The shared test environment installs the other two CRDs; this one is installed here.
    StatusOr<std::string> text = ReadFile(
        ReferenceDir() + "/flink-operator/crds/flinkstatesnapshots.flink.apache.org-v1.yml");
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    StatusOr<Json> crd = ParseYaml(*text, "FlinkStateSnapshot CRD");
    ASSERT_TRUE(crd.ok()) << crd.status().ToString();
    const kube::GroupVersionResource crds{"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                                          false};
    ASSERT_TRUE(env_.client()->Create(crds, "", *crd).ok());
    for (int i = 0;
         i < 200 && !env_.client()->List(FlinkStateSnapshotsResource(), "default", {}).ok(); ++i) {
      std::this_thread::sleep_for(10ms);
    }
    snapshots_ = std::make_unique<FlinkStateSnapshotController>(env_.Deps());
  }

  // Creates FlinkStateSnapshot `name` in "default" with `spec` (JSON).
  void Create(const std::string& name, const Json& spec) {
    Json object = {{"apiVersion", "flink.apache.org/v1beta1"},
                   {"kind", "FlinkStateSnapshot"},
                   {"metadata", {{"name", name}, {"namespace", "default"}}},
                   {"spec", spec}};
    StatusOr<Json> created =
        env_.client()->Create(FlinkStateSnapshotsResource(), "default", object);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  // Creates the FlinkStateSnapshot of an upstream example file in "default".
  void CreateFromExample(const std::string& file) {
    std::ifstream in(ReferenceDir() + "/flink-operator/examples/" + file);
    ASSERT_TRUE(in.good()) << file;
    std::stringstream text;
    text << in.rdbuf();
    StatusOr<std::vector<Json>> docs = ParseYamlStream(text.str(), file);
    ASSERT_TRUE(docs.ok()) << docs.status().ToString();
    for (const Json& doc : *docs) {
      if (doc.value("kind", "") != "FlinkStateSnapshot") continue;
      StatusOr<Json> created = env_.client()->Create(FlinkStateSnapshotsResource(), "default", doc);
      ASSERT_TRUE(created.ok()) << created.status().ToString();
    }
  }

  ReconcileResult SnapPass(const std::string& name) {
    StatusOr<ReconcileResult> r = snapshots_->Reconcile("default", name);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ReconcileResult{};
  }
  Json Object(const std::string& name) {
    StatusOr<Json> o = env_.Get(FlinkStateSnapshotsResource(), name);
    EXPECT_TRUE(o.ok()) << o.status().ToString();
    return o.ok() ? *o : Json::object();
  }
  Json Status(const std::string& name) { return Object(name).value("status", Json::object()); }
  std::string State(const std::string& name) { return Status(name).value("state", ""); }
  std::string Label(const std::string& name, const std::string& key) {
    return Object(name)["metadata"].value("labels", Json::object()).value(key, "");
  }
  int Posts(const std::string& job, const std::string& what) {
    return env_.jm()->Count("POST", "/jobs/" + job + "/" + what);
  }

  static Json Savepoint(const std::string& target, Json savepoint = Json::object(),
                        std::optional<int64_t> backoff_limit = std::nullopt) {
    Json spec = {{"jobReference", {{"kind", "FlinkDeployment"}, {"name", target}}},
                 {"savepoint", savepoint}};
    if (backoff_limit) spec["backoffLimit"] = *backoff_limit;
    return spec;
  }

  std::unique_ptr<FlinkStateSnapshotController> snapshots_;
};

TEST(SnapshotRetry, DelayDoublesFromTenSecondsAndTheLimitCountsRetries) {
  EXPECT_EQ(SnapshotRetryDelay(1), Duration(10s));
  EXPECT_EQ(SnapshotRetryDelay(2), Duration(20s));
  EXPECT_EQ(SnapshotRetryDelay(4), Duration(80s));
  EXPECT_FALSE(SnapshotRetriesExhausted(1000, -1));  // -1: unlimited
  EXPECT_TRUE(SnapshotRetriesExhausted(1, 0));       // 0: no retry
  EXPECT_FALSE(SnapshotRetriesExhausted(2, 2));
  EXPECT_TRUE(SnapshotRetriesExhausted(3, 2));
}

TEST(SnapshotSpec, DefaultsOfAnEmptySavepoint) {
  const SnapshotSpec spec =
      DecodeSnapshotSpec(Json{{"jobReference", {{"kind", "FlinkDeployment"}, {"name", "x"}}},
                              {"savepoint", Json::object()}});
  ASSERT_TRUE(spec.savepoint.has_value());
  EXPECT_EQ(spec.savepoint->path, "");
  EXPECT_EQ(spec.savepoint->format_type, "CANONICAL");
  EXPECT_TRUE(spec.savepoint->dispose_on_delete);
  EXPECT_FALSE(spec.savepoint->already_exists);
  EXPECT_FALSE(spec.checkpoint);
  EXPECT_EQ(spec.backoff_limit, -1);
  EXPECT_EQ(ValidateSnapshotSpec(spec), std::nullopt);
}

TEST_F(SnapshotTest, SavepointWithTheJobsSavepointDirCompletes) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  Create("snap", Savepoint("sm"));

  // TRIGGER_PENDING -> IN_PROGRESS: one POST, trigger id and time recorded, polled again soon.
  ReconcileResult r = SnapPass("snap");
  EXPECT_EQ(r.requeue_after, Duration(10s));  // observer.progress-check.interval
  Json st = Status("snap");
  EXPECT_EQ(st["state"], "IN_PROGRESS");
  EXPECT_FALSE(st.value("triggerId", "").empty());
  EXPECT_EQ(st["triggerTimestamp"], FormatRfc3339(env_.clock()->Now()));
  EXPECT_EQ(Posts(job, "savepoints"), 1);
  EXPECT_EQ(env_.jm()->Job(job)->last_savepoint_dir, "file:///flink-data/savepoints");
  const Json meta = Object("snap")["metadata"];
  EXPECT_EQ(meta["finalizers"], Json::array({"flinkstatesnapshots.flink.apache.org/finalizer"}));
  EXPECT_EQ(meta["labels"], (Json{{"snapshot.type", "SAVEPOINT"},
                                  {"snapshot.trigger-type", "MANUAL"},
                                  {"snapshot.state", "IN_PROGRESS"},
                                  {"job-reference.kind", "FlinkDeployment"},
                                  {"job-reference.name", "sm"}}));

  // IN_PROGRESS -> COMPLETED with the savepoint's location.
  env_.clock()->Advance(10s);
  r = SnapPass("snap");
  EXPECT_FALSE(r.requeue_after.has_value());
  st = Status("snap");
  EXPECT_EQ(st["state"], "COMPLETED");
  EXPECT_EQ(st["path"], "file:///flink-data/savepoints/savepoint-" + job.substr(0, 6) + "-1");
  EXPECT_EQ(st["resultTimestamp"], FormatRfc3339(env_.clock()->Now()));
  EXPECT_EQ(st["failures"], 0);
  EXPECT_FALSE(st.contains("triggerId"));
  EXPECT_EQ(Label("snap", "snapshot.state"), "COMPLETED");

  // Terminal: more passes trigger nothing.
  SnapPass("snap");
  EXPECT_EQ(Posts(job, "savepoints"), 1);
  // The FlinkDeployment's own (legacy) savepoint status is untouched.
  EXPECT_FALSE(Get("sm").status.job_status.savepoint_info.last_savepoint.has_value());
}

TEST_F(SnapshotTest, ExplicitPathIsTheTargetDirectory) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  Create("snap",
         Savepoint("sm", {{"path", "/flink-data/savepoints-custom"}, {"formatType", "NATIVE"}}));
  SnapPass("snap");
  SnapPass("snap");
  EXPECT_EQ(env_.jm()->Job(job)->last_savepoint_dir, "/flink-data/savepoints-custom");
  EXPECT_EQ(Status("snap")["path"],
            "/flink-data/savepoints-custom/savepoint-" + job.substr(0, 6) + "-1");
}

TEST_F(SnapshotTest, CheckpointCompletesWithItsPath) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  Create("cp", Json{{"jobReference", {{"kind", "FlinkDeployment"}, {"name", "sm"}}},
                    {"checkpoint", Json::object()}});
  SnapPass("cp");
  EXPECT_EQ(State("cp"), "IN_PROGRESS");
  EXPECT_EQ(Posts(job, "checkpoints"), 1);
  EXPECT_EQ(Label("cp", "snapshot.type"), "CHECKPOINT");
  SnapPass("cp");
  EXPECT_EQ(State("cp"), "COMPLETED");
  EXPECT_EQ(Status("cp")["path"], "file:///checkpoints/" + job + "/chk-1");
}

TEST_F(SnapshotTest, CheckpointsNeedFlink117) {
  std::string yaml = AppYaml("old", "savepoint");
  yaml.replace(yaml.find("v1_20"), 5, "v1_16");
  ASSERT_TRUE(env_.Apply(yaml).ok());
  Create("cp", Json{{"jobReference", {{"kind", "FlinkDeployment"}, {"name", "old"}}},
                    {"checkpoint", Json::object()}});
  EXPECT_FALSE(SnapPass("cp").requeue_after.has_value());
  EXPECT_EQ(State("cp"), "FAILED");
  EXPECT_EQ(Status("cp")["error"],
            "Checkpoints can only be triggered for Flink 1.17 and newer; FlinkDeployment old "
            "runs v1_16");
  EXPECT_EQ(env_.Events("cp", "CheckpointError").size(), 1u);
}

TEST_F(SnapshotTest, AlreadyExistingSavepointCompletesWithoutFlink) {
  CreateFromExample("snapshot-savepoint-already-exists.yaml");
  EXPECT_FALSE(SnapPass("example-savepoint").requeue_after.has_value());
  const Json st = Status("example-savepoint");
  EXPECT_EQ(st["state"], "COMPLETED");
  EXPECT_EQ(st["path"], "/flink-data/savepoints/savepoint-98682a-21931bf10c39");
  EXPECT_EQ(st["resultTimestamp"], FormatRfc3339(env_.clock()->Now()));
  EXPECT_TRUE(env_.jm()->Requests().empty());
  EXPECT_EQ(Label("example-savepoint", "snapshot.state"), "COMPLETED");
  EXPECT_EQ(Label("example-savepoint", "job-reference.name"), "");  // it names no job

  // disposeOnDelete: false -> deleting it leaves the savepoint alone.
  ASSERT_TRUE(
      env_.client()->Delete(FlinkStateSnapshotsResource(), "default", "example-savepoint").ok());
  SnapPass("example-savepoint");
  EXPECT_EQ(env_.Get(FlinkStateSnapshotsResource(), "example-savepoint").status().code(),
            StatusCode::kNotFound);
  EXPECT_TRUE(env_.jm()->DisposedSavepoints().empty());
}

TEST_F(SnapshotTest, ValidationErrorsNameTheFieldAndFailAtOnce) {
  // A FlinkDeployment without any savepoint directory (never reconciled: only its spec counts).
  std::string no_dir = AppYaml("nodir", "stateless");
  no_dir.erase(no_dir.find("    state.savepoints.dir"),
               std::string("    state.savepoints.dir: file:///flink-data/savepoints\n").size());
  ASSERT_TRUE(env_.Apply(no_dir).ok());
  const Json ref = {{"kind", "FlinkDeployment"}, {"name", "nodir"}};
  struct Case {
    std::string name;
    Json spec;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"both",
       {{"jobReference", ref}, {"savepoint", Json::object()}, {"checkpoint", Json::object()}},
       "Exactly one of spec.savepoint and spec.checkpoint must be set (found both)"},
      {"neither",
       {{"jobReference", ref}},
       "Exactly one of spec.savepoint and spec.checkpoint must be set (found neither)"},
      {"no-reference",
       {{"savepoint", {{"path", "/x"}}}},
       "spec.jobReference.name must be set unless spec.savepoint.alreadyExists is true"},
      {"exists-no-path",
       {{"savepoint", {{"alreadyExists", true}}}},
       "spec.savepoint.path must be set when spec.savepoint.alreadyExists is true"},
      {"missing-target",
       {{"jobReference", {{"kind", "FlinkSessionJob"}, {"name", "ghost"}}},
        {"checkpoint", Json::object()}},
       "spec.jobReference: FlinkSessionJob ghost does not exist in namespace default"},
      {"no-dir",
       {{"jobReference", ref}, {"savepoint", Json::object()}},
       "spec.savepoint.path is not set and the configuration of FlinkDeployment nodir has no "
       "savepoint directory (execution.checkpointing.savepoint-dir or state.savepoints.dir)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Create(c.name, c.spec);
    EXPECT_FALSE(SnapPass(c.name).requeue_after.has_value());
    const Json st = Status(c.name);
    EXPECT_EQ(st["state"], "FAILED");
    EXPECT_EQ(st["error"], c.error);
    EXPECT_EQ(st["failures"], 0);  // not an attempt: nothing was triggered
    EXPECT_EQ(env_.Events(c.name, "ValidationError"), std::vector<std::string>{c.error});
    EXPECT_EQ(Label(c.name, "snapshot.state"), "FAILED");
  }
  // An explicit path needs no configured directory; the job is not running, which is a retried
  // failure rather than a validation error.
  Create("with-path", Savepoint("nodir", {{"path", "/elsewhere"}}));
  EXPECT_EQ(SnapPass("with-path").requeue_after, Duration(10s));
  EXPECT_EQ(State("with-path"), "TRIGGER_PENDING");
  EXPECT_EQ(
      Status("with-path")["error"],
      "Savepoint cannot be triggered: the job of FlinkDeployment nodir is not running (no job "
      "status)");
  EXPECT_EQ(env_.jm()->Count("POST", "/jobs/"), 0);
}

TEST_F(SnapshotTest, FailuresRetryWithExponentialBackoffUntilTheLimit) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  env_.jm()->FailNext("POST", "/jobs/" + job + "/savepoints", 500, "Internal server error.", 3);
  Create("snap", Savepoint("sm", Json::object(), /*backoff_limit=*/2));

  // 1st failure: back to TRIGGER_PENDING, retried after 10 s.
  EXPECT_EQ(SnapPass("snap").requeue_after, Duration(10s));
  Json st = Status("snap");
  EXPECT_EQ(st["state"], "TRIGGER_PENDING");
  EXPECT_EQ(st["failures"], 1);
  EXPECT_NE(st.value("error", "").find("Savepoint could not be triggered: "), std::string::npos)
      << st;
  EXPECT_EQ(env_.Events("snap", "SavepointError").size(), 1u);
  // An early pass (e.g. an informer resync) does not retry before the delay is over.
  env_.clock()->Advance(4s);
  EXPECT_EQ(SnapPass("snap").requeue_after, Duration(6s));
  EXPECT_EQ(Posts(job, "savepoints"), 1);

  // 2nd failure after 10 s: the next delay doubles.
  env_.clock()->Advance(6s);
  EXPECT_EQ(SnapPass("snap").requeue_after, Duration(20s));
  EXPECT_EQ(Status("snap")["failures"], 2);
  EXPECT_EQ(Posts(job, "savepoints"), 2);
  env_.clock()->Advance(19s);
  SnapPass("snap");
  EXPECT_EQ(Posts(job, "savepoints"), 2);

  // 3rd failure: failures (3) > backoffLimit (2) -> FAILED for good.
  env_.clock()->Advance(1s);
  EXPECT_FALSE(SnapPass("snap").requeue_after.has_value());
  st = Status("snap");
  EXPECT_EQ(st["state"], "FAILED");
  EXPECT_EQ(st["failures"], 3);
  EXPECT_EQ(Label("snap", "snapshot.state"), "FAILED");
  env_.clock()->Advance(1h);
  SnapPass("snap");
  EXPECT_EQ(Posts(job, "savepoints"), 3);
}

TEST_F(SnapshotTest, UnlimitedRetriesSucceedLaterAndZeroMeansNoRetry) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  // Default backoffLimit (-1): the retry after a failure completes the snapshot.
  env_.jm()->FailNext("POST", "/jobs/" + job + "/savepoints", 500, "Internal server error.", 1);
  Create("snap", Savepoint("sm"));
  EXPECT_EQ(SnapPass("snap").requeue_after, Duration(10s));
  env_.clock()->Advance(10s);
  SnapPass("snap");
  EXPECT_EQ(State("snap"), "IN_PROGRESS");
  SnapPass("snap");
  Json st = Status("snap");
  EXPECT_EQ(st["state"], "COMPLETED");
  EXPECT_EQ(st["failures"], 1);
  EXPECT_FALSE(st.contains("error"));  // the last attempt succeeded

  // backoffLimit 0: the first failure is final.
  env_.jm()->FailNext("POST", "/jobs/" + job + "/checkpoints", 500, "Internal server error.", 1);
  Create("once", Json{{"jobReference", {{"kind", "FlinkDeployment"}, {"name", "sm"}}},
                      {"checkpoint", Json::object()},
                      {"backoffLimit", 0}});
  EXPECT_FALSE(SnapPass("once").requeue_after.has_value());
  EXPECT_EQ(State("once"), "FAILED");
  EXPECT_EQ(Status("once")["failures"], 1);
  EXPECT_EQ(env_.Events("once", "CheckpointError").size(), 1u);
}

TEST_F(SnapshotTest, AbandonedWhenTheJobStopsWhileInProgress) {
  const std::string job = DeployToStable(AppYaml("sm", "savepoint"), "sm");
  env_.jm()->HoldOperations(true);  // the savepoint stays IN_PROGRESS
  Create("snap", Savepoint("sm"));
  SnapPass("snap");
  EXPECT_EQ(SnapPass("snap").requeue_after, Duration(10s));  // still polling
  EXPECT_EQ(State("snap"), "IN_PROGRESS");

  env_.jm()->SetJobState(job, "FAILED");
  Pass("sm");  // the FlinkDeployment observes its job FAILED
  ASSERT_EQ(Get("sm").status.job_status.state, "FAILED");
  EXPECT_FALSE(SnapPass("snap").requeue_after.has_value());
  const Json st = Status("snap");
  EXPECT_EQ(st["state"], "ABANDONED");
  EXPECT_EQ(st["error"],
            "Savepoint abandoned: the job of FlinkDeployment sm is not running (FAILED)");
  EXPECT_EQ(env_.Events("snap", "SnapshotAbandoned").size(), 1u);
  EXPECT_EQ(Label("snap", "snapshot.state"), "ABANDONED");
}

TEST_F(SnapshotTest, AbandonedWhenTheReferencedResourceIsGone) {
  DeployToStable(AppYaml("sm", "savepoint"), "sm");
  env_.jm()->HoldOperations(true);
  Create("snap", Savepoint("sm"));
  SnapPass("snap");
  ASSERT_EQ(State("snap"), "IN_PROGRESS");
  // Gone for good: drop the FlinkDeployment's finalizer and delete it.
  StatusOr<Json> fd = env_.Get(FlinkDeploymentsResource(), "sm");
  ASSERT_TRUE(fd.ok());
  (*fd)["metadata"]["finalizers"] = Json::array();
  ASSERT_TRUE(env_.client()->Update(FlinkDeploymentsResource(), *fd).ok());
  ASSERT_TRUE(env_.client()->Delete(FlinkDeploymentsResource(), "default", "sm").ok());
  SnapPass("snap");
  EXPECT_EQ(State("snap"), "ABANDONED");
  EXPECT_EQ(Status("snap")["error"], "Savepoint abandoned: FlinkDeployment sm no longer exists");
}

TEST_F(SnapshotTest, DeletingACompletedSavepointDisposesIt) {
  DeployToStable(AppYaml("sm", "savepoint"), "sm");
  Create("snap", Savepoint("sm"));
  SnapPass("snap");
  SnapPass("snap");
  const std::string path = Status("snap")["path"].get<std::string>();
  ASSERT_FALSE(path.empty());
  // Not disposed: a savepoint kept with disposeOnDelete false.
  Create("keep", Savepoint("sm", {{"disposeOnDelete", false}}));
  SnapPass("keep");
  SnapPass("keep");
  ASSERT_EQ(State("keep"), "COMPLETED");

  ASSERT_TRUE(env_.client()->Delete(FlinkStateSnapshotsResource(), "default", "snap").ok());
  ASSERT_TRUE(env_.client()->Delete(FlinkStateSnapshotsResource(), "default", "keep").ok());
  SnapPass("snap");
  SnapPass("keep");
  EXPECT_EQ(env_.jm()->DisposedSavepoints(), std::vector<std::string>{path});
  EXPECT_EQ(env_.Get(FlinkStateSnapshotsResource(), "snap").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(env_.Get(FlinkStateSnapshotsResource(), "keep").status().code(), StatusCode::kNotFound);
}

TEST_F(SnapshotTest, DisposalThatDoesNotFinishCannotBlockDeletion) {
  default_config_["kubernetes.operator.flink.client.timeout"] = "300 ms";
  NewControllers();
  snapshots_ = std::make_unique<FlinkStateSnapshotController>([&] {
    ControllerDeps deps = env_.Deps();
    deps.default_config = default_config_;
    return deps;
  }());
  DeployToStable(AppYaml("sm", "savepoint"), "sm");
  Create("snap", Savepoint("sm"));
  SnapPass("snap");
  SnapPass("snap");
  ASSERT_EQ(State("snap"), "COMPLETED");
  const std::string path = Status("snap")["path"].get<std::string>();

  env_.jm()->HoldOperations(true);  // the disposal never completes
  ASSERT_TRUE(env_.client()->Delete(FlinkStateSnapshotsResource(), "default", "snap").ok());
  const auto started = std::chrono::steady_clock::now();
  SnapPass("snap");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_EQ(env_.jm()->Count("POST", "/savepoint-disposal"), 1);
  EXPECT_EQ(env_.Get(FlinkStateSnapshotsResource(), "snap").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(env_.Events("snap", "SnapshotError"),
            std::vector<std::string>{"Savepoint " + path +
                                     " was not disposed: the disposal did not complete within "
                                     "300 ms"});
}

TEST_F(SnapshotTest, SavepointOfASessionJob) {
  // A session job's snapshot goes to its session cluster's REST API with the session job's id.
  ASSERT_TRUE(env_.Apply("apiVersion: flink.apache.org/v1beta1\n"
                         "kind: FlinkDeployment\n"
                         "metadata: {name: session, namespace: default}\n"
                         "spec:\n"
                         "  image: flink:1.20\n"
                         "  flinkVersion: v1_20\n"
                         "  serviceAccount: flink\n"
                         "  flinkConfiguration:\n"
                         "    state.savepoints.dir: file:///session/savepoints\n"
                         "  jobManager: {resource: {memory: 1g, cpu: 1}}\n"
                         "  taskManager: {resource: {memory: 1g, cpu: 1}}\n")
                  .ok());
  ASSERT_TRUE(PassUntil("session", [](const api::FlinkDeployment& d) {
    return d.status.reconciliation_status.state == api::ReconciliationState::kDeployed;
  }));
  StartAndStabilize("session");
  // The job as the session job controller would have recorded it.
  trimtab::testing::FakeFlinkJob job{.id = std::string(32, 'a')};
  env_.jm()->AddJob(job);
  ASSERT_TRUE(env_.Apply("apiVersion: flink.apache.org/v1beta1\n"
                         "kind: FlinkSessionJob\n"
                         "metadata: {name: sj, namespace: default}\n"
                         "spec:\n"
                         "  deploymentName: session\n"
                         "  job: {jarURI: 'https://example.com/job.jar'}\n")
                  .ok());
  StatusOr<Json> sj = env_.Get(FlinkSessionJobsResource(), "sj");
  ASSERT_TRUE(sj.ok());
  (*sj)["status"] = {{"jobStatus", {{"jobId", job.id}, {"state", "RUNNING"}}}};
  ASSERT_TRUE(env_.client()->UpdateStatus(FlinkSessionJobsResource(), *sj).ok());

  Create("snap", Json{{"jobReference", {{"kind", "FlinkSessionJob"}, {"name", "sj"}}},
                      {"savepoint", Json::object()}});
  SnapPass("snap");
  SnapPass("snap");
  EXPECT_EQ(State("snap"), "COMPLETED");
  EXPECT_EQ(Status("snap")["path"], "file:///session/savepoints/savepoint-aaaaaa-1");
  EXPECT_EQ(Label("snap", "job-reference.kind"), "FlinkSessionJob");
}

}  // namespace
}  // namespace trimtab::op::testing
