// The operator's /metrics and the local API server's /metrics scraped by a real Prometheus
// (Debian's `prometheus`, installed by scripts/install-deps.sh): both expositions parse (the
// scrape targets are up) and a few series read back through PromQL as the operator produced them.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/http/client.h"
#include "operator/wiring/operator.h"
#include "operator/testing/controller_test_fixture.h"
#include "tests/support/real_prometheus.h"

namespace trimtab::op::testing {
namespace {

using namespace std::chrono_literals;

class MetricsPrometheusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(env_.status().ok()) << env_.status().ToString();
    url_ = env_.jm()->base_url();
    resolver_ = std::make_unique<FunctionRestEndpointResolver>(
        [this](const std::string&, const std::string&) -> StatusOr<std::string> { return url_; });
    auto op = Operator::Create(
        {.rest_config = {.server = env_.apiserver()->url()},
         .default_configuration = {{"kubernetes.operator.reconcile.interval", "1 s"}},
         .resolver = resolver_.get(),
         .workers = 2,
         .health_port = 0,
         .health_address = "127.0.0.1"});
    ASSERT_TRUE(op.ok()) << op.status().ToString();
    op_ = std::move(*op);
    ASSERT_TRUE(op_->Start().ok());
    auto client = http::HttpClient::Create({});
    ASSERT_TRUE(client.ok());
    http_ = std::move(*client);
    dir_ = std::filesystem::temp_directory_path() /
           ("trimtab-metrics-prometheus-test-" + std::to_string(::getpid()));
    const std::string apiserver = env_.apiserver()->url().substr(std::string("http://").size());
    auto prometheus = trimtab::testing::RealPrometheus::Start(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        "scrape_configs:\n"
        "  - job_name: operator\n"
        "    static_configs: [{targets: ['127.0.0.1:" + std::to_string(op_->health_port()) +
            "']}]\n"
            "  - job_name: apiserver\n"
            "    static_configs: [{targets: ['" + apiserver + "']}]\n",
        dir_);
    ASSERT_TRUE(prometheus.ok()) << prometheus.status().ToString();
    prometheus_ = std::move(*prometheus);
  }
  void TearDown() override {
    prometheus_.reset();
    if (op_) op_->Stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // The single value of an instant query, or nullopt (no series, an error, not yet scraped).
  std::optional<double> Query(const std::string& promql) const {
    http::ClientRequest r;
    r.url = prometheus_->url() + "/api/v1/query?query=" + http::UrlEncode(promql);
    r.timeout = 2s;
    StatusOr<http::ClientResponse> response = http_->Do(r);
    if (!response.ok() || response->status != 200) return std::nullopt;
    const Json body = Json::parse(response->body, nullptr, false);
    if (!body.is_object() || body.value("status", "") != "success") return std::nullopt;
    const Json& result = body["data"]["result"];
    if (!result.is_array() || result.size() != 1) return std::nullopt;
    return std::stod(result[0]["value"][1].get<std::string>());
  }

  // Polls `promql` until its value satisfies `ok` (Prometheus scrapes every second).
  bool Eventually(const std::string& promql, const std::function<bool(double)>& ok,
                  std::chrono::seconds limit = 30s) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (std::optional<double> v = Query(promql); v && ok(*v)) return true;
      std::this_thread::sleep_for(200ms);
    }
    return false;
  }

  OperatorTestEnv env_;
  std::string url_;
  std::unique_ptr<RestEndpointResolver> resolver_;
  std::unique_ptr<Operator> op_;
  std::unique_ptr<http::HttpClient> http_;
  std::filesystem::path dir_;
  std::unique_ptr<trimtab::testing::RealPrometheus> prometheus_;
};

TEST_F(MetricsPrometheusTest, BothEndpointsAreScrapedAndQueryable) {
  ASSERT_TRUE(env_.Apply(AppYaml("sm", "stateless")).ok());
  auto positive = [](double v) { return v > 0; };
  // Both expositions parse: a target whose text Prometheus rejects is down.
  EXPECT_TRUE(Eventually("up{job=\"operator\"}", [](double v) { return v == 1; }))
      << "see " << prometheus_->log_path();
  EXPECT_TRUE(Eventually("up{job=\"apiserver\"}", [](double v) { return v == 1; }));
  // The operator: its passes over the FlinkDeployment, leadership, its API requests.
  EXPECT_TRUE(Eventually(
      "sum(flink_k8soperator_JOSDK_Reconciliation_Count{job=\"operator\","
      "resourcetype=\"FlinkDeployment\"})",
      positive));
  EXPECT_TRUE(Eventually(
      "histogram_quantile(0.5, sum by (le) "
      "(flink_k8soperator_JOSDK_Reconciliation_TimeSeconds_bucket{job=\"operator\"}))",
      [](double v) { return v >= 0; }));
  EXPECT_TRUE(Eventually("leader_election_master_status{job=\"operator\"}",
                         [](double v) { return v == 1; }));
  EXPECT_TRUE(Eventually(
      "sum(flink_k8soperator_KubeClient_HttpResponse_Count{job=\"operator\",verb=\"create\"})",
      positive));
  EXPECT_TRUE(Eventually("workqueue_adds_total{job=\"operator\",name=\"flinkdeployment\"}",
                         positive));
  // The API server: the operator's creates by resource, its open watches, storage latency.
  EXPECT_TRUE(Eventually(
      "sum(apiserver_request_total{job=\"apiserver\",verb=\"POST\",resource=\"deployments\","
      "code=\"201\"})",
      positive));
  EXPECT_TRUE(Eventually(
      "sum(apiserver_longrunning_requests{job=\"apiserver\",verb=\"WATCH\","
      "resource=\"flinkdeployments\"})",
      positive));
  EXPECT_TRUE(Eventually(
      "sum(etcd_request_duration_seconds_count{job=\"apiserver\",operation=\"create\"})",
      positive));
}

}  // namespace
}  // namespace trimtab::op::testing
