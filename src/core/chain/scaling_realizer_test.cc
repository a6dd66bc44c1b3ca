#include "core/chain/scaling_realizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trimtab::core {
namespace {

TEST(ScalingRealizerTest, MergeAutoscalerWinsExceptExcludedVertices) {
  ParallelismOverrides user{{"a", 2}, {"b", 3}, {"c", 4}};
  ParallelismOverrides autoscaler{{"a", 5}, {"b", 6}, {"d", 7}};
  ParallelismOverrides merged = MergeParallelismOverrides(user, autoscaler, {"b", "d"});
  EXPECT_EQ(merged, (ParallelismOverrides{{"a", 5}, {"b", 3}, {"c", 4}, {"d", 7}}));
}

TEST(ScalingRealizerTest, InMemoryRecordsTheLatestCall) {
  InMemoryScalingRealizer realizer;
  ASSERT_TRUE(realizer.RealizeParallelismOverrides("j", {{"a", 2}}).ok());
  ASSERT_TRUE(realizer.RealizeParallelismOverrides("j", {{"a", 4}, {"b", 1}}).ok());
  ASSERT_TRUE(realizer.RealizeConfigOverrides("j", {{"taskmanager.memory.process.size", "2g"}}, {}).ok());
  EXPECT_EQ(realizer.ParallelismOf("j"), (ParallelismOverrides{{"a", 4}, {"b", 1}}));
  EXPECT_EQ(realizer.ConfigOf("j").at("taskmanager.memory.process.size"), "2g");
  EXPECT_TRUE(realizer.ParallelismOf("other").empty());
  EXPECT_EQ(realizer.RealizeParallelismOverrides("j", {{"a", 0}}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(realizer.calls(), 3);
}

}  // namespace
}  // namespace trimtab::core
