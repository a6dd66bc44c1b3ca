#include "core/flink/sample_values.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/flink/autoscaler_state.h"
#include "core/scaling_types.h"

namespace trimtab::core::flink {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(SampleValuesTest, EveryBuiltInNameHasItsSlot) {
  for (size_t i = 0; i < kNumCollectedMetrics; ++i) {
    const auto m = static_cast<CollectedMetric>(i);
    ASSERT_EQ(FindCollectedMetric(CollectedMetricName(m)), m) << CollectedMetricName(m);
  }
  EXPECT_EQ(FindCollectedMetric(kMetricLoad), CollectedMetric::kLoad);
  EXPECT_EQ(FindCollectedMetric(kMetricNumRecordsInPerSecond),
            CollectedMetric::kNumRecordsInPerSecond);
  EXPECT_FALSE(FindCollectedMetric("RECORD_LATENCY_MS"));
  EXPECT_FALSE(FindCollectedMetric("LOA"));  // a prefix of a name is not the name
  EXPECT_FALSE(FindCollectedMetric(""));
}

TEST(SampleValuesTest, NamesAndSlotsAreOneValue) {
  SampleValues v;
  EXPECT_TRUE(v.empty());
  v.Set(kMetricLoad, 0.5);
  EXPECT_EQ(v.Get(CollectedMetric::kLoad), 0.5);
  v.Set(CollectedMetric::kLag, 10);
  EXPECT_EQ(v.Get(kMetricLag), 10);
  v.Set("RECORD_LATENCY_MS", 7);
  EXPECT_EQ(v.Get("RECORD_LATENCY_MS"), 7);
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v.count(kMetricLoad), 1u);
  EXPECT_EQ(v.count(kMetricObservedTpr), 0u);
  EXPECT_TRUE(std::isnan(v.Get(kMetricObservedTpr)));
  EXPECT_EQ(v.at("RECORD_LATENCY_MS"), 7);
  EXPECT_THROW((void)v.at(kMetricObservedTpr), std::out_of_range);
  // +inf is a value (OBSERVED_TPR when nothing flows).
  v.Set(CollectedMetric::kObservedTpr, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(v.Has(kMetricObservedTpr));
}

TEST(SampleValuesTest, NanRemovesAValue) {
  SampleValues v{{kMetricLoad, 0.5}, {"QUEUE_DEPTH", 3}};
  v.Set(kMetricLoad, kNaN);
  v.Set("QUEUE_DEPTH", kNaN);
  v.Set("NEVER_SET", kNaN);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v, SampleValues{});
}

TEST(SampleValuesTest, ForEachVisitsEveryValueInNameOrder) {
  // Other names sort before, between and after the built-in ones.
  const SampleValues v{{"ZETA", 6},       {kMetricObservedTpr, 5}, {"MIDDLE", 4},
                       {kMetricLoad, 3}, {"AAA", 2},              {kMetricAccumulatedBusyTime, 1}};
  std::vector<std::pair<std::string, double>> seen;
  v.ForEach([&](std::string_view name, double value) { seen.emplace_back(name, value); });
  const std::vector<std::pair<std::string, double>> want = {
      {"AAA", 2}, {kMetricAccumulatedBusyTime, 1}, {kMetricLoad, 3},
      {"MIDDLE", 4}, {kMetricObservedTpr, 5},      {"ZETA", 6}};
  EXPECT_EQ(seen, want);
}

TEST(SampleValuesTest, EqualityComparesPresenceAndValues) {
  SampleValues a{{kMetricLoad, 0.5}, {"QUEUE_DEPTH", 3}};
  SampleValues b = a;
  EXPECT_EQ(a, b);
  b.Set(kMetricLoad, 0.6);
  EXPECT_NE(a, b);
  b = a;
  b.Set(kMetricLag, 0);
  EXPECT_NE(a, b);
  b = a;
  b.Set("QUEUE_DEPTH", 4);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace trimtab::core::flink
