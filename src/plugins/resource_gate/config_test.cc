#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "plugins/resource_gate/resource_gate.h"

namespace trimtab::plugins {
namespace {

using ::testing::HasSubstr;

TEST(ResourceGateConfigTest, DefaultsAndValues) {
  auto defaults = ParseResourceGateOptions(Json::object(), "config");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->cpu_threshold, 0.6);
  EXPECT_FALSE(defaults->use_current);
  EXPECT_FALSE(defaults->gate_scale_downs);

  auto set = ParseResourceGateOptions(
      Json::parse(R"({"cpuThreshold": 0.8, "useCurrent": true, "gateScaleDowns": true})"), "c");
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->cpu_threshold, 0.8);
  EXPECT_TRUE(set->use_current);
  EXPECT_TRUE(set->gate_scale_downs);
}

TEST(ResourceGateConfigTest, RejectsBadConfig) {
  auto unknown = ParseResourceGateOptions(Json::parse(R"({"threshold": 0.5})"), "plugins[0].config");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("plugins[0].config.threshold"));
  auto range = ParseResourceGateOptions(Json::parse(R"({"cpuThreshold": 1.5})"), "c");
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(), HasSubstr("c.cpuThreshold: must be in (0, 1]"));
  auto type = ParseResourceGateOptions(Json::parse(R"({"cpuThreshold": "high"})"), "c");
  EXPECT_FALSE(type.ok());
}

TEST(ResourceGateConfigTest, RegistersUnderItsType) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(RegisterResourceGate(registry).ok());
  EXPECT_EQ(RegisterResourceGate(registry).code(), StatusCode::kAlreadyExists);
  auto plugins = registry.CreateAll(
      Json::parse(R"([{"type": "resource-gate", "priority": 5, "config": {"cpuThreshold": 0.3}}])"),
      "plugins");
  ASSERT_TRUE(plugins.ok()) << plugins.status().ToString();
  EXPECT_EQ((*plugins)[0]->name(), "resource-gate");
  EXPECT_EQ((*plugins)[0]->priority(), 5);
  auto bad = registry.CreateAll(
      Json::parse(R"([{"type": "resource-gate", "config": {"cpuThreshold": 0}}])"), "plugins");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("plugins[0].config.cpuThreshold"));
}

}  // namespace
}  // namespace trimtab::plugins
