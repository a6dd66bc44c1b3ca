// autoscaling/v2 HorizontalPodAutoscalers on the local API server: defaulting and validation as
// the kube-apiserver (field paths and messages), the HPAScaleToZero gate with ratcheting, unknown
// fields under fieldValidation, and the upstream Flink operator's hpa-basic-hpa.yaml.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/apiserver_test_util.h"

namespace trimtab::cluster {
namespace {

using testing::ApiServerTest;

constexpr char kHpas[] = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

Json Hpa(const std::string& name, Json spec) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

Json Ref() { return {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}; }

TEST_F(ApiServerTest, HpaDefaults) {
  auto created = Post(kHpas, Hpa("web", {{"scaleTargetRef", Ref()}, {"maxReplicas", 5}}));
  ASSERT_EQ(created.status, 201) << created.raw;
  const Json& spec = created.body["spec"];
  EXPECT_EQ(spec["minReplicas"], 1);
  EXPECT_EQ(spec["metrics"][0]["resource"]["name"], "cpu");
  EXPECT_EQ(spec["metrics"][0]["resource"]["target"]["averageUtilization"], 80);
  EXPECT_FALSE(spec.contains("behavior"));

  auto with_behavior = Post(kHpas, Hpa("web2", {{"scaleTargetRef", Ref()},
                                                {"maxReplicas", 5},
                                                {"behavior",
                                                 {{"scaleDown",
                                                   {{"stabilizationWindowSeconds", 60}}}}}}));
  ASSERT_EQ(with_behavior.status, 201) << with_behavior.raw;
  const Json& b = with_behavior.body["spec"]["behavior"];
  EXPECT_EQ(b["scaleUp"]["stabilizationWindowSeconds"], 0);
  EXPECT_EQ(b["scaleUp"]["selectPolicy"], "Max");
  EXPECT_EQ(b["scaleUp"]["policies"],
            Json::parse(R"([{"type":"Pods","value":4,"periodSeconds":15},
                            {"type":"Percent","value":100,"periodSeconds":15}])"));
  EXPECT_EQ(b["scaleDown"]["stabilizationWindowSeconds"], 60);
  EXPECT_EQ(b["scaleDown"]["policies"],
            Json::parse(R"([{"type":"Percent","value":100,"periodSeconds":15}])"));
  EXPECT_FALSE(b["scaleUp"].contains("tolerance"));
}

TEST_F(ApiServerTest, HpaValidationAsTheKubeApiserver) {
  struct Case {
    Json spec;
    std::string field, message;
  };
  const Json cpu = Json::array({{{"type", "Resource"},
                                 {"resource",
                                  {{"name", "cpu"}, {"target", {{"type", "Utilization"}}}}}}});
  const std::vector<Case> cases = {
      {{{"scaleTargetRef", Ref()}, {"maxReplicas", 0}}, "spec.maxReplicas",
       "Invalid value: 0: must be greater than 0"},
      {{{"scaleTargetRef", Ref()}, {"minReplicas", 0}, {"maxReplicas", 3}}, "spec.minReplicas",
       "Invalid value: 0: must be greater than or equal to 1"},
      {{{"scaleTargetRef", {{"name", "web"}}}, {"maxReplicas", 3}}, "spec.scaleTargetRef.kind",
       "Required value"},
      {{{"scaleTargetRef", Ref()}, {"maxReplicas", 3}, {"metrics", cpu}},
       "spec.metrics[0].resource.target.averageUtilization",
       "Required value: must set either a target raw value or a target utilization"},
      {{{"scaleTargetRef", Ref()},
        {"maxReplicas", 3},
        {"behavior",
         {{"scaleUp", {{"policies", Json::array({{{"type", "Pods"}, {"value", 1},
                                                   {"periodSeconds", 1801}}})}}}}}},
       "spec.behavior.scaleUp.policies[0].periodSeconds",
       "Invalid value: 1801: must be less than or equal to 1800"},
  };
  for (const Case& c : cases) {
    auto r = Post(kHpas, Hpa("bad", c.spec));
    ASSERT_EQ(r.status, 422) << c.spec.dump() << "\n" << r.raw;
    EXPECT_EQ(r.body["message"], "HorizontalPodAutoscaler.autoscaling \"bad\" is invalid: " +
                                     c.field + ": " + c.message);
    EXPECT_EQ(r.body["details"]["causes"][0]["field"], c.field);
  }
}

TEST_F(ApiServerTest, HpaUnknownFieldsFollowFieldValidation) {
  Json spec = {{"scaleTargetRef", Ref()},
               {"maxReplicas", 3},
               {"metrics", Json::array({{{"type", "Resource"},
                                         {"resource",
                                          {{"name", "cpu"},
                                           {"target",
                                            {{"type", "Utilization"},
                                             {"averageUtilization", 50},
                                             {"bogus", 1}}}}}}})}};
  auto strict = Post(std::string(kHpas) + "?fieldValidation=Strict", Hpa("s", spec));
  EXPECT_EQ(strict.status, 400) << strict.raw;
  auto warn = Post(kHpas, Hpa("w", spec));
  ASSERT_EQ(warn.status, 201) << warn.raw;
  EXPECT_FALSE(warn.body["spec"]["metrics"][0]["resource"]["target"].contains("bogus"));
}

TEST_F(ApiServerTest, UpstreamHpaBasicExampleIsAccepted) {
  // hpa-basic-hpa.yaml of the Flink Kubernetes Operator: type Utilization with an averageValue,
  // which Kubernetes 1.32's validation accepts (the controller then uses the averageValue).
  Json hpa = {{"apiVersion", "autoscaling/v2"},
              {"kind", "HorizontalPodAutoscaler"},
              {"metadata", {{"name", "basic-hpa"}, {"namespace", "default"}}},
              {"spec",
               {{"minReplicas", 1},
                {"maxReplicas", 3},
                {"metrics", Json::array({{{"type", "Resource"},
                                          {"resource",
                                           {{"name", "memory"},
                                            {"target",
                                             {{"type", "Utilization"},
                                              {"averageValue", "10Mi"}}}}}}})},
                {"scaleTargetRef",
                 {{"apiVersion", "flink.apache.org/v1beta1"},
                  {"kind", "FlinkDeployment"},
                  {"name", "basic"}}}}}};
  auto r = Post(kHpas, hpa);
  EXPECT_EQ(r.status, 201) << r.raw;
}

constexpr char kHpasV1[] = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";

TEST_F(ApiServerTest, HpaV1IsServedFromTheV2Objects) {
  // What kubectl 1.32's `kubectl autoscale deployment web --min=2 --max=5 --cpu-percent=50`
  // sends.
  Json v1 = {{"apiVersion", "autoscaling/v1"},
             {"kind", "HorizontalPodAutoscaler"},
             {"metadata", {{"name", "web"}}},
             {"spec",
              {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
               {"minReplicas", 2},
               {"maxReplicas", 5},
               {"targetCPUUtilizationPercentage", 50}}}};
  auto created = Post(kHpasV1, v1);
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(created.body["spec"]["targetCPUUtilizationPercentage"], 50);
  EXPECT_EQ(created.body["status"], Json::parse(R"({"currentReplicas": 0, "desiredReplicas": 0})"));

  auto v2 = Get(std::string(kHpas) + "/web");
  ASSERT_EQ(v2.status, 200);
  EXPECT_EQ(v2.body["spec"]["metrics"], Json::parse(R"([{"type": "Resource", "resource":
      {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}])"));

  // A v2 client adds an External metric; a v1 client reads it in the annotation and writes the
  // object back unchanged: nothing is lost.
  Json updated = v2.body;
  updated["spec"]["metrics"].push_back(
      {{"type", "External"},
       {"external", {{"metric", {{"name", "lag"}}}, {"target", {{"type", "Value"}, {"value", "100"}}}}}});
  ASSERT_EQ(Put(std::string(kHpas) + "/web", updated).status, 200);
  auto read_v1 = Get(std::string(kHpasV1) + "/web");
  ASSERT_EQ(read_v1.status, 200);
  EXPECT_EQ(read_v1.body["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"],
            R"([{"type":"External","external":{"metricName":"lag","targetValue":"100"}}])");
  auto put_v1 = Put(std::string(kHpasV1) + "/web", read_v1.body);
  ASSERT_EQ(put_v1.status, 200) << put_v1.raw;
  auto again = Get(std::string(kHpas) + "/web");
  // As upstream's conversion: the annotation's metrics come first, then the cpu target.
  ASSERT_EQ(again.body["spec"]["metrics"].size(), 2u);
  EXPECT_EQ(again.body["spec"]["metrics"][0], updated["spec"]["metrics"][1]);
  EXPECT_EQ(again.body["spec"]["metrics"][1], updated["spec"]["metrics"][0]);
  EXPECT_FALSE(again.body["metadata"].contains("annotations"));

  auto listed = Get(kHpasV1);
  ASSERT_EQ(listed.status, 200);
  ASSERT_EQ(listed.body["items"].size(), 1u);
  EXPECT_EQ(listed.body["items"][0]["spec"]["targetCPUUtilizationPercentage"], 50);
  EXPECT_EQ(Delete(std::string(kHpasV1) + "/web").status, 200);
  EXPECT_EQ(Get(std::string(kHpas) + "/web").status, 404);
}

TEST_F(ApiServerTest, HpaV1ValidationAndDiscovery) {
  // Validation is the v2 (internal) one, with its field paths, as on the kube-apiserver.
  Json v1 = {{"apiVersion", "autoscaling/v1"},
             {"kind", "HorizontalPodAutoscaler"},
             {"metadata", {{"name", "bad"}}},
             {"spec", {{"scaleTargetRef", Ref()}, {"minReplicas", 0}, {"maxReplicas", 3}}}};
  auto invalid = Post(kHpasV1, v1);
  ASSERT_EQ(invalid.status, 422) << invalid.raw;
  EXPECT_EQ(invalid.body["details"]["causes"][0]["field"], "spec.minReplicas");
  v1["spec"]["minReplicas"] = 1;
  v1["spec"]["bogus"] = true;
  EXPECT_EQ(Post(std::string(kHpasV1) + "?fieldValidation=Strict", v1).status, 400);

  auto group = Get("/apis/autoscaling");
  ASSERT_EQ(group.status, 200);
  EXPECT_EQ(group.body["preferredVersion"]["version"], "v2");
  ASSERT_EQ(group.body["versions"].size(), 2u);
  EXPECT_EQ(group.body["versions"][1]["version"], "v1");
  auto resources = Get("/apis/autoscaling/v1");
  ASSERT_EQ(resources.status, 200);
  EXPECT_EQ(resources.body["resources"][0]["name"], "horizontalpodautoscalers");
}

class HpaScaleToZeroTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerOptions options;
    options.feature_gates = *FeatureGates::Parse("HPAScaleToZero=true");
    StartServer("", options);
  }
};

TEST_F(HpaScaleToZeroTest, MinReplicasZeroNeedsAnObjectOrExternalMetric) {
  Json external = Json::array({{{"type", "External"},
                                {"external",
                                 {{"metric", {{"name", "q"}}},
                                  {"target", {{"type", "Value"}, {"value", "10"}}}}}}});
  auto ok = Post(kHpas, Hpa("z", {{"scaleTargetRef", Ref()}, {"minReplicas", 0},
                                  {"maxReplicas", 3}, {"metrics", external}}));
  EXPECT_EQ(ok.status, 201) << ok.raw;
  auto cpu_only = Post(kHpas, Hpa("c", {{"scaleTargetRef", Ref()}, {"minReplicas", 0},
                                        {"maxReplicas", 3}}));
  ASSERT_EQ(cpu_only.status, 422);
  EXPECT_EQ(cpu_only.body["details"]["causes"][0]["message"],
            "Forbidden: must specify at least one Object or External metric to support scaling "
            "to zero replicas");
}

}  // namespace
}  // namespace trimtab::cluster
