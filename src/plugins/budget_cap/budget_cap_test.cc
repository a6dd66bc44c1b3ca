#include "plugins/budget_cap/budget_cap.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::plugins {
namespace {

using core::ChainVerdict;
using core::testing::LinearTopology;
using core::testing::Summary;

core::ExecutorContext Context(std::vector<int> parallelism) {
  core::ExecutorContext c{.job_key = "team/orders", .namespace_name = "team"};
  c.topology = LinearTopology(parallelism);
  c.fleet = {{.job_key = "team/billing", .namespace_name = "team", .slots = 10},
             {.job_key = "other/x", .namespace_name = "other", .slots = 100}};
  return c;
}

StatusOr<core::ExecutorResult> Cap(const core::ExecutorContext& c, const core::ScalingSummaries& s,
                                   BudgetCapOptions options) {
  BudgetCap plugin({"budget", 0}, options);
  core::CycleState cycle;
  Json state;
  return plugin.Execute(c, s, cycle, state);
}

TEST(BudgetCapTest, WithinPerJobLimitApproves) {
  auto r = Cap(Context({2, 4}), {{"v0", Summary(2, 6)}}, {.max_slots_per_job = 8});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason, "6 slots within per-job limit of 8 slots");
}

TEST(BudgetCapTest, PerJobLimitCutsScaleUpWithSlotSharing) {
  auto r = Cap(Context({2, 4}), {{"v0", Summary(2, 12)}, {"v1", Summary(4, 9)}},
               {.max_slots_per_job = 8});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 8);
  EXPECT_EQ(r->summaries.at("v1").new_parallelism, 8);
  EXPECT_EQ(r->reason, "capped from 12 to 8 slots by per-job limit of 8 slots");
}

TEST(BudgetCapTest, NamespaceLimitCountsOtherJobsInTheSameNamespaceOnly) {
  // 16 in the namespace, 10 used by team/billing: this job may have 6.
  auto r = Cap(Context({2, 2}), {{"v0", Summary(2, 9)}}, {.max_slots_per_namespace = 16});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 6);
  EXPECT_EQ(r->reason,
            "capped from 9 to 6 slots by namespace limit of 16 slots, 10 used by other jobs");
}

TEST(BudgetCapTest, CostLimitsConvertToSlotsAndTheTightestBinds) {
  // Job cost 40 / 2.5 per slot = 16 slots; namespace cost 45 / 2.5 = 18 - 10 = 8 slots.
  BudgetCapOptions options{.max_cost_per_job = 40, .max_cost_per_namespace = 45,
                           .cost_per_slot = 2.5};
  auto r = Cap(Context({2, 2}), {{"v0", Summary(2, 20)}}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 8);
  EXPECT_EQ(r->reason,
            "capped from 20 to 8 slots by namespace cost limit (18 slots), 10 used by other jobs");
}

TEST(BudgetCapTest, WithoutSlotSharingTheLargestIncreaseIsCutFirst) {
  BudgetCapOptions options{.max_slots_per_job = 10, .slot_sharing = false};
  // Sum before 2+2+2 = 6, asked 5+4+2 = 11, limit 10: one slot off v0 (+3 is the largest).
  auto r = Cap(Context({2, 2, 2}), {{"v0", Summary(2, 5)}, {"v1", Summary(2, 4)}}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summaries.at("v0").new_parallelism, 4);
  EXPECT_EQ(r->summaries.at("v1").new_parallelism, 4);
}

TEST(BudgetCapTest, NothingFitsIsAVeto) {
  auto r = Cap(Context({6, 6}), {{"v0", Summary(6, 9)}}, {.max_slots_per_namespace = 14});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kVeto);
  EXPECT_EQ(r->reason,
            "budget exhausted: job uses 6 slots, 4 allowed by namespace limit of 14 slots, "
            "10 used by other jobs");
}

TEST(BudgetCapTest, ScaleDownsAlwaysPass) {
  auto r = Cap(Context({6, 6}), {{"v0", Summary(6, 2)}}, {.max_slots_per_job = 1});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r->reason, "no scale-up");
}

TEST(BudgetCapTest, MixedDecisionKeepsTheScaleDownWhenTheScaleUpIsCut) {
  auto r = Cap(Context({4, 4, 4}), {{"v0", Summary(4, 9)}, {"v2", Summary(4, 2)}},
               {.max_slots_per_job = 4});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, ChainVerdict::kModify);
  ASSERT_EQ(r->summaries.size(), 1u);
  EXPECT_EQ(r->summaries.at("v2").new_parallelism, 2);
}

}  // namespace
}  // namespace trimtab::plugins
