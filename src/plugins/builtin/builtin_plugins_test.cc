#include "plugins/builtin/builtin_plugins.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"
#include "core/chain/metric_requirements.h"
#include "core/chain/plugin_metric_names.h"
#include "plugins/loader/chain_builder.h"

namespace trimtab::plugins {
namespace {

using core::testing::Summary;

TEST(BuiltinPluginsTest, RegistersEveryInTreeTypeOnce) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(RegisterBuiltinExecutorPlugins(registry).ok());
  EXPECT_EQ(registry.Types(),
            (std::vector<std::string>{"budget-cap", "multi-job-coordinator", "queue-capacity",
                                      "resource-gate", "restart-cost-gate", "scale-guard",
                                      "source-aligned", "webhook"}));
  EXPECT_EQ(RegisterBuiltinExecutorPlugins(registry).code(), StatusCode::kAlreadyExists);
}

// A realistic chain: the gate passes (CPU busy), source alignment spreads the source's scale-up
// downstream, and the budget cuts everything to 6 slots.
TEST(BuiltinPluginsTest, ChainOfBuiltinsRunsInPriorityOrder) {
  core::ExecutorPluginRegistry registry;
  ASSERT_TRUE(RegisterBuiltinExecutorPlugins(registry).ok());
  Json config = Json::parse(R"({"plugins": [
      {"type": "budget-cap", "priority": 30, "config": {"maxSlotsPerJob": 6}},
      {"type": "source-aligned", "priority": 20},
      {"type": "resource-gate", "priority": 10, "config": {"cpuThreshold": 0.5}}]})");
  auto built = BuildExecutorChain(config, "chain", registry);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->chain.Describe(), "resource-gate(10) -> source-aligned(20) -> budget-cap(30)");

  core::MetricRequirementRegistry metrics;
  ASSERT_TRUE(built->chain.DeclareMetrics(metrics).ok());
  ASSERT_EQ(metrics.Metrics().size(), 1u);
  EXPECT_EQ(metrics.Metrics()[0].requirement.name, core::kMetricTaskManagerCpuAvg);

  core::ExecutorContext context{.job_key = "ns/job", .namespace_name = "ns"};
  context.topology = core::testing::LinearTopology({2, 2, 2});
  context.metrics.global[core::kMetricTaskManagerCpuAvg] = core::EvaluatedMetric{.average = 0.8};
  context.metrics.vertices["v0"][core::kMetricLag] = core::EvaluatedMetric{.current = 50000};
  Json states = Json::object();
  core::CycleState cycle;
  core::ChainOutcome outcome =
      built->chain.Run(context, {{"v0", Summary(2, 8)}}, cycle, &states);
  ASSERT_FALSE(outcome.vetoed) << outcome.veto_reason;
  ASSERT_EQ(outcome.steps.size(), 3u);
  EXPECT_EQ(outcome.steps[0].verdict, core::ChainVerdict::kApprove);
  EXPECT_EQ(outcome.steps[1].verdict, core::ChainVerdict::kModify);
  EXPECT_EQ(outcome.steps[2].verdict, core::ChainVerdict::kModify);
  for (const char* v : {"v0", "v1", "v2"}) EXPECT_EQ(outcome.summaries.at(v).new_parallelism, 6);

  context.metrics.global[core::kMetricTaskManagerCpuAvg] = core::EvaluatedMetric{.average = 0.2};
  core::ChainOutcome vetoed = built->chain.Run(context, {{"v0", Summary(2, 8)}}, cycle, &states);
  EXPECT_TRUE(vetoed.vetoed);
  EXPECT_EQ(vetoed.vetoed_by, "resource-gate");
  EXPECT_EQ(vetoed.steps.size(), 1u);
}

}  // namespace
}  // namespace trimtab::plugins
