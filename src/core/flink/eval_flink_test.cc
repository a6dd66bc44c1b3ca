// Runs the documented examples (examples/eval/flink-*.json, docs/eval-flink.md) through the
// library entry point of `trimtab eval flink`, plus its error reporting.
#include "core/flink/eval_flink.h"

#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/chain/chain_test_util.h"

namespace trimtab::core::flink {
namespace {

struct Expected {
  std::string outcome;
  std::map<std::string, int> final_parallelism;
};

// What docs/eval-flink.md says each example does.
const std::map<std::string, Expected>& Expectations() {
  static const auto* kExpected = new std::map<std::string, Expected>{
      {"flink-scale-up.json", {"Scale", {{"source", 5}, {"sink", 3}}}},
      {"flink-window-not-full.json", {"WindowNotFull", {{"source", 1}, {"sink", 1}}}},
      {"flink-blocked-gc.json", {"Blocked", {{"source", 1}, {"sink", 1}}}},
      {"flink-behavior.json", {"Scale", {{"source", 8}, {"keyed", 8}}}},
      {"flink-custom-metrics.json", {"Scale", {{"source", 5}, {"sink", 3}}}},
      {"flink-evaluated-metrics.json", {"Scale", {{"source", 5}, {"sink", 3}}}},
  };
  return *kExpected;
}

StatusOr<Json> RunExample(const std::string& name) {
  const std::string path = std::string(TRIMTAB_SOURCE_DIR) + "/examples/eval/" + name;
  TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseJson(text, path));
  return EvaluateFlinkDocument(doc);
}

TEST(EvalFlinkTest, EveryExampleHasAnExpectation) {
  size_t n = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(TRIMTAB_SOURCE_DIR) + "/examples/eval")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("flink-", 0) != 0) continue;
    EXPECT_TRUE(Expectations().count(name)) << name << " has no expectation";
    ++n;
  }
  EXPECT_EQ(n, Expectations().size());
}

TEST(EvalFlinkTest, Examples) {
  for (const auto& [name, expected] : Expectations()) {
    SCOPED_TRACE(name);
    auto out = RunExample(name);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)["outcome"], expected.outcome);
    for (const auto& [vertex, p] : expected.final_parallelism) {
      EXPECT_EQ((*out)["vertices"][vertex]["finalParallelism"], p) << vertex;
      EXPECT_EQ((*out)["decisionLog"]["vertices"][vertex]["finalParallelism"], p) << vertex;
    }
  }
}

TEST(EvalFlinkTest, ScaleUpExampleDetails) {
  auto out = RunExample("flink-scale-up.json");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Json& src = (*out)["vertices"]["source"];
  EXPECT_EQ(src["proposedParallelism"], 5);
  EXPECT_DOUBLE_EQ(src["metrics"]["TARGET_DATA_RATE"]["average"].get<double>(), 150);
  EXPECT_DOUBLE_EQ(src["metrics"]["CATCH_UP_DATA_RATE"]["current"].get<double>(), 500);
  EXPECT_DOUBLE_EQ((*out)["globalMetrics"]["GC_PRESSURE"]["current"].get<double>(), 0.03);
  EXPECT_DOUBLE_EQ((*out)["globalMetrics"]["HEAP_MAX_USAGE_RATIO"]["average"].get<double>(), 0.45);
  EXPECT_EQ((*out)["scalingSummaries"]["sink"]["newParallelism"], 3);
  // The committed state: history per scaled vertex and overrides for all vertices.
  EXPECT_EQ((*out)["state"]["parallelismOverrides"], (Json{{"sink", 3}, {"source", 5}}));
  EXPECT_EQ((*out)["state"]["scalingHistory"]["source"].size(), 1u);
  const Json& events = (*out)["decisionLog"]["events"];
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["reason"], "ScalingReport");
  EXPECT_NE(events[0]["message"].get<std::string>().find(
                "{ Vertex ID source | Parallelism 1 -> 5 | Processing capacity 142.86 -> 714.29 | "
                "Target data rate 150.00}"),
            std::string::npos)
      << events[0]["message"];
}

TEST(EvalFlinkTest, BehaviorExampleExplainsTheLimit) {
  auto out = RunExample("flink-behavior.json");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["vertices"]["source"]["proposedParallelism"], 5);
  const Json& reasons = (*out)["decisionLog"]["vertices"]["source"]["reasons"];
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_NE(reasons[1].get<std::string>().find("rate limit 8"), std::string::npos) << reasons;
  // The HPA engine's history is kept per vertex: one recommendation and one scale-down event.
  const Json& b = (*out)["state"]["behavior"]["source"];
  EXPECT_EQ(b["recommendations"].size(), 1u);
  EXPECT_EQ(b["scaleDownEvents"][0]["replicaChange"], 2);
}

TEST(EvalFlinkTest, CustomMetricsExampleFlowsToEveryOutput) {
  auto out = RunExample("flink-custom-metrics.json");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // TaskManager scope: current = newest sample, average over both samples.
  const Json& cpu = (*out)["globalMetrics"]["TM_CPU_AVG"];
  EXPECT_DOUBLE_EQ(cpu["current"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(cpu["average"].get<double>(), 0.7);
  // Job scope (Prometheus): the first fetch failed, so only the second sample counts.
  const Json& lag = (*out)["globalMetrics"]["KAFKA_CONSUMER_LAG"];
  EXPECT_DOUBLE_EQ(lag["current"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(lag["average"].get<double>(), 1000);
  // Vertex scope: the sink has no value in the newest sample, so no current (never 0).
  const Json& src = (*out)["vertices"]["source"]["metrics"]["RECORD_LATENCY_MS"];
  EXPECT_DOUBLE_EQ(src["current"].get<double>(), 180);
  EXPECT_DOUBLE_EQ(src["average"].get<double>(), 150);
  const Json& sink = (*out)["vertices"]["sink"]["metrics"]["RECORD_LATENCY_MS"];
  EXPECT_FALSE(sink.contains("current")) << sink;
  EXPECT_DOUBLE_EQ(sink["average"].get<double>(), 40);
  // The scaling summaries handed to the plugin chain carry the vertex metrics too.
  EXPECT_DOUBLE_EQ(
      (*out)["scalingSummaries"]["source"]["metrics"]["RECORD_LATENCY_MS"]["average"].get<double>(),
      150);
  // The window keeps the values; the failed fetch left KAFKA_CONSUMER_LAG out of sample 0.
  const Json& window = (*out)["state"]["metricWindow"];
  ASSERT_EQ(window.size(), 2u);
  EXPECT_FALSE(window[0]["global"].contains("KAFKA_CONSUMER_LAG")) << window[0];
  EXPECT_DOUBLE_EQ(window[1]["global"]["KAFKA_CONSUMER_LAG"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(window[0]["vertices"]["sink"]["RECORD_LATENCY_MS"].get<double>(), 40);
  // The decision log records the failures and the evaluated values.
  const std::string collect = (*out)["decisionLog"]["stages"]["collect"].dump();
  EXPECT_NE(collect.find("custom metric KAFKA_CONSUMER_LAG in the sample at 2024-05-01T12:00:00Z"),
            std::string::npos)
      << collect;
  EXPECT_NE(collect.find("connection refused; absent from this sample"), std::string::npos)
      << collect;
  EXPECT_NE(collect.find("no value for vertex sink"), std::string::npos) << collect;
  const std::string evaluate = (*out)["decisionLog"]["stages"]["evaluate"].dump();
  EXPECT_NE(evaluate.find("custom TM_CPU_AVG: current 0.8, window average 0.7"), std::string::npos)
      << evaluate;
  EXPECT_NE(evaluate.find("custom RECORD_LATENCY_MS: source current 180, window average 150; "
                          "sink current absent, window average 40"),
            std::string::npos)
      << evaluate;
}

TEST(EvalFlinkTest, StateRoundTripsThroughASecondCycle) {
  auto out = RunExample("flink-window-not-full.json");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)["state"]["metricWindow"].size(), 2u);
  // Feed the state back with no new samples: nothing is lost, still not full.
  Json doc = *ParseJson(*ReadFile(std::string(TRIMTAB_SOURCE_DIR) +
                                  "/examples/eval/flink-window-not-full.json"),
                        "doc");
  doc["samples"] = Json::array();
  doc["state"] = (*out)["state"];
  doc["now"] = "2024-05-01T12:00:30Z";
  auto again = EvaluateFlinkDocument(doc);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)["outcome"], "WindowNotFull");
  EXPECT_EQ((*again)["state"]["metricWindow"], (*out)["state"]["metricWindow"]);
}

// Issue 23: a configuration the autoscaler cannot read is reported as upstream reports it, a
// Warning AutoscalerError event, with nothing decided and the stored overrides in force.
TEST(EvalFlinkTest, AConfigurationErrorIsAnAutoscalerErrorEvent) {
  Json doc = *ParseJson(*ReadFile(std::string(TRIMTAB_SOURCE_DIR) +
                                  "/examples/eval/flink-scale-up.json"),
                        "doc");
  doc["configuration"]["job.autoscaler.metrics.window"] = "soon";
  doc["state"] = {{"parallelismOverrides", {{"source", 4}}}};
  doc["userParallelismOverrides"] = {{"sink", 2}, {"source", 1}};
  auto out = EvaluateFlinkDocument(doc);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["outcome"], "ConfigurationError");
  const Json& events = (*out)["decisionLog"]["events"];
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "Warning");
  EXPECT_EQ(events[0]["reason"], "AutoscalerError");
  EXPECT_NE(events[0]["message"].get<std::string>().find(
                "configuration: job.autoscaler.metrics.window: invalid duration"),
            std::string::npos)
      << events[0]["message"];
  EXPECT_EQ((*out)["state"]["parallelismOverrides"], (Json{{"source", 4}}));
  EXPECT_EQ((*out)["realizedParallelismOverrides"], (Json{{"sink", 2}, {"source", 4}}));
  EXPECT_TRUE((*out)["scalingSummaries"].empty());
}

// Issue 23: a source's partitions counted from its metric names, as the operator's collector
// counts them.
TEST(EvalFlinkTest, SourcePartitionsAreCountedFromMetricNames) {
  Json doc = *ParseJson(*ReadFile(std::string(TRIMTAB_SOURCE_DIR) +
                                  "/examples/eval/flink-scale-up.json"),
                        "doc");
  Json& source = doc["topology"]["vertices"][0];
  ASSERT_EQ(source["id"], "source");
  source.erase("partitions");
  // Topic a's 4 partitions seen from two subtasks, topic b's 3, and a metric of another kind:
  // 7 partitions.
  Json names = Json::array();
  for (int subtask = 0; subtask < 2; ++subtask) {
    for (int p = 0; p < 4; ++p) {
      names.push_back(std::to_string(subtask) + ".Source__events.KafkaSourceReader.topic.a." +
                      "partition." + std::to_string(p) + ".currentOffset");
    }
  }
  for (int p = 0; p < 3; ++p) {
    names.push_back("0.Source__events.KafkaSourceReader.topic.b.partition." + std::to_string(p) +
                    ".currentOffset");
  }
  names.push_back("0.Source__events.numRecordsOutPerSecond");
  source["sourceMetricNames"] = names;
  auto out = EvaluateFlinkDocument(doc);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // The proposal 5 is aligned to the partitions (BALANCED): 7, where without partitions a
  // source is not aligned and stays at 5.
  EXPECT_EQ((*out)["vertices"]["source"]["finalParallelism"], 7);
  EXPECT_EQ((*out)["vertices"]["source"]["limits"],
            (Json{{"lower", 1}, {"upper", 128}, {"maxParallelism", 128}, {"explicit", false},
                  {"partitions", 7}, {"alignedTo", "partitions"}}));
  // Alignment applied to the source's proposal this cycle and moved it; the sink has no
  // partitions and no HASH input.
  EXPECT_EQ((*out)["vertices"]["source"]["alignment"],
            (Json{{"applied", true}, {"to", "partitions"}, {"mode", "BALANCED"}, {"units", 7},
                  {"unaligned", 5}, {"aligned", 7}, {"changed", true}}));
  EXPECT_EQ((*out)["vertices"]["sink"]["alignment"], (Json{{"applied", false}}));
  EXPECT_EQ((*out)["vertices"]["sink"]["limits"]["alignedTo"], nullptr);
  source.erase("sourceMetricNames");
  EXPECT_EQ((*EvaluateFlinkDocument(doc))["vertices"]["source"]["finalParallelism"], 5);
  source["sourceMetricNames"] = "x";
  EXPECT_NE(EvaluateFlinkDocument(doc).status().message().find(
                "vertices[0].sourceMetricNames: expected an array"),
            std::string::npos);
}

TEST(EvalFlinkTest, BadInputNamesTheField) {
  const Json base = *ParseJson(*ReadFile(std::string(TRIMTAB_SOURCE_DIR) +
                                         "/examples/eval/flink-scale-up.json"),
                               "doc");
  struct Case {
    std::function<void(Json&)> mutate;
    std::string message_prefix;
  };
  const std::vector<Case> cases = {
      {[](Json& d) { d.erase("now"); }, "input.now: required field is missing"},
      {[](Json& d) { d["samples"][1]["vertices"]["sink"]["busyTimeMsPerSecond"] = "busy"; },
       "input.samples[1].vertices.sink.busyTimeMsPerSecond"},
      {[](Json& d) { d["samples"][0]["vertices"]["nope"] = Json::object(); },
       "input.samples[0].vertices.nope: unknown vertex"},
      {[](Json& d) { d["samples"][0]["vertices"]["source"]["bogus"] = 1; },
       "input.samples[0].vertices.source.bogus"},
      {[](Json& d) { d["topology"]["vertices"][0]["parallelism"] = 0; },
       "input.topology.vertices[0].parallelism: must be at least 1"},
      {[](Json& d) { d["state"] = {{"metricWindow", 3}}; }, "input.state.metricWindow: expected an array"},
      {[](Json& d) { d["samples"][1]["vertices"]["sink"].erase("busyTimeMsPerSecond"); },
       "samples[1].vertices.sink.busyTimeMsPerSecond: required metric is missing"},
      {[](Json& d) { d["samples"][0]["job"]["custom"] = {{"QUEUE_DEPTH", 3}}; },
       "samples[0].job.custom.QUEUE_DEPTH: custom metric is not declared"},
      {[](Json& d) {
         d["customMetrics"] = Json::array({{{"name", "QUEUE_DEPTH"}, {"scope", "job"},
                                            {"source", "prometheus"}, {"query", "q"}}});
         d["samples"][0]["vertices"]["sink"]["custom"] = {{"QUEUE_DEPTH", 3}};
       },
       "samples[0].vertices.sink.custom.QUEUE_DEPTH: custom metric is declared with scope job"},
      {[](Json& d) {
         d["customMetrics"] =
             Json::array({{{"name", "LOAD"}, {"scope", "vertex"}, {"query", "q"}}});
       },
       "customMetrics[0]: metric \"LOAD\" is a built-in metric name"},
      {[](Json& d) {
         d["customMetrics"] = Json::array({{{"name", "X"}, {"scope", "cluster"}, {"query", "q"}}});
       },
       "input.customMetrics[0].scope: Unsupported value: \"cluster\""},
  };
  for (const Case& c : cases) {
    Json doc = base;
    c.mutate(doc);
    auto out = EvaluateFlinkDocument(doc);
    ASSERT_FALSE(out.ok()) << c.message_prefix;
    EXPECT_EQ(out.status().message().rfind(c.message_prefix, 0), 0u) << out.status().message();
  }
}


// Issue 23: the realized overrides (user's merged with the autoscaler's, excluded vertices keep
// the user's value), the excluded vertices and the backlog flag are outputs.
TEST(EvalFlinkTest, RealizedOverridesExcludedVerticesAndBacklog) {
  const std::string path = std::string(TRIMTAB_SOURCE_DIR) + "/examples/eval/flink-scale-up.json";
  auto text = ReadFile(path);
  ASSERT_TRUE(text.ok());
  auto doc = ParseJson(*text, path);
  ASSERT_TRUE(doc.ok());
  (*doc)["userParallelismOverrides"] = {{"source", 2}, {"sink", 7}};
  (*doc)["configuration"]["job.autoscaler.vertex.exclude.ids"] = "sink";
  auto out = EvaluateFlinkDocument(*doc);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["excludedVertices"], Json::array({"sink"}));
  EXPECT_EQ((*out)["vertices"]["source"]["finalParallelism"], 5);
  EXPECT_EQ((*out)["realizedParallelismOverrides"], (Json{{"source", 5}, {"sink", 7}}));
  EXPECT_TRUE((*out)["processingBacklog"].is_boolean());
  // Disabled: the user's overrides alone.
  (*doc)["configuration"]["job.autoscaler.enabled"] = "false";
  out = EvaluateFlinkDocument(*doc);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)["realizedParallelismOverrides"], (Json{{"source", 2}, {"sink", 7}}));
  (*doc)["userParallelismOverrides"] = {{"source", 0}};
  out = EvaluateFlinkDocument(*doc);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message().rfind("input.userParallelismOverrides.source", 0), 0u);
}

Json ScaleUpExample() {
  const std::string path = std::string(TRIMTAB_SOURCE_DIR) + "/examples/eval/flink-scale-up.json";
  return *ParseJson(*ReadFile(path), path);
}

// The input of the evaluated-metrics mode made from a result: its metrics, without samples.
Json EvaluatedInputFrom(Json doc, const Json& result) {
  doc.erase("samples");
  Json vertices = Json::object();
  for (auto it = result["vertices"].begin(); it != result["vertices"].end(); ++it) {
    vertices[it.key()] = it.value()["metrics"];
  }
  doc["evaluatedMetrics"] = {{"vertices", vertices}, {"global", result["globalMetrics"]}};
  return doc;
}

// Issue 23: evaluated metrics in, decide -> shape out, with nothing collected or evaluated. The
// scale-up example's own evaluated metrics give its decision again.
TEST(EvalFlinkTest, EvaluatedMetricsRunDecideAndShape) {
  const Json doc = ScaleUpExample();
  auto full = EvaluateFlinkDocument(doc);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  const Json input = EvaluatedInputFrom(doc, *full);
  auto out = EvaluateFlinkDocument(input);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["outcome"], "Scale");
  EXPECT_EQ((*out)["vertices"]["source"]["finalParallelism"], 5);
  EXPECT_EQ((*out)["vertices"]["sink"]["finalParallelism"], 3);
  EXPECT_EQ((*out)["scalingSummaries"], (*full)["scalingSummaries"]);
  const Json& stages = (*out)["decisionLog"]["stages"];
  EXPECT_TRUE(!stages.contains("collect") || stages["collect"].empty()) << stages.dump();
  ASSERT_TRUE(stages.contains("evaluate"));
  EXPECT_EQ(stages["evaluate"][0].get<std::string>().rfind("evaluated metrics given", 0), 0u);
  EXPECT_TRUE((*out)["state"]["metricWindow"].empty());
  EXPECT_EQ((*out)["realizedParallelismOverrides"], (Json{{"sink", 3}, {"source", 5}}));

  // A TPR inside the band: no change; a finished vertex needs no metrics.
  Json calm = input;
  calm["evaluatedMetrics"]["vertices"]["source"]["TRUE_PROCESSING_RATE"]["average"] = 500;
  calm["evaluatedMetrics"]["vertices"]["source"]["CATCH_UP_DATA_RATE"]["current"] = 0;
  calm["topology"]["vertices"][1]["finished"] = true;
  calm["evaluatedMetrics"]["vertices"].erase("sink");
  out = EvaluateFlinkDocument(calm);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["outcome"], "NoChange");

  // Errors name the field.
  Json both = input;
  both["samples"] = doc["samples"];
  EXPECT_EQ(EvaluateFlinkDocument(both).status().message().rfind(
                "input.samples: evaluatedMetrics are given", 0),
            0u);
  Json missing = input;
  missing["evaluatedMetrics"]["vertices"].erase("sink");
  EXPECT_EQ(EvaluateFlinkDocument(missing).status().message().rfind(
                "evaluatedMetrics.vertices.sink: required", 0),
            0u);
  Json partitions = input;
  partitions["evaluatedMetrics"]["vertices"]["source"]["NUM_SOURCE_PARTITIONS"] = {
      {"current", 2.5}};
  EXPECT_EQ(EvaluateFlinkDocument(partitions).status().message().rfind(
                "evaluatedMetrics.vertices.source.NUM_SOURCE_PARTITIONS: expected a whole number",
                0),
            0u);
  // The parallelism is the topology's whatever the metrics say.
  Json parallelism = input;
  parallelism["evaluatedMetrics"]["vertices"]["source"]["PARALLELISM"] = {{"current", 1e300}};
  ASSERT_TRUE(EvaluateFlinkDocument(parallelism).ok());
  EXPECT_EQ((*EvaluateFlinkDocument(parallelism))["vertices"]["source"]["finalParallelism"], 5);
  Json unknown = input;
  unknown["evaluatedMetrics"]["vertices"]["nope"] = Json::object();
  EXPECT_EQ(EvaluateFlinkDocument(unknown).status().message().rfind(
                "evaluatedMetrics.vertices.nope: unknown vertex", 0),
            0u);
}

// Issue 23: explicit per-vertex limits replace vertex.min-parallelism / vertex.max-parallelism.
TEST(EvalFlinkTest, ExplicitParallelismLimits) {
  Json doc = ScaleUpExample();
  doc["parallelismLimits"] = {{"source", {{"max", 3}}}};
  auto out = EvaluateFlinkDocument(doc);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["vertices"]["source"]["finalParallelism"], 3);
  EXPECT_EQ((*out)["vertices"]["source"]["limits"]["upper"], 3);
  EXPECT_EQ((*out)["vertices"]["source"]["limits"]["explicit"], true);
  EXPECT_EQ((*out)["vertices"]["sink"]["finalParallelism"], 3);
  EXPECT_EQ((*out)["vertices"]["sink"]["limits"]["explicit"], false);
  // A lower limit counts as upstream's vertex.min-parallelism does: min(current, limit), so a
  // limit above the current parallelism does not force a scale-up.
  doc["parallelismLimits"] = {{"sink", {{"min", 6}}}};
  out = EvaluateFlinkDocument(doc);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["vertices"]["sink"]["limits"]["lower"], 1);
  EXPECT_EQ((*out)["vertices"]["sink"]["limits"]["explicit"], true);
  EXPECT_EQ((*out)["vertices"]["sink"]["finalParallelism"], 3);
  for (const auto& [limits, error] : std::vector<std::pair<Json, std::string>>{
           {{{"sink", {{"min", 0}}}}, "input.parallelismLimits.sink.min: must be a positive"},
           {{{"sink", {{"min", 4}, {"max", 2}}}}, "input.parallelismLimits.sink.max: must be at least min 4"},
           {{{"nope", {{"max", 2}}}}, "input.parallelismLimits.nope: unknown vertex"},
           {{{"sink", {{"maximum", 2}}}}, "input.parallelismLimits.sink.maximum"}}) {
    doc["parallelismLimits"] = limits;
    EXPECT_EQ(EvaluateFlinkDocument(doc).status().message().rfind(error, 0), 0u)
        << EvaluateFlinkDocument(doc).status().message();
  }
}

// Issue 23: decide -> shape -> chain. The chain's verdict decides what is committed and realized.
TEST(EvalFlinkTest, TheExecutorChainRunsWhenTheDocumentNamesOne) {
  Json doc = ScaleUpExample();
  doc["chain"] = {{"plugins", Json::array()}};
  // Without a chain built by the caller the document is refused.
  EXPECT_EQ(EvaluateFlinkDocument(doc).status().message().rfind("input.chain:", 0), 0u);
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins;
  plugins.push_back(core::testing::MakePlugin("cap", 5, [](auto&, const ScalingSummaries& in,
                                                            auto&, Json& state) {
    ScalingSummaries out = in;
    for (auto& [id, s] : out) s.new_parallelism = std::min(s.new_parallelism, 2);
    state = Json{{"runs", state.value("runs", 0) + 1}};
    return StatusOr<ExecutorResult>(ExecutorResult::Modify(out, "at most 2"));
  }));
  ExecutorChain chain = *ExecutorChain::Create(std::move(plugins));
  doc["pluginStates"] = {{"cap", {{"runs", 4}}}};
  auto out = EvaluateFlinkDocument(doc, &chain);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["outcome"], "Scale");
  EXPECT_EQ((*out)["vertices"]["source"]["proposedParallelism"], 5);
  EXPECT_EQ((*out)["vertices"]["source"]["finalParallelism"], 2);
  EXPECT_EQ((*out)["realizedParallelismOverrides"], (Json{{"sink", 2}, {"source", 2}}));
  EXPECT_EQ((*out)["pluginStates"], (Json{{"cap", {{"runs", 5}}}}));
  ASSERT_TRUE((*out)["chain"].is_object());
  EXPECT_EQ((*out)["chain"]["steps"][0]["plugin"], "cap");
  // Evaluated metrics through the chain as well.
  auto full = EvaluateFlinkDocument(ScaleUpExample());
  ASSERT_TRUE(full.ok());
  Json evaluated = EvaluatedInputFrom(doc, *full);
  out = EvaluateFlinkDocument(evaluated, &chain);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["vertices"]["source"]["finalParallelism"], 2);
}

}  // namespace
}  // namespace trimtab::core::flink
