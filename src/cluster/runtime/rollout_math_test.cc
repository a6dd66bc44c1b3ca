#include "cluster/runtime/rollout_math.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::cluster::runtime {
namespace {

using ::testing::ElementsAre;

TEST(RolloutMathTest, ScaledValuesRoundLikeIntstr) {
  EXPECT_EQ(*ScaledValue(Json(3), 10, true), 3);
  EXPECT_EQ(*ScaledValue(Json("25%"), 10, true), 3);   // 2.5 up
  EXPECT_EQ(*ScaledValue(Json("25%"), 10, false), 2);  // 2.5 down
  EXPECT_EQ(*ScaledValue(Json("100%"), 7, false), 7);
  EXPECT_EQ(*ScaledValue(Json("5"), 10, false), 5);
  EXPECT_FALSE(ScaledValue(Json("x%"), 10, true).ok());
}

TEST(RolloutMathTest, FencepostsNeverBothZero) {
  auto f = ResolveFenceposts(Json("25%"), Json("25%"), 4);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->max_surge, 1);
  EXPECT_EQ(f->max_unavailable, 1);
  f = ResolveFenceposts(Json(0), Json("25%"), 3);  // 0.75 rounds down to 0
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->max_surge, 0);
  EXPECT_EQ(f->max_unavailable, 1);
}

TEST(RolloutMathTest, DeploymentFenceposts) {
  Json d = {{"spec", {{"replicas", 10},
                      {"strategy", {{"type", "RollingUpdate"},
                                    {"rollingUpdate", {{"maxSurge", "30%"}, {"maxUnavailable", 20}}}}}}}};
  EXPECT_EQ(DeploymentMaxSurge(d), 3);
  EXPECT_EQ(DeploymentMaxUnavailable(d), 10);  // capped at replicas
  d["spec"]["strategy"] = {{"type", "Recreate"}};
  EXPECT_EQ(DeploymentMaxSurge(d), 0);
  EXPECT_EQ(DeploymentMaxUnavailable(d), 0);
  Json defaults = {{"spec", {{"replicas", 4}}}};  // 25% / 25%
  EXPECT_EQ(DeploymentMaxSurge(defaults), 1);
  EXPECT_EQ(DeploymentMaxUnavailable(defaults), 1);
}

TEST(RolloutMathTest, NewReplicaSetGrowsWithinSurge) {
  // 10 desired, surge 3: old sets hold 10 -> the new one may start 3.
  EXPECT_EQ(NewRSNewReplicas(10, 3, 10, 0), 3);
  // Already at desired + surge: no growth.
  EXPECT_EQ(NewRSNewReplicas(10, 3, 13, 3), 3);
  // Never past desired.
  EXPECT_EQ(NewRSNewReplicas(10, 3, 9, 9), 10);
}

TEST(RolloutMathTest, OldSetsScaleDownKeepingAvailability) {
  // 10 desired, maxUnavailable 2; the new set has 3 pods, none available yet; the old set 10
  // (all available): 13 - 8 - 3 = 2 may go.
  ReplicaSetSizes new_set{"new", 3, 0, "2024-01-02T00:00:00Z"};
  std::vector<ReplicaSetSizes> old = {{"old", 10, 10, "2024-01-01T00:00:00Z"}};
  EXPECT_THAT(ScaleDownOldReplicaSets(10, 2, new_set, old), ElementsAre(8));
  // Once the new pods are available the old set shrinks further.
  new_set.available = 3;
  EXPECT_THAT(ScaleDownOldReplicaSets(10, 2, new_set, {{"old", 8, 8, "2024-01-01T00:00:00Z"}}),
              ElementsAre(5));
  // Unavailable old pods go first (oldest set first), then available ones down to
  // desired - maxUnavailable.
  std::vector<ReplicaSetSizes> sick = {{"older", 2, 0, "2024-01-01T00:00:00Z"},
                                       {"old", 5, 5, "2024-01-01T12:00:00Z"}};
  EXPECT_THAT(ScaleDownOldReplicaSets(6, 1, {"new", 2, 2, "2024-01-02T00:00:00Z"}, sick),
              ElementsAre(0, 3));
  // Nothing may go while the new set is unavailable and the old one is at the minimum.
  EXPECT_THAT(ScaleDownOldReplicaSets(4, 1, {"new", 1, 0, "b"}, {{"old", 3, 3, "a"}}),
              ElementsAre(3));
}

TEST(RolloutMathTest, ProportionalScalingMidRollout) {
  // A rollout of 10 (surge 3) at old=8, new=5 is scaled to 20 (surge 5): the 12 extra replicas
  // are split 8:5 using the max-replicas annotation (13).
  auto sizes = ProportionalSizes(20, 5, 13,
                                 {{"old", 8, 8, "a", 13}, {"new", 5, 0, "b", 13}});
  EXPECT_EQ(sizes["old"] + sizes["new"], 25);
  EXPECT_EQ(sizes["old"], 15);
  EXPECT_EQ(sizes["new"], 10);
  // Scaling to zero empties everything.
  sizes = ProportionalSizes(0, 0, 13, {{"old", 8, 8, "a", 13}, {"new", 5, 0, "b", 13}});
  EXPECT_EQ(sizes["old"], 0);
  EXPECT_EQ(sizes["new"], 0);
}

TEST(RolloutMathTest, TemplateHashIgnoresItsOwnLabel) {
  Json tmpl = {{"metadata", {{"labels", {{"app", "web"}}}}},
               {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "nginx:1"}}})}}}};
  std::string hash = PodTemplateHash(tmpl, 0);
  EXPECT_FALSE(hash.empty());
  EXPECT_EQ(hash.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos);
  Json labelled = tmpl;
  labelled["metadata"]["labels"]["pod-template-hash"] = hash;
  EXPECT_EQ(PodTemplateHash(labelled, 0), hash);
  EXPECT_TRUE(EqualIgnoreHash(tmpl, labelled));
  EXPECT_NE(PodTemplateHash(tmpl, 1), hash);
  // `kubectl rollout undo` sends Go zero values as null.
  Json with_null = tmpl;
  with_null["metadata"]["creationTimestamp"] = nullptr;
  EXPECT_TRUE(EqualIgnoreHash(with_null, labelled));
  EXPECT_EQ(PodTemplateHash(with_null, 0), hash);
  // ... and empty structs such as "resources": {} that the stored ReplicaSet lacks (the
  // runtime_e2e undo case: a new ReplicaSet instead of the first one).
  Json with_empty = with_null;
  with_empty["spec"]["containers"][0]["resources"] = Json::object();
  with_empty["spec"]["volumes"] = Json::array();
  EXPECT_TRUE(EqualIgnoreHash(with_empty, labelled));
  EXPECT_EQ(PodTemplateHash(with_empty, 0), hash);
  Json changed = tmpl;
  changed["spec"]["containers"][0]["image"] = "nginx:2";
  EXPECT_NE(PodTemplateHash(changed, 0), hash);
  EXPECT_FALSE(EqualIgnoreHash(tmpl, changed));
}

}  // namespace
}  // namespace trimtab::cluster::runtime
