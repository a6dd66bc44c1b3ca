// The metrics APIs of the local API server with the local provider: PodMetrics from the usage
// model (annotations, controller load, request defaults), NodeMetrics sums, discovery, 404s, and
// external metrics with selectors (no match = an empty list, unknown metric = 404); the built-in
// topic metrics of a streaming source on external.metrics.k8s.io and custom.metrics.k8s.io, and
// the CPU a source knows.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/apiserver_test_util.h"
#include "cluster/metrics/local_metrics.h"
#include "cluster/metrics/pod_usage.h"

namespace trimtab::cluster::metrics {
namespace {

using testing::ApiServerTest;

Json Pod(const std::string& name, Json annotations, Json containers, Json owner = nullptr) {
  Json meta = {{"name", name}, {"labels", {{"app", "web"}}}, {"annotations", annotations}};
  if (!owner.is_null()) meta["ownerReferences"] = Json::array({owner});
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta},
          {"spec", {{"containers", containers}, {"nodeName", "node-1"}}}};
}

Json Container(const std::string& name, const std::string& cpu, const std::string& memory) {
  Json c = {{"name", name}, {"image", "x:1"}};
  Json requests = Json::object();
  if (!cpu.empty()) requests["cpu"] = cpu;
  if (!memory.empty()) requests["memory"] = memory;
  if (!requests.empty()) c["resources"] = {{"requests", requests}};
  return c;
}

TEST(PodUsageModelTest, AnnotationsLoadsAndDefaults) {
  Json rs = {{"kind", "ReplicaSet"},
             {"metadata", {{"name", "web-1"}, {"annotations", {{"trimtab.dev/cpu-load", "3"}}}}}};
  auto running = [](Json pod) {
    pod["status"] = {{"phase", "Running"}};
    return pod;
  };
  Json a = running(Pod("a", Json::object(), Json::array({Container("app", "500m", "1Gi"),
                                                           Container("side", "250m", "")})));
  Json b = running(Pod("b", {{"trimtab.dev/cpu-usage", "400m"}, {"trimtab.dev/cpu-usage.side", "7m"}},
                       Json::array({Container("app", "100m", ""), Container("side", "", "")})));
  Json c = running(Pod("c", Json::object(), Json::array({Container("app", "", "")})));
  Json pending = Pod("d", Json::object(), Json::array({Container("app", "1", "")}));
  pending["status"] = {{"phase", "Pending"}};
  const TimePoint now = ParseRfc3339("2026-01-01T00:00:00Z").value();
  // a and b belong to the ReplicaSet; c has no controller.
  std::vector<PodView> views = {{&a, &rs}, {&b, &rs}, {&c, nullptr}, {&pending, &rs}};
  auto usage = ModelPodUsages(views, now);
  ASSERT_EQ(usage.size(), 3u);  // the pending pod has no metrics
  // a: 3 cores / 2 running pods = 1500m, split 2:1 by request.
  EXPECT_EQ(usage["a"].containers[0].cpu.String(), "1");
  EXPECT_EQ(usage["a"].containers[1].cpu.String(), "500m");
  EXPECT_EQ(usage["a"].containers[0].memory.String(), "512Mi");  // half the request
  EXPECT_EQ(usage["a"].containers[1].memory.String(), "16Mi");   // no request
  // b: its own annotation wins over the load; the container annotation over the pod's.
  EXPECT_EQ(usage["b"].containers[0].cpu.String(), "400m");
  EXPECT_EQ(usage["b"].containers[1].cpu.String(), "7m");
  // c: 1m without a request.
  EXPECT_EQ(usage["c"].containers[0].cpu.String(), "1m");
  EXPECT_EQ(usage["c"].timestamp, now);
}

class MetricsApisTest : public ApiServerTest {
 protected:
  void SetUp() override {
    provider_ = std::make_shared<LocalMetricsProvider>();
    provider_->AddExternal("queue_depth", [](const std::string& ns, const LabelSelector&,
                                             TimePoint now) -> StatusOr<std::vector<ExternalValue>> {
      if (ns != "default") return std::vector<ExternalValue>{};
      return std::vector<ExternalValue>{
          {{{"queue", "jobs"}, {"shard", "0"}}, *Quantity::Parse("30"), now},
          {{{"queue", "jobs"}, {"shard", "1"}}, *Quantity::Parse("12500m"), now},
          {{{"queue", "mail"}, {"shard", "0"}}, *Quantity::Parse("4"), now}};
    });
    StartServer("", ApiServerOptions{.metrics = provider_});
  }

  void RunningPod(Json pod) {
    auto created = Post("/api/v1/namespaces/default/pods", pod);
    ASSERT_EQ(created.status, 201) << created.raw;
    Json with_status = created.body;
    with_status["status"]["phase"] = "Running";
    auto updated = Put("/api/v1/namespaces/default/pods/" +
                           pod["metadata"]["name"].get<std::string>() + "/status",
                       with_status);
    ASSERT_EQ(updated.status, 200) << updated.raw;
  }

  std::shared_ptr<LocalMetricsProvider> provider_;
};

TEST_F(MetricsApisTest, PodAndNodeMetrics) {
  RunningPod(Pod("web-0", {{"trimtab.dev/cpu-usage", "300m"}},
                 Json::array({Container("app", "500m", "256Mi")})));
  RunningPod(Pod("web-1", Json::object(), Json::array({Container("app", "500m", "256Mi")})));
  auto list = Get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb");
  ASSERT_EQ(list.status, 200) << list.raw;
  EXPECT_EQ(list.body["kind"], "PodMetricsList");
  EXPECT_EQ(list.body["apiVersion"], "metrics.k8s.io/v1beta1");
  ASSERT_EQ(list.body["items"].size(), 2u);
  const Json& first = list.body["items"][0];
  EXPECT_EQ(first["metadata"]["name"], "web-0");
  EXPECT_EQ(first["metadata"]["namespace"], "default");
  EXPECT_EQ(first["window"], "15s");
  EXPECT_EQ(first["containers"][0]["name"], "app");
  EXPECT_EQ(first["containers"][0]["usage"]["cpu"], "300m");
  EXPECT_EQ(first["containers"][0]["usage"]["memory"], "128Mi");
  EXPECT_EQ(list.body["items"][1]["containers"][0]["usage"]["cpu"], "50m");
  // By name, and a selector that matches nothing.
  EXPECT_EQ(Get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1").body["kind"],
            "PodMetrics");
  EXPECT_TRUE(Get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dx")
                  .body["items"]
                  .empty());
  auto missing = Get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["message"], "podmetrics.metrics.k8s.io \"nope\" not found");
  // All namespaces.
  EXPECT_EQ(Get("/apis/metrics.k8s.io/v1beta1/pods").body["items"].size(), 2u);
}

TEST_F(MetricsApisTest, DiscoveryListsTheAggregatedGroups) {
  auto groups = Get("/apis");
  std::vector<std::string> names;
  for (const Json& g : groups.body["groups"]) names.push_back(g["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "metrics.k8s.io"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "external.metrics.k8s.io"), names.end());
  auto resources = Get("/apis/metrics.k8s.io/v1beta1");
  ASSERT_EQ(resources.status, 200);
  std::vector<std::string> kinds;
  for (const Json& r : resources.body["resources"]) kinds.push_back(r["kind"]);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "PodMetrics"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "NodeMetrics"), kinds.end());
  auto external = Get("/apis/external.metrics.k8s.io/v1beta1");
  ASSERT_EQ(external.status, 200);
  std::vector<std::string> external_names;
  for (const Json& r : external.body["resources"]) {
    external_names.push_back(r["name"]);
    EXPECT_EQ(r["kind"], "ExternalMetricValueList");
  }
  EXPECT_EQ(external_names, (std::vector<std::string>{"kafka_consumergroup_lag",
                                                      "kafka_topic_records_in_per_second",
                                                      "queue_depth"}));
  auto custom = Get("/apis/custom.metrics.k8s.io/v1beta2");
  ASSERT_EQ(custom.status, 200) << custom.raw;
  std::vector<std::string> custom_names;
  for (const Json& r : custom.body["resources"]) custom_names.push_back(r["name"]);
  EXPECT_NE(std::find(custom_names.begin(), custom_names.end(), "pods/kafka_consumergroup_lag"),
            custom_names.end());
  EXPECT_NE(std::find(custom_names.begin(), custom_names.end(),
                      "deployments.apps/kafka_consumergroup_lag"),
            custom_names.end());
}

// A simulation with one topic of two partitions read by web-0 and web-1 (Deployment web), and
// a known CPU for web-1.
class FakeSource : public StreamingMetricsSource {
 public:
  std::vector<TopicSample> Topics(const std::string& ns, TimePoint) override {
    if (ns != "default") return {};
    TopicSample t;
    t.topic = "orders";
    t.consumer_group = "web";
    t.labels = {{"deployment", "web"}};
    t.records_in_per_second = 250;
    t.partitions = {{0, 1000, 400, "web-0"}, {1, 900, 850, "web-1"}};
    t.owner_resource = "deployments.apps";
    t.owner_name = "web";
    return {t};
  }
  std::map<std::string, double> PodCpu(const std::string&, TimePoint) override {
    return {{"web-1", 0.75}};
  }
};

TEST_F(MetricsApisTest, BuiltinTopicMetrics) {
  provider_->AddStreamingSource(std::make_shared<FakeSource>());
  auto lag = Get("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/kafka_consumergroup_lag"
                 "?labelSelector=topic%3Dorders");
  ASSERT_EQ(lag.status, 200) << lag.raw;
  ASSERT_EQ(lag.body["items"].size(), 2u);
  EXPECT_EQ(lag.body["items"][0]["value"], "600");
  EXPECT_EQ(lag.body["items"][0]["metricLabels"],
            Json::parse(R"({"consumergroup": "web", "deployment": "web", "namespace": "default",
                            "partition": "0", "topic": "orders"})"));
  auto one = Get("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/kafka_consumergroup_lag"
                 "?labelSelector=partition%3D1");
  ASSERT_EQ(one.body["items"].size(), 1u);
  EXPECT_EQ(one.body["items"][0]["value"], "50");
  auto rate = Get("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/"
                  "kafka_topic_records_in_per_second");
  ASSERT_EQ(rate.body["items"].size(), 1u);
  EXPECT_EQ(rate.body["items"][0]["value"], "250");
  EXPECT_TRUE(Get("/apis/external.metrics.k8s.io/v1beta1/namespaces/other/kafka_consumergroup_lag")
                  .body["items"]
                  .empty());

  // custom.metrics.k8s.io: per pod (the pods the label selector lists) and per Deployment.
  RunningPod(Pod("web-0", Json::object(), Json::array({Container("app", "1", "")})));
  RunningPod(Pod("web-1", Json::object(), Json::array({Container("app", "1", "")})));
  auto pods = Get("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/"
                  "kafka_consumergroup_lag?labelSelector=app%3Dweb");
  ASSERT_EQ(pods.status, 200) << pods.raw;
  EXPECT_EQ(pods.body["kind"], "MetricValueList");
  EXPECT_EQ(pods.body["apiVersion"], "custom.metrics.k8s.io/v1beta2");
  ASSERT_EQ(pods.body["items"].size(), 2u);
  EXPECT_EQ(pods.body["items"][0]["describedObject"],
            Json::parse(R"({"kind": "Pod", "namespace": "default", "name": "web-0", "apiVersion": "/v1"})"));
  EXPECT_EQ(pods.body["items"][0]["metric"], Json::parse(R"({"name": "kafka_consumergroup_lag"})"));
  EXPECT_EQ(pods.body["items"][0]["value"], "600");
  EXPECT_EQ(pods.body["items"][1]["value"], "50");
  auto object = Get("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/deployments.apps/web/"
                    "kafka_consumergroup_lag?metricLabelSelector=partition%3D0");
  ASSERT_EQ(object.status, 200) << object.raw;
  ASSERT_EQ(object.body["items"].size(), 1u);
  EXPECT_EQ(object.body["items"][0]["describedObject"]["apiVersion"], "apps/v1");
  EXPECT_EQ(object.body["items"][0]["describedObject"]["kind"], "Deployment");
  EXPECT_EQ(object.body["items"][0]["metric"]["selector"],
            Json::parse(R"({"matchLabels": {"partition": "0"}})"));
  EXPECT_EQ(object.body["items"][0]["value"], "600");
  auto absent = Get("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/deployments.apps/db/"
                    "kafka_consumergroup_lag");
  EXPECT_EQ(absent.status, 404);
  EXPECT_EQ(absent.body["message"],
            "the server could not find the metric kafka_consumergroup_lag for deployments.apps db");
  auto unknown = Get("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/nope");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body["message"], "the server could not find the metric nope for pods");

  // The CPU the source knows replaces the default usage (10 % of the request).
  auto usage = Get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods");
  ASSERT_EQ(usage.body["items"].size(), 2u);
  EXPECT_EQ(usage.body["items"][0]["containers"][0]["usage"]["cpu"], "100m");
  EXPECT_EQ(usage.body["items"][1]["containers"][0]["usage"]["cpu"], "750m");
}

TEST_F(MetricsApisTest, ExternalMetricsWithSelectors) {
  auto all = Get("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth");
  ASSERT_EQ(all.status, 200) << all.raw;
  EXPECT_EQ(all.body["kind"], "ExternalMetricValueList");
  EXPECT_EQ(all.body["items"].size(), 3u);
  auto jobs = Get(
      "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth?labelSelector=queue%3Djobs");
  ASSERT_EQ(jobs.body["items"].size(), 2u);
  EXPECT_EQ(jobs.body["items"][0]["metricName"], "queue_depth");
  EXPECT_EQ(jobs.body["items"][0]["metricLabels"]["shard"], "0");
  EXPECT_EQ(jobs.body["items"][1]["value"], "12500m");
  // No match: no value (an empty list), not zero.
  auto none = Get(
      "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth?labelSelector=queue%3Dnone");
  EXPECT_EQ(none.status, 200);
  EXPECT_TRUE(none.body["items"].empty());
  auto unknown = Get("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/nope");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(Call("POST", "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth",
                 Json::object())
                .status,
            405);
}

}  // namespace
}  // namespace trimtab::cluster::metrics
