#include "sim/key_groups.h"

#include <numeric>

#include <gtest/gtest.h>

namespace trimtab::sim {
namespace {

TEST(KeyGroups, RangesMatchFlinkFormula) {
  // maxP = 128, p = 3: [0,42], [43,85], [86,127].
  EXPECT_EQ(KeyGroupRangeForSubtask(128, 3, 0).first, 0);
  EXPECT_EQ(KeyGroupRangeForSubtask(128, 3, 0).last, 42);
  EXPECT_EQ(KeyGroupRangeForSubtask(128, 3, 1).first, 43);
  EXPECT_EQ(KeyGroupRangeForSubtask(128, 3, 1).last, 85);
  EXPECT_EQ(KeyGroupRangeForSubtask(128, 3, 2).first, 86);
  EXPECT_EQ(KeyGroupRangeForSubtask(128, 3, 2).last, 127);
  // Every key group maps back to the subtask whose range holds it.
  for (int p : {1, 3, 7, 100, 128}) {
    for (int g = 0; g < 128; ++g) {
      const int i = SubtaskForKeyGroup(128, p, g);
      const KeyGroupRange r = KeyGroupRangeForSubtask(128, p, i);
      EXPECT_GE(g, r.first);
      EXPECT_LE(g, r.last);
    }
  }
}

TEST(KeyGroups, UnevenSplitAtHundredOfHundredTwentyEight) {
  // Notes §4.2: maxP = 128, p = 100 -> 28 subtasks own 2 groups, 72 own 1.
  int two = 0, one = 0;
  for (int i = 0; i < 100; ++i) {
    const int n = KeyGroupRangeForSubtask(128, 100, i).size();
    two += n == 2;
    one += n == 1;
  }
  EXPECT_EQ(two, 28);
  EXPECT_EQ(one, 72);
}

TEST(KeyGroups, DefaultMaxParallelism) {
  EXPECT_EQ(DefaultMaxParallelism(1), 128);
  EXPECT_EQ(DefaultMaxParallelism(85), 128);
  EXPECT_EQ(DefaultMaxParallelism(86), 256);
  EXPECT_EQ(DefaultMaxParallelism(100), 256);
  EXPECT_EQ(DefaultMaxParallelism(170), 256);
  EXPECT_EQ(DefaultMaxParallelism(171), 256);  // 171 + 85 = 256 is already a power of two
  EXPECT_EQ(DefaultMaxParallelism(172), 512);
  EXPECT_EQ(DefaultMaxParallelism(30000), 32768);
}

TEST(KeyGroups, JavaHashAndKafkaOwner) {
  EXPECT_EQ(JavaStringHash(""), 0);
  EXPECT_EQ(JavaStringHash("a"), 97);
  EXPECT_EQ(JavaStringHash("ab"), 97 * 31 + 98);
  EXPECT_EQ(JavaStringHash("hello"), 99162322);
  // "ab".hashCode() = 3105; * 31 = 96255; mod 4 = 3 -> partition 0 on reader 3, then round robin.
  EXPECT_EQ(KafkaPartitionOwner("ab", 0, 4), 3);
  EXPECT_EQ(KafkaPartitionOwner("ab", 1, 4), 0);
  EXPECT_EQ(KafkaPartitionOwner("ab", 5, 4), 0);
}

TEST(KeyGroups, WeightsUniformAndSkewed) {
  const std::vector<double> uniform = KeyGroupWeights(128, 0, 1);
  for (double w : uniform) EXPECT_DOUBLE_EQ(w, 1.0 / 128);
  const std::vector<double> skewed = KeyGroupWeights(128, 1.0, 1);
  EXPECT_NEAR(std::accumulate(skewed.begin(), skewed.end(), 0.0), 1.0, 1e-12);
  EXPECT_EQ(skewed, KeyGroupWeights(128, 1.0, 1));   // same seed, same weights
  EXPECT_NE(skewed, KeyGroupWeights(128, 1.0, 2));
  const std::vector<double> shares = SubtaskKeyShares(uniform, 100);
  EXPECT_DOUBLE_EQ(shares[0], 2.0 / 128);            // subtask 0: groups [0, 1]
  EXPECT_DOUBLE_EQ(shares[1], 1.0 / 128);            // subtask 1: group [2, 2]
}

}  // namespace
}  // namespace trimtab::sim
