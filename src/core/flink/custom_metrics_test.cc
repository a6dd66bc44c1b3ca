// Custom metric providers end to end: declarations from a chain plugin and an evaluator plugin,
// one fetch per declared metric per cycle, values in the metric window, current + window average
// in EvaluatedMetrics, failures absent (never 0) and logged, and the plugin seeing the values
// through ExecutorContext.
#include "core/flink/custom_metrics.h"

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/chain/executor_chain.h"
#include "core/chain/plugin_metric_names.h"
#include "core/flink/autoscaler.h"
#include "core/flink/autoscaler_json.h"

namespace trimtab::core::flink {
namespace {

using std::chrono::seconds;

const TimePoint kT0 = FromUnixMillis(1'714'554'000'000);  // 2024-05-01T09:00:00Z

const MetricRequirement kLatency{.name = "RECORD_LATENCY_MS",
                                 .scope = MetricScope::kVertex,
                                 .source = MetricSourceKind::kFlinkRest,
                                 .query = "latency.p99",
                                 .aggregation = MetricAggregation::kMax};
const MetricRequirement kQueue{.name = "QUEUE_DEPTH",
                               .scope = MetricScope::kJob,
                               .source = MetricSourceKind::kPrometheus,
                               .query = "sum(queue_depth{job=\"orders\"})",
                               .aggregation = MetricAggregation::kSum};

// A chain plugin that reads TM_CPU_AVG and remembers what ExecutorContext::metrics held.
class CpuReadingPlugin final : public ExecutorPlugin {
 public:
  explicit CpuReadingPlugin(std::optional<EvaluatedMetric>* seen)
      : ExecutorPlugin(PluginIdentity{"resource-gate", 10}), seen_(seen) {}
  StatusOr<ExecutorResult> Execute(const ExecutorContext& context, const ScalingSummaries&,
                                   CycleState&, Json&) override {
    if (const EvaluatedMetric* m = context.metrics.global.Find(kMetricTaskManagerCpuAvg)) {
      *seen_ = *m;
    }
    return ExecutorResult::Approve("cpu seen");
  }
  std::vector<MetricRequirement> RequiredMetrics() const override {
    return {TaskManagerCpuRequirement()};
  }

 private:
  std::optional<EvaluatedMetric>* seen_;
};

// A MetricSource whose answers are scripted per metric name and cycle; counts every call.
class FakeSource final : public MetricSource {
 public:
  std::map<std::string, int> calls;
  std::map<std::string, double> job_values;                    // TaskManager and job scope
  std::map<std::string, std::map<VertexId, double>> vertex_values;
  std::map<std::string, Status> failures;                      // name -> error of this cycle

  StatusOr<double> FetchTaskManagerMetric(const MetricFetchJob& job,
                                          const MetricRequirement& m) override {
    EXPECT_EQ(m.scope, MetricScope::kTaskManager);
    return Job(job, m);
  }
  StatusOr<std::map<VertexId, double>> FetchVertexMetric(const MetricFetchJob& job,
                                                         const MetricRequirement& m) override {
    EXPECT_EQ(m.scope, MetricScope::kVertex);
    EXPECT_EQ(job.job_key, "shop/orders");
    ++calls[m.name];
    if (auto f = failures.find(m.name); f != failures.end()) return f->second;
    return vertex_values[m.name];
  }
  StatusOr<double> FetchJobMetric(const MetricFetchJob& job, const MetricRequirement& m) override {
    EXPECT_EQ(m.scope, MetricScope::kJob);
    return Job(job, m);
  }

 private:
  StatusOr<double> Job(const MetricFetchJob& job, const MetricRequirement& m) {
    EXPECT_EQ(job.job_key, "shop/orders");
    ++calls[m.name];
    if (auto f = failures.find(m.name); f != failures.end()) return f->second;
    return job_values.at(m.name);
  }
};

// Source "src" -> "sink"; each cycle brings one sample 10 s after the previous one (100 rec/s).
JobTopology Topology() {
  JobTopology t;
  t.vertices = {{.id = "src", .parallelism = 2, .max_parallelism = 128},
                {.id = "sink", .parallelism = 2, .max_parallelism = 128}};
  t.edges = {{.from = "src", .to = "sink"}};
  return t;
}

RawSample BuiltInSample(int cycle) {
  RawSample s;
  s.time = kT0 + seconds(10 * cycle);
  const double records = 1000.0 * cycle;
  s.vertices["src"] = {.busy_time_max = 500, .num_records_in = records, .num_records_out = records,
                       .pending_records = 0};
  s.vertices["sink"] = {.busy_time_max = 400, .num_records_in = records,
                        .num_records_in_per_second = 100};
  return s;
}

struct Fixture {
  MetricRequirementRegistry registry;
  ExecutorChain chain;
  std::optional<EvaluatedMetric> plugin_saw;
  FakeSource source;
  AutoscalerState state;
  MetricFetchJob job{.job_key = "shop/orders", .namespace_name = "shop",
                     .vertices = {"src", "sink"}};

  Fixture() {
    std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
    plugins.push_back(std::make_unique<CpuReadingPlugin>(&plugin_saw));
    chain = std::move(*ExecutorChain::Create(std::move(plugins)));
    // The chain plugin and an evaluator plugin both declare TM_CPU_AVG.
    EXPECT_TRUE(chain.DeclareMetrics(registry).ok());
    EXPECT_TRUE(registry
                    .DeclareAll("backlog-evaluator",
                                {TaskManagerCpuRequirement(), kLatency, kQueue})
                    .ok());
  }

  // One operator cycle: collect built-in metrics, fetch the custom ones, run the autoscaler.
  StatusOr<AutoscalerResult> Cycle(int cycle) {
    RawSample sample = BuiltInSample(cycle);
    TRIMTAB_RETURN_IF_ERROR(CollectCustomMetrics(registry.Metrics(), job, source, &sample));
    AutoscalerInput in;
    in.topology = Topology();
    in.configuration = {{"job.autoscaler.enabled", "true"},
                        {"job.autoscaler.stabilization.interval", "0 s"},
                        {"job.autoscaler.metrics.window", "10 min"}};
    in.samples = {sample};
    in.now = sample.time;
    in.custom_metrics = registry.Metrics();
    TRIMTAB_ASSIGN_OR_RETURN(AutoscalerResult r, RunAutoscalerCycle(in, state));
    state = r.state;
    return r;
  }
};

double CurrentOf(const MetricMap& m, const std::string& name) {
  const EvaluatedMetric* e = m.Find(name);
  EXPECT_NE(e, nullptr) << name;
  return !e || !e->current ? -1 : *e->current;
}

double AverageOf(const MetricMap& m, const std::string& name) {
  const EvaluatedMetric* e = m.Find(name);
  EXPECT_NE(e, nullptr) << name;
  return !e || !e->average ? -1 : *e->average;
}

std::string Notes(const AutoscalerResult& r, const std::string& stage) {
  auto it = r.log.stages.find(stage);
  std::string out;
  if (it != r.log.stages.end()) {
    for (const std::string& n : it->second) out += n + "\n";
  }
  return out;
}

TEST(CustomMetricsTest, RegistryDeduplicatesAcrossChainAndEvaluatorPlugins) {
  Fixture f;
  ASSERT_EQ(f.registry.Metrics().size(), 3u);
  const DeclaredMetric* cpu = f.registry.Find(kMetricTaskManagerCpuAvg);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->consumers, (std::set<std::string>{"backlog-evaluator", "resource-gate"}));
}

TEST(CustomMetricsTest, EachDeclaredMetricIsFetchedOncePerCycle) {
  Fixture f;
  const std::vector<double> cpu = {0.1, 0.2, 0.4, 0.7};
  for (int cycle = 0; cycle < 4; ++cycle) {
    f.source.job_values = {{kMetricTaskManagerCpuAvg, cpu[cycle]}, {"QUEUE_DEPTH", 10.0 * cycle}};
    f.source.vertex_values["RECORD_LATENCY_MS"] = {{"src", 100.0 + cycle}, {"sink", 50.0}};
    auto r = f.Cycle(cycle);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    // Two consumers declare TM_CPU_AVG, yet one fetch per cycle; the same for the others.
    EXPECT_EQ(f.source.calls, (std::map<std::string, int>{{"QUEUE_DEPTH", cycle + 1},
                                                           {"RECORD_LATENCY_MS", cycle + 1},
                                                           {"TM_CPU_AVG", cycle + 1}}));
  }
}

TEST(CustomMetricsTest, WindowAverageOverSeveralCyclesIsExact) {
  Fixture f;
  const std::vector<double> cpu = {0.1, 0.2, 0.4, 0.7};
  const std::vector<double> latency = {120, 80, 95.5, 101.25};
  StatusOr<AutoscalerResult> r = InvalidArgumentError("no cycle");
  for (int cycle = 0; cycle < 4; ++cycle) {
    f.source.job_values = {{kMetricTaskManagerCpuAvg, cpu[cycle]}, {"QUEUE_DEPTH", 10.0 * cycle}};
    f.source.vertex_values["RECORD_LATENCY_MS"] = {{"src", latency[cycle]}, {"sink", 7}};
    r = f.Cycle(cycle);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  EXPECT_EQ(r->log.outcome, CycleOutcome::kWindowNotFull);
  ASSERT_EQ(f.state.metric_window.size(), 4u);
  // Stored unrounded in the window under the declared names.
  EXPECT_EQ(f.state.metric_window[2].global.at(kMetricTaskManagerCpuAvg), 0.4);
  EXPECT_EQ(f.state.metric_window[3].vertices.at("src").at("RECORD_LATENCY_MS"), 101.25);

  const MetricMap& global = r->evaluated.global;
  EXPECT_DOUBLE_EQ(CurrentOf(global, kMetricTaskManagerCpuAvg), 0.7);
  EXPECT_DOUBLE_EQ(AverageOf(global, kMetricTaskManagerCpuAvg), (0.1 + 0.2 + 0.4 + 0.7) / 4);
  EXPECT_DOUBLE_EQ(CurrentOf(global, "QUEUE_DEPTH"), 30);
  EXPECT_DOUBLE_EQ(AverageOf(global, "QUEUE_DEPTH"), 15);
  const MetricMap& src = r->evaluated.vertices.at("src");
  EXPECT_DOUBLE_EQ(CurrentOf(src, "RECORD_LATENCY_MS"), 101.25);
  EXPECT_DOUBLE_EQ(AverageOf(src, "RECORD_LATENCY_MS"), (120 + 80 + 95.5 + 101.25) / 4);
  EXPECT_DOUBLE_EQ(AverageOf(r->evaluated.vertices.at("sink"), "RECORD_LATENCY_MS"), 7);
  // Vertex-scope metrics stay out of the global map and vice versa.
  EXPECT_FALSE(global.count("RECORD_LATENCY_MS"));
  EXPECT_FALSE(src.count(kMetricTaskManagerCpuAvg));
  EXPECT_NE(Notes(*r, "evaluate").find("custom TM_CPU_AVG: current 0.7, window average 0.35"),
            std::string::npos)
      << Notes(*r, "evaluate");

  // The chain plugin sees current + window average through ExecutorContext::metrics.
  ExecutorContext context{.job_key = "shop/orders", .namespace_name = "shop", .now = kT0};
  context.metrics = r->evaluated;
  CycleState cycle_state;
  Json plugin_states;
  ScalingSummaries summaries{{"src", ScalingSummary{.current_parallelism = 2,
                                                    .new_parallelism = 3,
                                                    .metrics = {}}}};
  ChainOutcome outcome = f.chain.Run(context, summaries, cycle_state, &plugin_states);
  EXPECT_FALSE(outcome.vetoed);
  ASSERT_TRUE(f.plugin_saw.has_value());
  EXPECT_DOUBLE_EQ(*f.plugin_saw->current, 0.7);
  EXPECT_DOUBLE_EQ(*f.plugin_saw->average, 0.35);
}

TEST(CustomMetricsTest, FailedFetchIsAbsentAndLogged) {
  Fixture f;
  f.source.job_values = {{kMetricTaskManagerCpuAvg, 0.5}, {"QUEUE_DEPTH", 4}};
  f.source.vertex_values["RECORD_LATENCY_MS"] = {{"src", 10}, {"sink", 20}};
  ASSERT_TRUE(f.Cycle(0).ok());
  ASSERT_TRUE(f.Cycle(1).ok());
  // Cycle 2: Prometheus is down, the vertex metric has no value for the sink and TM_CPU_AVG
  // comes back as NaN.
  f.source.failures["QUEUE_DEPTH"] = UnavailableError("prometheus: connection refused");
  f.source.job_values[kMetricTaskManagerCpuAvg] = std::numeric_limits<double>::quiet_NaN();
  f.source.vertex_values["RECORD_LATENCY_MS"] = {{"src", 40}};
  auto r = f.Cycle(2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  // Absent from the newest window sample, never 0.
  const CollectedSample& newest = f.state.metric_window.back();
  EXPECT_FALSE(newest.global.count("QUEUE_DEPTH"));
  EXPECT_FALSE(newest.global.count(kMetricTaskManagerCpuAvg));
  EXPECT_FALSE(newest.vertices.at("sink").count("RECORD_LATENCY_MS"));
  EXPECT_EQ(newest.vertices.at("src").at("RECORD_LATENCY_MS"), 40);

  // No current value; the average covers the samples that have one.
  const MetricMap& global = r->evaluated.global;
  ASSERT_TRUE(global.count("QUEUE_DEPTH"));
  EXPECT_FALSE(global.at("QUEUE_DEPTH").current.has_value());
  EXPECT_DOUBLE_EQ(*global.at("QUEUE_DEPTH").average, 4);
  EXPECT_FALSE(global.at(kMetricTaskManagerCpuAvg).current.has_value());
  EXPECT_DOUBLE_EQ(*global.at(kMetricTaskManagerCpuAvg).average, 0.5);
  const EvaluatedMetric& sink = r->evaluated.vertices.at("sink").at("RECORD_LATENCY_MS");
  EXPECT_FALSE(sink.current.has_value());
  EXPECT_DOUBLE_EQ(*sink.average, 20);
  EXPECT_DOUBLE_EQ(CurrentOf(r->evaluated.vertices.at("src"), "RECORD_LATENCY_MS"), 40);
  EXPECT_DOUBLE_EQ(AverageOf(r->evaluated.vertices.at("src"), "RECORD_LATENCY_MS"), 20);

  // Logged in the collect stage, naming the query, the consumers and the error.
  const std::string collect = Notes(*r, "collect");
  EXPECT_NE(collect.find("custom metric QUEUE_DEPTH in the sample at 2024-05-01T09:00:20Z: job "
                         "metric prometheus \"sum(queue_depth{job=\"orders\"})\" (sum) for "
                         "backlog-evaluator: fetch failed: UNAVAILABLE: prometheus: connection "
                         "refused; absent from this sample"),
            std::string::npos)
      << collect;
  EXPECT_NE(collect.find("TM_CPU_AVG in the sample at 2024-05-01T09:00:20Z: taskmanager metric "
                         "flink \"Status.JVM.CPU.Load\" (avg) for backlog-evaluator, "
                         "resource-gate: fetched value is NaN; absent from this sample"),
            std::string::npos)
      << collect;
  EXPECT_NE(collect.find("RECORD_LATENCY_MS in the sample at 2024-05-01T09:00:20Z: vertex metric "
                         "flink \"latency.p99\" (max) for backlog-evaluator: no value for vertex "
                         "sink"),
            std::string::npos)
      << collect;
  EXPECT_NE(Notes(*r, "evaluate").find("custom QUEUE_DEPTH: current absent, window average 4"),
            std::string::npos)
      << Notes(*r, "evaluate");

  // The next successful fetch is current again and the window average includes it.
  f.source.failures.clear();
  f.source.job_values = {{kMetricTaskManagerCpuAvg, 0.8}, {"QUEUE_DEPTH", 7}};
  f.source.vertex_values["RECORD_LATENCY_MS"] = {{"src", 30}, {"sink", 20}};
  r = f.Cycle(3);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(CurrentOf(r->evaluated.global, "QUEUE_DEPTH"), 7);
  EXPECT_DOUBLE_EQ(AverageOf(r->evaluated.global, "QUEUE_DEPTH"), 5);
  EXPECT_DOUBLE_EQ(AverageOf(r->evaluated.global, kMetricTaskManagerCpuAvg), 0.6);
  EXPECT_EQ(f.source.calls["QUEUE_DEPTH"], 4);
}

TEST(CustomMetricsTest, VertexFetchFailureLeavesEveryVertexAbsent) {
  FakeSource source;
  source.failures["RECORD_LATENCY_MS"] = DeadlineExceededError("REST timeout");
  RawSample sample = BuiltInSample(1);
  sample.vertices["src"].custom["RECORD_LATENCY_MS"] = 99;  // stale value is replaced
  MetricFetchJob job{.job_key = "shop/orders", .vertices = {"src", "sink"}};
  ASSERT_TRUE(CollectCustomMetrics({{.requirement = kLatency, .consumers = {"latency-gate"}}}, job,
                                   source, &sample)
                  .ok());
  EXPECT_TRUE(sample.vertices.at("src").custom.empty());
  EXPECT_TRUE(sample.vertices.at("sink").custom.empty());
  EXPECT_EQ(sample.custom_errors.at("RECORD_LATENCY_MS"),
            "vertex metric flink \"latency.p99\" (max) for latency-gate: fetch failed: "
            "DEADLINE_EXCEEDED: REST timeout");
}

TEST(CustomMetricsTest, InvalidDeclarationsFailWithoutFetching) {
  FakeSource source;
  RawSample sample = BuiltInSample(0);
  MetricFetchJob job{.job_key = "shop/orders"};
  MetricRequirement load = kQueue;
  load.name = "LOAD";
  Status s =
      CollectCustomMetrics({{.requirement = load, .consumers = {"x"}}}, job, source, &sample);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "customMetrics[0]: metric \"LOAD\" is a built-in metric name and cannot "
                         "be a custom metric");
  s = CollectCustomMetrics({{.requirement = kQueue}, {.requirement = kQueue}}, job, source,
                           &sample);
  EXPECT_EQ(s.message(), "customMetrics[1]: metric \"QUEUE_DEPTH\" is declared twice");
  MetricRequirement lower = kQueue;
  lower.name = "queue";
  s = CollectCustomMetrics({{.requirement = lower}}, job, source, &sample);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(source.calls.empty());
}

TEST(CustomMetricsTest, SamplesMayCarryOnlyDeclaredMetricsInTheirScope) {
  const std::vector<DeclaredMetric> declared = {{.requirement = kLatency},
                                                {.requirement = kQueue}};
  RawSample ok = BuiltInSample(0);
  ok.vertices["src"].custom["RECORD_LATENCY_MS"] = 1;
  ok.job.custom["QUEUE_DEPTH"] = 2;
  ok.custom_errors["RECORD_LATENCY_MS"] = "no value for vertex sink";
  EXPECT_TRUE(ValidateCustomSamples(declared, {ok}).ok());

  RawSample wrong_scope = BuiltInSample(1);
  wrong_scope.job.custom["RECORD_LATENCY_MS"] = 1;
  EXPECT_EQ(ValidateCustomSamples(declared, {ok, wrong_scope}).message(),
            "samples[1].job.custom.RECORD_LATENCY_MS: custom metric is declared with scope "
            "vertex; its values belong in vertices.<id>.custom");
  RawSample undeclared = BuiltInSample(1);
  undeclared.custom_errors["OTHER"] = "x";
  EXPECT_EQ(ValidateCustomSamples(declared, {undeclared}).message(),
            "samples[0].customErrors.OTHER: custom metric is not declared");

  // CollectSample itself refuses to overwrite built-in metrics.
  RawSample clash = BuiltInSample(1);
  clash.vertices["src"].custom["LOAD"] = 1;
  auto c = CollectSample(clash, Topology(), AutoscalerOptions{}, {}, "samples[0]");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "samples[0].vertices.src.custom.LOAD: a custom metric may not "
                                  "use a built-in metric name");
}

TEST(CustomMetricsTest, InputJsonRoundTripsCustomMetrics) {
  AutoscalerInput in;
  in.topology = Topology();
  in.now = kT0;
  in.custom_metrics = {{.requirement = kLatency, .consumers = {"latency-gate"}},
                       {.requirement = kQueue, .consumers = {}}};
  RawSample s = BuiltInSample(1);
  s.vertices["src"].custom["RECORD_LATENCY_MS"] = 12.5;
  s.job.custom["QUEUE_DEPTH"] = 3;
  s.custom_errors["RECORD_LATENCY_MS"] = "no value for vertex sink";
  in.samples = {s};
  const Json j = ToJson(in);
  EXPECT_EQ(j["samples"][0]["vertices"]["src"]["custom"]["RECORD_LATENCY_MS"], 12.5);
  EXPECT_EQ(j["samples"][0]["job"]["custom"]["QUEUE_DEPTH"], 3);
  EXPECT_EQ(j["customMetrics"][1]["source"], "prometheus");
  auto back = AutoscalerInputFromJson(j, "input");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->custom_metrics.size(), 2u);
  EXPECT_EQ(back->custom_metrics[0].requirement, kLatency);
  EXPECT_EQ(back->custom_metrics[0].consumers, std::set<std::string>{"latency-gate"});
  EXPECT_EQ(back->custom_metrics[1].requirement, kQueue);
  EXPECT_EQ(back->samples[0].vertices.at("src").custom, s.vertices.at("src").custom);
  EXPECT_EQ(back->samples[0].job.custom, s.job.custom);
  EXPECT_EQ(back->samples[0].custom_errors, s.custom_errors);
  EXPECT_EQ(ToJson(*back), j);
}

}  // namespace
}  // namespace trimtab::core::flink
