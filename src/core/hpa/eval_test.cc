// Runs every examples/eval/hpa-*.json through EvalHpa (what `trimtab eval hpa` calls) and checks
// the decision, and checks the error messages for bad documents.
#include "core/hpa/eval.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace trimtab::core::hpa {
namespace {

namespace fs = std::filesystem;

struct Expected {
  int desired;
  bool rescale;
  std::string limit_reason;      // behavior.limitReason ("" when normalization did not run)
  std::string scaling_active;    // ScalingActive reason
  std::string summary_fragment;  // must appear in --summary output
};

const std::map<std::string, Expected>& ExpectedByExample() {
  static const std::map<std::string, Expected> kExpected = {
      {"hpa-cpu-unready-pods.json",
       {4, true, "DesiredWithinRange", "ValidMetricFound",
        "ratio 1.700 (1.120 counting missing/unready pods) [2 ready, 1 unready] -> 4 replicas"}},
      {"hpa-kep853-scale-up-900-percent.json",
       {10, true, "ScaleUpLimit", "ValidMetricFound", "Percent 900/60s from 1 -> 10"}},
      {"hpa-external-queue.json",
       {6, true, "DesiredWithinRange", "ValidMetricFound", "result: 2 -> 6 replicas"}},
      {"hpa-scale-down-one-pod-per-10min.json",
       {8, false, "ScaleDownLimit", "ValidMetricFound", "Pods 1/600s from 9 -> 8"}},
      {"hpa-missing-metric-holds.json",
       {6, false, "", "FailedGetExternalMetric", "no usable metric proposal"}},
  };
  return kExpected;
}

std::string ReasonOf(const Json& out, const std::string& type) {
  for (const Json& c : out["conditions"]) {
    if (c["type"] == type) return c["reason"].get<std::string>();
  }
  return "";
}

TEST(EvalHpaExamplesTest, EveryExampleProducesItsDocumentedDecision) {
  const fs::path dir = fs::path(TRIMTAB_SOURCE_DIR) / "examples" / "eval";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("hpa-") || entry.path().extension() != ".json") continue;
    SCOPED_TRACE(name);
    ++seen;
    auto it = ExpectedByExample().find(name);
    ASSERT_NE(it, ExpectedByExample().end()) << "add the expected decision for " << name;
    const Expected& want = it->second;
    auto text = ReadFile(entry.path().string());
    ASSERT_TRUE(text.ok());

    auto json_out = EvalHpa(*text, name, /*summary=*/false);
    ASSERT_TRUE(json_out.ok()) << json_out.status().ToString();
    const Json out = Json::parse(*json_out);
    EXPECT_EQ(out["desiredReplicas"], want.desired);
    EXPECT_EQ(out["rescale"], want.rescale);
    EXPECT_EQ(out["behavior"].value("limitReason", ""), want.limit_reason);
    EXPECT_EQ(ReasonOf(out, "ScalingActive"), want.scaling_active);
    EXPECT_TRUE(out["state"].contains("recommendations"));

    auto summary = EvalHpa(*text, name, /*summary=*/true);
    ASSERT_TRUE(summary.ok());
    EXPECT_NE(summary->find(want.summary_fragment), std::string::npos) << *summary;
    EXPECT_NE(summary->find("result: "), std::string::npos);

    const Json doc = Json::parse(*text);
    EXPECT_FALSE(doc.value("description", "").empty()) << "examples need a description";
  }
  EXPECT_EQ(seen, static_cast<int>(ExpectedByExample().size()));
}

TEST(EvalHpaExamplesTest, ExternalExampleReportsFilteredSumAndStatus) {
  const fs::path file = fs::path(TRIMTAB_SOURCE_DIR) / "examples/eval/hpa-external-queue.json";
  auto text = ReadFile(file.string());
  ASSERT_TRUE(text.ok());
  const Json out = Json::parse(*EvalHpa(*text, "x", false));
  const Json& m = out["metrics"][0];
  EXPECT_EQ(m["replicas"], 6);
  EXPECT_EQ(m["usageRatio"], 3.0);
  EXPECT_EQ(m["timestamp"], "2024-05-01T11:59:50Z");
  EXPECT_EQ(m["current"]["averageValue"], "90");
  EXPECT_EQ(out["currentMetrics"][0]["type"], "External");
  EXPECT_EQ(out["currentMetrics"][0]["external"]["metric"]["selector"]["matchLabels"]["queue"],
            "worker_tasks");
  EXPECT_EQ(out["behavior"]["policies"][0]["limit"], 6);  // Pods 4: 2 + 4
  EXPECT_EQ(out["behavior"]["policies"][1]["limit"], 4);  // Percent 100: 2 * 2
  EXPECT_EQ(out["state"]["scaleUpEvents"][0]["replicaChange"], 4);
}

struct BadInput {
  std::string doc;
  std::string error;
};

TEST(EvalHpaErrorsTest, BadDocumentsNameTheField) {
  const std::string base = R"("now": "2024-05-01T12:00:00Z", "currentReplicas": 2, )";
  const std::vector<BadInput> cases = {
      {"{not json", "in.json: invalid YAML"},
      {R"({"currentReplicas": 2, "spec": {"maxReplicas": 3}})",
       "in.json: now: required field is missing"},
      {R"({"now": "noon", "currentReplicas": 2, "spec": {"maxReplicas": 3}})", "in.json: now: "},
      {"{" + base + R"("spec": {"maxReplicas": 3}, "surprise": true})",
       "in.json: surprise: unknown field"},
      {"{" + base + R"("spec": {"maxReplicas": "many"}})",
       "in.json: spec.maxReplicas: expected integer, got string"},
      {"{" + base +
           R"("spec": {"maxReplicas": 3, "behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 0}]}}}})",
       "in.json: spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be "
       "greater than zero"},
      {R"({"now": "2024-05-01T12:00:00Z", "currentReplicas": -1, "spec": {"maxReplicas": 3}})",
       "in.json: currentReplicas: Invalid value: -1: must be between 0 and 2147483647"},
      {"{" + base + R"("spec": {"maxReplicas": 3}, "pods": [{"name": "a", "phase": "Sleeping"}]})",
       "in.json: pods[0].phase: Unsupported value: \"Sleeping\""},
      {"{" + base + R"("spec": {"maxReplicas": 3}, "pods": [{"name": "a"}, {"name": "a"}]})",
       "in.json: pods[1].name: Duplicate value: \"a\""},
      {"{" + base +
           R"("spec": {"maxReplicas": 3}, "metrics": {"resource": {"cpu": {"pods": {"a": "lots"}}}}})",
       "in.json: metrics.resource.cpu.pods.a: quantity \"lots\""},
      {"{" + base +
           R"("spec": {"maxReplicas": 3}, "metrics": {"external": {"q": [{"labels": {}}]}}})",
       "in.json: metrics.external.q[0].value: required field is missing"},
      {"{" + base +
           R"("spec": {"maxReplicas": 3}, "state": {"recommendations": [{"replicas": 1}]}})",
       "in.json: state.recommendations[0].timestamp: required field is missing"},
      {"{" + base + R"("spec": {"maxReplicas": 3}, "controller": {"tolerance": -0.5}})",
       "in.json: controller.tolerance: Invalid value: -0.5: must be greater than or equal to zero"},
  };
  for (const BadInput& c : cases) {
    auto out = EvalHpa(c.doc, "in.json", false);
    ASSERT_FALSE(out.ok()) << c.doc;
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(out.status().message().rfind(c.error, 0), 0u)
        << "got:  " << out.status().message() << "\nwant: " << c.error;
  }
}

TEST(EvalHpaTest, YamlInputAndControllerOptions) {
  // Upstream's testing flags (2 min initialization, 10 s readiness delay) and a 5% tolerance.
  const std::string doc = R"(
now: "2024-05-01T12:00:00Z"
currentReplicas: 10
spec:
  maxReplicas: 20
  metrics:
  - type: Pods
    pods:
      metric: {name: rps}
      target: {type: AverageValue, averageValue: "100"}
controller:
  tolerance: 0.05
pods: [{name: p0}, {name: p1}]
metrics:
  pods:
    rps: {pods: {p0: "108", p1: "108"}}
)";
  auto out = EvalHpa(doc, "doc.yaml", false);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Json j = Json::parse(*out);
  // ratio 1.08 is outside 5%: ceil(1.08 * 2 ready pods) = 3 -> a scale-down from 10, held by
  // the seeded downscale window.
  EXPECT_EQ(j["metrics"][0]["replicas"], 3);
  EXPECT_EQ(j["desiredReplicas"], 10);
  EXPECT_EQ(j["behavior"]["stabilizationReason"], "ScaleDownStabilized");
}

}  // namespace
}  // namespace trimtab::core::hpa
