#include "core/hpa/spec_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/hpa/state.h"

namespace trimtab::core::hpa {
namespace {

Json J(const std::string& text) { return Json::parse(text); }

TEST(HpaSpecFromJsonTest, DecodesEveryMetricTypeAndBehavior) {
  auto spec = HpaSpecFromJson(J(R"({
    "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
    "minReplicas": 2, "maxReplicas": 10,
    "metrics": [
      {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
      {"type": "ContainerResource", "containerResource": {"name": "memory", "container": "app",
        "target": {"type": "AverageValue", "averageValue": "512Mi"}}},
      {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": 100}}},
      {"type": "Object", "object": {"describedObject": {"kind": "Ingress", "name": "main"},
        "metric": {"name": "hits"}, "target": {"type": "Value", "value": "2k"}}},
      {"type": "External", "external": {"metric": {"name": "queue", "selector": {"matchLabels": {"q": "jobs"}}},
        "target": {"type": "AverageValue", "averageValue": "30"}}}
    ],
    "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60,
                               "policies": [{"type": "Pods", "value": 1, "periodSeconds": 600}],
                               "tolerance": "50m"}}
  })"),
                              "spec");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->MinReplicasOrDefault(), 2);
  ASSERT_EQ(spec->metrics.size(), 5u);
  EXPECT_EQ(spec->metrics[0].target.average_utilization, 60);
  EXPECT_EQ(spec->metrics[1].container, "app");
  EXPECT_EQ(spec->metrics[1].target.average_value->MilliValue(), 536870912000);
  EXPECT_EQ(spec->metrics[2].target.average_value->MilliValue(), 100000);
  EXPECT_EQ(spec->metrics[3].described_object.kind, "Ingress");
  EXPECT_EQ(MetricDescription(spec->metrics[3]), "Ingress metric hits");
  EXPECT_EQ(MetricDescription(spec->metrics[4]),
            "external metric queue(&LabelSelector{MatchLabels:map[string]string{q: jobs,},"
            "MatchExpressions:[]LabelSelectorRequirement{},})");
  ASSERT_TRUE(spec->behavior.has_value());
  const ResolvedRules up = DefaultedScaleUpRules(spec->behavior->scale_up);
  EXPECT_EQ(up.stabilization_window_seconds, 0);
  ASSERT_EQ(up.policies.size(), 2u);
  EXPECT_EQ(up.policies[1].value, 100);
  const ResolvedRules down = DefaultedScaleDownRules(spec->behavior->scale_down);
  EXPECT_EQ(down.stabilization_window_seconds, 60);
  EXPECT_EQ(down.select_policy, SelectPolicy::kMax);
  ASSERT_EQ(down.policies.size(), 1u);
  EXPECT_EQ(down.policies[0].period_seconds, 600);
  EXPECT_EQ(down.tolerance->AsApproximateFloat64(), 0.05);
}

TEST(HpaSpecFromJsonTest, EmptyMetricsDefaultToCpuEightyPercent) {
  auto spec = HpaSpecFromJson(J(R"({"maxReplicas": 3})"), "spec");
  ASSERT_TRUE(spec.ok());
  ASSERT_EQ(spec->metrics.size(), 1u);
  EXPECT_EQ(spec->metrics[0].resource_name, "cpu");
  EXPECT_EQ(spec->metrics[0].target.average_utilization, 80);
  EXPECT_FALSE(spec->behavior.has_value());
  EXPECT_EQ(spec->MinReplicasOrDefault(), 1);
}

struct ErrorCase {
  std::string json;
  std::string error;
};

// Validation messages as the apiserver words them (pkg/apis/autoscaling/validation).
TEST(HpaSpecFromJsonTest, ValidationErrorsNameTheField) {
  const std::vector<ErrorCase> cases = {
      {R"({"minReplicas": 1})", "spec.maxReplicas: Required value"},
      {R"({"maxReplicas": 0})", "spec.maxReplicas: Invalid value: 0: must be greater than 0"},
      {R"({"minReplicas": 5, "maxReplicas": 3})",
       "spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`"},
      {R"({"minReplicas": -1, "maxReplicas": 3})",
       "spec.minReplicas: Invalid value: -1: must be greater than or equal to 0"},
      {R"({"minReplicas": 0, "maxReplicas": 3})",
       "spec.metrics: Forbidden: must specify at least one Object or External metric to support "
       "scaling to zero replicas"},
      {R"({"maxReplicas": 3, "bogus": 1})", "spec.bogus: unknown field"},
      {R"({"maxReplicas": "3"})", "spec.maxReplicas: expected integer, got string"},
      {R"({"maxReplicas": 3, "metrics": [{"type": "Cheddar"}]})",
       "spec.metrics[0].type: Unsupported value: \"Cheddar\": supported values: "
       "\"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\""},
      {R"({"maxReplicas": 3, "metrics": [{"resource": {}}]})",
       "spec.metrics[0].type: Required value: must specify a metric source type"},
      {R"({"maxReplicas": 3, "metrics": [{"type": "Pods"}]})",
       "spec.metrics[0].pods: Required value: must populate information for the given metric "
       "source"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}},"pods":{}}]})",
       "spec.metrics[0].pods: Forbidden: must populate the given metric source only"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"Resource","resource":{"name":"cpu","target":{"type":"Percent","averageUtilization":50}}}]})",
       "spec.metrics[0].resource.target.type: Invalid value: \"Percent\": must be either "
       "Utilization, Value, or AverageValue"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":0}}}]})",
       "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater "
       "than 0"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization"}}}]})",
       "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a "
       "target raw value or a target utilization"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"Resource","resource":{"name":"cpu","target":{"type":"AverageValue","averageValue":"1","averageUtilization":5}}}]})",
       "spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw "
       "value and a target utilization"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"0"}}}]})",
       "spec.metrics[0].pods.target.averageValue: Invalid value: \"0\": must be positive"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"Pods","pods":{"metric":{"name":"a/b"},"target":{"type":"AverageValue","averageValue":"1"}}}]})",
       "spec.metrics[0].pods.metric.name: Invalid value: \"a/b\": may not contain '/'"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"External","external":{"metric":{"name":"q"},"target":{"type":"Value","value":"1","averageValue":"1"}}}]})",
       "spec.metrics[0].external.target.value: Forbidden: may not set both a target value for "
       "metric and a per-pod target"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"Object","object":{"describedObject":{"kind":"Svc"},"metric":{"name":"q"},"target":{"type":"Value","value":"1"}}}]})",
       "spec.metrics[0].object.describedObject.name: Required value"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"ContainerResource","containerResource":{"name":"cpu","container":"App_1","target":{"type":"Utilization","averageUtilization":5}}}]})",
       "spec.metrics[0].containerResource.container: Invalid value: \"App_1\": a lowercase RFC "
       "1123 label"},
      {R"({"maxReplicas": 3, "metrics": [{"type":"External","external":{"metric":{"name":"q","selector":{"matchExpressions":[{"key":"a","operator":"Near"}]}},"target":{"type":"Value","value":"1"}}}]})",
       "spec.metrics[0].external.metric.selector.matchExpressions[0].operator: Unsupported value: "
       "\"Near\""},
      {R"({"maxReplicas": 3, "behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 4, "periodSeconds": 0}]}}})",
       "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be greater than "
       "zero"},
      {R"({"maxReplicas": 3, "behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 4, "periodSeconds": 1801}]}}})",
       "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or "
       "equal to 1800"},
      {R"({"maxReplicas": 3, "behavior": {"scaleDown": {"policies": [{"type": "Pods", "value": 0, "periodSeconds": 60}]}}})",
       "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero"},
      {R"({"maxReplicas": 3, "behavior": {"scaleDown": {"policies": [{"type": "Replicas", "value": 1, "periodSeconds": 60}]}}})",
       "spec.behavior.scaleDown.policies[0].type: Unsupported value: \"Replicas\": supported "
       "values: \"Percent\", \"Pods\""},
      {R"({"maxReplicas": 3, "behavior": {"scaleDown": {"policies": []}}})",
       "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy"},
      {R"({"maxReplicas": 3, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 3601}}})",
       "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less than "
       "or equal to 3600"},
      {R"({"maxReplicas": 3, "behavior": {"scaleDown": {"stabilizationWindowSeconds": -1}}})",
       "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater "
       "than or equal to zero"},
      {R"({"maxReplicas": 3, "behavior": {"scaleUp": {"selectPolicy": "Fastest"}}})",
       "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Fastest\": supported values: "
       "\"Disabled\", \"Max\", \"Min\""},
      {R"({"maxReplicas": 3, "behavior": {"scaleUp": {"tolerance": "-0.1"}}})",
       "spec.behavior.scaleUp.tolerance: Invalid value: \"-100m\": must be greater or equal to "
       "zero"},
      {R"({"maxReplicas": 3, "behavior": {"scaleUp": {"tolerance": "ten"}}})",
       "spec.behavior.scaleUp.tolerance: quantity \"ten\""},
      {R"({"maxReplicas": 3, "behavior": {"sideways": {}}})",
       "spec.behavior.sideways: unknown field"},
  };
  for (const ErrorCase& c : cases) {
    auto spec = HpaSpecFromJson(J(c.json), "spec");
    ASSERT_FALSE(spec.ok()) << c.json;
    EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(spec.status().message().rfind(c.error, 0), 0u)
        << "got:  " << spec.status().message() << "\nwant: " << c.error;
  }
}

TEST(HpaStateJsonTest, RoundTripsAndRejectsBadInput) {
  HpaState state;
  state.recommendations = {{4, FromUnixMillis(1714564800000)}, {6, FromUnixMillis(1714564860000)}};
  state.scale_up_events = {{2, FromUnixMillis(1714564860000), false}};
  state.scale_down_events = {{1, FromUnixMillis(1714564000000), true}};
  const Json json = HpaStateToJson(state);
  EXPECT_EQ(json["recommendations"][1]["timestamp"], "2024-05-01T12:01:00Z");
  auto back = HpaStateFromJson(json, "state");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, state);

  auto negative = HpaStateFromJson(
      J(R"({"scaleUpEvents":[{"replicaChange":-1,"timestamp":"2024-05-01T12:00:00Z"}]})"), "state");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(),
            "state.scaleUpEvents[0].replicaChange: Invalid value: -1: must be between 0 and "
            "2147483647");
  auto unknown = HpaStateFromJson(
      J(R"({"recommendations":[{"replicas":1,"timestamp":"2024-05-01T12:00:00Z","why":1}]})"),
      "state");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "state.recommendations[0].why: unknown field");
  auto bad_time = HpaStateFromJson(
      J(R"({"recommendations":[{"replicas":1,"timestamp":"yesterday"}]})"), "state");
  ASSERT_FALSE(bad_time.ok());
  EXPECT_EQ(bad_time.status().message().rfind("state.recommendations[0].timestamp: ", 0), 0u);
}

TEST(HpaSpecFromJsonTest, MinReplicasZeroNeedsTheScaleToZeroGate) {
  const Json spec = J(R"({"minReplicas": 0, "maxReplicas": 3, "metrics": [{"type": "External",
      "external": {"metric": {"name": "q"}, "target": {"type": "Value", "value": "1"}}}]})");
  EXPECT_TRUE(HpaSpecFromJson(spec, "spec").ok());
  auto off = HpaSpecFromJson(spec, "spec", {.scale_to_zero = false});
  ASSERT_FALSE(off.ok());
  EXPECT_EQ(off.status().message(),
            "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1");
  // Ratcheting: an object stored with 0 keeps it.
  EXPECT_TRUE(
      HpaSpecFromJson(spec, "spec", {.scale_to_zero = false, .old_min_replicas_zero = true}).ok());
}

}  // namespace
}  // namespace trimtab::core::hpa
