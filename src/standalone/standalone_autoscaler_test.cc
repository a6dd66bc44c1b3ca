// `trimtab autoscale` against trimtab local's simulated Flink clusters over real HTTP (the
// JobManager REST API of src/cluster/flink), on a ManualClock: discovery of a cluster's jobs,
// a decision through the operator's autoscaler, the in-place rescale through the
// resource-requirements API (same job id, new parallelism), the state in SQLite surviving a
// restart, the decision log, and the cases where nothing may be applied.
#include "standalone/standalone_autoscaler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "adapters/flink/rest_client.h"
#include "adapters/state/sqlite_state_store.h"
#include "cluster/flink/cluster_test_util.h"
#include "cluster/flink/rest_server.h"
#include "standalone/job_list_fetcher.h"
#include "standalone/rescale_api_realizer.h"

namespace trimtab::standalone {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kJobId[] = "00000000000000000000000000000abc";

class StandaloneAutoscalerTest : public sim::flink::testing::FlinkClusterTest {
 protected:
  void SetUp() override {
    db_ = ::testing::TempDir() + "/trimtab_standalone_" + std::to_string(::getpid()) + "_" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db";
    std::filesystem::remove(db_);
    auto http = http::HttpClient::Create({});
    ASSERT_TRUE(http.ok());
    http_ = std::shared_ptr<const http::HttpClient>(std::move(http).value());
  }
  void TearDown() override {
    if (server_) server_->Stop();
    std::filesystem::remove(db_);
  }

  // An application cluster "wc" running SmallJob() at `rate` records/s with the adaptive
  // scheduler (or `scheduler`).
  void StartCluster(double rate, const std::string& scheduler = "adaptive",
                    const std::string& job = sim::flink::testing::SmallJob()) {
    sim::flink::FlinkConfig config = BaseConfig();
    config.Set("jobmanager.scheduler", scheduler);
    config.Set("trimtab.job", job);
    config.Set("trimtab.workload", "{type: constant, rate: " + std::to_string(rate) + "}");
    auto cluster = Start(config);
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    cluster_ = std::move(*cluster);
    auto server =
        sim::flink::FlinkRestServer::Create({.address = "127.0.0.1", .port = 0}, cluster_.get());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    rest_ = std::make_shared<const flink::FlinkRestClient>(http_, server_->base_url(), 5s);
  }

  // The standalone configuration of the tests: upstream's defaults with a short window.
  std::map<std::string, std::string> Configuration() const {
    return {{"job.autoscaler.enabled", "true"},
            {"job.autoscaler.defaults", "flink"},
            {"job.autoscaler.stabilization.interval", "1 min"},
            {"job.autoscaler.metrics.window", "3 min"},
            {"job.autoscaler.utilization.target", "0.5"},
            {"job.autoscaler.utilization.max", "0.7"},
            {"job.autoscaler.utilization.min", "0.3"},
            {"job.autoscaler.catch-up.duration", "0 s"},
            {"job.autoscaler.scale-down.interval", "0 s"},
            {"job.autoscaler.restart.time", "1 min"}};
  }

  std::unique_ptr<StandaloneAutoscaler> Autoscaler(core::AutoscalerStateStore* store,
                                                   std::vector<std::string> job_ids = {}) {
    StandaloneCluster cluster{.rest_url = server_->base_url(), .name = "wc", .job_ids = job_ids};
    auto a = StandaloneAutoscaler::Create({.clusters = {cluster},
                                           .configuration = Configuration(),
                                           .state_store = store,
                                           .event_handler = &events_,
                                           .clock = &clock_,
                                           .http = http_,
                                           .decision_log = [this](const Json& log) {
                                             decision_logs_.push_back(log);
                                           }});
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? std::move(a).value() : nullptr;
  }

  std::unique_ptr<core::AutoscalerStateStore> Sqlite() {
    auto store = adapters::SqliteStateStore::Create({.path = db_, .clock = &clock_});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return std::move(store).value();
  }

  // Passes every 10 s until one decides a scaling (at most `limit` of simulated time).
  std::optional<JobPassResult> RunUntilScaled(StandaloneAutoscaler& a, std::chrono::minutes limit) {
    for (auto t = 0s; t < limit; t += 10s) {
      Advance(10s);
      PassReport report = a.RunOnce();
      EXPECT_THAT(report.cluster_errors, IsEmpty());
      for (const JobPassResult& r : report.jobs) {
        EXPECT_EQ(r.error, "") << r.job_key;
        if (r.scaled) return r;
      }
    }
    return std::nullopt;
  }

  std::map<std::string, int> RunningParallelism() {
    return cluster_->Locked([](sim::flink::ClusterState& s) {
      std::map<std::string, int> out;
      for (const sim::flink::JobVertexView& v : s.FindJob(kJobId)->vertices()) {
        out[v.id] = v.parallelism;
      }
      return out;
    });
  }

  std::string db_;
  std::shared_ptr<const http::HttpClient> http_;
  std::unique_ptr<sim::flink::FlinkCluster> cluster_;
  std::unique_ptr<sim::flink::FlinkRestServer> server_;
  std::shared_ptr<const flink::FlinkRestClient> rest_;
  core::InMemoryEventHandler events_{&clock_};
  std::vector<Json> decision_logs_;
};

TEST_F(StandaloneAutoscalerTest, DiscoversTheJobAndScalesItInPlaceKeepingItsId) {
  StartCluster(3000);  // 2 subtasks of 1000/s each: overloaded
  auto store = Sqlite();
  auto autoscaler = Autoscaler(store.get());
  ASSERT_NE(autoscaler, nullptr);
  std::optional<JobPassResult> scaled = RunUntilScaled(*autoscaler, 15min);
  ASSERT_TRUE(scaled.has_value()) << "no scaling within 15 minutes";
  EXPECT_EQ(scaled->job_key, std::string("wc/") + kJobId);
  EXPECT_THAT(scaled->realized, HasSubstr("in-place scaling triggered"));
  ASSERT_FALSE(scaled->parallelism_overrides.empty());
  int highest = 0;
  for (const auto& [vertex, p] : scaled->parallelism_overrides) highest = std::max(highest, p);
  EXPECT_GT(highest, 2);

  // Flink holds the new requirements: [1, override] per vertex, as upstream sets them.
  StatusOr<flink::ResourceRequirements> requirements = rest_->GetResourceRequirements(kJobId);
  ASSERT_TRUE(requirements.ok()) << requirements.status().ToString();
  for (const auto& [vertex, p] : scaled->parallelism_overrides) {
    EXPECT_EQ((*requirements)[vertex], (flink::ParallelismBounds{1, p})) << vertex;
  }
  EXPECT_THAT(events_.EventsWithReason("Scaling"), SizeIs(1));
  EXPECT_THAT(events_.EventsWithReason("ScalingReport"), Not(IsEmpty()));

  // The job rescales in place: same id, the new parallelism, and later passes send nothing.
  for (int i = 0; i < 12; ++i) {
    Advance(10s);
    PassReport report = autoscaler->RunOnce();
    ASSERT_THAT(report.jobs, SizeIs(1));
    EXPECT_NE(report.jobs[0].realized.rfind("failed", 0), 0u) << report.jobs[0].realized;
  }
  EXPECT_EQ(JobStatusOf(*cluster_, kJobId), "RUNNING");
  StatusOr<std::vector<flink::JobOverview>> jobs = rest_->ListJobs();
  ASSERT_TRUE(jobs.ok());
  ASSERT_THAT(*jobs, SizeIs(1));
  EXPECT_EQ((*jobs)[0].id, kJobId);
  const std::map<std::string, int> running = RunningParallelism();
  for (const auto& [vertex, p] : scaled->parallelism_overrides) EXPECT_EQ(running.at(vertex), p);
  EXPECT_THAT(events_.EventsWithReason("Scaling"), SizeIs(1));

  // The decision log of every pass, as the operator's, with what the realizer did.
  ASSERT_FALSE(decision_logs_.empty());
  bool saw_scaled = false;
  for (const Json& log : decision_logs_) {
    EXPECT_EQ(log.value("jobKey", ""), std::string("wc/") + kJobId);
    EXPECT_EQ(log.value("cluster", ""), "wc");
    if (log.value("scaled", false)) {
      saw_scaled = true;
      EXPECT_THAT(log.value("realize", ""), HasSubstr("in-place scaling triggered"));
      EXPECT_TRUE(log.contains("vertices")) << log.dump();
    }
  }
  EXPECT_TRUE(saw_scaled);
  // The source's 4 partitions are counted from the simulated Kafka reader's currentOffset
  // gauges. (With defaults: flink, upstream main's BALANCED alignment then keeps a proposal of 6
  // above them, as upstream does: docs/eval-flink.md.)
  bool partitions_seen = false;
  for (const Json& log : decision_logs_) {
    if (!log.value("scaled", false) || !log.contains("chain") || !log["chain"].is_object()) {
      continue;
    }
    const Json steps = log["chain"].value("steps", Json::array());
    for (const Json& step : steps) {
      if (!step.is_object() || !step.contains("output") || !step["output"].is_object()) continue;
      for (const auto& [vertex, summary] : step["output"].items()) {
        const Json partitions =
            summary.is_object() && summary.contains("metrics") && summary["metrics"].is_object()
                ? summary["metrics"].value("NUM_SOURCE_PARTITIONS", Json())
                : Json();
        partitions_seen = partitions_seen || (partitions.is_object() &&
                                              partitions.value("current", 0.0) == 4.0);
      }
    }
  }
  EXPECT_TRUE(partitions_seen) << "no scaled decision saw NUM_SOURCE_PARTITIONS 4";
  // ... and in the state store, next to the overrides.
  Json overrides;
  ASSERT_TRUE(store->Get(std::string("wc/") + kJobId, core::StateType::kParallelismOverrides,
                         &overrides).ok());
  Json log;
  EXPECT_TRUE(store->Get(std::string("wc/") + kJobId, core::StateType::kDecisionLog, &log).ok());
}

TEST_F(StandaloneAutoscalerTest, StateInSqliteSurvivesARestartAndTheOverridesAreReapplied) {
  StartCluster(3000);
  std::map<std::string, int> decided;
  {
    auto store = Sqlite();
    auto autoscaler = Autoscaler(store.get());
    ASSERT_NE(autoscaler, nullptr);
    std::optional<JobPassResult> scaled = RunUntilScaled(*autoscaler, 15min);
    ASSERT_TRUE(scaled.has_value());
    decided = scaled->parallelism_overrides;
  }
  // Someone puts the job back at parallelism 2 while the autoscaler is down.
  Advance(1min);
  flink::ResourceRequirements reset;
  for (const auto& [vertex, p] : decided) reset[vertex] = {1, 2};
  ASSERT_TRUE(rest_->PutResourceRequirements(kJobId, reset).ok());
  Advance(1min);

  auto store = Sqlite();
  auto restarted = Autoscaler(store.get());
  ASSERT_NE(restarted, nullptr);
  PassReport report = restarted->RunOnce();
  ASSERT_THAT(report.jobs, SizeIs(1));
  EXPECT_FALSE(report.jobs[0].scaled);
  EXPECT_EQ(report.jobs[0].parallelism_overrides, decided);  // read back from SQLite
  EXPECT_THAT(report.jobs[0].realized, HasSubstr("in-place scaling triggered"));
  StatusOr<flink::ResourceRequirements> requirements = rest_->GetResourceRequirements(kJobId);
  ASSERT_TRUE(requirements.ok());
  for (const auto& [vertex, p] : decided) EXPECT_EQ((*requirements)[vertex].upper, p);
}

TEST_F(StandaloneAutoscalerTest, TheDefaultSchedulerIsNeverRescaledInPlace) {
  StartCluster(3000, "default");
  core::InMemoryEventHandler events(&clock_);
  RescaleApiScalingRealizer realizer(&events);
  StatusOr<std::map<std::string, std::string>> conf = rest_->JobConfiguration(kJobId);
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  realizer.Bind("wc/job", {.rest = rest_, .job_id = kJobId, .job_status = "RUNNING",
                           .configuration = *conf});
  std::map<std::string, int> before = RunningParallelism();
  core::ParallelismOverrides overrides;
  for (const auto& [vertex, p] : before) overrides[vertex] = 3;
  Status s = realizer.RealizeParallelismOverrides("wc/job", overrides);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("jobmanager.scheduler: adaptive"));
  Advance(1min);
  EXPECT_EQ(RunningParallelism(), before);
  EXPECT_THAT(events.Events(), IsEmpty());
}

TEST_F(StandaloneAutoscalerTest, RealizerSendsNothingWhenTheRequirementsAlreadyMatch) {
  StartCluster(500);
  core::InMemoryEventHandler events(&clock_);
  RescaleApiScalingRealizer realizer(&events);
  StatusOr<std::map<std::string, std::string>> conf = rest_->JobConfiguration(kJobId);
  ASSERT_TRUE(conf.ok());
  realizer.Bind("wc/job", {.rest = rest_, .job_id = kJobId, .job_status = "RUNNING",
                           .configuration = *conf});
  Advance(40s);
  StatusOr<flink::ResourceRequirements> current = rest_->GetResourceRequirements(kJobId);
  ASSERT_TRUE(current.ok());
  core::ParallelismOverrides same;
  for (const auto& [vertex, bounds] : *current) same[vertex] = bounds.upper;
  ASSERT_TRUE(realizer.RealizeParallelismOverrides("wc/job", same).ok());
  EXPECT_EQ(realizer.LastAction("wc/job"), "requirements already match");
  EXPECT_THAT(events.Events(), IsEmpty());
  // A job that is not RUNNING is not touched.
  realizer.Bind("wc/job", {.rest = rest_, .job_id = kJobId, .job_status = "RESTARTING",
                           .configuration = *conf});
  for (auto& [vertex, p] : same) p += 1;
  EXPECT_EQ(realizer.RealizeParallelismOverrides("wc/job", same).code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(StandaloneAutoscalerTest, ANamedJobTheClusterDoesNotRunAndAnUnreachableClusterAreReported) {
  StartCluster(500);
  auto store = Sqlite();
  const std::string missing = "0123456789abcdef0123456789abcdef";
  auto autoscaler = Autoscaler(store.get(), {missing});
  ASSERT_NE(autoscaler, nullptr);
  PassReport report = autoscaler->RunOnce();
  ASSERT_THAT(report.jobs, SizeIs(1));  // the cluster's own job is not named: left alone
  EXPECT_EQ(report.jobs[0].job_key, "wc/" + missing);
  EXPECT_THAT(report.jobs[0].error, HasSubstr("is not on the cluster"));

  auto unreachable = StandaloneAutoscaler::Create(
      {.clusters = {{.rest_url = "http://127.0.0.1:1", .name = "gone"}},
       .configuration = Configuration(),
       .state_store = store.get(),
       .event_handler = &events_,
       .clock = &clock_,
       .http = http_,
       .rest_timeout = 2s});
  ASSERT_TRUE(unreachable.ok());
  PassReport gone = (*unreachable)->RunOnce();
  EXPECT_THAT(gone.jobs, IsEmpty());
  ASSERT_THAT(gone.cluster_errors, SizeIs(1));
  EXPECT_THAT(gone.cluster_errors[0], HasSubstr("cluster gone: listing jobs"));
}

TEST_F(StandaloneAutoscalerTest, AFinishedJobLosesItsState) {
  StartCluster(2000, "adaptive", sim::flink::testing::BoundedSmallJob(200));
  auto store = Sqlite();
  const std::string key = std::string("wc/") + kJobId;
  ASSERT_TRUE(store->Put(key, core::StateType::kParallelismOverrides, Json{{"x", 3}}).ok());
  ASSERT_TRUE(store->Flush(key).ok());
  auto autoscaler = Autoscaler(store.get());
  ASSERT_NE(autoscaler, nullptr);
  for (int i = 0; i < 60 && JobStatusOf(*cluster_, kJobId) != "FINISHED"; ++i) Advance(10s);
  ASSERT_EQ(JobStatusOf(*cluster_, kJobId), "FINISHED");
  PassReport report = autoscaler->RunOnce();
  ASSERT_THAT(report.jobs, SizeIs(1));
  EXPECT_TRUE(report.jobs[0].cleaned);
  EXPECT_THAT(*store->ListJobKeys(), IsEmpty());
  EXPECT_FALSE(autoscaler->RunOnce().jobs[0].cleaned);  // once
}

TEST(StandaloneConfigTest, ReadsTheFileAndNamesTheFieldOfAnError) {
  StatusOr<Json> doc = ParseYaml(R"(
controlLoopInterval: 30 s
stateStore: postgresql:host=db dbname=trimtab user=a password=secret
decisionLog: "-"
autoscalerDefaults: flink
configuration:
  job.autoscaler:
    enabled: "true"
clusters:
  - restUrl: http://session:8081/
    jobs: [00000000000000000000000000000abc]
    configuration: {job.autoscaler.metrics.window: 5 min}
  - restUrl: https://other:8081
)", "autoscale.yaml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  StandaloneConfig config;
  ASSERT_TRUE(ParseStandaloneConfig(*doc, "autoscale.yaml", &config).ok());
  ASSERT_TRUE(ValidateStandaloneConfig(&config).ok());
  EXPECT_EQ(config.control_loop_interval, 30s);
  EXPECT_EQ(config.state_store.type, StateStoreConfig::Type::kPostgresql);
  EXPECT_EQ(DescribeStateStore(config.state_store), "postgresql:host=db dbname=trimtab user=a");
  EXPECT_EQ(config.configuration.at("job.autoscaler.enabled"), "true");
  ASSERT_THAT(config.clusters, SizeIs(2));
  EXPECT_EQ(config.clusters[0].rest_url, "http://session:8081");
  EXPECT_EQ(config.clusters[0].name, "session:8081");
  EXPECT_EQ(config.clusters[0].configuration.at("job.autoscaler.metrics.window"), "5 min");
  EXPECT_EQ(config.clusters[1].name, "other:8081");

  const auto error = [](const std::string& yaml) {
    StandaloneConfig c;
    StatusOr<Json> d = ParseYaml(yaml, "f.yaml");
    if (!d.ok()) return std::string(d.status().message());
    Status s = ParseStandaloneConfig(*d, "f.yaml", &c);
    if (s.ok()) s = ValidateStandaloneConfig(&c);
    return std::string(s.message());
  };
  EXPECT_THAT(error("clusters: [{restUrl: jm:8081}]"), HasSubstr("clusters[0].restUrl"));
  EXPECT_THAT(error("clusters: [{restUrl: 'http://a:1', jobs: [xyz]}]"),
              HasSubstr("clusters[0].jobs[0]: expected a job id of 32 hex digits"));
  EXPECT_THAT(error("clusters: [{restUrl: 'http://a:1', colour: red}]"), HasSubstr("colour"));
  EXPECT_THAT(error("stateStore: mysql://x"), HasSubstr("stateStore: expected sqlite:"));
  EXPECT_THAT(error("controlLoopInterval: 5 parsecs"), HasSubstr("controlLoopInterval"));
  EXPECT_THAT(error("clusters: [{restUrl: 'http://a:1'}, {restUrl: 'http://a:1'}]"),
              HasSubstr("names two clusters"));
  EXPECT_THAT(error("{}"), HasSubstr("no Flink cluster to autoscale"));
  EXPECT_EQ(DescribeStateStore(*ParseStateStore("f", "postgresql://u:pw@db:5432/x")),
            "postgresql:postgresql://db:5432/x");
}

}  // namespace
}  // namespace trimtab::standalone
