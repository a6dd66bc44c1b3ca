#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "plugins/source_aligned/source_aligned.h"

namespace trimtab::plugins {
namespace {

TEST(SourceAlignedConfigTest, ParsesAndValidates) {
  auto defaults = ParseSourceAlignedOptions(Json::object(), "c");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->lag_threshold, 0);
  EXPECT_TRUE(defaults->clamp_to_max_parallelism);
  auto set = ParseSourceAlignedOptions(
      Json::parse(R"({"lagThreshold": 500, "clampToMaxParallelism": false})"), "c");
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->lag_threshold, 500);
  EXPECT_FALSE(set->clamp_to_max_parallelism);
  auto negative = ParseSourceAlignedOptions(Json::parse(R"({"lagThreshold": -1})"), "c");
  EXPECT_THAT(negative.status().message(), ::testing::HasSubstr("c.lagThreshold: must be >= 0"));
  auto unknown = ParseSourceAlignedOptions(Json::parse(R"({"lag": 1})"), "c");
  EXPECT_THAT(unknown.status().message(), ::testing::HasSubstr("c.lag"));
}

TEST(SourceAlignedConfigTest, Registers) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(RegisterSourceAligned(registry).ok());
  EXPECT_TRUE(registry.Contains("source-aligned"));
  auto plugins = registry.CreateAll(Json::parse(R"([{"type": "source-aligned", "name": "align"}])"),
                                    "plugins");
  ASSERT_TRUE(plugins.ok());
  EXPECT_EQ((*plugins)[0]->name(), "align");
}

}  // namespace
}  // namespace trimtab::plugins
