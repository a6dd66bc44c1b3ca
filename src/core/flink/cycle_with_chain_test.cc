// RunAutoscalerCycleWithChain: approve commits, veto commits nothing and reports ScalingVetoed,
// modify commits the plugin's values, outcomes other than kScale never reach the chain.
#include "core/flink/cycle_with_chain.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::core::flink {
namespace {

using core::testing::MakePlugin;
using std::chrono::seconds;

const TimePoint kT0 = FromUnixMillis(1'714'554'000'000);  // 2024-05-01T09:00:00Z

// One source at parallelism 4 that wants 6 (target 150/s, TPR 100/s per the samples).
ChainedCycleInput ScalingInput() {
  ChainedCycleInput in;
  AutoscalerInput& c = in.cycle;
  c.topology.vertices = {{.id = "src", .parallelism = 4, .max_parallelism = 720}};
  c.configuration = {{"job.autoscaler.enabled", "true"},
                     {"job.autoscaler.stabilization.interval", "0 s"},
                     {"job.autoscaler.metrics.window", "1 s"},
                     {"job.autoscaler.catch-up.duration", "0 s"},
                     {"job.autoscaler.utilization.target", "1.0"},
                     {"job.autoscaler.scale-down.interval", "0 s"}};
  RawSample a, b;
  a.time = kT0 - seconds(1);
  b.time = kT0;
  a.vertices["src"] = {.busy_time_max = 500, .num_records_in = 0, .pending_records = 0};
  b.vertices["src"] = {.busy_time_max = 500, .num_records_in = 50, .pending_records = 100};
  c.samples = {a, b};
  c.now = kT0;
  in.context.job_key = "ns/job";
  in.context.namespace_name = "ns";
  return in;
}

ExecutorChain ChainOf(std::unique_ptr<ExecutorPlugin> plugin) {
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  if (plugin) plugins.push_back(std::move(plugin));
  return *ExecutorChain::Create(std::move(plugins));
}

int CountReason(const DecisionLog& log, const std::string& reason) {
  int n = 0;
  for (const AutoscalerEvent& e : log.events) n += e.reason == reason;
  return n;
}

TEST(CycleWithChainTest, EmptyChainCommitsTheDecision) {
  ExecutorChain chain = ChainOf(nullptr);
  Json states;
  auto r = RunAutoscalerCycleWithChain(ScalingInput(), {}, chain, &states);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->scaled());
  EXPECT_EQ(r->approved.at("src").new_parallelism, 6);
  EXPECT_EQ(r->cycle.state.parallelism_overrides.at("src"), 6);
  EXPECT_EQ(r->cycle.state.scaling_history.at("src").size(), 1u);
  EXPECT_EQ(r->cycle.log.outcome, CycleOutcome::kScale);
  EXPECT_EQ(r->cycle.log.stages.at("chain").front(),
            "no executor plugins: the decision passes unchanged");
  EXPECT_EQ(CountReason(r->cycle.log, kReasonScalingReport), 1);
}

TEST(CycleWithChainTest, VetoCommitsNothingAndReportsScalingVetoed) {
  ExecutorChain chain = ChainOf(MakePlugin("freeze", 5, [](auto&, auto&, auto&, Json& state) {
    state = Json{{"vetoes", 1}};
    return StatusOr<ExecutorResult>(ExecutorResult::Veto("change freeze"));
  }));
  Json states;
  auto r = RunAutoscalerCycleWithChain(ScalingInput(), {}, chain, &states);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->scaled());
  ASSERT_TRUE(r->chain.has_value());
  EXPECT_TRUE(r->chain->vetoed);
  EXPECT_TRUE(r->cycle.state.parallelism_overrides.empty());
  EXPECT_TRUE(r->cycle.state.scaling_history.empty());
  EXPECT_EQ(r->cycle.state.metric_window.size(), 2u);  // the samples are kept
  EXPECT_TRUE(r->cycle.summaries.empty());
  EXPECT_EQ(r->cycle.log.outcome, CycleOutcome::kBlocked);
  const VertexDecision& d = r->cycle.log.vertices.at("src");
  EXPECT_EQ(d.final_parallelism, 4);
  EXPECT_EQ(d.reasons.back(), "vetoed by plugin freeze: change freeze");
  EXPECT_EQ(r->cycle.log.stages.at("chain").front(), "freeze(5) veto: change freeze");
  EXPECT_EQ(CountReason(r->cycle.log, kReasonScalingReport), 0);
  ASSERT_EQ(CountReason(r->cycle.log, kReasonScalingVetoed), 1);
  EXPECT_EQ(r->cycle.log.events.back().type, "Warning");
  EXPECT_EQ(r->cycle.log.events.back().message, "Scaling vetoed by plugin freeze: change freeze");
  EXPECT_EQ(states, (Json{{"freeze", {{"vetoes", 1}}}}));
}

TEST(CycleWithChainTest, ModifyCommitsThePluginsValuesAndRewritesTheReport) {
  ExecutorChain chain =
      ChainOf(MakePlugin("cap", 1, [](auto&, const ScalingSummaries& in, auto&, auto&) {
        ScalingSummaries out = in;
        out.at("src").new_parallelism = 5;
        return StatusOr<ExecutorResult>(ExecutorResult::Modify(out, "capped at 5"));
      }));
  Json states;
  auto r = RunAutoscalerCycleWithChain(ScalingInput(), {}, chain, &states);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->scaled());
  EXPECT_EQ(r->cycle.state.parallelism_overrides.at("src"), 5);
  EXPECT_EQ(r->cycle.state.scaling_history.at("src")[0].summary.new_parallelism, 5);
  EXPECT_EQ(r->cycle.log.vertices.at("src").final_parallelism, 5);
  ASSERT_EQ(CountReason(r->cycle.log, kReasonScalingReport), 1);
  EXPECT_NE(r->cycle.log.events.back().message.find("Parallelism 4 -> 5"), std::string::npos);
}

TEST(CycleWithChainTest, CallerMetricsReachThePluginsAndOtherOutcomesSkipTheChain) {
  int calls = 0;
  double seen_cpu = -1;
  ExecutorChain chain =
      ChainOf(MakePlugin("probe", 0, [&](const ExecutorContext& ctx, auto&, auto&, auto&) {
        ++calls;
        seen_cpu = ctx.metrics.global.at("TM_CPU_AVG").current.value_or(-1);
        EXPECT_EQ(ctx.topology.vertices.size(), 1u);
        EXPECT_EQ(ctx.configuration.at("job.autoscaler.enabled"), "true");
        EXPECT_TRUE(ctx.metrics.vertices.count("src"));
        return StatusOr<ExecutorResult>(ExecutorResult::Approve());
      }));
  ChainedCycleInput in = ScalingInput();
  in.context.metrics.global["TM_CPU_AVG"].current = 0.8;
  Json states;
  ASSERT_TRUE(RunAutoscalerCycleWithChain(in, {}, chain, &states).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_DOUBLE_EQ(seen_cpu, 0.8);

  in.cycle.job_status = "RESTARTING";
  auto r = RunAutoscalerCycleWithChain(in, {}, chain, &states);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cycle.log.outcome, CycleOutcome::kJobNotRunning);
  EXPECT_FALSE(r->chain.has_value());
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace trimtab::core::flink
