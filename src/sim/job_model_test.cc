#include "sim/job_model.h"

#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab::sim {
namespace {

VertexSpec Source(const std::string& id, int p, int partitions, double cap) {
  VertexSpec v;
  v.id = id;
  v.parallelism = p;
  v.partitions = partitions;
  v.capacity_per_subtask = cap;
  return v;
}

VertexSpec Op(const std::string& id, int p, double cap, double selectivity = 1.0) {
  VertexSpec v;
  v.id = id;
  v.parallelism = p;
  v.capacity_per_subtask = cap;
  v.selectivity = selectivity;
  return v;
}

JobSpec Chain(std::vector<VertexSpec> vertices, ShipStrategy ship = ShipStrategy::kRebalance) {
  JobSpec spec;
  spec.name = "test";
  for (size_t i = 0; i + 1 < vertices.size(); ++i) {
    spec.edges.push_back(EdgeSpec{vertices[i].id, vertices[i + 1].id, ship});
  }
  spec.vertices = std::move(vertices);
  spec.checkpoint.interval_seconds = 1e6;  // no checkpoints unless a test wants them
  spec.restart.base_downtime_seconds = 20;
  return spec;
}

std::unique_ptr<JobModel> Make(JobSpec spec, uint64_t seed = 1) {
  StatusOr<std::unique_ptr<JobModel>> m = JobModel::Create(std::move(spec), seed);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return std::move(m).value();
}

void Advance(JobModel& m, int seconds, double dt = 1.0) {
  for (int i = 0; i < static_cast<int>(seconds / dt); ++i) m.Step(dt);
}

const VertexMetrics& V(const JobMetrics& m, const std::string& id) {
  for (const VertexMetrics& v : m.vertices) {
    if (v.id == id) return v;
  }
  ADD_FAILURE() << "no vertex " << id;
  return m.vertices.front();
}

TEST(JobModel, UnsaturatedPipelineIsIdleInProportion) {
  auto m = Make(Chain({Source("src", 1, 4, 10'000), Op("map", 2, 1'000, 0.5)}));
  m->SetSourceRate(0, 1'000);
  Advance(*m, 120);
  const JobMetrics s = m->Snapshot();
  // map: 500 records/s per subtask of 1000 capacity -> busy 500, idle 500.
  EXPECT_NEAR(V(s, "map").busy_ms_per_second_avg, 500, 1e-6);
  EXPECT_NEAR(V(s, "map").idle_ms_per_second_avg, 500, 1e-6);
  EXPECT_NEAR(V(s, "map").records_in_per_second, 1'000, 1e-6);
  EXPECT_NEAR(V(s, "map").records_out_per_second, 500, 1e-6);
  // source: 1000 of 10000 -> busy 100, idle 900; reads everything, no lag.
  EXPECT_NEAR(V(s, "src").busy_ms_per_second_avg, 100, 1e-6);
  EXPECT_NEAR(V(s, "src").idle_ms_per_second_avg, 900, 1e-6);
  EXPECT_NEAR(V(s, "src").records_in_per_second, 1'000, 1e-6);
  EXPECT_NEAR(m->TotalPendingRecords(), 0, 1e-6);
}

TEST(JobModel, SaturatedVertexIsBusyAndCapsOutput) {
  auto m = Make(Chain({Source("src", 1, 4, 1e6), Op("map", 1, 1'000, 2.0)}));
  m->SetSourceRate(0, 2'000);
  Advance(*m, 120);
  const JobMetrics s = m->Snapshot();
  EXPECT_NEAR(V(s, "map").busy_ms_per_second_max, 1'000, 1e-6);
  EXPECT_NEAR(V(s, "map").records_in_per_second, 1'000, 1e-6);   // capped at capacity
  EXPECT_NEAR(V(s, "map").records_out_per_second, 2'000, 1e-6);  // selectivity 2
  // The source reads only what the map takes: busy 1000/1e6 -> 1 ms/s, the rest backpressured.
  EXPECT_NEAR(V(s, "src").busy_ms_per_second_avg, 1, 1e-6);
  EXPECT_NEAR(V(s, "src").backpressured_ms_per_second_avg, 999, 1e-6);
  // 2000 arrive, 1000 leave per second: 120 s -> 120000 pending.
  EXPECT_NEAR(m->TotalPendingRecords(), 120'000, 1e-3);
  EXPECT_NEAR(V(s, "src").pending_records, 120'000, 1e-3);
}

TEST(JobModel, BackpressurePropagatesUpstreamOfTheBottleneck) {
  auto m = Make(Chain({Source("src", 1, 2, 1e6), Op("a", 1, 2'000), Op("b", 1, 500), Op("sink", 1, 1e6)}));
  m->SetSourceRate(0, 1'000);
  Advance(*m, 60);
  const JobMetrics s = m->Snapshot();
  // b is the bottleneck at 500/s.
  EXPECT_NEAR(V(s, "b").busy_ms_per_second_avg, 1'000, 1e-6);
  EXPECT_NEAR(V(s, "b").backpressured_ms_per_second_avg, 0, 1e-6);
  // a processes 500 of 2000: busy 250, the other 750 backpressured (its output buffers are full).
  EXPECT_NEAR(V(s, "a").busy_ms_per_second_avg, 250, 1e-6);
  EXPECT_NEAR(V(s, "a").backpressured_ms_per_second_avg, 750, 1e-6);
  EXPECT_NEAR(V(s, "a").idle_ms_per_second_avg, 0, 1e-6);
  // The source is backpressured too; the sink downstream is idle.
  EXPECT_NEAR(V(s, "src").backpressured_ms_per_second_avg, 999.5, 1e-6);
  EXPECT_NEAR(V(s, "sink").idle_ms_per_second_avg, 1'000 - 0.5, 1e-6);
  EXPECT_NEAR(V(s, "sink").records_in_per_second, 500, 1e-6);
  // busy + idle + backpressured = 1000 for every subtask.
  for (const VertexMetrics& v : s.vertices) {
    for (const SubtaskMetrics& st : v.subtasks) {
      EXPECT_NEAR(st.busy_ms_per_second + st.idle_ms_per_second + st.backpressured_ms_per_second, 1000, 1e-6);
    }
  }
}

TEST(JobModel, CatchUpAfterRestartDrainsAtCapacityMinusInput) {
  JobSpec spec = Chain({Source("src", 1, 4, 1'000), Op("map", 1, 1e6)});
  spec.restart.rescale_from = RestoreSource::kSavepoint;  // no rewind
  spec.checkpoint.base_duration_seconds = 0;              // savepoint of empty state is instant
  auto m = Make(std::move(spec));
  m->SetSourceRate(0, 600);
  Advance(*m, 100);
  EXPECT_NEAR(m->TotalPendingRecords(), 0, 1e-9);
  StatusOr<double> downtime = m->Rescale({{"map", 2}});
  ASSERT_TRUE(downtime.ok()) << downtime.status().ToString();
  EXPECT_DOUBLE_EQ(*downtime, 20.0);
  EXPECT_EQ(m->state(), JobState::kRestarting);
  Advance(*m, 20);
  // 20 s down at 600/s -> 12000 records of lag, 20 s of input.
  EXPECT_NEAR(m->TotalPendingRecords(), 12'000, 1e-6);
  EXPECT_NEAR(m->LagSeconds(), 20, 1e-9);
  EXPECT_EQ(m->state(), JobState::kRunning);
  EXPECT_TRUE(m->Snapshot().vertices.size() == 2);
  // Drains at 1000 - 600 = 400/s: 15 s later 6000 left, 30 s later none.
  Advance(*m, 15);
  EXPECT_NEAR(m->TotalPendingRecords(), 6'000, 1e-6);
  Advance(*m, 15);
  EXPECT_NEAR(m->TotalPendingRecords(), 0, 1e-6);
  Advance(*m, 5);
  EXPECT_NEAR(m->TotalPendingRecords(), 0, 1e-6);
}

TEST(JobModel, MetricsAbsentWhileRestartingAndMetersRampAfter) {
  auto m = Make(Chain({Source("src", 1, 4, 1e6), Op("map", 1, 1e6)}));
  m->SetSourceRate(0, 600);
  Advance(*m, 120);
  EXPECT_NEAR(V(m->Snapshot(), "map").records_in_per_second, 600, 1e-6);
  ASSERT_TRUE(m->Rescale({{"map", 2}}, RescaleOptions{.free = true}).ok());
  Advance(*m, 30);
  // MeterView starts from zero: 30 s of counts over a 60-s window.
  EXPECT_NEAR(V(m->Snapshot(), "map").records_in_per_second, 300, 1e-6);
  Advance(*m, 30);
  EXPECT_NEAR(V(m->Snapshot(), "map").records_in_per_second, 600, 1e-6);

  m->Rescale({{"map", 1}}).status().IgnoreError();
  Advance(*m, 5);
  const JobMetrics down = m->Snapshot();
  EXPECT_EQ(down.state, JobState::kRestarting);
  EXPECT_TRUE(down.vertices.empty());
  EXPECT_EQ(down.num_rescales, 2);
}

TEST(JobModel, SourceParallelismBoundedByPartitions) {
  auto m = Make(Chain({Source("src", 8, 4, 1'000), Op("sink", 1, 1e6)}));
  m->SetSourceRate(0, 2'000);  // 500/s per partition
  Advance(*m, 60);
  const JobMetrics snapshot = m->Snapshot();
  const VertexMetrics& src = V(snapshot, "src");
  int busy = 0, idle = 0;
  for (const SubtaskMetrics& s : src.subtasks) {
    if (s.assigned_partitions == 1) {
      ++busy;
      EXPECT_NEAR(s.busy_ms_per_second, 500, 1e-6);
    } else {
      EXPECT_EQ(s.assigned_partitions, 0);
      EXPECT_NEAR(s.idle_ms_per_second, 1000, 1e-6);
      ++idle;
    }
  }
  EXPECT_EQ(busy, 4);
  EXPECT_EQ(idle, 4);
  const VertexDemand d{2'000, 0};
  EXPECT_EQ(m->MinimalParallelism(0, d), 2);  // 2 partitions per reader = 1000/s
  EXPECT_EQ(m->MinimalParallelism(0, VertexDemand{2'001, 0}), 4);  // capped at the partitions
  EXPECT_EQ(m->MinimalParallelism(0, VertexDemand{9'000, 0}), 4);
}

TEST(JobModel, OffsetsExactlyOnceAcrossFailover) {
  JobSpec spec = Chain({Source("src", 2, 4, 1e6), Op("sink", 1, 1e6)});
  spec.checkpoint.interval_seconds = 10;
  spec.checkpoint.base_duration_seconds = 0;
  spec.restart.base_downtime_seconds = 10;
  spec.restart.failure_backoff_seconds = 1;
  auto m = Make(std::move(spec));
  m->SetSourceRate(0, 100);  // 25/s per partition
  Advance(*m, 25);
  // Checkpoint triggered at t=20 captured read = end = 500 per partition; it completed at t=21.
  for (const PartitionOffsets& po : m->partitions(0)) {
    EXPECT_DOUBLE_EQ(po.committed, 500);
    EXPECT_DOUBLE_EQ(po.read, 625);
  }
  EXPECT_DOUBLE_EQ(m->Fail(), 11);
  for (const PartitionOffsets& po : m->partitions(0)) EXPECT_DOUBLE_EQ(po.read, 500);  // rewound
  EXPECT_DOUBLE_EQ(m->reprocessed_records(), 4 * 125);
  Advance(*m, 75);
  // Nothing skipped: every partition is read to its end; the only records read twice are the
  // 500 between the checkpoint and the failure.
  for (const PartitionOffsets& po : m->partitions(0)) {
    EXPECT_DOUBLE_EQ(po.end, 2'500);
    EXPECT_DOUBLE_EQ(po.read, 2'500);
    EXPECT_LE(po.committed, po.read);
  }
  EXPECT_NEAR(m->total_processed(0), 4 * 2'500 + 500, 1e-6);
  EXPECT_NEAR(m->total_processed(1), 4 * 2'500 + 500, 1e-6);
}

// ---- Owner controls used by the simulated Flink cluster (src/cluster/flink) ---------------

TEST(JobModel, HoldKeepsTasksDownWhileInputArrivesAndReleaseRunsThePausedDowntime) {
  JobSpec spec = Chain({Source("src", 1, 2, 1e6), Op("sink", 1, 1e6)});
  auto m = Make(std::move(spec));
  m->SetSourceRate(0, 100);
  m->Hold();  // e.g. no TaskManager yet
  Advance(*m, 10);
  EXPECT_TRUE(m->held());
  EXPECT_EQ(m->state(), JobState::kRestarting);
  EXPECT_DOUBLE_EQ(m->TotalPendingRecords(), 1'000);  // nothing read
  EXPECT_TRUE(m->Snapshot().vertices.empty());
  m->Release(3);  // deploy + restore
  Advance(*m, 2);
  EXPECT_EQ(m->state(), JobState::kRestarting);
  Advance(*m, 2);
  EXPECT_EQ(m->state(), JobState::kRunning);
  Advance(*m, 10);
  EXPECT_DOUBLE_EQ(m->TotalPendingRecords(), 0);  // the backlog is read
  EXPECT_EQ(m->num_restarts(), 0);                 // holding is not a restart
  // A failure while held: the restart's downtime waits for the release.
  m->Hold();
  const double downtime = m->Fail(/*backoff_seconds=*/0);
  EXPECT_DOUBLE_EQ(downtime, 20);
  EXPECT_DOUBLE_EQ(m->held_downtime_seconds(), 20);
  Advance(*m, 100);
  EXPECT_EQ(m->state(), JobState::kRestarting);
  m->Release();
  Advance(*m, 19);
  EXPECT_EQ(m->state(), JobState::kRestarting);
  Advance(*m, 1);
  EXPECT_EQ(m->state(), JobState::kRunning);
  EXPECT_EQ(m->num_restarts(), 1);
}

TEST(JobModel, TriggeredSnapshotsReportTheirOffsetsAndOnlyCommittingOnesMoveTheRestorePoint) {
  JobSpec spec = Chain({Source("src", 1, 2, 1e6), Op("sink", 1, 1e6)});
  spec.checkpoint.base_duration_seconds = 1;
  auto m = Make(std::move(spec));
  m->RecordCheckpointEvents(true);
  m->SetPeriodicCheckpoints(false);
  m->SetNextCheckpointId(42);
  m->SetSourceRate(0, 100);
  Advance(*m, 10);
  StatusOr<int64_t> sp = m->TriggerCheckpoint(/*savepoint=*/true, /*commits=*/false);
  ASSERT_TRUE(sp.ok()) << sp.status().ToString();
  EXPECT_EQ(*sp, 42);
  EXPECT_EQ(m->num_checkpoints_in_flight(), 1);
  Advance(*m, 1);
  std::vector<CheckpointEvent> events = m->TakeCheckpointEvents();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].completed);
  EXPECT_TRUE(events[0].savepoint);
  EXPECT_FALSE(events[0].commits);
  EXPECT_EQ(events[0].trigger_ms, 10'000);
  EXPECT_EQ(events[0].end_ms, 11'000);
  EXPECT_EQ(events[0].read_offsets, (std::vector<std::vector<double>>{{500, 500}}));
  for (const PartitionOffsets& po : m->partitions(0)) EXPECT_DOUBLE_EQ(po.committed, 0);  // intermediate savepoint
  StatusOr<int64_t> cp = m->TriggerCheckpoint(false);
  ASSERT_TRUE(cp.ok());
  EXPECT_EQ(*cp, 43);
  Advance(*m, 2);
  events = m->TakeCheckpointEvents();
  ASSERT_EQ(events.size(), 1u);
  for (const PartitionOffsets& po : m->partitions(0)) EXPECT_DOUBLE_EQ(po.committed, 550);
  EXPECT_TRUE(m->TakeCheckpointEvents().empty());
  // A declined snapshot and a restart abort what is in flight.
  const int64_t declined = *m->TriggerCheckpoint(false);
  EXPECT_TRUE(m->AbortCheckpoint(declined, "declined"));
  EXPECT_FALSE(m->AbortCheckpoint(declined, "again"));
  const int64_t lost = *m->TriggerCheckpoint(false);
  m->Fail();
  events = m->TakeCheckpointEvents();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].failure, "declined");
  EXPECT_EQ(events[1].id, lost);
  EXPECT_FALSE(events[1].completed);
  EXPECT_FALSE(m->TriggerCheckpoint(false).ok());  // tasks down
}

TEST(JobModel, SnapshotsCompleteWhileHeldForStopWithSavepoint) {
  JobSpec spec = Chain({Source("src", 1, 1, 1e6), Op("sink", 1, 1e6)});
  spec.checkpoint.base_duration_seconds = 2;
  auto m = Make(std::move(spec));
  m->RecordCheckpointEvents(true);
  m->SetSourceRate(0, 10);
  Advance(*m, 5);
  const int64_t id = *m->TriggerCheckpoint(/*savepoint=*/true, /*commits=*/true);
  m->Hold();  // the sources stop at the savepoint
  Advance(*m, 5);
  std::vector<CheckpointEvent> events = m->TakeCheckpointEvents();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].id, id);
  EXPECT_TRUE(events[0].completed);
  EXPECT_DOUBLE_EQ(m->partitions(0)[0].read, 50);       // nothing read after the savepoint
  EXPECT_DOUBLE_EQ(m->partitions(0)[0].committed, 50);  // it commits
  EXPECT_DOUBLE_EQ(m->partitions(0)[0].end, 100);
}

TEST(JobModel, StartsFromRestoredPartitionOffsets) {
  JobSpec spec = Chain({Source("src", 1, 2, 1e6), Op("sink", 1, 1e6)});
  auto m = Make(std::move(spec));
  EXPECT_FALSE(m->SetPartitionOffsets(0, {{10, 5, 5}}).ok());              // wrong partition count
  EXPECT_FALSE(m->SetPartitionOffsets(0, {{10, 11, 5}, {10, 5, 5}}).ok());  // read beyond the end
  ASSERT_TRUE(m->SetPartitionOffsets(0, {{1'000, 400, 400}, {1'000, 600, 600}}).ok());
  EXPECT_DOUBLE_EQ(m->TotalPendingRecords(), 1'000);
  m->SetSourceRate(0, 0);
  Advance(*m, 5);
  EXPECT_DOUBLE_EQ(m->TotalPendingRecords(), 0);
  EXPECT_NEAR(m->total_processed(0), 1'000, 1e-9);
}

TEST(JobModel, KeyGroupSplitSkewCapsThroughput) {
  // maxP 128, p 100: 28 subtasks own 2 key groups -> the hot ones carry 2/128 of the input and
  // saturate first: effective capacity 100 * 128 / 2 = 6400, i.e. 64 % of 100 * 100.
  JobSpec spec = Chain({Source("src", 1, 1, 1e9), Op("agg", 100, 100)}, ShipStrategy::kHash);
  spec.vertices[1].max_parallelism = 128;
  auto m = Make(std::move(spec));
  m->SetSourceRate(0, 12'800);
  Advance(*m, 60);
  const JobMetrics s = m->Snapshot();
  EXPECT_NEAR(V(s, "agg").records_in_per_second, 6'400, 1e-6);
  EXPECT_NEAR(V(s, "agg").busy_ms_per_second_max, 1'000, 1e-6);
  EXPECT_NEAR(V(s, "agg").busy_ms_per_second_avg, 640, 1e-6);
  // The fewest subtasks that carry 6400/s: 64 (divides 128, two groups each at 100/s).
  EXPECT_EQ(m->MinimalParallelism(1, VertexDemand{6'400, 6'400}), 64);
  EXPECT_EQ(m->MinimalParallelism(1, VertexDemand{6'401, 6'401}), 128);
  EXPECT_EQ(m->MinimalParallelism(1, VertexDemand{0, 0}), 1);
}

TEST(JobModel, MinimalParallelismRemembersOnlyTheSameQuestion) {
  // The model remembers its last answer per vertex; asked again, or after other questions, it
  // must answer what a model that was never asked before does.
  JobSpec spec = Chain({Source("src", 2, 12, 1'000), Op("agg", 3, 100)}, ShipStrategy::kHash);
  spec.vertices[1].max_parallelism = 128;
  spec.vertices[1].key_skew = 0.8;
  auto asked = Make(spec, 4);
  const std::vector<VertexDemand> questions = {{6'400, 6'400}, {6'400, 6'400}, {6'401, 6'401},
                                               {6'400, 3'000}, {6'400, 6'400}, {0, 0},
                                               {6'400, 6'400}, {6'400, 0},     {5'000, 5'000}};
  for (int vertex : {0, 1}) {
    for (const VertexDemand& d : questions) {
      EXPECT_EQ(asked->MinimalParallelism(vertex, d), Make(spec, 4)->MinimalParallelism(vertex, d))
          << vertex << ": " << d.total << " / " << d.hashed;
    }
  }
}

TEST(JobModel, CheckpointDurationGrowsWithState) {
  JobSpec spec = Chain({Source("src", 1, 1, 1e6), Op("window", 1, 1e6)}, ShipStrategy::kHash);
  spec.vertices[1].state_retention_seconds = 10;
  spec.vertices[1].state_bytes_per_record = 100;
  spec.checkpoint.interval_seconds = 60;
  spec.checkpoint.base_duration_seconds = 0.5;
  spec.checkpoint.bandwidth_bytes_per_second = 1e6;
  auto m = Make(std::move(spec));
  m->SetSourceRate(0, 1'000);
  Advance(*m, 1'200);
  // 10 s x 1000/s x 100 B = 1 MB of window state -> 0.5 s + 1 s.
  EXPECT_NEAR(m->StateBytes(), 1e6, 1e2);
  const JobMetrics s = m->Snapshot();
  EXPECT_NEAR(s.last_checkpoint_duration_seconds, 1.5, 1e-3);
  EXPECT_EQ(s.completed_checkpoints, 19);  // triggered at 60, 120, ..., 1140 and completed
  // Restore time follows the state too: 20 s base + 1 MB / 200 MB/s.
  StatusOr<double> downtime = m->Rescale({{"window", 2}});
  ASSERT_TRUE(downtime.ok());
  EXPECT_NEAR(*downtime, 20.005, 1e-6);
}

TEST(JobModel, SlotsAndTaskManagers) {
  JobSpec spec = Chain({Source("src", 3, 8, 1e6), Op("agg", 5, 1e6), Op("sink", 2, 1e6)});
  spec.task_manager.slots = 2;
  auto m = Make(std::move(spec));
  EXPECT_EQ(m->slots(), 5);
  EXPECT_EQ(m->task_managers(), 3);
  const core::JobTopology& t = m->Topology();
  ASSERT_EQ(t.vertices.size(), 3u);
  EXPECT_EQ(t.vertices[0].id, "src");
  EXPECT_EQ(t.vertices[0].num_partitions, 8);
  EXPECT_EQ(t.vertices[1].parallelism, 5);
  EXPECT_EQ(t.vertices[1].max_parallelism, 128);
  ASSERT_EQ(t.edges.size(), 2u);
  EXPECT_EQ(t.edges[0].ship_strategy, "REBALANCE");
  ASSERT_TRUE(m->Rescale({{"agg", 9}}).ok());
  EXPECT_EQ(m->slots(), 9);
  EXPECT_EQ(m->task_managers(), 5);
  EXPECT_EQ(m->Topology().vertices[1].parallelism, 9);
}

TEST(JobModel, RescaleRejectsBadRequests) {
  auto m = Make(Chain({Source("src", 1, 4, 1e6), Op("map", 1, 1e6)}));
  StatusOr<double> r = m->Rescale({{"nope", 2}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown vertex \"nope\""), std::string::npos);
  r = m->Rescale({{"map", 0}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("outside [1, 128]"), std::string::npos);
  r = m->Rescale({{"map", 1}});  // no change: no restart
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 0.0);
  EXPECT_EQ(m->Snapshot().num_restarts, 0);
}

TEST(JobModel, JoinOfTwoSourcesSharesTheBottleneck) {
  JobSpec spec;
  spec.vertices = {Source("a", 1, 2, 1e6), Source("b", 1, 2, 1e6), Op("join", 1, 1'000)};
  spec.edges = {{"a", "join", ShipStrategy::kHash}, {"b", "join", ShipStrategy::kHash}};
  auto m = Make(std::move(spec));
  m->SetSourceRate(0, 1'500);
  m->SetSourceRate(1, 500);
  Advance(*m, 60);
  const JobMetrics s = m->Snapshot();
  // Demand 2000 on a 1000 capacity: both producers throttled by half.
  EXPECT_NEAR(V(s, "join").records_in_per_second, 1'000, 1e-6);
  EXPECT_NEAR(V(s, "a").records_in_per_second, 750, 1e-6);
  EXPECT_NEAR(V(s, "b").records_in_per_second, 250, 1e-6);
}

TEST(JobModel, LinearRegimeMatchesTheGeneralPath) {
  // A q5-like chain whose load crosses the saturation point and back, with checkpoints, a
  // failover and a rescale: the lazy linear regime must report what the per-subtask path does.
  JobSpec spec = Chain({Source("src", 3, 8, 40'000), Op("window", 4, 25'000, 0.1), Op("sink", 2, 1e6)},
                       ShipStrategy::kHash);
  spec.vertices[1].key_skew = 0.5;
  spec.vertices[1].state_retention_seconds = 10;
  spec.vertices[1].state_bytes_per_record = 100;
  spec.checkpoint.interval_seconds = 30;
  auto fast = Make(spec, 9);
  auto slow = Make(spec, 9);
  slow->DisableLinearRegimeForTest();
  const auto rate = [](int t) { return 30'000.0 + 60'000.0 * std::sin(t / 300.0) * std::sin(t / 300.0); };
  for (int t = 0; t < 3'600; ++t) {
    for (JobModel* m : {fast.get(), slow.get()}) {
      m->SetSourceRate(0, rate(t));
      if (t == 1'000) m->Fail();
      if (t == 2'000) {
        ASSERT_TRUE(m->Rescale({{"window", 8}}).ok());
      }
      m->Step(t % 3 == 0 ? 2.5 : 1.0);
    }
    if (t % 97 != 0) continue;
    const JobMetrics a = fast->Snapshot(), b = slow->Snapshot();
    ASSERT_EQ(a.vertices.size(), b.vertices.size()) << t;
    for (size_t v = 0; v < a.vertices.size(); ++v) {
      for (size_t i = 0; i < a.vertices[v].subtasks.size(); ++i) {
        const SubtaskMetrics& x = a.vertices[v].subtasks[i];
        const SubtaskMetrics& y = b.vertices[v].subtasks[i];
        EXPECT_NEAR(x.busy_ms_per_second, y.busy_ms_per_second, 1e-6) << t;
        EXPECT_NEAR(x.idle_ms_per_second, y.idle_ms_per_second, 1e-6) << t;
        EXPECT_NEAR(x.records_in_per_second, y.records_in_per_second, 1e-6) << t;
        EXPECT_NEAR(x.records_out_per_second, y.records_out_per_second, 1e-6) << t;
        EXPECT_NEAR(x.num_records_in, y.num_records_in, 1e-3) << t;
        EXPECT_NEAR(x.pending_records, y.pending_records, 1e-3) << t;
      }
    }
    EXPECT_NEAR(fast->StateBytes(), slow->StateBytes(), 1e-3) << t;
  }
  EXPECT_NEAR(fast->reprocessed_records(), slow->reprocessed_records(), 1e-3);
  EXPECT_GT(fast->reprocessed_records(), 0);
  for (size_t k = 0; k < 8; ++k) {
    EXPECT_NEAR(fast->partitions(0)[k].read, slow->partitions(0)[k].read, 1e-3);
    EXPECT_NEAR(fast->partitions(0)[k].committed, slow->partitions(0)[k].committed, 1e-3);
  }
  EXPECT_EQ(fast->completed_checkpoints(), slow->completed_checkpoints());
}

TEST(JobModel, ReusedFlowMatchesARecomputedOne) {
  // Saturated sources offer their capacity step after step and Process() reuses the last flow;
  // a model that recomputes it every step must report the same values, bit for bit. Two
  // sources (several throttle rounds), a hot key, checkpoints, a failover and a rescale.
  JobSpec spec;
  spec.name = "join";
  spec.vertices = {Source("a", 2, 6, 3'000), Source("b", 1, 4, 2'000), Op("join", 3, 1'500),
                   Op("sink", 3, 1e6)};
  spec.vertices[2].key_skew = 0.7;
  spec.vertices[2].state_retention_seconds = 30;
  spec.vertices[2].state_bytes_per_record = 100;
  spec.edges = {{"a", "join", ShipStrategy::kHash},
                {"b", "join", ShipStrategy::kHash},
                {"join", "sink", ShipStrategy::kForward}};
  spec.checkpoint.interval_seconds = 60;
  spec.restart.base_downtime_seconds = 20;
  auto reused = Make(spec, 3);
  auto recomputed = Make(spec, 3);
  recomputed->DisableFlowReuseForTest();
  for (int t = 0; t < 7'200; ++t) {
    for (JobModel* m : {reused.get(), recomputed.get()}) {
      // Over capacity most of the time, with a quiet spell that drains the backlog.
      const bool quiet = t >= 3'000 && t < 4'000;
      m->SetSourceRate(0, quiet ? 500 : 4'000 + (t / 600) * 300);
      m->SetSourceRate(1, quiet ? 100 : 1'500);
      if (t == 2'000) m->Fail();
      if (t == 5'000) {
        ASSERT_TRUE(m->Rescale({{"join", 5}, {"sink", 5}}).ok());
      }
      m->Step(t % 5 == 0 ? 2.0 : 1.0);
    }
    if (t % 61 != 0) continue;
    const JobMetrics a = reused->Snapshot(), b = recomputed->Snapshot();
    ASSERT_EQ(a.vertices.size(), b.vertices.size()) << t;
    for (size_t v = 0; v < a.vertices.size(); ++v) {
      for (size_t i = 0; i < a.vertices[v].subtasks.size(); ++i) {
        const SubtaskMetrics& x = a.vertices[v].subtasks[i];
        const SubtaskMetrics& y = b.vertices[v].subtasks[i];
        ASSERT_EQ(x.busy_ms_per_second, y.busy_ms_per_second) << t;
        ASSERT_EQ(x.backpressured_ms_per_second, y.backpressured_ms_per_second) << t;
        ASSERT_EQ(x.records_in_per_second, y.records_in_per_second) << t;
        ASSERT_EQ(x.num_records_out, y.num_records_out) << t;
        ASSERT_EQ(x.pending_records, y.pending_records) << t;
      }
    }
    ASSERT_EQ(reused->StateBytes(), recomputed->StateBytes()) << t;
    ASSERT_EQ(reused->TotalPendingRecords(), recomputed->TotalPendingRecords()) << t;
  }
  EXPECT_GT(reused->TotalPendingRecords(), 0);  // it did run saturated
  EXPECT_EQ(reused->reprocessed_records(), recomputed->reprocessed_records());
}

TEST(JobModel, RescaleFromTheLinearRegimeSkipsOnlyWhatTheNewTasksReset) {
  // A rescale leaves the linear regime without materializing counters and windows (the new
  // tasks start them from zero); a model that materialized everything first must report the same.
  JobSpec spec = Chain(
      {Source("src", 2, 8, 40'000), Op("window", 3, 25'000, 0.5), Op("sink", 2, 1e6)},
      ShipStrategy::kHash);
  spec.vertices[1].state_retention_seconds = 10;
  spec.vertices[1].state_bytes_per_record = 100;
  spec.checkpoint.interval_seconds = 30;
  auto dropped = Make(spec, 5);
  auto materialized = Make(spec, 5);
  for (const RescaleOptions& options : {RescaleOptions{.free = true}, RescaleOptions{}}) {
    for (JobModel* m : {dropped.get(), materialized.get()}) {
      m->SetSourceRate(0, 20'000);
      Advance(*m, 600, 5.0);
      Advance(*m, 12);  // away from the last checkpoint, which materialized the offsets
    }
    // Setting the offsets they already have takes the second model out of the regime in full.
    const std::vector<PartitionOffsets> offsets = materialized->partitions(0);
    ASSERT_TRUE(materialized->SetPartitionOffsets(0, offsets).ok());
    const int p = dropped->parallelism(1) == 3 ? 5 : 3;
    for (JobModel* m : {dropped.get(), materialized.get()}) {
      ASSERT_TRUE(m->Rescale({{"window", p}}, options).ok());
      Advance(*m, 300, 5.0);
    }
    const JobMetrics a = dropped->Snapshot(), b = materialized->Snapshot();
    ASSERT_EQ(a.vertices.size(), 3u);
    for (size_t v = 0; v < a.vertices.size(); ++v) {
      for (size_t i = 0; i < a.vertices[v].subtasks.size(); ++i) {
        const SubtaskMetrics& x = a.vertices[v].subtasks[i];
        const SubtaskMetrics& y = b.vertices[v].subtasks[i];
        EXPECT_EQ(x.idle_ms_per_second, y.idle_ms_per_second);
        EXPECT_EQ(x.records_in_per_second, y.records_in_per_second);
        EXPECT_EQ(x.num_records_out, y.num_records_out);
        EXPECT_EQ(x.accumulated_busy_ms, y.accumulated_busy_ms);
      }
    }
    EXPECT_EQ(dropped->partitions(0)[3].read, materialized->partitions(0)[3].read);
    EXPECT_EQ(dropped->partitions(0)[3].committed, materialized->partitions(0)[3].committed);
    EXPECT_EQ(dropped->StateBytes(), materialized->StateBytes());
  }
}

// ---- Bounded sources (stopping offsets) ----------------------------------------------------

VertexSpec Bounded(VertexSpec source, std::vector<double> stopping_offsets) {
  source.stopping_offsets = std::move(stopping_offsets);
  return source;
}

TEST(JobModelBounded, SourceFinishesAtItsStoppingOffsetsWhileTheTopicKeepsProducing) {
  // 4 partitions stopping at 2,500 each: 10,000 records at 1,000/s take 10 s.
  auto m = Make(Chain({Bounded(Source("src", 2, 4, 10'000), {2'500}), Op("sink", 2, 10'000)}));
  EXPECT_TRUE(m->bounded());
  m->SetSourceRate(0, 1'000);
  Advance(*m, 9);
  EXPECT_FALSE(m->finished());
  EXPECT_NEAR(m->total_processed(1), 9'000, 1e-6);
  Advance(*m, 1);
  EXPECT_TRUE(m->finished());
  // The topic goes on (its end is past the stopping offsets); the source read exactly to them
  // and has nothing pending: pendingRecords counts what the source will still read.
  Advance(*m, 65);
  for (const PartitionOffsets& po : m->partitions(0)) {
    EXPECT_DOUBLE_EQ(po.read, 2'500);
    EXPECT_NEAR(po.end, 18'750, 1e-6);
  }
  EXPECT_EQ(m->TotalPendingRecords(), 0);
  EXPECT_EQ(m->LagSeconds(), 0);
  const JobMetrics s = m->Snapshot();
  EXPECT_EQ(V(s, "src").pending_records, 0);
  EXPECT_NEAR(m->total_processed(1), 10'000, 1e-6);
  EXPECT_NEAR(V(s, "sink").busy_ms_per_second_max, 0, 1e-9);  // idle for a whole window
}

TEST(JobModelBounded, FinishesOnlyOnceTheSlowDownstreamHasProcessedEverything) {
  // A 10,000-record backlog, a source that could read it in 1 s and a sink of 1,000/s: the
  // sink's backpressure holds the source back, so the job ends after 10 s, not 1 s.
  JobSpec spec = Chain({Bounded(Source("src", 1, 4, 10'000), {2'500}), Op("sink", 1, 1'000, 0.5)});
  spec.vertices[0].initial_backlog = 10'000;
  auto m = Make(spec);
  Advance(*m, 1);
  EXPECT_FALSE(m->finished());
  EXPECT_NEAR(V(m->Snapshot(), "src").pending_records, 9'000, 1e-6);
  Advance(*m, 8);
  EXPECT_FALSE(m->finished());
  Advance(*m, 1);
  EXPECT_TRUE(m->finished());
  EXPECT_NEAR(m->total_processed(0), 10'000, 1e-6);
  EXPECT_NEAR(m->total_processed(1), 10'000, 1e-6);  // the sink processed all it received
}

TEST(JobModelBounded, WaitsForRecordsUpToTheStoppingOffsetsPerPartition) {
  // One stopping offset per partition; the topic has produced none of them yet.
  auto m = Make(Chain({Bounded(Source("src", 1, 2, 10'000), {100, 300}), Op("sink", 1, 10'000)}));
  m->SetSourceRate(0, 20);  // 10/s per partition
  Advance(*m, 11);
  EXPECT_FALSE(m->finished());  // partition 0 is done, partition 1 is not
  EXPECT_DOUBLE_EQ(m->partitions(0)[0].read, 100);
  EXPECT_NEAR(m->partitions(0)[1].read, 110, 1e-6);
  Advance(*m, 19);
  EXPECT_TRUE(m->finished());
  EXPECT_DOUBLE_EQ(m->partitions(0)[1].read, 300);
}

TEST(JobModelBounded, AFailoverAfterTheEndRewindsAndFinishesAtTheSameEnd) {
  JobSpec spec = Chain({Bounded(Source("src", 1, 1, 10'000), {1'000}), Op("sink", 1, 10'000)});
  spec.checkpoint.interval_seconds = 4;
  auto m = Make(spec);
  m->SetSourceRate(0, 100);
  Advance(*m, 11);  // checkpoints at 4 s and 8 s; the end is reached at 10 s
  EXPECT_TRUE(m->finished());
  const double downtime = m->Fail();
  EXPECT_FALSE(m->finished());  // rewound to the last completed checkpoint
  EXPECT_DOUBLE_EQ(m->partitions(0)[0].read, 800);
  Advance(*m, static_cast<int>(downtime) + 3);
  EXPECT_TRUE(m->finished());
  EXPECT_DOUBLE_EQ(m->partitions(0)[0].read, 1'000);
  EXPECT_DOUBLE_EQ(m->reprocessed_records(), 200);
}

TEST(JobModelBounded, ARestoredSourceContinuesFromItsOffsetsToTheSameEnd) {
  auto m = Make(Chain({Bounded(Source("src", 1, 2, 10'000), {500}), Op("sink", 1, 10'000)}));
  ASSERT_TRUE(m->SetPartitionOffsets(0, {{.end = 800, .read = 400, .committed = 400},
                                         {.end = 800, .read = 500, .committed = 500}})
                  .ok());
  EXPECT_EQ(m->TotalPendingRecords(), 100);  // up to the stopping offsets, not the log end
  m->Step(1);
  EXPECT_TRUE(m->finished());
  EXPECT_NEAR(m->total_processed(1), 100, 1e-6);
}

TEST(JobModelBounded, UnboundedJobsNeverFinish) {
  auto m = Make(Chain({Source("src", 1, 4, 10'000), Op("sink", 1, 10'000)}));
  EXPECT_FALSE(m->bounded());
  Advance(*m, 10);  // drained at every step
  EXPECT_EQ(m->TotalPendingRecords(), 0);
  EXPECT_FALSE(m->finished());
  // One bounded source among unbounded ones does not make the job bounded.
  JobSpec two = Chain({Bounded(Source("a", 1, 1, 10'000), {0}), Op("join", 1, 10'000)});
  two.vertices.push_back(Source("b", 1, 1, 10'000));
  two.edges.push_back(EdgeSpec{"b", "join", ShipStrategy::kRebalance});
  auto j = Make(two);
  Advance(*j, 2);
  EXPECT_FALSE(j->bounded());
  EXPECT_FALSE(j->finished());
}

TEST(JobModelBounded, StoppingOffsetsParseAsANumberOrOnePerPartition) {
  const auto parse = [](const std::string& yaml) {
    StatusOr<Json> json = ParseYaml(yaml, "t");
    EXPECT_TRUE(json.ok()) << json.status().ToString();
    return ParseJobSpec(*json, "job");
  };
  StatusOr<JobSpec> spec = parse(
      "{vertices: [{id: s, partitions: 2, capacityPerSubtask: 10, stoppingOffsets: 5},"
      " {id: t, partitions: 2, capacityPerSubtask: 10, stoppingOffsets: [1, 2]}]}");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->vertices[0].stopping_offsets, std::vector<double>{5});
  EXPECT_EQ(spec->vertices[1].stopping_offsets, (std::vector<double>{1, 2}));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{vertices: [{id: s, partitions: 2, capacityPerSubtask: 10, stoppingOffsets: [1, 2, 3]}]}",
       "job: vertices[0].stoppingOffsets: 3 offsets for 2 partitions (give one number for every partition, or "
       "one per partition)"},
      {"{vertices: [{id: s, partitions: 2, capacityPerSubtask: 10, stoppingOffsets: [1, -2]}]}",
       "job: vertices[0].stoppingOffsets[1]: must not be negative"},
      {"{vertices: [{id: s, partitions: 2, capacityPerSubtask: 10, stoppingOffsets: latest}]}",
       "job.vertices[0].stoppingOffsets: expected a number or a non-empty list of numbers"},
      {"{vertices: [{id: s, partitions: 1, capacityPerSubtask: 10}, {id: m, capacityPerSubtask: 1, "
       "stoppingOffsets: 4}], edges: [{from: s, to: m}]}",
       "job: vertices[1].stoppingOffsets: only source vertices (no inputs) can be bounded"},
  };
  for (const auto& [yaml, message] : bad) {
    StatusOr<JobSpec> r = parse(yaml);
    ASSERT_FALSE(r.ok()) << yaml;
    EXPECT_EQ(r.status().message(), message) << yaml;
  }
}

}  // namespace
}  // namespace trimtab::sim
