// External metrics from a real Prometheus (Debian's, as the other Prometheus tests start it)
// through the local API server: the rule's query picks the series a label selector asks for,
// `in` values are matched literally (a "." is not a wildcard), a selector matching nothing is no
// value, and a label value that tries to inject PromQL is refused by the API (not a label value)
// and, when it reaches the query builder anyway, only ever matches a literal value.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/http/client.h"
#include "adapters/http/server.h"
#include "cluster/apiserver/apiserver_test_util.h"
#include "cluster/metrics/prometheus_external.h"
#include "tests/support/real_prometheus.h"

namespace trimtab::cluster::metrics {
namespace {

using namespace std::chrono_literals;

constexpr const char kExposition[] =
    "# TYPE kafka_consumergroup_lag gauge\n"
    "kafka_consumergroup_lag{namespace=\"team-a\",topic=\"a.b\",partition=\"0\"} 100\n"
    "kafka_consumergroup_lag{namespace=\"team-a\",topic=\"a.b\",partition=\"1\"} 20\n"
    "kafka_consumergroup_lag{namespace=\"team-a\",topic=\"axb\",partition=\"0\"} 7\n"
    "kafka_consumergroup_lag{namespace=\"team-b\",topic=\"a.b\",partition=\"0\"} 5000\n";

class PrometheusExternalTest : public testing::ApiServerTest {
 protected:
  void SetUp() override {
    auto exporter = http::HttpServer::Create({.port = 0, .threads = 1}, [](const http::HttpRequest&) {
      return http::HttpResponse::Text(200, kExposition, "text/plain; version=0.0.4");
    });
    ASSERT_TRUE(exporter.ok()) << exporter.status().ToString();
    exporter_ = std::move(*exporter);
    dir_ = std::filesystem::temp_directory_path() /
           ("trimtab-external-metrics-test-" + std::to_string(::getpid()));
    auto prometheus = trimtab::testing::RealPrometheus::Start(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        "scrape_configs:\n"
        "  - job_name: exporter\n"
        "    honor_labels: true\n"
        "    static_configs: [{targets: ['127.0.0.1:" + std::to_string(exporter_->port()) + "']}]\n",
        dir_);
    ASSERT_TRUE(prometheus.ok()) << prometheus.status().ToString();
    prometheus_ = std::move(*prometheus);
    auto rules = ParsePrometheusRules(Json::parse(R"({"rules": [
        {"name": "lag_by_topic", "series": "kafka_consumergroup_lag", "labels": ["topic"],
         "namespaceLabel": "namespace", "aggregation": "sum"},
        {"name": "lag", "series": "kafka_consumergroup_lag", "labels": ["topic", "partition"],
         "namespaceLabel": "namespace"}]})"),
                                      "rules");
    ASSERT_TRUE(rules.ok()) << rules.status().ToString();
    provider_ = std::make_shared<LocalMetricsProvider>();
    ASSERT_TRUE(AddPrometheusRules(prometheus_->url(), *rules, provider_.get()).ok());
    StartServer("", ApiServerOptions{.metrics = provider_});
    // Scraped at least once (bounded).
    for (int i = 0; i < 300 && Items("lag", "").size() < 3; ++i) std::this_thread::sleep_for(100ms);
    ASSERT_EQ(Items("lag", "").size(), 3u) << "never scraped; see " << prometheus_->log_path();
  }
  void TearDown() override {
    ApiServerTest::TearDown();
    prometheus_.reset();
    if (exporter_) exporter_->Stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  Json Items(const std::string& metric, const std::string& selector, const std::string& ns = "team-a") {
    std::string target = "/apis/external.metrics.k8s.io/v1beta1/namespaces/" + ns + "/" + metric;
    if (!selector.empty()) target += "?labelSelector=" + http::UrlEncode(selector);
    auto r = Get(target);
    return r.status == 200 ? r.body["items"] : Json::array();
  }

  std::unique_ptr<http::HttpServer> exporter_;
  std::unique_ptr<trimtab::testing::RealPrometheus> prometheus_;
  std::shared_ptr<LocalMetricsProvider> provider_;
  std::filesystem::path dir_;
};

TEST_F(PrometheusExternalTest, SelectorsPickSeriesThroughTheRule) {
  Json by_topic = Items("lag_by_topic", "topic in (a.b)");
  ASSERT_EQ(by_topic.size(), 1u) << by_topic.dump();
  EXPECT_EQ(by_topic[0]["metricName"], "lag_by_topic");
  EXPECT_EQ(by_topic[0]["metricLabels"], Json({{"topic", "a.b"}}));
  EXPECT_EQ(by_topic[0]["value"], "120");  // 100 + 20 in team-a only
  Json partition = Items("lag", "topic=a.b,partition=1");
  ASSERT_EQ(partition.size(), 1u);
  EXPECT_EQ(partition[0]["value"], "20");
  EXPECT_EQ(Items("lag", "topic!=a.b").size(), 1u);
  EXPECT_EQ(Items("lag", "", "team-b").size(), 1u);
  // Nothing matches: no value, not zero.
  auto none = Get("/apis/external.metrics.k8s.io/v1beta1/namespaces/team-a/lag?labelSelector=" +
                  http::UrlEncode("topic=nope"));
  EXPECT_EQ(none.status, 200);
  EXPECT_TRUE(none.body["items"].empty());
  // A label the rule does not expose is an error, not a silently wider query.
  EXPECT_EQ(Get("/apis/external.metrics.k8s.io/v1beta1/namespaces/team-a/lag?labelSelector=" +
                http::UrlEncode("namespace=team-b"))
                .status,
            500);
}

TEST_F(PrometheusExternalTest, InjectedPromQlMatchesNothing) {
  // Not a label value: the API refuses the selector.
  auto refused = Get("/apis/external.metrics.k8s.io/v1beta1/namespaces/team-a/lag?labelSelector=" +
                     http::UrlEncode("topic=x\"} or vector(1) #"));
  EXPECT_EQ(refused.status, 400) << refused.raw;
  // Straight to the provider (no label-value check): still a literal value.
  LabelSelector evil = LabelSelector().Add({"topic", SelectorOp::kEquals, {"a.b\"} or vector(1) #"}});
  auto values = provider_->External("team-a", "lag", evil, std::chrono::system_clock::now());
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_TRUE(values->empty());
  // The query itself, straight to Prometheus: valid PromQL with no series (an injected
  // `or vector(1)` would answer one).
  PrometheusRule rule{.name = "lag", .series = "kafka_consumergroup_lag", .labels = {"topic"},
                      .namespace_label = "namespace"};
  auto query = BuildPromQl(rule, "team-a", evil);
  ASSERT_TRUE(query.ok()) << query.status().ToString();
  auto client = http::HttpClient::Create({});
  ASSERT_TRUE(client.ok());
  http::ClientRequest request{.url = prometheus_->url() + "/api/v1/query?query=" +
                                     http::UrlEncode(*query)};
  auto answer = (*client)->Do(request);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  Json body = Json::parse(answer->body, nullptr, false);
  EXPECT_EQ(body["status"], "success") << *query << "\n" << answer->body;
  EXPECT_TRUE(body["data"]["result"].empty()) << *query << "\n" << answer->body;
  LabelSelector evil_in =
      LabelSelector().Add({"topic", SelectorOp::kIn, {".*", "a.b\"}) or vector(1"}});
  values = provider_->External("team-a", "lag", evil_in, std::chrono::system_clock::now());
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_TRUE(values->empty());
}

}  // namespace
}  // namespace trimtab::cluster::metrics
