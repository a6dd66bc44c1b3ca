// The HPA controller against an in-process API server serving the metrics APIs, with the full
// runtime on a clock 20x faster than wall time: a Deployment whose load is too high is scaled out
// within its behavior policy, status / conditions / events are written as upstream writes them,
// the history survives a restart of the runtime (the rate policy still holds), and a missing
// target gives FailedGetScale.
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
    auto server = ApiServer::Create({.port = 0,
                                     .clock = &clock_,
                                     .gc_period = std::chrono::milliseconds(200),
                                     .lifecycle_period = std::chrono::milliseconds(100),
                                     .metrics = std::make_shared<metrics::LocalMetricsProvider>()});
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

}  // namespace
}  // namespace trimtab::cluster::runtime::testing
