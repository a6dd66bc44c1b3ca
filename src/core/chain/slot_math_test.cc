#include "core/chain/slot_math.h"

#include <gtest/gtest.h>

#include "core/chain/chain_test_util.h"

namespace trimtab::core {
namespace {

using testing::LinearTopology;
using testing::Summary;

TEST(SlotMathTest, SlotsWithAndWithoutSlotSharing) {
  JobTopology t = LinearTopology({2, 4, 3});
  ScalingSummaries s{{"v0", Summary(2, 6)}, {"v2", Summary(3, 1)}};
  EXPECT_EQ(SlotsNeeded(t, s, true, false), 4);
  EXPECT_EQ(SlotsNeeded(t, s, true, true), 6);
  EXPECT_EQ(SlotsNeeded(t, s, false, false), 9);
  EXPECT_EQ(SlotsNeeded(t, s, false, true), 11);
  EXPECT_TRUE(HasScaleUp(s));
  EXPECT_FALSE(HasScaleUp({{"v2", Summary(3, 1)}}));
}

TEST(SlotMathTest, VerticesOnlyInTheSummariesAndRepeatedIdsCountOnce) {
  JobTopology t = LinearTopology({2, 4});
  t.vertices.push_back({.id = "v0", .parallelism = 3});  // a repeated id: its last entry counts
  ScalingSummaries s{{"v1", Summary(4, 5)}, {"x", Summary(7, 9)}};
  EXPECT_EQ(SlotsNeeded(t, s, false, false), 3 + 4 + 7);
  EXPECT_EQ(SlotsNeeded(t, s, false, true), 3 + 5 + 9);
  EXPECT_EQ(SlotsNeeded(t, s, true, false), 7);
  EXPECT_EQ(SlotsNeeded(t, s, true, true), 9);
}

// Issue 23: vertices carry their slot-sharing group; each group needs its largest parallelism.
TEST(SlotMathTest, SlotSharingCountsPerGroup) {
  JobTopology t = LinearTopology({2, 4, 3});
  t.vertices[0].slot_sharing_group = "a";
  t.vertices[1].slot_sharing_group = "a";
  t.vertices[2].slot_sharing_group = "b";
  ScalingSummaries s{{"v0", Summary(2, 6)}, {"v2", Summary(3, 5)}};
  EXPECT_EQ(SlotsNeeded(t, s, true, false), 4 + 3);
  EXPECT_EQ(SlotsNeeded(t, s, true, true), 6 + 5);
  EXPECT_EQ(SlotsNeeded(t, s, false, true), 6 + 4 + 5);
  // Cut to 9 slots, one slot at a time from the group whose maximum rises most (ties to the
  // smaller name): a 6 -> 5, then b 5 -> 4.
  ScalingSummaries capped = CapScaleUps(t, s, 9, true);
  EXPECT_EQ(SlotsNeeded(t, capped, true, true), 9);
  EXPECT_EQ(capped.at("v0").new_parallelism, 5);
  EXPECT_EQ(capped.at("v2").new_parallelism, 4);
  // Below what the job holds: b's scale-up goes; v0's rise to 4 stays, as it costs no slot (v1
  // holds group a at 4 already).
  capped = CapScaleUps(t, s, 2, true);
  ASSERT_EQ(capped.size(), 1u);
  EXPECT_EQ(capped.at("v0").new_parallelism, 4);
}

TEST(SlotMathTest, CapWithSlotSharingClampsScaleUpsOnly) {
  JobTopology t = LinearTopology({2, 4, 3});
  ScalingSummaries s{{"v0", Summary(2, 8)}, {"v1", Summary(4, 5)}, {"v2", Summary(3, 1)}};
  ScalingSummaries capped = CapScaleUps(t, s, 4, true);
  EXPECT_EQ(capped.at("v0").new_parallelism, 4);
  EXPECT_FALSE(capped.contains("v1"));  // clamped back to its current 4: dropped
  EXPECT_EQ(capped.at("v2").new_parallelism, 1);
}

TEST(SlotMathTest, CapWithoutSlotSharingCutsLargestIncreaseFirstTiesById) {
  JobTopology t = LinearTopology({2, 2, 2});
  // Before: 6 slots; wanted: 4 + 4 + 3 = 11; limit 8 -> cut 3.
  ScalingSummaries s{{"v0", Summary(2, 4)}, {"v1", Summary(2, 4)}, {"v2", Summary(2, 3)}};
  ScalingSummaries capped = CapScaleUps(t, s, 8, false);
  // Cuts: v0 (+2 tie, smaller id) -> 3, v1 (+2) -> 3, then v0 (+1 tie with v1, v2) -> 2 (dropped).
  EXPECT_FALSE(capped.contains("v0"));
  EXPECT_EQ(capped.at("v1").new_parallelism, 3);
  EXPECT_EQ(capped.at("v2").new_parallelism, 3);
  EXPECT_EQ(SlotsNeeded(t, capped, false, true), 8);
}

TEST(SlotMathTest, CapStopsWhenNoScaleUpIsLeft) {
  JobTopology t = LinearTopology({5, 5});
  ScalingSummaries s{{"v0", Summary(5, 7)}};
  ScalingSummaries capped = CapScaleUps(t, s, 6, false);
  EXPECT_TRUE(capped.empty());
}

}  // namespace
}  // namespace trimtab::core
