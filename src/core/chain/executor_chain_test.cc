#include "core/chain/executor_chain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::core {
namespace {

using testing::MakePlugin;
using testing::Summary;
using ::testing::ElementsAre;

ScalingSummaries Input() { return {{"a", Summary(2, 4)}, {"b", Summary(3, 6)}}; }

ExecutorChain MakeChain(std::vector<std::unique_ptr<ExecutorPlugin>> plugins) {
  StatusOr<ExecutorChain> chain = ExecutorChain::Create(std::move(plugins));
  EXPECT_TRUE(chain.ok()) << chain.status().ToString();
  return std::move(chain).value();
}

std::unique_ptr<ExecutorPlugin> Approver(std::string name, int priority, std::vector<std::string>* log) {
  return MakePlugin(name, priority, [name, log](auto&, auto&, auto&, auto&) {
    log->push_back(name);
    return ExecutorResult::Approve("ok from " + name);
  });
}

struct RunResult {
  ChainOutcome outcome;
  Json states = Json::object();
};

RunResult RunChain(const ExecutorChain& chain, const ScalingSummaries& input,
             const ExecutorContext& context = ExecutorContext{.job_key = "ns/job"}) {
  RunResult r;
  CycleState cycle;
  r.outcome = chain.Run(context, input, cycle, &r.states);
  return r;
}

TEST(ExecutorChainTest, NoPluginsPassesThrough) {
  ExecutorChain chain = MakeChain({});
  RunResult r = RunChain(chain, Input());
  EXPECT_FALSE(r.outcome.vetoed);
  EXPECT_TRUE(SameSummaries(r.outcome.summaries, Input()));
  EXPECT_TRUE(r.outcome.steps.empty());
  EXPECT_EQ(chain.Describe(), "(empty)");
}

TEST(ExecutorChainTest, ApproveKeepsSummaries) {
  std::vector<std::string> log;
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(Approver("one", 1, &log));
  ExecutorChain chain = MakeChain(std::move(plugins));
  RunResult r = RunChain(chain, Input());
  EXPECT_FALSE(r.outcome.vetoed);
  EXPECT_EQ(r.outcome.summaries.at("a").new_parallelism, 4);
  EXPECT_EQ(r.outcome.summaries.at("b").new_parallelism, 6);
  ASSERT_EQ(r.outcome.steps.size(), 1u);
  EXPECT_EQ(r.outcome.steps[0].plugin, "one");
  EXPECT_EQ(r.outcome.steps[0].verdict, ChainVerdict::kApprove);
  EXPECT_EQ(r.outcome.steps[0].reason, "ok from one");
}

TEST(ExecutorChainTest, AllApproveRunsEveryPluginInPriorityThenNameOrder) {
  std::vector<std::string> log;
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(Approver("zeta", 5, &log));
  plugins.push_back(Approver("beta", 10, &log));
  plugins.push_back(Approver("alpha", 10, &log));
  plugins.push_back(Approver("first", -3, &log));
  ExecutorChain chain = MakeChain(std::move(plugins));
  EXPECT_EQ(chain.Describe(), "first(-3) -> zeta(5) -> alpha(10) -> beta(10)");
  RunResult r = RunChain(chain, Input());
  EXPECT_THAT(log, ElementsAre("first", "zeta", "alpha", "beta"));
  EXPECT_FALSE(r.outcome.vetoed);
  EXPECT_EQ(r.outcome.steps.size(), 4u);
  EXPECT_TRUE(SameSummaries(r.outcome.summaries, Input()));
}

TEST(ExecutorChainTest, VetoStopsTheChain) {
  std::vector<std::string> log;
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(Approver("a", 1, &log));
  plugins.push_back(MakePlugin("gate", 2, [](auto&, auto&, auto&, auto&) {
    return ExecutorResult::Veto("cpu too low");
  }));
  plugins.push_back(Approver("c", 3, &log));
  ExecutorChain chain = MakeChain(std::move(plugins));
  RunResult r = RunChain(chain, Input());
  EXPECT_TRUE(r.outcome.vetoed);
  EXPECT_EQ(r.outcome.vetoed_by, "gate");
  EXPECT_EQ(r.outcome.veto_reason, "cpu too low");
  EXPECT_TRUE(r.outcome.summaries.empty());
  EXPECT_THAT(log, ElementsAre("a"));
  ASSERT_EQ(r.outcome.steps.size(), 2u);
  EXPECT_EQ(r.outcome.steps[1].verdict, ChainVerdict::kVeto);
  EXPECT_FALSE(r.outcome.steps[1].failed);
}

TEST(ExecutorChainTest, ModifyReplacesSummaries) {
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(MakePlugin("cap", 1, [](auto&, const ScalingSummaries& in, auto&, auto&) {
    ScalingSummaries out = in;
    out["b"].new_parallelism = 5;
    return ExecutorResult::Modify(out, "capped b");
  }));
  ExecutorChain chain = MakeChain(std::move(plugins));
  RunResult r = RunChain(chain, Input());
  EXPECT_FALSE(r.outcome.vetoed);
  EXPECT_EQ(r.outcome.summaries.at("a").new_parallelism, 4);
  EXPECT_EQ(r.outcome.summaries.at("b").new_parallelism, 5);
  ASSERT_EQ(r.outcome.steps.size(), 1u);
  EXPECT_EQ(r.outcome.steps[0].verdict, ChainVerdict::kModify);
  EXPECT_EQ(r.outcome.steps[0].output.at("b").new_parallelism, 5);
}

TEST(ExecutorChainTest, ModifyWithIdenticalSummariesIsRecordedAsApprove) {
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(MakePlugin("same", 1, [](auto&, const ScalingSummaries& in, auto&, auto&) {
    return ExecutorResult::Modify(in, "nothing to change");
  }));
  RunResult r = RunChain(MakeChain(std::move(plugins)), Input());
  ASSERT_EQ(r.outcome.steps.size(), 1u);
  EXPECT_EQ(r.outcome.steps[0].verdict, ChainVerdict::kApprove);
}

TEST(ExecutorChainTest, EmptyModifyIsAVeto) {
  std::vector<std::string> log;
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(MakePlugin("empty", 1, [](auto&, auto&, auto&, auto&) {
    return ExecutorResult::Modify({}, "");
  }));
  plugins.push_back(Approver("later", 2, &log));
  RunResult r = RunChain(MakeChain(std::move(plugins)), Input());
  EXPECT_TRUE(r.outcome.vetoed);
  EXPECT_EQ(r.outcome.vetoed_by, "empty");
  EXPECT_EQ(r.outcome.veto_reason, "empty result");
  EXPECT_TRUE(log.empty());
}

TEST(ExecutorChainTest, ErrorIsAVetoWithTheErrorAsReason) {
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(MakePlugin("rest", 1, [](auto&, auto&, auto&, auto&) -> StatusOr<ExecutorResult> {
    return UnavailableError("GET /taskmanagers/metrics: connection refused");
  }));
  RunResult r = RunChain(MakeChain(std::move(plugins)), Input());
  EXPECT_TRUE(r.outcome.vetoed);
  ASSERT_EQ(r.outcome.steps.size(), 1u);
  EXPECT_TRUE(r.outcome.steps[0].failed);
  EXPECT_EQ(r.outcome.veto_reason,
            "error: UNAVAILABLE: GET /taskmanagers/metrics: connection refused");
}

TEST(ExecutorChainTest, ModifyBelowOneIsAVeto) {
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(MakePlugin("zero", 1, [](auto&, const ScalingSummaries& in, auto&, auto&) {
    ScalingSummaries out = in;
    out["a"].new_parallelism = 0;
    return ExecutorResult::Modify(out, "oops");
  }));
  RunResult r = RunChain(MakeChain(std::move(plugins)), Input());
  EXPECT_TRUE(r.outcome.vetoed);
  EXPECT_EQ(r.outcome.veto_reason, "invalid modify: vertex a new parallelism 0 < 1");
}

TEST(ExecutorChainTest, EachPluginGetsThePreviousOutput) {
  std::vector<int> seen_b;
  auto halve_b = [&seen_b](std::string name, int priority) {
    return MakePlugin(name, priority, [&seen_b](auto&, const ScalingSummaries& in, auto&, auto&) {
      seen_b.push_back(in.at("b").new_parallelism);
      ScalingSummaries out = in;
      out["b"].new_parallelism = std::max(out["b"].current_parallelism + 1,
                                          out["b"].new_parallelism - 1);
      return ExecutorResult::Modify(out, "minus one");
    });
  };
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(halve_b("p1", 1));
  plugins.push_back(halve_b("p2", 2));
  plugins.push_back(MakePlugin("last", 3, [&seen_b](auto&, const ScalingSummaries& in, auto&, auto&) {
    seen_b.push_back(in.at("b").new_parallelism);
    return ExecutorResult::Approve();
  }));
  RunResult r = RunChain(MakeChain(std::move(plugins)), Input());
  EXPECT_THAT(seen_b, ElementsAre(6, 5, 4));
  EXPECT_EQ(r.outcome.summaries.at("b").new_parallelism, 4);
  EXPECT_EQ(r.outcome.steps[0].output.at("b").new_parallelism, 5);
  EXPECT_EQ(r.outcome.steps[1].output.at("b").new_parallelism, 4);
}

TEST(ExecutorChainTest, ContextCycleStateAndPluginStateReachThePlugins) {
  struct Seen final : CycleStateData {
    int value = 0;
    std::unique_ptr<CycleStateData> Clone() const override { return std::make_unique<Seen>(*this); }
  };
  ExecutorContext context{.job_key = "team-a/orders", .namespace_name = "team-a"};
  context.configuration["job.autoscaler.enabled"] = "true";
  context.metrics.global["TM_CPU_AVG"] = EvaluatedMetric{.current = 0.5, .average = 0.4};
  context.topology = testing::LinearTopology({2, 3});
  context.fleet.push_back(JobFootprint{.job_key = "team-a/other", .slots = 7});

  ExecutorContext seen_context;
  int seen_cycle = 0;
  Json seen_state;
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(MakePlugin("writer", 1, [](auto&, auto&, CycleState& cycle, Json& state) {
    auto data = std::make_unique<Seen>();
    data->value = 42;
    cycle.Write("writer/value", std::move(data));
    int calls = state.is_null() ? 0 : state["calls"].get<int>();
    state = Json{{"calls", calls + 1}};
    return ExecutorResult::Approve();
  }));
  plugins.push_back(MakePlugin("reader", 2, [&](const ExecutorContext& c, auto&, CycleState& cycle,
                                                Json& state) {
    seen_context = c;
    if (const Seen* s = cycle.Read<Seen>("writer/value")) seen_cycle = s->value;
    seen_state = state;
    return ExecutorResult::Approve();
  }));
  ExecutorChain chain = MakeChain(std::move(plugins));
  Json states = Json{{"reader", {{"mine", "kept"}}}};
  CycleState cycle;
  chain.Run(context, Input(), cycle, &states);
  chain.Run(context, Input(), cycle, &states);

  EXPECT_EQ(seen_context.job_key, "team-a/orders");
  EXPECT_EQ(seen_context.namespace_name, "team-a");
  EXPECT_EQ(seen_context.configuration.at("job.autoscaler.enabled"), "true");
  EXPECT_EQ(*seen_context.metrics.global.at("TM_CPU_AVG").average, 0.4);
  EXPECT_EQ(seen_context.topology.vertices.size(), 2u);
  EXPECT_EQ(seen_context.fleet.at(0).slots, 7);
  EXPECT_EQ(seen_cycle, 42);
  EXPECT_EQ(seen_state, (Json{{"mine", "kept"}}));
  EXPECT_EQ(states["writer"]["calls"], 2);
}

TEST(ExecutorChainTest, NullPluginStateIsNotKept) {
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(MakePlugin("stateless", 1, [](auto&, auto&, auto&, auto&) {
    return ExecutorResult::Approve();
  }));
  RunResult r = RunChain(MakeChain(std::move(plugins)), Input());
  EXPECT_EQ(r.states, Json::object());
}

TEST(ExecutorChainTest, DuplicateNamesAreRejected) {
  std::vector<std::string> log;
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(Approver("same", 1, &log));
  plugins.push_back(Approver("same", 2, &log));
  StatusOr<ExecutorChain> chain = ExecutorChain::Create(std::move(plugins));
  ASSERT_FALSE(chain.ok());
  EXPECT_EQ(chain.status().code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(chain.status().message(), ::testing::HasSubstr("\"same\""));
}

TEST(ExecutorChainTest, VetoEventAndDecisionLogJson) {
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(MakePlugin("gate", 7, [](auto&, auto&, auto&, auto&) {
    return ExecutorResult::Veto("cpu 0.20 below 0.60");
  }));
  RunResult r = RunChain(MakeChain(std::move(plugins)), Input());
  std::optional<AutoscalerEvent> event = VetoEvent("ns/job", r.outcome, Input());
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, EventType::kWarning);
  EXPECT_EQ(event->reason, "ScalingVetoed");
  EXPECT_EQ(event->message, "Scaling vetoed by plugin gate: cpu 0.20 below 0.60");
  EXPECT_EQ(event->job_key, "ns/job");
  // Keyed on the plugin and the change it vetoed, not on the reason's numbers.
  EXPECT_EQ(event->message_key, "vetoed by gate: a 2->4 b 3->6");

  Json log = ToJson(r.outcome);
  EXPECT_EQ(log["vetoed"], true);
  EXPECT_EQ(log["vetoedBy"], "gate");
  EXPECT_EQ(log["steps"][0]["verdict"], "veto");
  EXPECT_EQ(log["steps"][0]["priority"], 7);
  EXPECT_EQ(log["summaries"], Json::object());

  RunResult ok = RunChain(MakeChain({}), Input());
  EXPECT_FALSE(VetoEvent("ns/job", ok.outcome, Input()).has_value());
  EXPECT_EQ(ToJson(ok.outcome)["summaries"]["a"]["newParallelism"], 4);
}

}  // namespace
}  // namespace trimtab::core
