// CaptureScenario against the simulated Flink cluster over real HTTP: the job is one whose true
// capacities we know (the simulator's job spec), so the captured scenario must find them again,
// and it must parse as a scenario `trimtab simulate` runs.
#include "sim/capture/scenario_capture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "adapters/http/client.h"
#include "cluster/flink/cluster_test_util.h"
#include "cluster/flink/rest_server.h"
#include "sim/key_groups.h"
#include "sim/rng.h"
#include "sim/policies/registry.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "tests/support/real_prometheus.h"

namespace trimtab::cli {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

// The busiest of `p` subtasks against the mean under the simulator's key model.
double Imbalance(double skew, uint64_t seed, int vertex_index, int p) {
  const std::vector<double> shares = sim::SubtaskKeyShares(
      sim::KeyGroupWeights(128, skew, sim::HashPair(seed, static_cast<uint64_t>(vertex_index))), p);
  return *std::max_element(shares.begin(), shares.end()) * p;
}

// Source (8 partitions, 2000/s per subtask) -> hash -> a window (800/s per subtask, half the
// records out, 1 GB of state) -> rebalance -> a sink (5000/s).
constexpr const char kJob[] =
    "{name: etl, vertices: ["
    " {id: source, name: 'Source: events', partitions: 8, parallelism: 2, capacityPerSubtask: 2000},"
    " {id: window, name: 'Window(count) -> Map', parallelism: 2, capacityPerSubtask: 800,"
    "  selectivity: 0.5, stateBytes: 1e9},"
    " {id: sink, name: 'Sink: out', parallelism: 1, capacityPerSubtask: 5000}],"
    " edges: [{from: source, to: window, ship: hash}, {from: window, to: sink, ship: rebalance}],"
    " restart: {baseDowntime: 2 s}}";

class ScenarioCaptureTest : public sim::flink::testing::FlinkClusterTest {
 protected:
  void StartJob(const std::string& workload, const std::string& job = kJob) {
    sim::flink::FlinkConfig config = BaseConfig();
    config.Set("trimtab.job", job);
    config.Set("trimtab.workload", workload);
    auto cluster = Start(config);
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    cluster_ = std::move(*cluster);
    auto server = sim::flink::FlinkRestServer::Create({.address = "127.0.0.1", .port = 0}, cluster_.get());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    auto http = http::HttpClient::Create({});
    ASSERT_TRUE(http.ok());
    http_ = std::move(*http);
    auto collector = adapters::FlinkMetricsCollector::Create({.http = http_.get()});
    ASSERT_TRUE(collector.ok());
    collector_ = std::move(*collector);
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  // Runs the job for `d` of simulated time, a few seconds at a time.
  void Run(std::chrono::seconds d) {
    for (auto t = 0s; t < d; t += 5s) {
      Advance(5s);
      http::ClientRequest r;
      r.url = server_->base_url() + "/jobs/overview";
      ASSERT_TRUE(http_->Do(r).ok());
    }
  }
  StatusOr<CapturedScenario> Capture(int samples, std::string job_id = "") {
    ScenarioCaptureOptions o;
    o.rest_url = server_->base_url();
    o.job_id = std::move(job_id);
    o.samples = samples;
    o.interval = 30s;
    o.clock = &clock_;
    o.wait = [&](Millis d) { Run(std::chrono::duration_cast<std::chrono::seconds>(d)); };
    return CaptureScenario(*collector_, o);
  }
  static sim::Scenario Parse(const std::string& yaml) {
    StatusOr<Json> doc = ParseYaml(yaml, "captured.yaml");
    EXPECT_TRUE(doc.ok()) << doc.status().ToString() << "\n" << yaml;
    if (!doc.ok()) return {};
    StatusOr<sim::Scenario> s = sim::ParseScenario(*doc);
    EXPECT_TRUE(s.ok()) << s.status().ToString() << "\n" << yaml;
    return s.ok() ? std::move(s).value() : sim::Scenario{};
  }

  std::unique_ptr<sim::flink::FlinkCluster> cluster_;
  std::unique_ptr<sim::flink::FlinkRestServer> server_;
  std::unique_ptr<http::HttpClient> http_;
  std::unique_ptr<adapters::FlinkMetricsCollector> collector_;
};

TEST_F(ScenarioCaptureTest, FindsTheJobsCapacitiesAgain) {
  StartJob("{type: constant, rate: 1000}");
  Run(3min);  // running, and Flink's 60-s rates filled
  StatusOr<CapturedScenario> c = Capture(3);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->job_id, "00000000000000000000000000000abc");
  const sim::Scenario s = Parse(c->yaml);
  ASSERT_EQ(s.job.vertices.size(), 3u) << c->yaml;
  const sim::VertexSpec& source = s.job.vertices[0];
  const sim::VertexSpec& window = s.job.vertices[1];
  const sim::VertexSpec& sink = s.job.vertices[2];
  EXPECT_EQ(source.id, "source-events");
  EXPECT_EQ(source.name, "Source: events");
  EXPECT_EQ(window.id, "window-count-map");
  EXPECT_EQ(sink.id, "sink-out");
  EXPECT_EQ(source.parallelism, 2);
  EXPECT_EQ(window.parallelism, 2);
  EXPECT_EQ(sink.parallelism, 1);
  EXPECT_EQ(source.partitions, 8);
  // Each capacity within 3 % of the truth: 1000 records/s at 25 %, 62.5 % and 10 % busy.
  EXPECT_NEAR(source.capacity_per_subtask, 2000, 60) << c->yaml;
  EXPECT_NEAR(window.capacity_per_subtask, 800, 24) << c->yaml;
  EXPECT_NEAR(sink.capacity_per_subtask, 5000, 150) << c->yaml;
  EXPECT_NEAR(source.selectivity, 1.0, 0.02);
  EXPECT_NEAR(window.selectivity, 0.5, 0.01);
  EXPECT_EQ(source.initial_backlog, 0);
  ASSERT_EQ(s.job.edges.size(), 2u);
  EXPECT_EQ(s.job.edges[0].ship, sim::ShipStrategy::kHash);
  EXPECT_EQ(s.job.edges[1].ship, sim::ShipStrategy::kRebalance);
  EXPECT_EQ(s.job.checkpoint.interval_seconds, 10);
  // The checkpoint's state lands on the vertices (the simulated REST API splits it by subtasks).
  EXPECT_GT(window.state_bytes, 0);
  EXPECT_NEAR(source.state_bytes + window.state_bytes + sink.state_bytes, 1e9, 1e8);
  ASSERT_EQ(s.workload.size(), 1u);
  EXPECT_NEAR(s.workload.begin()->second->Rate(0), 1000, 20);
  // And `trimtab simulate` runs it.
  sim::Scenario short_run = s;
  short_run.duration_seconds = 3600;
  StatusOr<sim::SimulationReport> r = sim::RunScenario(short_run, sim::AllPoliciesRegistry());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->policies.size(), 5u);
}

TEST_F(ScenarioCaptureTest, ABackpressuredJobsArrivalRateCountsItsGrowingBacklog) {
  // 2000 records/s into a window that carries 1600: the sources read 1600, the rest piles up.
  StartJob("{type: constant, rate: 2000}");
  Run(3min);
  StatusOr<CapturedScenario> c = Capture(3);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const sim::Scenario s = Parse(c->yaml);
  ASSERT_EQ(s.job.vertices.size(), 3u);
  EXPECT_NEAR(s.job.vertices[1].capacity_per_subtask, 800, 24) << c->yaml;
  EXPECT_NEAR(s.workload.begin()->second->Rate(0), 2000, 60) << c->yaml;
  EXPECT_GT(s.job.vertices[0].initial_backlog, 60 * 400) << c->yaml;
  // With one sample the growth cannot be seen: the rate read is all it has.
  StatusOr<CapturedScenario> one = Capture(1);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_NEAR(Parse(one->yaml).workload.begin()->second->Rate(0), 1600, 50) << one->yaml;
}

TEST_F(ScenarioCaptureTest, FitsTheKeySkewItSees) {
  // Hot keys (Zipf 0.8) on the window at parallelism 4. The cluster seeds its key groups its own
  // way, the captured scenario with its seed: the fit must reproduce, under the scenario's seed,
  // the unevenness the cluster's REST API shows.
  std::string job = kJob;
  const std::string from = "parallelism: 2, capacityPerSubtask: 800,";
  job.replace(job.find(from), from.size(), "parallelism: 4, capacityPerSubtask: 800, keySkew: 0.8,");
  StartJob("{type: constant, rate: 1000}", job);
  Run(3min);
  StatusOr<CapturedScenario> c = Capture(2);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const sim::Scenario s = Parse(c->yaml);
  ASSERT_EQ(s.job.vertices.size(), 3u);
  const sim::VertexSpec& window = s.job.vertices[1];
  ASSERT_EQ(window.parallelism, 4);
  StatusOr<adapters::FlinkCollection> seen = collector_->Collect(
      {server_->base_url(), c->job_id}, clock_.Now(), 10s);
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  const core::VertexId window_id = seen->job.topology.vertices.at(1).id;
  const core::flink::RawVertexMetrics& busy = seen->sample.vertices.at(window_id);
  const double truth = *busy.busy_time_max / *busy.busy_time_avg;
  ASSERT_GT(truth, 1.1) << "the test needs visible skew";
  ASSERT_GT(window.key_skew, 0) << c->yaml;
  EXPECT_NEAR(Imbalance(window.key_skew, s.seed, 1, 4), truth, 0.03 * truth) << c->yaml;
  // Uniform keys get none (test 1's window), and neither do vertices without a keyed input.
  EXPECT_EQ(s.job.vertices[0].key_skew, 0);
  EXPECT_EQ(s.job.vertices[2].key_skew, 0);
}

TEST(FitKeySkew, NoneForRoundingOrOneSubtaskAndCappedAtThree) {
  // 3 subtasks over 128 key groups own 43, 43 and 42: 1.008x from rounding alone.
  EXPECT_EQ(FitKeySkew(128, 3, 1, 43.0 / (128.0 / 3)), std::nullopt);
  EXPECT_EQ(FitKeySkew(128, 1, 1, 1.5), std::nullopt);
  EXPECT_EQ(FitKeySkew(128, 4, 1, 3.99), 3.0);
  const std::optional<double> s = FitKeySkew(128, 4, 1, 1.3);
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(Imbalance(*s, 1, 1, 4), 1.3, 0.01);
}

TEST_F(ScenarioCaptureTest, ReplaysTheInputHistoryFromARealPrometheus) {
  StartJob("{type: constant, rate: 1000}");
  Run(3min);
  // Two hours of the topic's input rate before now, backfilled into a real Prometheus: 1000/s,
  // then 3000/s for the last hour; and a second topic the query must not mix in.
  const int64_t now = ToUnixMillis(clock_.Now()) / 1000;
  std::string om = "# TYPE input_rate gauge\n";
  for (int64_t t = now - 7200; t <= now; t += 60) {
    const std::string at = " " + std::to_string(t) + "\n";
    om += "input_rate{topic=\"events\"} " + std::string(t < now - 3600 ? "1000" : "3000") + at;
    om += "input_rate{topic=\"other\"} 5" + at;
  }
  om += "# EOF\n";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("trimtab-capture-prometheus-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(testing::Backfill(om, dir).ok());
  auto prometheus = testing::RealPrometheus::Start("global: {scrape_interval: 15s}\n", dir);
  ASSERT_TRUE(prometheus.ok()) << prometheus.status().ToString();

  ScenarioCaptureOptions o;
  o.rest_url = server_->base_url();
  o.samples = 1;
  o.clock = &clock_;
  o.history = RateHistory{.http = http_.get(),
                          .prometheus_url = (*prometheus)->url(),
                          .query = R"(sum(input_rate{topic="events"}))",
                          .span = Millis(2 * 3600 * 1000),
                          .step = Millis(60 * 1000)};
  StatusOr<CapturedScenario> c = CaptureScenario(*collector_, o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const sim::Scenario s = Parse(c->yaml);
  EXPECT_EQ(s.duration_seconds, 7200) << c->yaml.substr(0, 3000);
  ASSERT_EQ(s.workload.size(), 1u);
  const sim::RateProfile& rate = *s.workload.begin()->second;
  EXPECT_NEAR(rate.Rate(600), 1000, 1);
  EXPECT_NEAR(rate.Rate(6600), 3000, 1);
  // Into a file beside the scenario instead of inline.
  o.rate_csv_file = "job.rate.csv";
  c = CaptureScenario(*collector_, o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_THAT(c->yaml, HasSubstr("workload: {type: csv, file: \"job.rate.csv\", interpolate: linear}"));
  EXPECT_EQ(c->rate_csv.rfind("seconds,rate\n0,1000\n60,1000\n", 0), 0u) << c->rate_csv.substr(0, 200);

  // The arrival rate must be one series.
  o.history->query = "input_rate";
  Status two = CaptureScenario(*collector_, o).status();
  EXPECT_THAT(two.message(), HasSubstr("2 series; the job's arrival rate must be one"));
  o.history->query = "sum(rate(input_rate[5m]";
  EXPECT_THAT(CaptureScenario(*collector_, o).status().message(), HasSubstr("Prometheus says bad_data"));
  prometheus->reset();
  std::filesystem::remove_all(dir);
}

TEST_F(ScenarioCaptureTest, ErrorsSayWhatIsWrong) {
  StartJob("{type: constant, rate: 1000}");
  // Before the job runs there is nothing RUNNING to capture.
  StatusOr<CapturedScenario> early = Capture(1);
  ASSERT_FALSE(early.ok());
  EXPECT_THAT(early.status().message(), HasSubstr("no RUNNING job at " + server_->base_url()));
  EXPECT_THAT(early.status().message(), HasSubstr("00000000000000000000000000000abc"));
  Run(1min);
  StatusOr<CapturedScenario> unknown = Capture(1, "ffffffffffffffffffffffffffffffff");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("ffffffffffffffffffffffffffffffff"));
  ScenarioCaptureOptions o;
  o.rest_url = server_->base_url();
  o.samples = 0;
  o.clock = &clock_;
  EXPECT_THAT(CaptureScenario(*collector_, o).status().message(), HasSubstr("--samples"));
}

TEST(VertexSlug, ReadableIdsFromFlinkNames) {
  EXPECT_EQ(VertexSlug("Source: bid -> Calc(select=[auction, price])"),
            "source-bid-calc-select-auction-price");
  EXPECT_EQ(VertexSlug("  GroupWindowAggregate(HOP 10 s/2 s)  "), "groupwindowaggregate-hop-10-s-2-s");
  EXPECT_EQ(VertexSlug("->"), "vertex");
  EXPECT_LE(VertexSlug(std::string(100, 'a')).size(), 40u);
}

}  // namespace
}  // namespace trimtab::cli
