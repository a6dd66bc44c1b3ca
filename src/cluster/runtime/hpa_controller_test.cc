// The HPA controller against an in-process API server serving the metrics APIs, with the full
// runtime on a clock 20x faster than wall time: a Deployment whose load is too high is scaled out
// within its behavior policy, status / conditions / events are written as upstream writes them,
// the history survives a restart of the runtime (the rate policy still holds), a missing
// target gives FailedGetScale, and a metric that cannot be fetched (an external metric whose
// selector matches no series, or whose source fails) gives upstream's condition and events and
// never a scaling action: no series is no value, never zero.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/metrics/local_metrics.h"
#include "cluster/runtime/hpa_controller.h"
#include "cluster/runtime/runtime_test_util.h"

namespace trimtab::cluster::runtime::testing {
namespace {

using std::chrono::seconds;

Json Deployment(const std::string& name, int replicas, const std::string& cpu_load) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"annotations", {{"trimtab.dev/cpu-load", cpu_load}}}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", name}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", name}}}}},
              {"spec",
               {{"containers",
                 Json::array({{{"name", "main"},
                               {"image", "nginx:1.27"},
                               {"resources", {{"requests", {{"cpu", "200m"}}}}}}})}}}}}}}};
}

Json Hpa(const std::string& name, const std::string& target, Json behavior) {
  Json spec = {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", target}}},
               {"minReplicas", 1},
               {"maxReplicas", 10},
               {"metrics", Json::array({{{"type", "Resource"},
                                         {"resource",
                                          {{"name", "cpu"},
                                           {"target", {{"type", "Utilization"},
                                                       {"averageUtilization", 50}}}}}}})}};
  if (!behavior.is_null()) spec["behavior"] = behavior;
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

class HpaControllerTest : public ClusterTest {
 protected:
  void SetUp() override {
    auto metrics = std::make_shared<metrics::LocalMetricsProvider>();
    // queue_depth: one series, queue=jobs; broken: its source fails.
    metrics->AddExternal("queue_depth", [](const std::string&, const LabelSelector&, TimePoint now) {
      return StatusOr<std::vector<ExternalValue>>(std::vector<ExternalValue>{
          {.labels = {{"queue", "jobs"}}, .value = Quantity::FromInt(30), .timestamp = now}});
    });
    metrics->AddExternal("broken", [](const std::string&, const LabelSelector&, TimePoint) {
      return StatusOr<std::vector<ExternalValue>>(UnavailableError("connection refused"));
    });
    auto server = ApiServer::Create({.port = 0,
                                     .clock = &clock_,
                                     .gc_period = std::chrono::milliseconds(200),
                                     .lifecycle_period = std::chrono::milliseconds(100),
                                     .metrics = metrics});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    kube::RestConfig config;
    config.server = server_->url();
    auto client = kube::KubeClient::Create(config, {});
    ASSERT_TRUE(client.ok());
    client_ = std::move(client).value();
    StartHpaRuntime();
  }

  void StartHpaRuntime() {
    RuntimeOptions options{.clock = &clock_, .nodes = UniformNodes(2, "8", "16Gi"),
                           .service_proxy = false};
    options.hpa.sync_period = seconds(5);
    StartRuntime(std::move(options));
  }

  int64_t Replicas(const std::string& deployment) {
    return Int(Get(DeploymentsGvr(), deployment), {"spec", "replicas"}, -1);
  }

  Json GetHpa(const std::string& name) { return Get(HorizontalPodAutoscalersGvr(), name); }

  std::string ConditionReason(const Json& hpa, const std::string& type) {
    const Json* c = FindCondition(hpa, type);
    return c ? c->value("status", "") + "/" + c->value("reason", "") : "absent";
  }

  ScaledClock clock_{20.0};
};

TEST_F(HpaControllerTest, ScalesOutWithinThePolicyAndKeepsTheHistoryAcrossARestart) {
  // 2 pods of 200m sharing 1.2 cores: 300 % of the request against a 50 % target wants 12
  // (capped at 10); the scale-up policy allows 2 more pods per 10 minutes.
  Create(DeploymentsGvr(), Deployment("web", 2, "1200m"));
  Json behavior = {{"scaleUp",
                    {{"stabilizationWindowSeconds", 0},
                     {"policies", Json::array({{{"type", "Pods"}, {"value", 2},
                                                {"periodSeconds", 600}}})}}}};
  Create(HorizontalPodAutoscalersGvr(), Hpa("web", "web", behavior));
  ASSERT_TRUE(Eventually([&] { return Replicas("web") == 4; }, std::chrono::seconds(20)))
      << GetHpa("web").dump(2);
  ASSERT_TRUE(Eventually([&] { return Int(GetHpa("web"), {"status", "desiredReplicas"}) == 4; }));
  Json hpa = GetHpa("web");
  EXPECT_EQ(ConditionReason(hpa, "AbleToScale"), "True/SucceededRescale");
  EXPECT_EQ(ConditionReason(hpa, "ScalingActive"), "True/ValidMetricFound");
  EXPECT_EQ(ConditionReason(hpa, "ScalingLimited"), "True/ScaleUpLimit");
  EXPECT_EQ(FindCondition(hpa, "ScalingLimited")->value("message", ""),
            "the desired replica count is increasing faster than the maximum scale rate");
  EXPECT_EQ(Int(hpa, {"status", "currentReplicas"}), 2);
  EXPECT_TRUE(At(hpa, {"status", "lastScaleTime"}).is_string());
  // 300 % while 2 pods share the load, 150 % once the new pods count.
  EXPECT_GE(At(hpa, {"status", "currentMetrics"})[0]["resource"]["current"]["averageUtilization"],
            150);
  ASSERT_TRUE(Eventually([&] { return !Events("web", "SuccessfulRescale").empty(); }));
  EXPECT_EQ(Events("web", "SuccessfulRescale")[0]["message"],
            "New size: 4; reason: cpu resource utilization (percentage of request) above target");
  EXPECT_EQ(Events("web", "SuccessfulRescale")[0]["source"]["component"],
            "horizontal-pod-autoscaler");

  // The history is in the HPA's ConfigMap.
  Json cm = Get(kube::ConfigMapsResource(), HpaHistoryConfigMapName("web"));
  ASSERT_FALSE(cm.is_null());
  Json doc = Json::parse(Str(cm, {"data", "state.json"}));
  EXPECT_EQ(doc["uid"], Str(hpa, {"metadata", "uid"}));
  ASSERT_EQ(doc["state"]["scaleUpEvents"].size(), 1u);
  EXPECT_EQ(doc["state"]["scaleUpEvents"][0]["replicaChange"], 2);

  // A restart of the runtime (the controller forgets everything it held in memory): the policy
  // still allows no more than 2 pods per 10 minutes, so the target stays at 4 although the
  // metrics want 10. Without the stored history it would grow to 6 at once.
  runtime_->Stop();
  runtime_.reset();
  StartHpaRuntime();
  const TimePoint restarted = clock_.Now();
  ASSERT_TRUE(Eventually([&] { return clock_.Now() > restarted + seconds(90); },
                         std::chrono::seconds(20)));
  hpa = GetHpa("web");
  EXPECT_EQ(ConditionReason(hpa, "ScalingActive"), "True/ValidMetricFound") << hpa.dump(2);
  EXPECT_EQ(ConditionReason(hpa, "ScalingLimited"), "True/ScaleUpLimit");
  EXPECT_EQ(Replicas("web"), 4);
}

TEST_F(HpaControllerTest, MissingTargetIsFailedGetScale) {
  Create(HorizontalPodAutoscalersGvr(), Hpa("ghost", "nope", Json()));
  ASSERT_TRUE(Eventually([&] { return !Events("ghost", "FailedGetScale").empty(); }));
  EXPECT_EQ(Events("ghost", "FailedGetScale")[0]["message"], "deployments.apps \"nope\" not found");
  ASSERT_TRUE(Eventually(
      [&] { return ConditionReason(GetHpa("ghost"), "AbleToScale") == "False/FailedGetScale"; }));
  EXPECT_EQ(FindCondition(GetHpa("ghost"), "AbleToScale")->value("message", ""),
            "the HPA controller was unable to get the target's current scale: deployments.apps "
            "\"nope\" not found");
}

Json ExternalMetric(const std::string& name, Json selector, Json target) {
  Json metric = {{"name", name}};
  if (!selector.is_null()) metric["selector"] = selector;
  return {{"type", "External"}, {"external", {{"metric", metric}, {"target", target}}}};
}

TEST_F(HpaControllerTest, MetricsThatCannotBeFetchedNeverScale) {
  // "a": 3 pods at 10m of 200m each, so cpu alone would scale down to 1; its second metric
  // selects no series of queue_depth. If no series counted as 0 the HPA would scale it down.
  Create(DeploymentsGvr(), Deployment("a", 3, "30m"));
  Json a = Hpa("a", "a", Json());
  a["spec"]["metrics"].push_back(ExternalMetric("queue_depth", {{"matchLabels", {{"queue", "nope"}}}},
                                                {{"type", "Value"}, {"value", "10"}}));
  Create(HorizontalPodAutoscalersGvr(), a);
  // "b": its only metric's source fails.
  Create(DeploymentsGvr(), Deployment("b", 2, "30m"));
  Json b = Hpa("b", "b", Json());
  b["spec"]["metrics"] = Json::array({ExternalMetric("broken", Json(), {{"type", "AverageValue"},
                                                                      {"averageValue", "10"}})});
  Create(HorizontalPodAutoscalersGvr(), b);

  for (const std::string name : {"a", "b"}) {
    ASSERT_TRUE(Eventually([&] {
      return ConditionReason(GetHpa(name), "ScalingActive") == "False/FailedGetExternalMetric";
    })) << GetHpa(name).dump(2);
    ASSERT_TRUE(Eventually([&] { return !Events(name, "FailedGetExternalMetric").empty(); }));
    ASSERT_TRUE(Eventually([&] { return !Events(name, "FailedComputeMetricsReplicas").empty(); }));
  }
  EXPECT_EQ(FindCondition(GetHpa("a"), "ScalingActive")->value("message", ""),
            "the HPA was unable to compute the replica count: unable to get external metric "
            "default/queue_depth/&LabelSelector{MatchLabels:map[string]string{queue: nope,},"
            "MatchExpressions:[]LabelSelectorRequirement{},}: no metrics returned from external "
            "metrics API");
  EXPECT_THAT(FindCondition(GetHpa("b"), "ScalingActive")->value("message", ""),
              ::testing::HasSubstr("unable to get external metric default/broken/nil: unable to "
                                   "fetch metrics from external metrics API: "));
  EXPECT_THAT(FindCondition(GetHpa("b"), "ScalingActive")->value("message", ""),
              ::testing::HasSubstr("connection refused"));
  // A minute of syncs later: no scaling action on either.
  const TimePoint start = clock_.Now();
  ASSERT_TRUE(Eventually([&] { return clock_.Now() > start + seconds(60); },
                         std::chrono::seconds(20)));
  EXPECT_EQ(Replicas("a"), 3);
  EXPECT_EQ(Replicas("b"), 2);
  EXPECT_TRUE(Events("a", "SuccessfulRescale").empty());
  EXPECT_TRUE(Events("b", "SuccessfulRescale").empty());
  // Once the pods run, cpu is valid and wants 1 replica; the failed metric still blocks it.
  bool partial = false;
  for (const Json& e : Events("a", "FailedComputeMetricsReplicas")) {
    partial = partial || e["message"].get<std::string>().starts_with(
                             "invalid metrics (1 invalid out of 2), first error is: failed to get "
                             "external metric queue_depth: unable to get external metric");
  }
  EXPECT_TRUE(partial) << Json(Events("a", "FailedComputeMetricsReplicas")).dump(2);
}

}  // namespace
}  // namespace trimtab::cluster::runtime::testing
