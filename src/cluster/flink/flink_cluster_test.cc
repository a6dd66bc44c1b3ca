// The simulated Flink cluster without HTTP: job state machine, snapshots and async operations,
// restore and the offset ledger, last-state via HA, rescaling, restarts, cancel.
#include "cluster/flink/flink_cluster.h"

#include <atomic>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster/flink/cluster_test_util.h"

namespace trimtab::sim::flink {
namespace {

using namespace std::chrono_literals;
using testing::FlinkClusterTest;
using ::testing::HasSubstr;

class ClusterStateMachineTest : public FlinkClusterTest {
 protected:
  // Poll result of a savepoint operation.
  Json SavepointResult(FlinkCluster& c, const std::string& trigger) {
    return c.Locked([&](ClusterState& s) {
      return s.OperationResult(AsyncOperations::Kind::kSavepoint, kJobId, trigger).value_or(Json());
    });
  }
  // Ledger entries of partition 0 committed after `ms` (proves the later job committed).
  size_t CommitsAfter(const std::string& key, int64_t ms) {
    size_t n = 0;
    for (const LedgerEntry& e : topics_->Ledger(key, 0)) n += e.time_ms > ms ? 1 : 0;
    return n;
  }
  std::string TopicKey(FlinkCluster& c) {
    return c.Locked([](ClusterState& s) { return s.FindJob(kJobId)->TopicKey("source"); });
  }
};

TEST_F(ClusterStateMachineTest, ApplicationJobStartsAndRecordsTimestamps) {
  auto c = Start(BaseConfig());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  FlinkCluster& cluster = **c;
  EXPECT_EQ(JobStatusOf(cluster, kJobId), "INITIALIZING");
  Advance(150ms);
  // The default scheduler is RUNNING as soon as it schedules; tasks deploy, then restore.
  cluster.Locked([](ClusterState& s) {
    const FlinkJob* j = s.FindJob(kJobId);
    EXPECT_EQ(j->status(), JobStatus::kRunning);
    EXPECT_EQ(j->task_state(), ExecutionState::kDeploying);
    EXPECT_GT(j->status_timestamp(JobStatus::kCreated), 0);
    EXPECT_EQ(s.slots().task_managers().size(), 2u);  // one slot each, TaskManagers on demand
  });
  Advance(1s);
  cluster.Locked([](ClusterState& s) { EXPECT_EQ(s.FindJob(kJobId)->task_state(), ExecutionState::kInitializing); });
  Advance(2s);
  cluster.Locked([](ClusterState& s) {
    const FlinkJob* j = s.FindJob(kJobId);
    EXPECT_EQ(j->task_state(), ExecutionState::kRunning);
    EXPECT_EQ(j->start_ms(), 1'700'000'000'000);
    EXPECT_EQ(j->end_ms(), -1);
    EXPECT_LT(j->status_timestamp(JobStatus::kInitializing), j->status_timestamp(JobStatus::kRunning));
  });
}

TEST_F(ClusterStateMachineTest, PeriodicCheckpointsWriteFilesAndCommitContiguously) {
  auto c = Start(BaseConfig());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Advance(65s);
  const std::string key = TopicKey(**c);
  (*c)->Locked([&](ClusterState& s) {
    const CheckpointStats& st = s.FindJob(kJobId)->checkpoint_stats();
    EXPECT_GE(st.completed, 5);
    ASSERT_TRUE(st.latest_completed.has_value());
    EXPECT_THAT(st.latest_completed->external_path, HasSubstr("s3://bucket/checkpoints/" + std::string(kJobId) + "/chk-"));
    EXPECT_TRUE(fs_->Exists(st.latest_completed->external_path + "/_metadata"));
  });
  EXPECT_FALSE(topics_->Ledger(key, 0).empty());
  EXPECT_TRUE(topics_->CheckLedger(key).empty()) << LedgerIssuesToString(topics_->CheckLedger(key));
  // Only the retained checkpoint (num-retained 1) is left on the file system.
  int chk_dirs = 0;
  for (const auto& e : std::filesystem::directory_iterator(root_ / "s3/bucket/checkpoints" / kJobId)) {
    chk_dirs += e.path().filename().string().starts_with("chk-") ? 1 : 0;
  }
  EXPECT_EQ(chk_dirs, 1);
}

TEST_F(ClusterStateMachineTest, SavepointIsAsyncAndIdempotentPerTriggerId) {
  FlinkConfig config = BaseConfig();
  config.Set("trimtab.job", "{name: s, vertices: [{id: source, partitions: 2, capacityPerSubtask: 1000, stateBytes: 4e8}],"
                            " checkpoint: {baseDuration: 1 s, bandwidthBytesPerSecond: 2e8}}");
  auto c = Start(config);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Advance(15s);  // deployed after the default 10 s base downtime
  SavepointRequest req;
  req.target_dir = "file:///flink/sp";
  const std::string client = "0123456789abcdef0123456789abcdef";
  const std::string t1 = (*c)->Locked([&](ClusterState& s) { return s.TriggerSavepoint(kJobId, req, client); });
  const std::string t2 = (*c)->Locked([&](ClusterState& s) { return s.TriggerSavepoint(kJobId, req, client); });
  EXPECT_EQ(t1, client);
  EXPECT_EQ(t2, client);
  Json r = SavepointResult(**c, client);
  EXPECT_EQ(r["status"]["id"], "IN_PROGRESS");
  EXPECT_TRUE(r["operation"].is_null());
  Advance(4s);  // 1 s + 4e8 B / 2e8 B/s
  r = SavepointResult(**c, client);
  ASSERT_EQ(r["status"]["id"], "COMPLETED") << r.dump();
  const std::string location = r["operation"]["location"];
  EXPECT_THAT(location, HasSubstr("file:///flink/sp/savepoint-000000-"));
  EXPECT_TRUE(fs_->Exists(location + "/_metadata"));
  (*c)->Locked([](ClusterState& s) {
    const CheckpointStats& st = s.FindJob(kJobId)->checkpoint_stats();
    EXPECT_EQ(st.latest_savepoint->checkpoint_type, "SAVEPOINT");
    EXPECT_EQ(st.total, st.completed + st.in_progress + st.failed);
  });
  // Kept for rest.async.store-duration (5 min), then forgotten.
  Advance(6min);
  EXPECT_TRUE(SavepointResult(**c, client).is_null());
}

TEST_F(ClusterStateMachineTest, SavepointOfUnknownJobFailsThroughTheOperation) {
  auto c = Start(BaseConfig());
  ASSERT_TRUE(c.ok());
  const std::string other = "ffffffffffffffffffffffffffffffff";
  Json r = (*c)->Locked([&](ClusterState& s) {
    const std::string t = s.TriggerSavepoint(other, SavepointRequest{.target_dir = "s3://b/sp"}, "");
    return *s.OperationResult(AsyncOperations::Kind::kSavepoint, other, t);
  });
  EXPECT_EQ(r["status"]["id"], "COMPLETED");
  EXPECT_EQ(r["operation"]["failure-cause"]["class"], "org.apache.flink.runtime.messages.FlinkJobNotFoundException");
}

TEST_F(ClusterStateMachineTest, StopWithSavepointThenRestoreLosesAndRepeatsNothing) {
  auto first = Start(BaseConfig());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Advance(35s);
  const std::string key = TopicKey(**first);
  SavepointRequest stop{.mode = SavepointRequest::Mode::kStop, .target_dir = "s3://bucket/sp", .drain = true};
  const std::string trigger = (*first)->Locked([&](ClusterState& s) { return s.TriggerSavepoint(kJobId, stop, ""); });
  Advance(1s);
  Json r = SavepointResult(**first, trigger);
  ASSERT_EQ(r["status"]["id"], "COMPLETED") << r.dump();
  const std::string location = r["operation"]["location"];
  EXPECT_EQ(JobStatusOf(**first, kJobId), "FINISHED");
  first->reset();
  // The topic keeps producing while no job runs: backlog.
  Advance(60s);
  const double backlog_end = topics_->Describe(key)->end_offsets[0];
  FlinkConfig config = BaseConfig();
  config.Set("execution.savepoint.path", location);
  const int64_t restored_at = ToUnixMillis(clock_.Now());
  auto second = Start(config, "default/jm-2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Advance(90s);
  (*second)->Locked([&](ClusterState& s) {
    const FlinkJob* j = s.FindJob(kJobId);
    EXPECT_EQ(j->status(), JobStatus::kRunning);
    ASSERT_TRUE(j->checkpoint_stats().latest_restored.has_value());
    EXPECT_EQ(j->checkpoint_stats().latest_restored->path, location);
    EXPECT_TRUE(j->checkpoint_stats().latest_restored->savepoint);
    // The backlog of the downtime was read after the restore (capacity 2000/s > 500/s).
    EXPECT_GT(j->model()->partitions(0)[0].read, backlog_end);
  });
  const std::vector<LedgerIssue> issues = topics_->CheckLedger(key);
  EXPECT_TRUE(issues.empty()) << LedgerIssuesToString(issues);
  EXPECT_GE(CommitsAfter(key, restored_at), 5u);
  std::set<std::string> kinds;
  for (const LedgerEntry& e : topics_->Ledger(key, 0)) kinds.insert(std::to_string(e.savepoint));
  EXPECT_EQ(kinds.size(), 2u);  // checkpoints and the terminating savepoint
}

// A job restored from an intermediate savepoint (one that commits nothing, Flink >= 1.15) after
// the job that took it died before its next checkpoint: the records up to the savepoint were
// read by the old job and are the restored job's state; restoring commits them (Flink commits a
// restored snapshot's pending side effects), so the ledger has neither a gap nor an overlap.
TEST_F(ClusterStateMachineTest, RestoreFromAnIntermediateSavepointLeavesNoGap) {
  auto first = Start(BaseConfig());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Advance(35s);  // checkpoints at 10 s intervals: the last one completed at about 30 s
  const std::string key = TopicKey(**first);
  SavepointRequest plain{.mode = SavepointRequest::Mode::kSavepoint, .target_dir = "s3://bucket/sp"};
  const std::string trigger = (*first)->Locked([&](ClusterState& s) { return s.TriggerSavepoint(kJobId, plain, ""); });
  Advance(1s);
  Json r = SavepointResult(**first, trigger);
  ASSERT_EQ(r["status"]["id"], "COMPLETED") << r.dump();
  const std::string location = r["operation"]["location"];
  const double committed = topics_->Ledger(key, 0).back().to;
  // The old job is cancelled before its next checkpoint.
  (*first)->Locked([](ClusterState& s) { ASSERT_TRUE(s.CancelJob(kJobId).ok()); });
  Advance(1s);
  first->reset();
  Advance(5s);
  FlinkConfig config = BaseConfig();
  config.Set("execution.savepoint.path", location);
  auto second = Start(config, "default/jm-2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Advance(40s);
  (*second)->Locked([&](ClusterState& s) {
    const FlinkJob* j = s.FindJob(kJobId);
    EXPECT_EQ(j->status(), JobStatus::kRunning);
    ASSERT_TRUE(j->checkpoint_stats().latest_restored.has_value());
    EXPECT_EQ(j->checkpoint_stats().latest_restored->path, location);
  });
  const std::vector<LedgerIssue> issues = topics_->CheckLedger(key);
  EXPECT_TRUE(issues.empty()) << LedgerIssuesToString(issues) << " (committed before the savepoint: " << committed
                              << ")";
}

TEST_F(ClusterStateMachineTest, StatelessRestartLeavesAGapInTheLedger) {
  auto first = Start(BaseConfig());
  ASSERT_TRUE(first.ok());
  Advance(25s);
  const std::string key = TopicKey(**first);
  (*first)->Shutdown();
  first->reset();
  Advance(30s);
  auto second = Start(BaseConfig(), "default/jm-2");
  ASSERT_TRUE(second.ok());
  Advance(30s);
  (*second)->AdvanceToNow();  // clusters advance when used: bring it to the clock's now
  const std::vector<LedgerIssue> issues = topics_->CheckLedger(key);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].kind, LedgerIssue::Kind::kGap);
  // The gap is what was produced after the last checkpoint of the first job (~ 15 s + 30 s at
  // 125 records/s per partition).
  EXPECT_GT(issues[0].to - issues[0].from, 125.0 * 35);
}

TEST_F(ClusterStateMachineTest, LastStateRestoresFromTheHaCheckpointWithoutGapOrOverlap) {
  FlinkConfig config = BaseConfig();
  config.Set("high-availability.type", "kubernetes");
  config.Set("high-availability.storageDir", "s3://bucket/ha");
  auto first = Start(config);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Advance(47s);
  const std::string key = TopicKey(**first);
  int64_t last_cp = (*first)->Locked([](ClusterState& s) {
    return s.FindJob(kJobId)->checkpoint_stats().latest_completed->id;
  });
  (*first)->Shutdown();  // the JobManager pod goes away: SUSPENDED, HA metadata stays
  EXPECT_EQ(JobStatusOf(**first, kJobId), "SUSPENDED");
  first->reset();
  ASSERT_TRUE(ha_->HasJob(kJobId));
  EXPECT_EQ(ha_->LoadJob(kJobId)->checkpoints.rbegin()->first, last_cp);
  Advance(20s);
  config.Set("execution.savepoint.path", kLastStatePath);
  const int64_t restored_at = ToUnixMillis(clock_.Now());
  auto second = Start(config, "default/jm-2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Advance(60s);
  (*second)->Locked([&](ClusterState& s) {
    const FlinkJob* j = s.FindJob(kJobId);
    EXPECT_EQ(j->status(), JobStatus::kRunning);
    ASSERT_TRUE(j->checkpoint_stats().latest_restored.has_value());
    EXPECT_EQ(j->checkpoint_stats().latest_restored->id, last_cp);
    EXPECT_GT(j->checkpoint_stats().latest_completed->id, last_cp);  // the counter continues
  });
  EXPECT_TRUE(topics_->CheckLedger(key).empty()) << LedgerIssuesToString(topics_->CheckLedger(key));
  EXPECT_GE(CommitsAfter(key, restored_at), 4u);
  // A cancelled job's HA metadata is removed.
  (*second)->Locked([](ClusterState& s) { ASSERT_TRUE(s.CancelJob(kJobId).ok()); });
  Advance(1s);
  EXPECT_EQ(JobStatusOf(**second, kJobId), "CANCELED");
  EXPECT_FALSE(ha_->HasJob(kJobId));
}

// An HA store whose writes fail while `failing` is set: the window between a checkpoint
// completing and its HA update being stored, which a kill of the process can end.
class FlakyHaStore final : public HaStore {
 public:
  explicit FlakyHaStore(std::shared_ptr<InMemoryHaStore> inner) : inner_(std::move(inner)) {}
  StatusOr<HaJobState> LoadJob(const std::string& job_id) override { return inner_->LoadJob(job_id); }
  StatusOr<std::map<std::string, Json>> LoadJobGraphs() override { return inner_->LoadJobGraphs(); }
  Status Apply(const HaUpdate& update) override {
    if (failing) return UnavailableError("HA store: injected write failure");
    return inner_->Apply(update);
  }
  std::atomic<bool> failing = false;

 private:
  std::shared_ptr<InMemoryHaStore> inner_;
};

// Issue 28, crash seed 28032: the JobManager deleted the checkpoint its HA metadata still named
// (it removed the subsumed checkpoint when the newer one completed, before the asynchronous HA
// write naming the newer one); a kill in between left a job that could not recover ("Cannot
// find checkpoint or savepoint file/directory"). As in Flink, the subsumed checkpoint now goes
// only after the HA store names the newer one.
TEST_F(ClusterStateMachineTest, SubsumedCheckpointStaysUntilTheHaStoreNamesTheNewerOne) {
  auto flaky = std::make_shared<FlakyHaStore>(ha_);
  ha_override_ = flaky;
  FlinkConfig config = BaseConfig();
  config.Set("high-availability.type", "kubernetes");
  config.Set("high-availability.storageDir", "s3://bucket/ha");
  auto first = Start(config);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // Clusters advance when used: each step brings the cluster to the clock's now.
  auto step = [&](std::chrono::milliseconds d) {
    Advance(d);
    (*first)->AdvanceToNow();
  };
  step(35s);
  ASSERT_TRUE(ha_->HasJob(kJobId));
  auto named = [&] { return *ha_->LoadJob(kJobId)->checkpoints.rbegin(); };
  const auto [first_id, first_path] = named();
  ASSERT_TRUE(fs_->Exists(first_path + "/_metadata")) << first_path;
  // A newer checkpoint completes while its HA update cannot be stored yet: the one HA names
  // stays on disk.
  flaky->failing = true;
  step(10s);
  EXPECT_GT((*first)->pending_ha_updates(), 0u);
  EXPECT_EQ(named().first, first_id);
  EXPECT_TRUE(fs_->Exists(first_path + "/_metadata")) << "the checkpoint HA names was deleted: " << first_path;
  // Once the update is stored, the subsumed checkpoint goes.
  flaky->failing = false;
  step(1s);
  EXPECT_EQ((*first)->pending_ha_updates(), 0u);
  const auto [second_id, second_path] = named();
  EXPECT_GT(second_id, first_id);
  EXPECT_TRUE(fs_->Exists(second_path + "/_metadata"));
  EXPECT_FALSE(fs_->Exists(first_path + "/_metadata"));
  // The crash of seed 28032: newer checkpoints complete, the process dies before their HA
  // updates are stored; the next JobManager recovers from the checkpoint HA names, which is
  // still there.
  flaky->failing = true;
  step(25s);
  first->reset();
  flaky->failing = false;
  EXPECT_EQ(named().first, second_id);
  ASSERT_TRUE(fs_->Exists(second_path + "/_metadata")) << second_path;
  Advance(5s);
  config.Set("execution.savepoint.path", kLastStatePath);
  auto second = Start(config, "default/jm-2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Advance(30s);
  (*second)->Locked([&](ClusterState& s) {
    const FlinkJob* j = s.FindJob(kJobId);
    ASSERT_NE(j, nullptr);
    EXPECT_EQ(j->status(), JobStatus::kRunning);
    ASSERT_TRUE(j->checkpoint_stats().latest_restored.has_value());
    EXPECT_EQ(j->checkpoint_stats().latest_restored->id, second_id);
  });
}

// Issue 28: a JobManager restart after stop-with-savepoint must not run the stopped job again.
// With HA and the job result store kept (what the operator configures), the restarted
// application cluster finds the job globally terminated and submits nothing; with Flink's default
// (delete-on-commit) the entry is gone and the job runs again, as in Flink.
TEST_F(ClusterStateMachineTest, StoppedJobIsNotResubmittedWhenTheJobManagerRestarts) {
  FlinkConfig config = BaseConfig();
  config.Set("high-availability.type", "kubernetes");
  config.Set("high-availability.storageDir", "s3://bucket/ha");
  config.Set("job-result-store.storage-path", "s3://bucket/ha/job-result-store/wc/run-1");
  config.Set("job-result-store.delete-on-commit", "false");
  auto first = Start(config);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Advance(35s);
  const std::string key = TopicKey(**first);
  SavepointRequest stop{.mode = SavepointRequest::Mode::kStop, .target_dir = "s3://bucket/sp"};
  const std::string trigger = (*first)->Locked([&](ClusterState& s) { return s.TriggerSavepoint(kJobId, stop, ""); });
  Advance(1s);
  ASSERT_EQ(SavepointResult(**first, trigger)["status"]["id"], "COMPLETED");
  EXPECT_EQ(JobStatusOf(**first, kJobId), "FINISHED");
  EXPECT_FALSE(ha_->HasJob(kJobId));  // a globally terminated job's HA metadata is cleaned up
  EXPECT_TRUE(fs_->Exists("s3://bucket/ha/job-result-store/wc/run-1/" + std::string(kJobId) + ".json"));
  first->reset();  // killed: the pod restarts with the same configuration

  auto second = Start(config, "default/jm-2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Advance(30s);
  (*second)->AdvanceToNow();
  EXPECT_EQ(JobStatusOf(**second, kJobId), "MISSING");
  EXPECT_TRUE((*second)->Locked([](ClusterState& s) { return s.jobs().empty(); }));
  EXPECT_TRUE(topics_->CheckLedger(key).empty()) << LedgerIssuesToString(topics_->CheckLedger(key));
  second->reset();

  // Another deployment (a new job result store path) runs the job again.
  config.Set("job-result-store.storage-path", "s3://bucket/ha/job-result-store/wc/run-2");
  auto third = Start(config, "default/jm-3");
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  Advance(5s);
  EXPECT_NE(JobStatusOf(**third, kJobId), "MISSING");
}

TEST_F(ClusterStateMachineTest, WithoutAKeptJobResultTheRestartedJobManagerRunsTheJobAgain) {
  FlinkConfig config = BaseConfig();
  config.Set("high-availability.type", "kubernetes");
  config.Set("high-availability.storageDir", "s3://bucket/ha");
  auto first = Start(config);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Advance(20s);
  (*first)->Locked([](ClusterState& s) { ASSERT_TRUE(s.CancelJob(kJobId).ok()); });
  Advance(1s);
  EXPECT_EQ(JobStatusOf(**first, kJobId), "CANCELED");
  first->reset();
  auto second = Start(config, "default/jm-2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Advance(1s);
  EXPECT_NE(JobStatusOf(**second, kJobId), "MISSING");  // delete-on-commit (Flink's default)
}

TEST_F(ClusterStateMachineTest, InPlaceRescaleWithTheAdaptiveScheduler) {
  FlinkConfig config = BaseConfig();
  config.Set("jobmanager.scheduler", "adaptive");
  auto c = Start(config);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Advance(35s);
  const std::string key = TopicKey(**c);
  const int64_t before = ToUnixMillis(clock_.Now());
  Status s = (*c)->Locked([](ClusterState& st) {
    std::map<std::string, std::pair<int64_t, int64_t>> req;
    for (const JobVertexView& v : st.FindJob(kJobId)->vertices()) req[v.id] = {1, 4};
    return st.UpdateResourceRequirements(kJobId, req);
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(JobStatusOf(**c, kJobId), "RESTARTING");
  Advance(30s);
  (*c)->Locked([&](ClusterState& st) {
    const FlinkJob* j = st.FindJob(kJobId);
    EXPECT_EQ(j->status(), JobStatus::kRunning);
    EXPECT_EQ(j->vertices()[0].parallelism, 4);
    EXPECT_EQ(j->num_restarts(), 1);
    EXPECT_EQ(j->num_rescales(), 1);
    const int64_t restarting = j->status_timestamp(JobStatus::kRestarting);
    const int64_t created = j->status_timestamp(JobStatus::kCreated);
    EXPECT_GE(restarting, before);
    EXPECT_GT(created, restarting);
    EXPECT_GT(j->status_timestamp(JobStatus::kRunning), created);
    EXPECT_EQ(j->resource_requirements().begin()->second.upper, 4);
  });
  EXPECT_TRUE(topics_->CheckLedger(key).empty()) << LedgerIssuesToString(topics_->CheckLedger(key));
  EXPECT_GE(CommitsAfter(key, before), 1u);
}

TEST_F(ClusterStateMachineTest, ResourceRequirementsValidation) {
  FlinkConfig config = BaseConfig();
  auto plain = Start(config);
  ASSERT_TRUE(plain.ok());
  Advance(5s);
  Status s = (*plain)->Locked([](ClusterState& st) { return st.UpdateResourceRequirements(kJobId, {}); });
  EXPECT_EQ(s.code(), StatusCode::kInternal);  // HTTP 500: the default scheduler cannot do it
  EXPECT_THAT(s.message(), HasSubstr("DefaultScheduler"));
  plain->reset();

  config.Set("jobmanager.scheduler", "adaptive");
  config.Set("$internal.pipeline.job-id", "00000000000000000000000000000abc");
  auto c = Start(config, "default/jm-2");
  ASSERT_TRUE(c.ok());
  Advance(5s);
  (*c)->Locked([](ClusterState& st) {
    const std::vector<JobVertexView>& v = st.FindJob(kJobId)->vertices();
    Status missing = st.UpdateResourceRequirements(kJobId, {{v[0].id, {1, 2}}});
    EXPECT_EQ(missing.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(missing.message(), HasSubstr("missing job vertex [" + v[1].id + "]"));
    Status bounds = st.UpdateResourceRequirements(kJobId, {{v[0].id, {3, 2}}, {v[1].id, {1, 1000}}});
    EXPECT_EQ(bounds.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(bounds.message(), HasSubstr("\n"));  // one line per problem
    EXPECT_TRUE(st.UpdateResourceRequirements(kJobId, {{v[0].id, {1, 3}}, {v[1].id, {-1, -1}}}).ok());
    Status again = st.UpdateResourceRequirements(kJobId, {{v[0].id, {1, 2}}, {v[1].id, {1, 2}}});
    EXPECT_EQ(again.code(), StatusCode::kConflict);  // the first update is still being persisted
  });
}

TEST_F(ClusterStateMachineTest, FailuresRestartWithBackoffOrFailTheJob) {
  auto c = Start(BaseConfig());
  ASSERT_TRUE(c.ok());
  Advance(15s);
  ASSERT_TRUE((*c)->Locked([](ClusterState& s) { return s.FailJobForTest(kJobId, "boom"); }).ok());
  EXPECT_EQ(JobStatusOf(**c, kJobId), "RESTARTING");
  Advance(10s);
  (*c)->Locked([](ClusterState& s) {
    const FlinkJob* j = s.FindJob(kJobId);
    EXPECT_EQ(j->status(), JobStatus::kRunning);
    EXPECT_EQ(j->num_restarts(), 1);
    EXPECT_EQ(j->attempt(), 1);
    ASSERT_FALSE(j->exceptions().empty());
    EXPECT_EQ(j->exceptions().front().message, "boom");
  });
  FlinkConfig config = BaseConfig();
  config.Set("restart-strategy.type", "none");
  auto no_restart = Start(config, "default/jm-2");
  ASSERT_TRUE(no_restart.ok());
  c->reset();  // frees the topic
  Advance(5s);
  ASSERT_TRUE((*no_restart)->Locked([](ClusterState& s) { return s.FailJobForTest(kJobId, "fatal"); }).ok());
  EXPECT_EQ(JobStatusOf(**no_restart, kJobId), "FAILING");
  Advance(1s);
  EXPECT_EQ(JobStatusOf(**no_restart, kJobId), "FAILED");
}

TEST_F(ClusterStateMachineTest, CancelThenCancelAgainIsAConflict) {
  auto c = Start(BaseConfig());
  ASSERT_TRUE(c.ok());
  Advance(5s);
  ASSERT_TRUE((*c)->Locked([](ClusterState& s) { return s.CancelJob(kJobId); }).ok());
  EXPECT_EQ(JobStatusOf(**c, kJobId), "CANCELLING");
  Advance(1s);
  EXPECT_EQ(JobStatusOf(**c, kJobId), "CANCELED");
  Status again = (*c)->Locked([](ClusterState& s) { return s.CancelJob(kJobId); });
  EXPECT_EQ(again.code(), StatusCode::kConflict);
  EXPECT_THAT(again.message(), HasSubstr("already reached another terminal state (CANCELED)"));
}

TEST_F(ClusterStateMachineTest, LostTaskManagerRestartsTheJob) {
  auto c = Start(BaseConfig());
  ASSERT_TRUE(c.ok());
  Advance(15s);
  (*c)->Locked([](ClusterState& s) {
    const std::string tm = s.slots().task_managers().front().info.id;
    s.UnregisterTaskManager(tm, "pod deleted");
    EXPECT_EQ(s.FindJob(kJobId)->status(), JobStatus::kRestarting);
  });
  Advance(10s);
  EXPECT_EQ(JobStatusOf(**c, kJobId), "RUNNING");
}

// Reactive mode (issue 21): the job runs on every slot there is and follows the TaskManagers.
TEST_F(ClusterStateMachineTest, ReactiveModeRunsOnAllSlotsAndFollowsTheTaskManagers) {
  auto_task_managers_ = false;
  FlinkConfig config = BaseConfig();
  config.Set("scheduler-mode", "reactive");
  config.Set("taskmanager.numberOfTaskSlots", "2");
  config.Set("parallelism.default", "1");  // ignored in reactive mode
  auto c = Start(config);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const auto tm = [](const std::string& id) {
    TaskManagerInfo info;
    info.id = id;
    info.slots = 2;
    return info;
  };
  const auto parallelism = [&] {
    return (*c)->Locked([](ClusterState& s) {
      std::vector<int> out;
      for (const JobVertexView& v : s.FindJob(kJobId)->vertices()) out.push_back(v.parallelism);
      return out;
    });
  };
  (*c)->Locked([&](ClusterState& s) { s.RegisterTaskManager(tm("tm-1")); });
  Advance(5s);  // within the resource stabilization timeout (10 s)
  EXPECT_EQ(JobStatusOf(**c, kJobId), "CREATED");
  Advance(10s);
  EXPECT_EQ(JobStatusOf(**c, kJobId), "RUNNING");
  EXPECT_EQ(parallelism(), (std::vector<int>{2, 2}));
  const std::string key = TopicKey(**c);
  // A second TaskManager: the job rescales to its 4 slots, from a checkpoint.
  (*c)->Locked([&](ClusterState& s) { s.RegisterTaskManager(tm("tm-2")); });
  Advance(30s);
  EXPECT_EQ(JobStatusOf(**c, kJobId), "RUNNING");
  EXPECT_EQ(parallelism(), (std::vector<int>{4, 4}));
  (*c)->Locked([](ClusterState& s) {
    EXPECT_EQ(s.FindJob(kJobId)->num_rescales(), 1);
    EXPECT_EQ(s.slots().slots_of(kJobId), 4);
  });
  // It goes away: failover, and the job runs on the 2 slots left.
  (*c)->Locked([](ClusterState& s) {
    s.UnregisterTaskManager("tm-2", "pod deleted");
    EXPECT_EQ(s.FindJob(kJobId)->status(), JobStatus::kRestarting);
  });
  Advance(30s);
  EXPECT_EQ(JobStatusOf(**c, kJobId), "RUNNING");
  EXPECT_EQ(parallelism(), (std::vector<int>{2, 2}));
  EXPECT_TRUE(topics_->CheckLedger(key).empty()) << LedgerIssuesToString(topics_->CheckLedger(key));
  // Reactive mode owns the parallelism: the REST rescale is refused, as Flink refuses it.
  Status s = (*c)->Locked([](ClusterState& st) {
    std::map<std::string, std::pair<int64_t, int64_t>> req;
    for (const JobVertexView& v : st.FindJob(kJobId)->vertices()) req[v.id] = {1, 4};
    return st.UpdateResourceRequirements(kJobId, req);
  });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
}

// ---- Bounded jobs (sources with stopping offsets) -------------------------------------------

// SmallJob() whose source stops at offset 1,000 of each of its 4 partitions: 4,000 records, all
// produced 8 s after the topic's creation at 500 records/s.
FlinkConfig BoundedConfig(FlinkConfig config) {
  config.Set("trimtab.job", testing::BoundedSmallJob());
  config.Set("resourcemanager.taskmanager-timeout", "5 s");
  return config;
}

TEST_F(ClusterStateMachineTest, BoundedJobFinishesAfterItsFinalCheckpointAndReleasesItsTaskManagers) {
  FlinkConfig config = BoundedConfig(BaseConfig());
  config.Set("execution.shutdown-on-application-finish", "false");  // as the operator sets it
  auto c = Start(config);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const std::string key = TopicKey(**c);
  Advance(10s);
  (*c)->Locked([](ClusterState& s) {
    const FlinkJob* j = s.FindJob(kJobId);
    EXPECT_TRUE(j->model()->finished());  // everything read at ~8 s ...
    EXPECT_EQ(j->status(), JobStatus::kRunning);  // ... and waiting for the final checkpoint
    EXPECT_EQ(j->task_state(), ExecutionState::kRunning);
  });
  Advance(4s);  // the next periodic checkpoint (~12 s) completes and commits the last offsets
  (*c)->Locked([](ClusterState& s) {
    const FlinkJob* j = s.FindJob(kJobId);
    EXPECT_EQ(j->status(), JobStatus::kFinished);
    EXPECT_EQ(j->task_state(), ExecutionState::kFinished);
    EXPECT_GT(j->end_ms(), 0);
    EXPECT_EQ(s.slots().free_slots(), s.slots().total_slots());
    EXPECT_EQ(s.DesiredTaskManagers(), 0);
    EXPECT_EQ(s.slots().task_managers().size(), 2u);  // idle, not yet past the timeout
    EXPECT_FALSE(s.shutdown_requested());  // execution.shutdown-on-application-finish: false
  });
  // Every record up to the stopping offsets committed exactly once, the last range by the
  // final checkpoint; the topic itself keeps producing.
  EXPECT_TRUE(topics_->CheckLedger(key).empty()) << LedgerIssuesToString(topics_->CheckLedger(key));
  for (int p = 0; p < 4; ++p) EXPECT_DOUBLE_EQ(topics_->Ledger(key, p).back().to, 1000) << p;
  Advance(6s);  // resourcemanager.taskmanager-timeout: 5 s
  (*c)->Locked([](ClusterState& s) {
    EXPECT_TRUE(s.slots().task_managers().empty());
    EXPECT_EQ(s.FindJob(kJobId)->status(), JobStatus::kFinished);  // the JobManager stays up
  });
  EXPECT_GT(topics_->Describe(key)->end_offsets[0], 1000);
}

TEST_F(ClusterStateMachineTest, BoundedJobWithoutCheckpointsFinishesAtTheEndAndShutsTheClusterDown) {
  const FlinkConfig bounded = BoundedConfig(BaseConfig());
  FlinkConfig config;  // without checkpoints
  for (const auto& [k, v] : bounded.entries()) {
    if (k != "execution.checkpointing.interval") config.Set(k, v);
  }
  auto c = Start(config);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Advance(7s);
  EXPECT_EQ(JobStatusOf(**c, kJobId), "RUNNING");
  Advance(2s);
  EXPECT_EQ(JobStatusOf(**c, kJobId), "FINISHED");
  // execution.shutdown-on-application-finish defaults to true: the JobManager shuts down.
  EXPECT_TRUE((*c)->Locked([](ClusterState& s) { return s.shutdown_requested(); }));
}

TEST_F(ClusterStateMachineTest, NoFinalCheckpointWhenCheckpointsAfterTasksFinishIsOff) {
  FlinkConfig config = BoundedConfig(BaseConfig());
  config.Set("execution.checkpointing.checkpoints-after-tasks-finish.enabled", "false");  // Flink 1.x key
  auto c = Start(config);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Advance(9s);
  EXPECT_EQ(JobStatusOf(**c, kJobId), "FINISHED");
}

TEST_F(ClusterStateMachineTest, BoundedJobRestoredFromASavepointFinishesAtTheSameEnd) {
  FlinkConfig config = BoundedConfig(BaseConfig());
  auto first = Start(config);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const std::string key = TopicKey(**first);
  Advance(5s);  // about half of it read
  SavepointRequest stop{.mode = SavepointRequest::Mode::kStop, .target_dir = "s3://bucket/sp"};
  const std::string trigger = (*first)->Locked([&](ClusterState& s) { return s.TriggerSavepoint(kJobId, stop, ""); });
  Advance(1s);
  Json r = SavepointResult(**first, trigger);
  ASSERT_EQ(r["status"]["id"], "COMPLETED") << r.dump();
  const double stopped_at = topics_->Ledger(key, 0).back().to;
  EXPECT_GT(stopped_at, 200);
  EXPECT_LT(stopped_at, 1000);
  first->reset();
  Advance(30s);
  config.Set("execution.savepoint.path", r["operation"]["location"].get<std::string>());
  auto second = Start(config, "default/jm-2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Advance(15s);
  EXPECT_EQ(JobStatusOf(**second, kJobId), "FINISHED");
  // The restored job read from the savepoint's offsets to the stopping offsets: nothing lost,
  // nothing twice, nothing past the end.
  EXPECT_TRUE(topics_->CheckLedger(key).empty()) << LedgerIssuesToString(topics_->CheckLedger(key));
  for (int p = 0; p < 4; ++p) EXPECT_DOUBLE_EQ(topics_->Ledger(key, p).back().to, 1000) << p;
}

}  // namespace
}  // namespace trimtab::sim::flink
