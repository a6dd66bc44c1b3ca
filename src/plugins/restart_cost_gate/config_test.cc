#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "plugins/restart_cost_gate/restart_cost_gate.h"

namespace trimtab::plugins {
namespace {

using ::testing::HasSubstr;

TEST(RestartCostGateConfigTest, Parses) {
  auto o = ParseRestartCostGateOptions(
      Json::parse(R"({"periodSeconds": 600, "restartSeconds": 45,
                      "scaleDownRecordsPerSlotSecond": 2.5, "approveAboveLagSeconds": 30,
                      "slotSharing": false, "observedRestartTime": true})"),
      "c");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->period_seconds, 600);
  EXPECT_EQ(o->restart_seconds, 45);
  EXPECT_EQ(o->scale_down_records_per_slot_second, 2.5);
  EXPECT_EQ(o->approve_above_lag_seconds, 30);
  EXPECT_FALSE(o->slot_sharing);
  EXPECT_TRUE(o->observed_restart_time);
  auto d = ParseRestartCostGateOptions(Json::object(), "c");
  EXPECT_EQ(d->period_seconds, 3600);
  EXPECT_EQ(d->restart_seconds, 60);
  EXPECT_EQ(d->approve_above_lag_seconds, 0);
  EXPECT_FALSE(d->observed_restart_time);
}

TEST(RestartCostGateConfigTest, Rejects) {
  EXPECT_THAT(ParseRestartCostGateOptions(Json::parse(R"({"periodSeconds": 0})"), "c")
                  .status().message(),
              HasSubstr("c.periodSeconds: must be > 0"));
  EXPECT_THAT(ParseRestartCostGateOptions(Json::parse(R"({"restartSeconds": -1})"), "c")
                  .status().message(),
              HasSubstr("c.restartSeconds: must be >= 0"));
  EXPECT_THAT(ParseRestartCostGateOptions(Json::parse(R"({"approveAboveLagSeconds": -5})"), "c")
                  .status().message(),
              HasSubstr("c.approveAboveLagSeconds: must be >= 0 (0 = off)"));
  EXPECT_THAT(ParseRestartCostGateOptions(Json::parse(R"({"observedRestartTime": 1})"), "c")
                  .status().message(),
              HasSubstr("c.observedRestartTime"));
  EXPECT_THAT(ParseRestartCostGateOptions(Json::parse(R"({"period": 1})"), "c").status().message(),
              HasSubstr("c.period"));
  EXPECT_THAT(ParseRestartCostGateOptions(Json::parse(R"({"scaleDownBreakEven": true})"), "c")
                  .status().message(),
              HasSubstr("c.scaleDownBreakEven: needs scaleDownRecordsPerSlotSecond > 0"));
  EXPECT_THAT(ParseRestartCostGateOptions(
                  Json::parse(R"({"scaleDownRecordsPerSlotSecond": 1, "breakEvenGapSeconds": 0})"),
                  "c")
                  .status().message(),
              HasSubstr("c.breakEvenGapSeconds: must be > 0"));
}

TEST(RestartCostGateConfigTest, BreakEven) {
  auto d = ParseRestartCostGateOptions(Json::object(), "c");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->scale_down_break_even);
  EXPECT_EQ(d->break_even_gap_seconds, 300);
  auto o = ParseRestartCostGateOptions(
      Json::parse(R"({"scaleDownRecordsPerSlotSecond": 2500, "scaleDownBreakEven": true,
                      "breakEvenGapSeconds": 120})"),
      "c");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_TRUE(o->scale_down_break_even);
  EXPECT_EQ(o->break_even_gap_seconds, 120);
}

TEST(RestartCostGateConfigTest, Registers) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(RegisterRestartCostGate(registry).ok());
  EXPECT_EQ(registry.Types(), std::vector<std::string>{"restart-cost-gate"});
}

}  // namespace
}  // namespace trimtab::plugins
