#include "plugins/resource_gate/resource_gate.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"
#include "core/chain/plugin_metric_names.h"

namespace trimtab::plugins {
namespace {

using core::ChainVerdict;
using core::testing::Summary;

struct Case {
  const char* name;
  std::optional<double> cpu_average;
  std::optional<double> cpu_current;
  core::ScalingSummaries summaries;
  ResourceGateOptions options;
  ChainVerdict verdict;
  const char* reason;
};

class ResourceGateTest : public ::testing::TestWithParam<Case> {};

TEST_P(ResourceGateTest, Decides) {
  const Case& c = GetParam();
  core::ExecutorContext context{.job_key = "ns/job"};
  if (c.cpu_average || c.cpu_current) {
    context.metrics.global[core::kMetricTaskManagerCpuAvg] =
        core::EvaluatedMetric{.current = c.cpu_current, .average = c.cpu_average};
  }
  ResourceGate gate({"gate", 0}, c.options);
  core::CycleState cycle;
  Json state;
  auto result = gate.Execute(context, c.summaries, cycle, state);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->verdict, c.verdict);
  EXPECT_EQ(result->reason, c.reason);
}

const core::ScalingSummaries kUp{{"v0", Summary(2, 4)}};
const core::ScalingSummaries kDown{{"v0", Summary(4, 2)}};

INSTANTIATE_TEST_SUITE_P(
    Cases, ResourceGateTest,
    ::testing::Values(
        Case{"CpuAboveThreshold", 0.75, 0.1, kUp, {}, ChainVerdict::kApprove,
             "TaskManager CPU 0.75 >= threshold 0.60"},
        Case{"CpuAtThreshold", 0.6, std::nullopt, kUp, {}, ChainVerdict::kApprove,
             "TaskManager CPU 0.60 >= threshold 0.60"},
        Case{"CpuBelowThreshold", 0.59, 0.9, kUp, {}, ChainVerdict::kVeto,
             "TaskManager CPU 0.59 is below threshold 0.60"},
        Case{"MissingMetricVetoes", std::nullopt, std::nullopt, kUp, {}, ChainVerdict::kVeto,
             "metric TM_CPU_AVG is unavailable"},
        Case{"FallsBackToCurrentWithoutAverage", std::nullopt, 0.8, kUp, {},
             ChainVerdict::kApprove, "TaskManager CPU 0.80 >= threshold 0.60"},
        Case{"UseCurrent", 0.9, 0.3, kUp, {.cpu_threshold = 0.5, .use_current = true},
             ChainVerdict::kVeto, "TaskManager CPU 0.30 is below threshold 0.50"},
        Case{"ScaleDownIsNotGatedByDefault", 0.1, 0.1, kDown, {}, ChainVerdict::kApprove,
             "no scale-up to gate"},
        Case{"ScaleDownGatedWhenAsked", 0.1, 0.1, kDown, {.gate_scale_downs = true},
             ChainVerdict::kVeto, "TaskManager CPU 0.10 is below threshold 0.60"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ResourceGateRequirementsTest, DeclaresTaskManagerCpu) {
  ResourceGate gate({"gate", 0}, {});
  auto required = gate.RequiredMetrics();
  ASSERT_EQ(required.size(), 1u);
  EXPECT_EQ(required[0].name, "TM_CPU_AVG");
  EXPECT_EQ(required[0].scope, core::MetricScope::kTaskManager);
  EXPECT_EQ(required[0].query, "Status.JVM.CPU.Load");
}

}  // namespace
}  // namespace trimtab::plugins
