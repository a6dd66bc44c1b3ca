// autoscaling/v1 <-> v2 HorizontalPodAutoscaler conversion: the cpu target and status, the four
// round-trip annotations in upstream's exact form (v1 metric shapes, Go field names for the
// behavior), their removal on the way back, the implicit cpu 80 % default, malformed input.
#include "cluster/apiserver/surface/hpa_conversion.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace trimtab::cluster {
namespace {

Json StoredV2() {
  return Json::parse(R"({
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default", "resourceVersion": "7",
                 "annotations": {"team": "a", "autoscaling.alpha.kubernetes.io/metrics": "stale"}},
    "spec": {
      "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
      "minReplicas": 2, "maxReplicas": 6,
      "metrics": [
        {"type": "External", "external": {
           "metric": {"name": "kafka_consumergroup_lag", "selector": {"matchLabels": {"topic": "orders"}}},
           "target": {"type": "AverageValue", "averageValue": "1k"}}},
        {"type": "Resource", "resource": {"name": "cpu",
           "target": {"type": "Utilization", "averageUtilization": 50}}}],
      "behavior": {
        "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                    "policies": [{"type": "Pods", "value": 2, "periodSeconds": 60}]},
        "scaleDown": {"selectPolicy": "Max",
                      "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}}},
    "status": {
      "currentReplicas": 3, "desiredReplicas": 4, "lastScaleTime": "2026-01-01T00:00:00Z",
      "currentMetrics": [
        {"type": "External", "external": {"metric": {"name": "kafka_consumergroup_lag"},
                                          "current": {"averageValue": "1500"}}},
        {"type": "Resource", "resource": {"name": "cpu",
                                          "current": {"averageUtilization": 70, "averageValue": "140m"}}}],
      "conditions": [{"type": "AbleToScale", "status": "True", "reason": "SucceededRescale",
                      "message": "the HPA controller was able to update the target scale to 4",
                      "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
  })");
}

TEST(HpaConversion, V2ToV1CarriesWhatV1CannotHoldInAnnotations) {
  const Json v1 = HpaV2ToV1(StoredV2());
  EXPECT_EQ(v1["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(v1["spec"], Json::parse(R"({"scaleTargetRef": {"kind": "Deployment", "name": "web",
      "apiVersion": "apps/v1"}, "minReplicas": 2, "maxReplicas": 6,
      "targetCPUUtilizationPercentage": 50})"));
  EXPECT_EQ(v1["status"], Json::parse(R"({"currentReplicas": 3, "desiredReplicas": 4,
      "lastScaleTime": "2026-01-01T00:00:00Z", "currentCPUUtilizationPercentage": 70})"));
  const Json& a = v1["metadata"]["annotations"];
  EXPECT_EQ(a["team"], "a");
  EXPECT_EQ(a[kHpaMetricsAnnotation],
            R"([{"type":"External","external":{"metricName":"kafka_consumergroup_lag",)"
            R"("metricSelector":{"matchLabels":{"topic":"orders"}},"targetAverageValue":"1k"}}])");
  EXPECT_EQ(a[kHpaCurrentMetricsAnnotation],
            R"([{"type":"External","external":{"metricName":"kafka_consumergroup_lag",)"
            R"("currentValue":"0","currentAverageValue":"1500"}},)"
            R"({"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":70,)"
            R"("currentAverageValue":"140m"}}])");
  EXPECT_EQ(a[kHpaConditionsAnnotation],
            R"([{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z",)"
            R"("reason":"SucceededRescale","message":"the HPA controller was able to update the )"
            R"(target scale to 4"}])");
  EXPECT_EQ(a[kHpaBehaviorAnnotation],
            R"({"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":)"
            R"([{"Type":"Pods","Value":2,"PeriodSeconds":60}]},"ScaleDown":)"
            R"({"StabilizationWindowSeconds":null,"SelectPolicy":"Max","Policies":)"
            R"([{"Type":"Percent","Value":100,"PeriodSeconds":15}]}})");
}

TEST(HpaConversion, V1ToV2RestoresTheV2ObjectAndDropsTheAnnotations) {
  const Json stored = StoredV2();
  auto back = HpaV1ToV2(HpaV2ToV1(stored));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)["apiVersion"], "autoscaling/v2");
  EXPECT_EQ((*back)["metadata"]["annotations"], Json::parse(R"({"team": "a"})"));
  EXPECT_EQ((*back)["spec"]["metrics"], stored["spec"]["metrics"]);
  EXPECT_EQ((*back)["spec"]["behavior"], stored["spec"]["behavior"]);
  EXPECT_EQ((*back)["status"]["conditions"], stored["status"]["conditions"]);
  // A non-pointer v1 quantity comes back as "0", as upstream's round trip gives it.
  EXPECT_EQ((*back)["status"]["currentMetrics"][0]["external"]["current"],
            Json::parse(R"({"value": "0", "averageValue": "1500"})"));
  EXPECT_EQ((*back)["status"]["currentReplicas"], 3);
}

TEST(HpaConversion, V1WithoutTargetGetsTheImplicitCpuDefaultAndMinReplicas) {
  Json v1 = Json::parse(R"({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
      "metadata": {"name": "web"},
      "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}})");
  auto v2 = HpaV1ToV2(v1);
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ((*v2)["spec"]["minReplicas"], 1);
  EXPECT_EQ((*v2)["spec"]["metrics"], Json::parse(R"([{"type": "Resource", "resource":
      {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}])"));

  v1["spec"]["targetCPUUtilizationPercentage"] = 50;
  v1["metadata"]["annotations"] = {
      {kHpaMetricsAnnotation, R"([{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}])"},
      {kHpaBehaviorAnnotation, R"({"scaledown":{"stabilizationwindowseconds":30}})"}};
  v2 = HpaV1ToV2(v1);
  ASSERT_TRUE(v2.ok());
  // The annotation's metrics first, then the cpu target.
  EXPECT_EQ((*v2)["spec"]["metrics"][0], Json::parse(R"({"type": "Pods", "pods":
      {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}})"));
  EXPECT_EQ((*v2)["spec"]["metrics"][1]["resource"]["target"]["averageUtilization"], 50);
  // encoding/json matches field names case-insensitively.
  EXPECT_EQ((*v2)["spec"]["behavior"], Json::parse(R"({"scaleDown": {"stabilizationWindowSeconds": 30}})"));
  EXPECT_FALSE((*v2)["metadata"].contains("annotations"));
}

TEST(HpaConversion, MalformedAnnotations) {
  Json v1 = Json::parse(R"({"metadata": {"name": "web", "annotations": {
      "autoscaling.alpha.kubernetes.io/behavior": "{\"ScaleUp\": 3}"}},
      "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}})");
  auto v2 = HpaV1ToV2(v1);
  ASSERT_TRUE(v2.ok());
  EXPECT_FALSE((*v2)["spec"].contains("behavior"));  // upstream ignores what does not decode

  v1["metadata"]["annotations"] = {{kHpaMetricsAnnotation, "{}"}};
  v2 = HpaV1ToV2(v1);
  ASSERT_FALSE(v2.ok());
  EXPECT_EQ(v2.status().message(),
            "metadata.annotations[autoscaling.alpha.kubernetes.io/metrics]: not a JSON list");
}

TEST(HpaConversion, GoEscapesHtmlCharactersInAnnotations) {
  Json v2 = StoredV2();
  v2["status"]["conditions"][0]["message"] = "a <b> & c";
  const Json v1 = HpaV2ToV1(v2);
  EXPECT_NE(v1["metadata"]["annotations"][kHpaConditionsAnnotation].get<std::string>().find(
                R"("message":"a \u003cb\u003e \u0026 c")"),
            std::string::npos);
  auto back = HpaV1ToV2(v1);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)["status"]["conditions"][0]["message"], "a <b> & c");
}

}  // namespace
}  // namespace trimtab::cluster
