#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "plugins/budget_cap/budget_cap.h"

namespace trimtab::plugins {
namespace {

using ::testing::HasSubstr;

TEST(BudgetCapConfigTest, Parses) {
  auto o = ParseBudgetCapOptions(
      Json::parse(R"({"maxSlotsPerJob": 32, "maxCostPerNamespace": 500, "costPerSlot": 4.5,
                      "slotSharing": false})"),
      "c");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(*o->max_slots_per_job, 32);
  EXPECT_FALSE(o->max_slots_per_namespace.has_value());
  EXPECT_EQ(*o->max_cost_per_namespace, 500);
  EXPECT_EQ(o->cost_per_slot, 4.5);
  EXPECT_FALSE(o->slot_sharing);
}

struct Bad {
  const char* name;
  const char* json;
  const char* message;
};

class BudgetCapBadConfigTest : public ::testing::TestWithParam<Bad> {};

TEST_P(BudgetCapBadConfigTest, Rejects) {
  auto o = ParseBudgetCapOptions(Json::parse(GetParam().json), "c");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(o.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BudgetCapBadConfigTest,
    ::testing::Values(Bad{"NoLimit", R"({"costPerSlot": 1})", "c: set at least one of"},
                      Bad{"ZeroSlots", R"({"maxSlotsPerJob": 0})", "c.maxSlotsPerJob: must be >= 1"},
                      Bad{"CostWithoutPrice", R"({"maxCostPerJob": 10})",
                          "c.costPerSlot: must be > 0 when a cost limit is set"},
                      Bad{"NegativeCost", R"({"maxCostPerNamespace": -1, "costPerSlot": 1})",
                          "c.maxCostPerNamespace: must be > 0"},
                      Bad{"Unknown", R"({"maxSlots": 3})", "c.maxSlots"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(BudgetCapConfigTest, Registers) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(RegisterBudgetCap(registry).ok());
  auto bad = registry.CreateAll(Json::parse(R"([{"type": "budget-cap"}])"), "plugins");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("plugins[0].config: set at least one of"));
  auto ok = registry.CreateAll(
      Json::parse(R"([{"type": "budget-cap", "config": {"maxSlotsPerJob": 4}}])"), "plugins");
  EXPECT_TRUE(ok.ok());
}

}  // namespace
}  // namespace trimtab::plugins
