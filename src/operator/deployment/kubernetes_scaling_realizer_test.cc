#include "operator/deployment/kubernetes_scaling_realizer.h"

#include <gtest/gtest.h>

#include "operator/decisions/operator_config.h"

namespace trimtab::op {
namespace {

constexpr char kKey[] = "pipeline.jobvertex-parallelism-overrides";

TEST(KubernetesScalingRealizerTest, TheAutoscalerWinsExceptForExcludedVertices) {
  api::FlinkDeploymentSpec spec;
  KubernetesScalingRealizer realizer(&spec, {.user = {{"a", 1}, {"b", 1}, {"u", 7}},
                                             .excluded = {"b", "x"}});
  ASSERT_TRUE(realizer.RealizeParallelismOverrides("ns/job", {{"a", 4}, {"b", 4}, {"x", 3}}).ok());
  // b keeps the user's value (excluded and set by the user); x is excluded but the user set
  // nothing for it, so the autoscaler's value stands; u is the user's alone.
  EXPECT_EQ(spec.flink_configuration.at(kKey), "a:4,b:1,u:7,x:3");
}

TEST(KubernetesScalingRealizerTest, NoAutoscalerOverridesLeaveTheUsersAndNoneRemovesTheKey) {
  api::FlinkDeploymentSpec spec;
  spec.flink_configuration[kKey] = "a:9";
  ASSERT_TRUE(KubernetesScalingRealizer(&spec, {.user = {{"a", 2}}})
                  .RealizeParallelismOverrides("ns/job", {})
                  .ok());
  EXPECT_EQ(spec.flink_configuration.at(kKey), "a:2");
  ASSERT_TRUE(KubernetesScalingRealizer(&spec, {}).RealizeParallelismOverrides("ns/job", {}).ok());
  EXPECT_FALSE(spec.flink_configuration.count(kKey));
}

TEST(KubernetesScalingRealizerTest, KeepOverridesWritesThemAsTheyAre) {
  api::FlinkDeploymentSpec spec;
  KubernetesScalingRealizer realizer(&spec, {.user = {{"a", 1}}, .excluded = {"a"}});
  realizer.KeepOverrides({{"a", 5}});
  EXPECT_EQ(spec.flink_configuration.at(kKey), "a:5");
}

TEST(KubernetesScalingRealizerTest, MemoryTuningWithoutAMemoryToWriteSaysWhy) {
  api::FlinkDeploymentSpec spec;
  KubernetesScalingRealizer realizer(&spec, {});
  EXPECT_TRUE(realizer.RealizeConfigOverrides("ns/job", {}, {}).ok());
  Status s = realizer.RealizeConfigOverrides(
      "ns/job", {{"taskmanager.memory.process.size", "not a size"}}, {});
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
}

}  // namespace
}  // namespace trimtab::op
