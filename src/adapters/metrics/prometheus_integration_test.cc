// PrometheusMetricSource against a real Prometheus (Debian's `prometheus`, installed by
// scripts/install-deps.sh): it scrapes an exporter this test serves every second, and the source's
// queries must come back with what the exporter says, through real PromQL.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/http/server.h"
#include "adapters/metrics/metric_sources.h"
#include "tests/support/real_prometheus.h"

namespace trimtab::adapters {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using core::MetricAggregation;
using core::MetricRequirement;
using core::MetricScope;
using core::MetricSourceKind;

// What the exporter serves: a consumer group lag per partition and Flink task busy times as
// Flink's Prometheus reporter labels them.
constexpr const char kExposition[] =
    "# TYPE kafka_consumergroup_lag gauge\n"
    "kafka_consumergroup_lag{consumergroup=\"orders\",partition=\"0\"} 1000\n"
    "kafka_consumergroup_lag{consumergroup=\"orders\",partition=\"1\"} 234\n"
    "kafka_consumergroup_lag{consumergroup=\"billing\",partition=\"0\"} 5\n"
    "# TYPE flink_taskmanager_job_task_busyTimeMsPerSecond gauge\n"
    "flink_taskmanager_job_task_busyTimeMsPerSecond{job_id=\"abc\",task_id=\"v1\",subtask_index=\"0\"} 100\n"
    "flink_taskmanager_job_task_busyTimeMsPerSecond{job_id=\"abc\",task_id=\"v1\",subtask_index=\"1\"} 300\n"
    "flink_taskmanager_job_task_busyTimeMsPerSecond{job_id=\"abc\",task_id=\"v2\",subtask_index=\"0\"} 50\n"
    "flink_taskmanager_job_task_busyTimeMsPerSecond{job_id=\"other\",task_id=\"v1\",subtask_index=\"0\"} 999\n";

class RealPrometheusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto exporter = http::HttpServer::Create({.port = 0, .threads = 1}, [](const http::HttpRequest&) {
      return http::HttpResponse::Text(200, kExposition, "text/plain; version=0.0.4");
    });
    ASSERT_TRUE(exporter.ok()) << exporter.status().ToString();
    exporter_ = std::move(*exporter);
    dir_ = std::filesystem::temp_directory_path() /
           ("trimtab-prometheus-test-" + std::to_string(::getpid()));
    auto client = http::HttpClient::Create({});
    ASSERT_TRUE(client.ok());
    http_ = std::move(*client);
    auto prometheus = testing::RealPrometheus::Start(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        "scrape_configs:\n"
        "  - job_name: exporter\n"
        "    static_configs: [{targets: ['127.0.0.1:" + std::to_string(exporter_->port()) + "']}]\n",
        dir_);
    ASSERT_TRUE(prometheus.ok()) << prometheus.status().ToString();
    prometheus_ = std::move(*prometheus);
    url_ = prometheus_->url();
    // The exporter scraped at least once (bounded).
    for (int i = 0; i < 300 && !Scraped(); ++i) std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(Scraped()) << "prometheus never scraped the exporter; see " << prometheus_->log_path();
  }
  void TearDown() override {
    prometheus_.reset();
    if (exporter_) exporter_->Stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  bool Scraped() const {
    http::ClientRequest r;
    r.url = url_ + "/api/v1/query?query=" + http::UrlEncode("count(kafka_consumergroup_lag)");
    r.timeout = 1s;
    StatusOr<http::ClientResponse> response = http_->Do(r);
    if (!response.ok() || response->status != 200) return false;
    const Json body = Json::parse(response->body, nullptr, false);
    return !body.is_discarded() && body["data"]["result"].is_array() && !body["data"]["result"].empty();
  }

  PrometheusMetricSource Source() const {
    return PrometheusMetricSource(
        {.http = http_.get(), .url = url_, .timeout = Millis(5000), .flink_job_id = "abc"});
  }

  const core::flink::MetricFetchJob job_{.job_key = "team-a/orders", .namespace_name = "team-a",
                                         .vertices = {"v1", "v2", "v3"}};
  std::unique_ptr<http::HttpServer> exporter_;
  std::unique_ptr<http::HttpClient> http_;
  std::unique_ptr<testing::RealPrometheus> prometheus_;
  std::filesystem::path dir_;
  std::string url_;
};

TEST_F(RealPrometheusTest, QueriesComeBackWithWhatTheExporterSays) {
  PrometheusMetricSource source = Source();
  // The job's consumer group, summed over partitions by PromQL.
  StatusOr<double> lag = source.FetchJobMetric(
      job_, {.name = "KAFKA_LAG", .scope = MetricScope::kJob, .source = MetricSourceKind::kPrometheus,
             .query = R"(sum(kafka_consumergroup_lag{consumergroup="{{name}}"}))"});
  ASSERT_TRUE(lag.ok()) << lag.status().ToString();
  EXPECT_EQ(*lag, 1234);
  // The same series summed by the source instead.
  lag = source.FetchJobMetric(
      job_, {.name = "KAFKA_LAG", .scope = MetricScope::kJob, .source = MetricSourceKind::kPrometheus,
             .query = R"(kafka_consumergroup_lag{consumergroup="{{name}}"})",
             .aggregation = MetricAggregation::kSum});
  ASSERT_TRUE(lag.ok()) << lag.status().ToString();
  EXPECT_EQ(*lag, 1234);
  // Per vertex of this job (task_id), the busiest subtask.
  auto busy = source.FetchVertexMetric(
      job_, {.name = "BUSY_MAX", .scope = MetricScope::kVertex, .source = MetricSourceKind::kPrometheus,
             .query = R"(flink_taskmanager_job_task_busyTimeMsPerSecond{job_id="{{jobId}}"})",
             .aggregation = MetricAggregation::kMax});
  ASSERT_TRUE(busy.ok()) << busy.status().ToString();
  EXPECT_EQ(*busy, (std::map<core::VertexId, double>{{"v1", 300}, {"v2", 50}}));
}

TEST_F(RealPrometheusTest, PrometheusErrorsReachTheLogReadable) {
  PrometheusMetricSource source = Source();
  MetricRequirement m{.name = "BAD", .scope = MetricScope::kJob,
                      .source = MetricSourceKind::kPrometheus, .query = "rate(kafka_consumergroup_lag[1m]"};
  Status s = source.FetchJobMetric(job_, m).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("metric BAD (prometheus rate(kafka_consumergroup_lag[1m]): Prometheus says bad_data: "));
  m.query = "kafka_consumergroup_lag[1m]";
  EXPECT_THAT(source.FetchJobMetric(job_, m).status().message(), HasSubstr("answers a matrix"));
  m.query = R"(kafka_consumergroup_lag{consumergroup="nobody"})";
  EXPECT_THAT(source.FetchJobMetric(job_, m).status().message(), HasSubstr("no series"));
}

}  // namespace
}  // namespace trimtab::adapters
