// PrometheusMetricSource against a scripted Prometheus HTTP API and ExternalMetricSource against a
// scripted external.metrics.k8s.io (the answers are shaped as the APIs document them), and
// RoutingMetricSource in the collector's custom-metric path.
#include "adapters/metrics/metric_sources.h"

#include "adapters/kube/kube_client.h"

#include <cmath>
#include <mutex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/http/server.h"

namespace trimtab::adapters {
namespace {

using ::testing::HasSubstr;
using core::MetricAggregation;
using core::MetricRequirement;
using core::MetricScope;
using core::MetricSourceKind;

class PrometheusSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = http::HttpServer::Create(
        {.address = "127.0.0.1", .port = 0, .threads = 2}, [this](const http::HttpRequest& req) {
          std::lock_guard<std::mutex> lock(mu_);
          if (req.path != "/api/v1/query" || !req.Query("query")) {
            return http::HttpResponse::Json(404, R"({"status":"error","errorType":"not_found","error":"no route"})");
          }
          queries_.push_back(*req.Query("query"));
          return http::HttpResponse{status_, {{"Content-Type", "application/json"}}, body_, {}};
        });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    auto client = http::HttpClient::Create({});
    ASSERT_TRUE(client.ok());
    http_ = std::move(*client);
  }
  void TearDown() override { server_->Stop(); }

  void Answer(int status, std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = status;
    body_ = std::move(body);
  }
  std::string LastQuery() {
    std::lock_guard<std::mutex> lock(mu_);
    return queries_.empty() ? "" : queries_.back();
  }
  PrometheusMetricSource Source(std::string url = "") {
    return PrometheusMetricSource({.http = http_.get(),
                                   .url = url.empty() ? "http://127.0.0.1:" + std::to_string(server_->port()) + "/" : url,
                                   .timeout = Millis(2000),
                                   .flink_job_id = "00000000000000000000000000000abc"});
  }
  static MetricRequirement Metric(MetricScope scope, std::string query,
                                  MetricAggregation a = MetricAggregation::kAvg) {
    return {.name = "M", .scope = scope, .source = MetricSourceKind::kPrometheus,
            .query = std::move(query), .aggregation = a};
  }

  const core::flink::MetricFetchJob job_{.job_key = "team-a/orders", .namespace_name = "team-a",
                                         .vertices = {"v1", "v2", "v3"}};
  std::unique_ptr<http::HttpServer> server_;
  std::unique_ptr<http::HttpClient> http_;
  std::mutex mu_;
  int status_ = 200;
  std::string body_;
  std::vector<std::string> queries_;
};

TEST_F(PrometheusSourceTest, AJobMetricNamesItsJobAndCombinesTheSeries) {
  Answer(200, R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"partition":"0"},"value":[1700000000.1,"1200"]},
      {"metric":{"partition":"1"},"value":[1700000000.1,"300"]}]}})");
  PrometheusMetricSource source = Source();
  StatusOr<double> v = source.FetchJobMetric(
      job_, Metric(MetricScope::kJob,
                   R"(kafka_consumergroup_lag{consumergroup="{{name}}",namespace="{{namespace}}",job="{{jobId}}"})",
                   MetricAggregation::kSum));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 1500);
  EXPECT_EQ(LastQuery(),
            R"(kafka_consumergroup_lag{consumergroup="orders",namespace="team-a",job="00000000000000000000000000000abc"})");
  // A scalar is one value; TaskManager scope combines like job scope.
  Answer(200, R"({"status":"success","data":{"resultType":"scalar","result":[1700000000,"0.25"]}})");
  EXPECT_EQ(source.FetchJobMetric(job_, Metric(MetricScope::kJob, "scalar(x)")).value(), 0.25);
  Answer(200, R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"tm_id":"a"},"value":[1,"0.5"]},{"metric":{"tm_id":"b"},"value":[1,"0.9"]}]}})");
  EXPECT_EQ(source.FetchTaskManagerMetric(job_, Metric(MetricScope::kTaskManager, "cpu", MetricAggregation::kMax)).value(), 0.9);
  EXPECT_NEAR(source.FetchTaskManagerMetric(job_, Metric(MetricScope::kTaskManager, "cpu")).value(), 0.7, 1e-12);
}

TEST_F(PrometheusSourceTest, AVertexMetricGroupsByFlinksTaskIdLabel) {
  Answer(200, R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"task_id":"v1","subtask_index":"0"},"value":[1,"100"]},
      {"metric":{"task_id":"v1","subtask_index":"1"},"value":[1,"300"]},
      {"metric":{"task_id":"v2","subtask_index":"0"},"value":[1,"NaN"]},
      {"metric":{"task_id":"other-job-vertex"},"value":[1,"7"]},
      {"metric":{},"value":[1,"9"]}]}})");
  PrometheusMetricSource source = Source();
  auto v = source.FetchVertexMetric(job_, Metric(MetricScope::kVertex, "busy", MetricAggregation::kMax));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->size(), 2u);  // v3 has no series; a vertex of another job is not ours
  EXPECT_EQ(v->at("v1"), 300);
  EXPECT_TRUE(std::isnan(v->at("v2")));  // passed on: the collector reports it as not finite
  Answer(200, R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"vertex":"v1"},"value":[1,"1"]}]}})");
  EXPECT_THAT(source.FetchVertexMetric(job_, Metric(MetricScope::kVertex, "busy")).status().message(),
              HasSubstr("no series has a task_id label"));
}

TEST_F(PrometheusSourceTest, ErrorsNameTheMetricAndWhatWentWrong) {
  PrometheusMetricSource source = Source();
  const MetricRequirement m = Metric(MetricScope::kJob, "rate(x[1m]");
  Answer(400, R"({"status":"error","errorType":"bad_data","error":"parse error: unclosed left parenthesis"})");
  Status s = source.FetchJobMetric(job_, m).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("metric M (prometheus rate(x[1m])"));
  EXPECT_THAT(s.message(), HasSubstr("bad_data: parse error: unclosed left parenthesis"));
  Answer(503, "upstream connect error");
  EXPECT_EQ(source.FetchJobMetric(job_, m).status().code(), StatusCode::kUnavailable);
  Answer(200, R"({"status":"success","data":{"resultType":"vector","result":[]}})");
  EXPECT_THAT(source.FetchJobMetric(job_, m).status().message(), HasSubstr("no series"));
  Answer(200, R"({"status":"success","data":{"resultType":"matrix","result":[]}})");
  EXPECT_THAT(source.FetchJobMetric(job_, m).status().message(),
              HasSubstr("answers a matrix, not an instant vector or a scalar"));
  Answer(200, R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"many"]}]}})");
  EXPECT_THAT(source.FetchJobMetric(job_, m).status().message(), HasSubstr("a series without a number"));
  PrometheusMetricSource nowhere = Source("http://127.0.0.1:1");
  EXPECT_THAT(nowhere.FetchJobMetric(job_, m).status().message(), HasSubstr("metric M (prometheus"));
}

// A Flink REST stand-in for the routing test.
class FixedSource final : public core::flink::MetricSource {
 public:
  StatusOr<double> FetchTaskManagerMetric(const core::flink::MetricFetchJob&, const MetricRequirement&) override { return 1; }
  StatusOr<std::map<core::VertexId, double>> FetchVertexMetric(const core::flink::MetricFetchJob&, const MetricRequirement&) override {
    return std::map<core::VertexId, double>{{"v1", 2}};
  }
  StatusOr<double> FetchJobMetric(const core::flink::MetricFetchJob&, const MetricRequirement&) override { return 3; }
};

TEST_F(PrometheusSourceTest, TheCollectorGetsEachMetricFromItsOwnSource) {
  Answer(200, R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"42"]}]}})");
  FixedSource flink;
  PrometheusMetricSource prometheus = Source();
  std::vector<core::DeclaredMetric> declared = {
      {{.name = "KAFKA_LAG", .scope = MetricScope::kJob, .source = MetricSourceKind::kPrometheus, .query = "lag"}, {"policy"}},
      {{.name = "TM_CPU", .scope = MetricScope::kTaskManager, .source = MetricSourceKind::kFlinkRest, .query = "Status.JVM.CPU.Load"}, {"resource-gate"}},
      {{.name = "QUEUE", .scope = MetricScope::kJob, .source = MetricSourceKind::kExternalMetrics, .query = "queue_messages_ready"}, {"policy"}}};
  core::flink::RawSample sample;
  RoutingMetricSource routing(&flink, &prometheus, nullptr);
  ASSERT_TRUE(core::flink::CollectCustomMetrics(declared, job_, routing, &sample).ok());
  EXPECT_EQ(sample.job.custom.at("KAFKA_LAG"), 42);
  EXPECT_EQ(sample.job.custom.at("TM_CPU"), 1);
  EXPECT_FALSE(sample.job.custom.count("QUEUE"));
  EXPECT_THAT(sample.custom_errors.at("QUEUE"), HasSubstr("no Kubernetes API is at hand"));
  // Without a Prometheus the error says how to configure one.
  core::flink::RawSample without;
  RoutingMetricSource no_prometheus(&flink, nullptr, nullptr);
  ASSERT_TRUE(core::flink::CollectCustomMetrics(declared, job_, no_prometheus, &without).ok());
  EXPECT_THAT(without.custom_errors.at("KAFKA_LAG"), HasSubstr("--prometheus-url"));
  EXPECT_EQ(without.job.custom.at("TM_CPU"), 1);
}

TEST_F(PrometheusSourceTest, ExternalMetricsComeFromTheKubernetesApi) {
  // This fixture's server answers every path; here it plays an external metrics adapter.
  std::unique_ptr<http::HttpServer> api;
  std::string seen_path, seen_selector;
  auto server = http::HttpServer::Create({.port = 0}, [&](const http::HttpRequest& req) {
    std::lock_guard<std::mutex> lock(mu_);
    seen_path = req.path;
    seen_selector = req.Query("labelSelector") ? *req.Query("labelSelector") : "";
    if (req.path.find("/no_such_metric") != std::string::npos) {
      return http::HttpResponse::Json(404, R"({"kind":"Status","apiVersion":"v1","status":"Failure",
          "message":"the server could not find the metric no_such_metric for ","reason":"NotFound","code":404})");
    }
    return http::HttpResponse::Json(200, R"({"kind":"ExternalMetricValueList",
        "apiVersion":"external.metrics.k8s.io/v1beta1","metadata":{},"items":[
        {"metricName":"queue_messages_ready","metricLabels":{"queue":"orders","task_id":"v1"},
         "timestamp":"2024-05-01T12:00:00Z","value":"1500m"},
        {"metricName":"queue_messages_ready","metricLabels":{"queue":"orders","task_id":"v2"},
         "timestamp":"2024-05-01T12:00:00Z","value":"2"}]})");
  });
  ASSERT_TRUE(server.ok());
  api = std::move(*server);
  auto kube = kube::KubeClient::Create({.server = api->base_url()}, {});
  ASSERT_TRUE(kube.ok()) << kube.status().ToString();
  ExternalMetricSource source(kube->get(), "abc", Millis(2000));
  MetricRequirement m{.name = "QUEUE", .scope = MetricScope::kJob,
                      .source = MetricSourceKind::kExternalMetrics,
                      .query = "queue_messages_ready{queue={{name}}}",
                      .aggregation = MetricAggregation::kSum};
  StatusOr<double> v = source.FetchJobMetric(job_, m);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_DOUBLE_EQ(*v, 3.5);
  {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_EQ(seen_path, "/apis/external.metrics.k8s.io/v1beta1/namespaces/team-a/queue_messages_ready");
    EXPECT_EQ(seen_selector, "queue=orders");
  }
  m.scope = MetricScope::kVertex;
  auto per_vertex = source.FetchVertexMetric(job_, m);
  ASSERT_TRUE(per_vertex.ok()) << per_vertex.status().ToString();
  EXPECT_EQ(*per_vertex, (std::map<core::VertexId, double>{{"v1", 1.5}, {"v2", 2}}));
  m.query = "no_such_metric";
  Status s = source.FetchJobMetric(job_, m).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("metric QUEUE (external no_such_metric): GET "));
  EXPECT_THAT(s.message(), HasSubstr("HTTP 404: the server could not find the metric"));
  m.query = "broken{";
  EXPECT_THAT(source.FetchJobMetric(job_, m).status().message(), HasSubstr("expected name{selector}"));
  api->Stop();
}

}  // namespace
}  // namespace trimtab::adapters
