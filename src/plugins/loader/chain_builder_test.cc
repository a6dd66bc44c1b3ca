#include "plugins/loader/chain_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "plugins/resource_gate/resource_gate.h"

namespace trimtab::plugins {
namespace {

using ::testing::HasSubstr;

core::ExecutorPluginRegistry Registry() {
  core::ExecutorPluginRegistry registry;
  EXPECT_TRUE(RegisterResourceGate(registry).ok());
  return registry;
}

TEST(ChainBuilderTest, BuildsBuiltinAndLibraryPluginsInOrder) {
  core::ExecutorPluginRegistry registry = Registry();
  Json config = {
      {"libraries", {TRIMTAB_EXAMPLE_PLUGIN_PATH}},
      {"plugins",
       Json::parse(R"([{"type": "example-cap", "priority": 20, "config": {"maxParallelism": 8}},
                       {"type": "resource-gate", "name": "cpu", "priority": 10}])")}};
  auto built = BuildExecutorChain(config, "autoscaler.chain", registry);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->chain.Describe(), "cpu(10) -> example-cap(20)");
  EXPECT_TRUE(built->warnings.empty());
}

TEST(ChainBuilderTest, EmptyConfigIsAnEmptyChain) {
  core::ExecutorPluginRegistry registry = Registry();
  auto built = BuildExecutorChain(Json::object(), "chain", registry);
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->chain.size(), 0u);
}

TEST(ChainBuilderTest, ALibraryThatFailsToLoadFailsTheBuildNamingIt) {
  core::ExecutorPluginRegistry registry = Registry();
  Json config = {{"libraries", {TRIMTAB_BAD_ABI_PLUGIN_PATH}}};
  auto built = BuildExecutorChain(config, "chain", registry);
  ASSERT_FALSE(built.ok());
  EXPECT_THAT(built.status().message(), HasSubstr("chain.libraries[0]"));
  EXPECT_THAT(built.status().message(), HasSubstr(TRIMTAB_BAD_ABI_PLUGIN_PATH));
}

TEST(ChainBuilderTest, RejectsUnknownFieldsAndBadPlugins) {
  core::ExecutorPluginRegistry registry = Registry();
  auto unknown = BuildExecutorChain(Json{{"plugin", Json::array()}}, "chain", registry);
  EXPECT_THAT(unknown.status().message(), HasSubstr("chain.plugin"));
  auto bad = BuildExecutorChain(
      Json::parse(R"({"plugins": [{"type": "resource-gate", "config": {"cpuThreshold": 7}}]})"),
      "chain", registry);
  EXPECT_THAT(bad.status().message(), HasSubstr("chain.plugins[0].config.cpuThreshold"));
}

}  // namespace
}  // namespace trimtab::plugins
