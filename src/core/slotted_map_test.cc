#include "core/slotted_map.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/scaling_types.h"

namespace trimtab::core {
namespace {

inline constexpr char kAlpha[] = "ALPHA";
inline constexpr char kMike[] = "MIKE";
inline constexpr char kTango[] = "TANGO";
inline constexpr std::string_view kNames[] = {kAlpha, kMike, kTango};
using Map = SlottedMap<int, kNames>;

std::vector<std::pair<std::string, int>> Entries(const Map& m) {
  std::vector<std::pair<std::string, int>> out;
  m.ForEach([&](std::string_view name, int v) { out.emplace_back(name, v); });
  return out;
}

TEST(SlottedMapTest, SlotsAreFoundByPointerAndByContent) {
  EXPECT_EQ(Map::SlotOf(kMike), 1u);
  // The same characters elsewhere (a name parsed from JSON) find the same slot.
  const std::string mike = "MIKE";
  EXPECT_EQ(Map::SlotOf(mike), 1u);
  EXPECT_EQ(Map::SlotOf("TANGO"), 2u);
  EXPECT_EQ(Map::SlotOf("MIK"), Map::kSlots);
  EXPECT_EQ(Map::SlotOf("ZULU"), Map::kSlots);
  EXPECT_EQ(Map::SlotOf(""), Map::kSlots);
  // A prefix of a slot name that shares its pointer is not the name.
  EXPECT_EQ(Map::SlotOf(std::string_view(kMike, 2)), Map::kSlots);
}

TEST(SlottedMapTest, BehavesAsAMapOfNames) {
  Map m;
  EXPECT_TRUE(m.empty());
  m[kMike] = 1;
  m["OSCAR"] = 2;  // no slot
  m[std::string("ALPHA")] = 3;
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.at("MIKE"), 1);
  EXPECT_EQ(*m.Find("OSCAR"), 2);
  EXPECT_EQ(m.Find(kTango), nullptr);
  EXPECT_EQ(m.count(kAlpha), 1u);
  EXPECT_THROW((void)m.at(kTango), std::out_of_range);
  EXPECT_EQ(m.erase(kMike), 1u);
  EXPECT_EQ(m.erase(kMike), 0u);
  EXPECT_EQ(m.erase("OSCAR"), 1u);
  EXPECT_EQ(m.size(), 1u);
  // A name stored again starts from a fresh value, not the one it had before it was erased.
  EXPECT_EQ(m[kMike], 0);
}

TEST(SlottedMapTest, ForEachMergesSlotsAndOtherNamesInNameOrder) {
  Map m;
  m["ZULU"] = 5;
  m[kTango] = 4;
  m["NOVEMBER"] = 3;
  m[kAlpha] = 1;
  m["AARDVARK"] = 0;
  m["BRAVO"] = 2;
  const std::vector<std::pair<std::string, int>> want = {
      {"AARDVARK", 0}, {"ALPHA", 1}, {"BRAVO", 2}, {"NOVEMBER", 3}, {"TANGO", 4}, {"ZULU", 5}};
  EXPECT_EQ(Entries(m), want);
}

TEST(SlottedMapTest, EqualityIgnoresWhatErasedSlotsHeld) {
  Map a, b;
  a[kMike] = 7;
  a.erase(kMike);
  EXPECT_EQ(a, b);
  a[kAlpha] = 1;
  EXPECT_NE(a, b);
  b[kAlpha] = 1;
  EXPECT_EQ(a, b);
  b["OSCAR"] = 1;
  EXPECT_NE(a, b);
}

TEST(SlottedMapTest, EveryBuiltInEvaluatedMetricHasASlot) {
  for (std::string_view name : {kMetricLoad, kMetricTrueProcessingRate, kMetricTargetDataRate,
                                kMetricCatchUpDataRate, kMetricLag, kMetricScaleUpRateThreshold,
                                kMetricRecommendedParallelism, kMetricRestartTime}) {
    EXPECT_LT(MetricMap::SlotOf(name), MetricMap::kSlots) << name;
  }
  EXPECT_EQ(MetricMap::SlotOf("TM_CPU_AVG"), MetricMap::kSlots);
}

}  // namespace
}  // namespace trimtab::core
