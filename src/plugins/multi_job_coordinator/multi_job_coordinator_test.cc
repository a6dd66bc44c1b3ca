#include "plugins/multi_job_coordinator/multi_job_coordinator.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::plugins {
namespace {

using core::ChainVerdict;
using core::testing::LinearTopology;
using core::testing::Summary;

StatusOr<core::ExecutorResult> Coordinate(const core::ExecutorContext& c,
                                          const core::ScalingSummaries& s,
                                          MultiJobCoordinatorOptions options) {
  MultiJobCoordinator plugin({"coordinator", 0}, options);
  core::CycleState cycle;
  Json state;
  return plugin.Execute(c, s, cycle, state);
}

core::ExecutorContext Job(std::string key, int parallelism) {
  core::ExecutorContext c{.job_key = std::move(key), .namespace_name = "ns"};
  c.topology = LinearTopology({parallelism});
  return c;
}

TEST(MultiJobCoordinatorTest, GrowthIntoUnreservedCapacityIsAllowed) {
  // 30 slots, three equal jobs: share 10 each. Others use 4 and 5 and ask for nothing more.
  core::ExecutorContext c = Job("ns/a", 6);
  c.fleet = {{.job_key = "ns/b", .slots = 4}, {.job_key = "ns/c", .slots = 5}};
  auto r = Coordinate(c, {{"v0", Summary(6, 20)}}, {.total_slots = 30});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason, "20 slots within fair share 10.0 of 30 slots, others reserve 9.0, allowed 21");
}

TEST(MultiJobCoordinatorTest, OthersDemandUpToTheirShareIsProtected) {
  // b uses 4 but asks for 12: it reserves min(12, 10) = 10. c reserves 5. a may take 15.
  core::ExecutorContext c = Job("ns/a", 6);
  c.fleet = {{.job_key = "ns/b", .slots = 4, .desired_slots = 12}, {.job_key = "ns/c", .slots = 5}};
  auto r = Coordinate(c, {{"v0", Summary(6, 20)}}, {.total_slots = 30});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 15);
  EXPECT_EQ(r->reason,
            "capped from 20 to 15 slots: fair share 10.0 of 30 slots, others reserve 15.0, "
            "allowed 15");
}

TEST(MultiJobCoordinatorTest, FairShareIsGuaranteedEvenWhenOthersOverdraw) {
  // b and c together use 28 of 30; a still may grow to its share of 10.
  core::ExecutorContext c = Job("ns/a", 2);
  c.fleet = {{.job_key = "ns/b", .slots = 14}, {.job_key = "ns/c", .slots = 14}};
  auto r = Coordinate(c, {{"v0", Summary(2, 16)}}, {.total_slots = 30});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 10);
}

TEST(MultiJobCoordinatorTest, WeightsShapeTheShares) {
  // a has weight 3, b weight 1: a's share is 30 of 40, b reserves its 10 in use.
  core::ExecutorContext c = Job("ns/a", 10);
  c.configuration["trimtab.coordinator.weight"] = "3";
  c.fleet = {{.job_key = "ns/b", .slots = 10, .desired_slots = 25, .weight = 1}};
  auto r = Coordinate(c, {{"v0", Summary(10, 40)}}, {.total_slots = 40});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 30);
}

TEST(MultiJobCoordinatorTest, NoRoomIsAVetoAndScaleDownsPass) {
  core::ExecutorContext c = Job("ns/a", 10);
  c.fleet = {{.job_key = "ns/b", .slots = 10, .desired_slots = 12}};
  auto veto = Coordinate(c, {{"v0", Summary(10, 12)}}, {.total_slots = 20});
  ASSERT_TRUE(veto.ok());
  EXPECT_EQ(veto->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(veto->reason,
            "no room for a scale-up: fair share 10.0 of 20 slots, others reserve 10.0, allowed 10");
  auto down = Coordinate(c, {{"v0", Summary(10, 3)}}, {.total_slots = 20});
  EXPECT_EQ(down->verdict, ChainVerdict::kApprove);
}

TEST(MultiJobCoordinatorTest, NamespaceScopeIgnoresOtherNamespaces) {
  core::ExecutorContext c = Job("ns/a", 2);
  c.fleet = {{.job_key = "other/b", .namespace_name = "other", .slots = 20}};
  auto all = Coordinate(c, {{"v0", Summary(2, 20)}}, {.total_slots = 20});
  EXPECT_EQ(all->summaries.at("v0").new_parallelism, 10);
  auto scoped = Coordinate(c, {{"v0", Summary(2, 20)}}, {.total_slots = 20, .namespace_scope = true});
  EXPECT_EQ(scoped->verdict, ChainVerdict::kApprove);
}

TEST(MultiJobCoordinatorTest, BadWeightIsAnError) {
  core::ExecutorContext c = Job("ns/a", 2);
  c.configuration["trimtab.coordinator.weight"] = "heavy";
  auto r = Coordinate(c, {{"v0", Summary(2, 3)}}, {.total_slots = 20});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "configuration trimtab.coordinator.weight: weight \"heavy\" must be a number > 0");
}

}  // namespace
}  // namespace trimtab::plugins
