// FlinkMetricsCollector against a fake JobManager that answers with Flink's wire shapes: job
// details -> topology, aggregated subtask metrics -> RawSample, the empty-array quirk, lazily
// registered pendingRecords, Kafka partition gauges, string values on non-aggregated endpoints,
// HTTP errors and timeouts, and the custom-metric source.
#include "adapters/flink/metrics_collector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/chain/plugin_metric_names.h"
#include "tests/support/fake_flink_rest.h"

namespace trimtab::adapters {
namespace {

using ::testing::ElementsAre;
using testing::FakeFlinkJob;
using testing::FakeFlinkRestServer;
using testing::FakeFlinkVertex;
using ::testing::HasSubstr;
using testing::Uniform;

const std::string kJob = "0123456789abcdef0123456789abcdef";
const std::string kSrc = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const std::string kMap = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const std::string kSink = "cccccccccccccccccccccccccccccccc";
const TimePoint kNow = FromUnixMillis(1'714'554'000'000);
constexpr Millis kTimeout{2000};

// Kafka source (2 subtasks) -> HASH -> map (3) -> REBALANCE -> sink (1); listed sink first to
// check the topological sort.
FakeFlinkJob Job() {
  FakeFlinkVertex src{
      .id = kSrc, .name = "Source: Kafka Source", .parallelism = 2, .max_parallelism = 128};
  src.read_records = 0;  // sources read nothing from the network
  src.write_records = 9000;
  src.accumulated_busy_time = 1200;
  src.metrics = {
      {"busyTimeMsPerSecond", {.min = 300, .max = 700, .avg = 500, .sum = 1000}},
      {"backPressuredTimeMsPerSecond", {.min = 0, .max = 100, .avg = 50, .sum = 100}},
      {"Source__Kafka_Source.numRecordsInPerSecond", Uniform(250, 2)},
      {"Source__Kafka_Source.numRecordsOutPerSecond", Uniform(250, 2)},
      {"Source__Kafka_Source.numRecordsIn", Uniform(4500, 2)},
      {"Source__Kafka_Source.numRecordsOut", Uniform(4500, 2)},
      {"numRecordsInPerSecond", Uniform(0, 2)},
      {"Source__Kafka_Source.KafkaSourceReader.topic.orders.partition.0.currentOffset",
       Uniform(1, 2)},
      {"Source__Kafka_Source.KafkaSourceReader.topic.orders.partition.1.currentOffset",
       Uniform(1, 2)},
      {"Source__Kafka_Source.KafkaSourceReader.kafkaCluster.east.topic.orders.partition.0."
       "currentOffset",
       Uniform(1, 2)},
  };
  FakeFlinkVertex map{.id = kMap, .name = "Map", .parallelism = 3, .max_parallelism = 128};
  map.inputs = {{kSrc, "HASH"}};
  map.read_records = 9000;
  map.write_records = 8000;
  map.metrics = {{"busyTimeMsPerSecond", {.min = 100, .max = 200, .avg = 150, .sum = 450}},
                 {"numRecordsInPerSecond", Uniform(100, 3)},
                 {"Map.numRecordsInPerSecond", Uniform(100, 3)}};
  FakeFlinkVertex sink{
      .id = kSink, .name = "Sink: Print", .parallelism = 1, .max_parallelism = 128};
  sink.inputs = {{kMap, "REBALANCE"}};
  sink.read_records = 8000;
  sink.metrics = {{"busyTimeMsPerSecond", Uniform(50, 1)},
                  {"numRecordsInPerSecond", Uniform(300, 1)}};
  FakeFlinkJob job{.id = kJob,
                   .state = "RUNNING",
                   .start_time_ms = ToUnixMillis(kNow) - 600'000,
                   .running_since_ms = ToUnixMillis(kNow) - 300'000};
  job.vertices = {sink, src, map};
  return job;
}

class MetricsCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = FakeFlinkRestServer::Create();
    ASSERT_TRUE(server.ok());
    server_ = std::move(server).value();
    server_->SetJob(Job());
    server_->SetJobManagerMetrics({{"taskSlotsTotal", "8"}, {"taskSlotsAvailable", "2"}});
    server_->SetTaskManagerMetrics({{"Status.JVM.Memory.Heap.Max", {.min = 1e9, .max = 2e9}},
                                    {"Status.JVM.Memory.Heap.Used", {.min = 3e8, .max = 5e8}},
                                    {"Status.Flink.Memory.Managed.Used", {.max = 1e8}},
                                    {"Status.JVM.Memory.Metaspace.Used", {.max = 6e7}},
                                    {"Status.JVM.CPU.Load", {.min = 0.1, .max = 0.5, .avg = 0.3}}});
    auto http = http::HttpClient::Create({});
    ASSERT_TRUE(http.ok());
    http_ = std::move(http).value();
    collector_ = *FlinkMetricsCollector::Create({.http = http_.get()});
  }

  FlinkJobRef Ref() const { return {.rest_url = server_->base_url() + "/", .job_id = kJob}; }

  std::unique_ptr<FakeFlinkRestServer> server_;
  std::unique_ptr<http::HttpClient> http_;
  std::unique_ptr<FlinkMetricsCollector> collector_;
};

TEST_F(MetricsCollectorTest, JobDetailsBecomeATopology) {
  auto d = collector_->FetchJobDetails(Ref(), kTimeout);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->job_id, kJob);
  EXPECT_EQ(d->state, "RUNNING");
  ASSERT_TRUE(d->running_since.has_value());
  EXPECT_EQ(*d->running_since, kNow - std::chrono::minutes(5));
  const core::JobTopology& t = d->topology;
  ASSERT_EQ(t.vertices.size(), 3u);
  EXPECT_EQ(t.vertices[0].id, kSrc);  // topological order, not the listed order
  EXPECT_EQ(t.vertices[1].id, kMap);
  EXPECT_EQ(t.vertices[2].id, kSink);
  EXPECT_EQ(t.vertices[1].parallelism, 3);
  EXPECT_EQ(t.vertices[1].max_parallelism, 128);
  EXPECT_EQ(t.vertices[0].name, "Source: Kafka Source");
  ASSERT_EQ(t.edges.size(), 2u);
  EXPECT_EQ(t.edges[0].from, kMap);
  EXPECT_EQ(t.edges[0].to, kSink);
  EXPECT_EQ(t.edges[0].ship_strategy, "REBALANCE");
  EXPECT_EQ(t.edges[1].ship_strategy, "HASH");
  EXPECT_TRUE(t.IsSource(kSrc));
  EXPECT_EQ(d->io.at(kMap).read_records, 9000);
  EXPECT_EQ(d->io.at(kSrc).accumulated_busy_time, 1200);
  EXPECT_EQ(d->slot_sharing_group.at(kSrc), "a9c1f5e2d3b4a6978877665544332211");
  // The vertex carries its group for the quota and slot checks (issue 23).
  EXPECT_EQ(t.vertices[0].slot_sharing_group, "a9c1f5e2d3b4a6978877665544332211");
}

TEST_F(MetricsCollectorTest, CollectsOneRawSampleWithUpstreamSemantics) {
  auto c = collector_->Collect(Ref(), kNow, kTimeout);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sample.time, kNow);
  // Distinct (cluster, topic, partition): orders/0, orders/1, east/orders/0.
  EXPECT_EQ(c->job.topology.vertices[0].num_partitions, 3);

  const core::flink::RawVertexMetrics& src = c->sample.vertices.at(kSrc);
  EXPECT_EQ(src.busy_time_min, 300);
  EXPECT_EQ(src.busy_time_max, 700);
  EXPECT_EQ(src.busy_time_avg, 500);
  EXPECT_EQ(src.back_pressured_time_ms_per_second, 50);  // avg over subtasks
  EXPECT_EQ(src.num_records_in_per_second, 500);         // sum of Source__*.numRecordsInPerSecond
  EXPECT_EQ(src.num_records_out_per_second, 500);
  EXPECT_EQ(src.num_records_in, 9000);  // read-records is 0: Σ Source__*.numRecordsIn
  EXPECT_EQ(src.num_records_out, 9000);
  EXPECT_EQ(src.accumulated_busy_time, 1200);
  EXPECT_FALSE(src.pending_records.has_value());  // not registered yet

  const core::flink::RawVertexMetrics& map = c->sample.vertices.at(kMap);
  EXPECT_EQ(map.busy_time_max, 200);
  EXPECT_EQ(map.num_records_in_per_second, 300);  // task-level numRecordsInPerSecond, summed
  EXPECT_EQ(map.num_records_in, 9000);
  EXPECT_EQ(map.num_records_out, 8000);
  EXPECT_FALSE(map.pending_records.has_value());

  const core::flink::RawJobMetrics& job = c->sample.job;
  EXPECT_EQ(job.task_slots_total, 8);  // "8" on the wire
  EXPECT_EQ(job.task_slots_available, 2);
  EXPECT_EQ(job.heap_max, 2e9);
  EXPECT_EQ(job.heap_used, 5e8);
  EXPECT_EQ(job.managed_memory_used, 1e8);
  EXPECT_EQ(job.metaspace_used, 6e7);
  EXPECT_FALSE(job.gc_time_ms_per_second.has_value());  // not listed: not asked for
  EXPECT_THAT(c->notes, ElementsAre(HasSubstr("no pendingRecords metric")));
  EXPECT_TRUE(c->nan_busy_time_vertices.empty());
  for (const std::string& r : server_->Requests()) {
    EXPECT_THAT(r, ::testing::Not(HasSubstr("GarbageCollector"))) << r;
  }
}

TEST_F(MetricsCollectorTest, LazilyRegisteredMetricsAppearOnTheNextCycle) {
  ASSERT_TRUE(collector_->Collect(Ref(), kNow, kTimeout).ok());
  server_->UpdateJob([](FakeFlinkJob& job) {
    for (FakeFlinkVertex& v : job.vertices) {
      if (v.id != kSrc) continue;
      v.metrics["Source__Kafka_Source.KafkaSourceReader.topic.orders.partition.0.pendingRecords"] =
          Uniform(60, 1);
      v.metrics["Source__Kafka_Source.KafkaSourceReader.topic.orders.partition.1.pendingRecords"] =
          Uniform(40, 1);
    }
  });
  server_->ClearRequests();
  auto c = collector_->Collect(Ref(), kNow + std::chrono::minutes(1), kTimeout);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sample.vertices.at(kSrc).pending_records, 100);  // every *.pendingRecords summed
  EXPECT_TRUE(c->notes.empty());
  // Names are discovered again for the source only; the others come from the cache.
  const std::string prefix = "/jobs/" + kJob + "/vertices/";
  int src_lists = 0, map_lists = 0;
  for (const std::string& r : server_->Requests()) {
    if (r == "GET /jobs/" + kJob + "/vertices/" + kSrc + "/subtasks/metrics") ++src_lists;
    if (r == "GET /jobs/" + kJob + "/vertices/" + kMap + "/subtasks/metrics") ++map_lists;
  }
  EXPECT_EQ(src_lists, 1);
  EXPECT_EQ(map_lists, 0);
}

TEST_F(MetricsCollectorTest, EmptyArrayQuirkFallsBackToOneMetricAtATime) {
  const std::string path = "/jobs/" + kJob + "/vertices/" + kMap + "/subtasks/metrics";
  auto values = collector_->FetchAggregated(
      server_->base_url(), path, {"busyTimeMsPerSecond", "notRegistered"}, "max", kTimeout);
  ASSERT_TRUE(values.ok());
  ASSERT_EQ(values->size(), 1u);
  EXPECT_EQ(values->at("busyTimeMsPerSecond").max, 200);
  EXPECT_FALSE(values->at("busyTimeMsPerSecond").avg.has_value());  // agg=max only
  EXPECT_EQ(server_->CountRequests(path), 3);                       // both, then one by one
}

TEST_F(MetricsCollectorTest, GcMetricIsAskedForOnlyWhenListed) {
  server_->SetTaskManagerMetrics(
      {{"Status.JVM.Memory.Heap.Max", {.max = 2e9}},
       {"Status.JVM.Memory.Heap.Used", {.max = 5e8}},
       {"Status.JVM.GarbageCollector.All.TimeMsPerSecond", {.min = 1, .max = 40, .avg = 20}}});
  auto c = collector_->Collect(Ref(), kNow, kTimeout);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sample.job.gc_time_ms_per_second, 40);  // max over TaskManagers
  EXPECT_EQ(c->sample.job.heap_used, 5e8);
  EXPECT_FALSE(c->sample.job.managed_memory_used.has_value());
}

TEST_F(MetricsCollectorTest, MissingRequiredMetricsNameEveryVertexAndMetric) {
  server_->UpdateJob([](FakeFlinkJob& job) {
    for (FakeFlinkVertex& v : job.vertices) {
      if (v.id == kSrc) v.metrics.erase("backPressuredTimeMsPerSecond");
      if (v.id == kSink) v.metrics.erase("busyTimeMsPerSecond");
    }
  });
  auto c = collector_->Collect(Ref(), kNow, kTimeout);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->missing_metrics.size(), 2u);
  EXPECT_EQ(c->MissingMetricsStatus().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(c->MissingMetricsStatus().message(),
            "missing metrics: vertex " + kSrc +
                " (Source: Kafka Source): backPressuredTimeMsPerSecond; vertex " + kSink +
                " (Sink: Print): busyTimeMsPerSecond");
}

TEST_F(MetricsCollectorTest, FinishedAndLegacyVertices) {
  server_->UpdateJob([](FakeFlinkJob& job) {
    for (FakeFlinkVertex& v : job.vertices) {
      if (v.id == kSink) {
        v.status = "FINISHED";
        v.metrics.clear();
      }
      if (v.id == kSrc) {
        v.accumulated_busy_time = std::nan("");  // "NaN" on the wire
        v.metrics["busyTimeMsPerSecond"] = Uniform(std::nan(""), 2);
      }
    }
  });
  auto c = collector_->Collect(Ref(), kNow, kTimeout);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->job.topology.vertices[2].finished);
  EXPECT_FALSE(c->sample.vertices.count(kSink));
  EXPECT_EQ(server_->CountRequests("/jobs/" + kJob + "/vertices/" + kSink), 0);
  EXPECT_THAT(c->nan_busy_time_vertices, ElementsAre(kSrc));
  EXPECT_TRUE(std::isnan(*c->sample.vertices.at(kSrc).busy_time_max));
}

TEST_F(MetricsCollectorTest, TheLatestCheckpointsDuration) {
  // No completed checkpoint yet: no value, and no note (that is normal).
  auto c = collector_->Collect(Ref(), kNow, kTimeout);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->sample.job.last_checkpoint_duration_ms.has_value());
  EXPECT_EQ(server_->CountRequests("/jobs/" + kJob + "/checkpoints"), 1);
  server_->UpdateJob([](FakeFlinkJob& job) { job.last_checkpoint_duration_ms = 250000; });
  c = collector_->Collect(Ref(), kNow, kTimeout);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sample.job.last_checkpoint_duration_ms, 250000);
  // The statistics failing is a note, not a failed collection.
  server_->FailNext("/jobs/" + kJob + "/checkpoints", 500);
  c = collector_->Collect(Ref(), kNow, kTimeout);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->sample.job.last_checkpoint_duration_ms.has_value());
  EXPECT_THAT(c->notes,
              ::testing::Contains(HasSubstr("no checkpoint statistics: Flink REST GET /jobs/")));
}

TEST_F(MetricsCollectorTest, JobNotRunningFetchesOnlyTheDetails) {
  server_->UpdateJob([](FakeFlinkJob& job) { job.state = "RESTARTING"; });
  auto c = collector_->Collect(Ref(), kNow, kTimeout);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->job.state, "RESTARTING");
  EXPECT_TRUE(c->sample.vertices.empty());
  EXPECT_THAT(server_->Requests(), ElementsAre("GET /jobs/" + kJob));
}

TEST_F(MetricsCollectorTest, HttpErrorsAndTimeoutsNameTheRequest) {
  server_->FailNext("/jobs/", 500, 1, "Internal server error.\n<stack trace>");
  auto c = collector_->Collect(Ref(), kNow, kTimeout);
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(c.status().message(),
            "Flink REST GET /jobs/" + kJob + " (" + server_->base_url() +
                "): HTTP 500: Internal server error.");

  auto unknown =
      collector_->Collect({.rest_url = server_->base_url(), .job_id = "f00d"}, kNow, kTimeout);
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().message(),
            "Flink REST GET /jobs/f00d (" + server_->base_url() + "): HTTP 404: Job f00d not found");

  server_->Hang("/jobmanager/");
  auto slow = collector_->Collect(Ref(), kNow, Millis(200));
  server_->Release();
  EXPECT_EQ(slow.status().code(), StatusCode::kDeadlineExceeded) << slow.status().ToString();
  EXPECT_THAT(slow.status().message(), HasSubstr("Flink REST GET /jobmanager/metrics"));
}

TEST_F(MetricsCollectorTest, CustomMetricsOverRest) {
  server_->UpdateJob([](FakeFlinkJob& job) { job.job_metrics["numRestarts"] = "3"; });
  auto source = collector_->MetricSourceFor(Ref(), kTimeout);
  core::flink::MetricFetchJob job{
      .job_key = "ns/orders", .namespace_name = "ns", .vertices = {kSrc, kMap, kSink}};
  core::MetricRequirement cpu = core::TaskManagerCpuRequirement();
  auto tm = source->FetchTaskManagerMetric(job, cpu);
  ASSERT_TRUE(tm.ok()) << tm.status().ToString();
  EXPECT_DOUBLE_EQ(*tm, 0.3);
  EXPECT_EQ(server_->Requests().back(),
            "GET /taskmanagers/metrics?get=Status.JVM.CPU.Load&agg=avg");

  core::MetricRequirement per_vertex{.name = "IN_RATE_MAX",
                                     .scope = core::MetricScope::kVertex,
                                     .query = "numRecordsInPerSecond",
                                     .aggregation = core::MetricAggregation::kMax};
  auto v = source->FetchVertexMetric(job, per_vertex);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, (std::map<core::VertexId, double>{{kSrc, 0}, {kMap, 100}, {kSink, 300}}));

  core::MetricRequirement restarts{.name = "RESTARTS", .query = "numRestarts"};
  EXPECT_EQ(*source->FetchJobMetric(job, restarts), 3);
  restarts.query = "noSuchMetric";
  EXPECT_EQ(source->FetchJobMetric(job, restarts).status().code(), StatusCode::kNotFound);

  core::MetricRequirement prom{
      .name = "LAG_P", .source = core::MetricSourceKind::kPrometheus, .query = "sum(kafka_lag)"};
  auto p = source->FetchJobMetric(job, prom);
  EXPECT_EQ(p.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(p.status().message(),
            "metric LAG_P: source prometheus is not served by the Flink REST collector");
}

TEST(MetricValueTest, NumbersAndFlinkStrings) {
  EXPECT_EQ(ParseMetricValue(Json(12.5)), 12.5);
  EXPECT_EQ(ParseMetricValue(Json("12.5")), 12.5);
  EXPECT_EQ(ParseMetricValue(Json("7")), 7);
  EXPECT_TRUE(std::isnan(*ParseMetricValue(Json("NaN"))));
  EXPECT_EQ(ParseMetricValue(Json("-Infinity")), -std::numeric_limits<double>::infinity());
  EXPECT_FALSE(ParseMetricValue(Json("12 apples")).has_value());
  EXPECT_FALSE(ParseMetricValue(Json(nullptr)).has_value());
}

TEST(SourcePartitionsTest, KafkaAndPulsarGauges) {
  EXPECT_EQ(CountSourcePartitions({
                "Source__K.KafkaSourceReader.topic.a.partition.0.currentOffset",
                "Source__K.KafkaSourceReader.topic.a.partition.0.committedOffset",
                "Source__K.KafkaSourceReader.topic.a.partition.1.currentOffset",
                "Source__K.KafkaSourceReader.topic.b.partition.0.currentOffset",
                "Source__K.KafkaSourceReader.kafkaCluster.c1.topic.a.partition.0.currentOffset",
                "Source__P.PulsarConsumer.persistent_//t/n/x-partition-3.c0.numMsgsReceived",
                "busyTimeMsPerSecond",
            }),
            5);
  EXPECT_EQ(CountSourcePartitions({}), 0);
}

// Issue 27: metric names come from the network; std::regex recursed per character.
TEST(SourcePartitionsTest, Issue27HugeMetricNamesAreLinear) {
  const std::string dots(200000, '.');
  EXPECT_EQ(CountSourcePartitions({
                "S.KafkaSourceReader.topic." + dots + ".partition.0.currentOffset",
                "S.PulsarConsumer." + dots + "-partition-1." + dots + ".numMsgsReceived",
                std::string(300000, 'x'),
            }),
            2);
}

}  // namespace
}  // namespace trimtab::adapters
