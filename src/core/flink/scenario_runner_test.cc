// Runs every tests/scenarios/flink/*.yaml scenario through RunAutoscalerCycle, or through
// RunAutoscalerCycleWithChain when the scenario names an executor chain.
//
// Scenario format (docs/eval-flink.md has the input document it is built from):
//   name, description, group        header
//   topology, configuration, resources   the job (as in the eval input document)
//   chain?                          executor chain (docs/plugins.md: {"plugins": [...]}, built-in
//                                   types); its notes join the log (stage "chain")
//   steps: list of cycles, state carried from one to the next:
//     now, jobStatus?, jobRunningSince?, samples   the cycle's input
//     topology? / configuration?    replace the topology / merge into the configuration
//     freshState?: true             start from an empty state (plugin states too)
//     pluginStates?: {plugin: state}   replace the plugins' private states before the cycle
//     expect:
//       error?: text the error message must contain (the step must fail)
//       outcome?: Scale | NoChange | Blocked | WindowNotFull | ...
//       parallelism?: {vertex: final parallelism}
//       proposed?: {vertex: proposed parallelism, or null for "no proposal"}
//       metrics?: {vertex: {METRIC: {current?, average?}}}   (relative tolerance 1e-6;
//                 METRIC: null = the metric must have no value)
//       global?: {METRIC: {current?, average?}}
//       reasons?: {vertex: text one of its reasons must contain}
//       log?: [texts some stage note must contain]
//       events?: [event reasons, in order]
//       eventMessages?: [texts some event's message must contain]
//       stateIncludes?: JSON the new state must include (objects: these keys, recursively;
//                       arrays: the same length, element by element; other values: equal)
//       configOverrides?: {key: value} memory tuning's overrides of this cycle (exactly these;
//                         {} = none)
//       configRemovals?: [keys] memory tuning's removals of this cycle (exactly these)
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/flink/autoscaler.h"
#include "core/flink/autoscaler_json.h"
#include "core/flink/cycle_with_chain.h"
#include "plugins/builtin/builtin_plugins.h"
#include "plugins/loader/chain_builder.h"

namespace trimtab::core::flink {
namespace {

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> out;
  const std::filesystem::path dir =
      std::filesystem::path(TRIMTAB_SOURCE_DIR) / "tests" / "scenarios" / "flink";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool Near(double expected, double actual) {
  if (std::isinf(expected)) return expected == actual;
  return std::fabs(expected - actual) <= 1e-6 * std::max(1.0, std::fabs(expected));
}

double Num(const Json& j) {
  if (j.is_string()) return j == "Infinity" ? INFINITY : -INFINITY;
  return j.get<double>();
}

void CheckMetrics(const Json& expected, const MetricMap& actual, const std::string& where) {
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    const EvaluatedMetric* m = actual.Find(it.key());
    if (it.value().is_null()) {
      EXPECT_TRUE(m == nullptr || (!m->current && !m->average))
          << where << ": metric " << it.key() << " should have no value";
      continue;
    }
    ASSERT_NE(m, nullptr) << where << ": metric " << it.key() << " missing";
    for (const char* field : {"current", "average"}) {
      if (!it.value().contains(field)) continue;
      const std::optional<double>& v =
          std::string(field) == "current" ? m->current : m->average;
      const Json& e = it.value()[field];
      if (e.is_null()) {
        EXPECT_FALSE(v.has_value()) << where << " " << it.key() << "." << field;
        continue;
      }
      ASSERT_TRUE(v.has_value()) << where << " " << it.key() << "." << field << " absent";
      EXPECT_TRUE(Near(Num(e), *v)) << where << " " << it.key() << "." << field << ": expected "
                                    << e.dump() << ", got " << *v;
    }
  }
}

// Whether `actual` includes `expected` (stateIncludes above); *why says where it does not.
bool Includes(const Json& expected, const Json& actual, const std::string& path,
              std::string* why) {
  if (expected.is_object()) {
    if (!actual.is_object()) {
      *why = path + ": expected an object, got " + actual.dump();
      return false;
    }
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      if (!actual.contains(it.key())) {
        *why = path + "." + it.key() + ": missing";
        return false;
      }
      if (!Includes(it.value(), actual[it.key()], path + "." + it.key(), why)) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      *why = path + ": expected " + std::to_string(expected.size()) + " elements, got " +
             actual.dump();
      return false;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      if (!Includes(expected[i], actual[i], path + "[" + std::to_string(i) + "]", why)) {
        return false;
      }
    }
    return true;
  }
  if (expected.is_number() && actual.is_number()) {
    if (Near(expected.get<double>(), actual.get<double>())) return true;
  } else if (expected == actual) {
    return true;
  }
  *why = path + ": expected " + expected.dump() + ", got " + actual.dump();
  return false;
}

void RunScenario(const std::string& file) {
  auto text = ReadFile(file);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto doc = ParseYaml(*text, file);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_TRUE(doc->contains("name") && doc->contains("steps")) << file << ": name/steps missing";
  Json base = Json::object();
  for (const char* k : {"topology", "configuration", "resources"}) {
    if (doc->contains(k)) base[k] = (*doc)[k];
  }
  AutoscalerState state;
  if (doc->contains("state")) {
    auto s = AutoscalerStateFromJson((*doc)["state"], "state");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    state = *s;
  }
  std::optional<plugins::BuiltChain> chain;
  core::ExecutorPluginRegistry registry;
  if (doc->contains("chain")) {
    ASSERT_TRUE(plugins::RegisterBuiltinExecutorPlugins(registry).ok());
    StatusOr<plugins::BuiltChain> built =
        plugins::BuildExecutorChain((*doc)["chain"], "chain", registry);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    chain = std::move(built).value();
  }
  Json plugin_states = Json::object();
  const Json& steps = (*doc)["steps"];
  for (size_t i = 0; i < steps.size(); ++i) {
    const Json& step = steps[i];
    const std::string where = (*doc)["name"].get<std::string>() + " step " + std::to_string(i);
    SCOPED_TRACE(where);
    Json input = base;
    for (auto it = step.begin(); it != step.end(); ++it) {
      if (it.key() == "expect" || it.key() == "freshState" || it.key() == "pluginStates") continue;
      if (it.key() == "configuration") {
        for (auto c = it.value().begin(); c != it.value().end(); ++c) {
          input["configuration"][c.key()] = c.value();
        }
      } else {
        input[it.key()] = it.value();
      }
    }
    if (step.value("freshState", false)) {
      state = AutoscalerState{};
      plugin_states = Json::object();
    }
    if (step.contains("pluginStates")) {
      for (auto it = step["pluginStates"].begin(); it != step["pluginStates"].end(); ++it) {
        plugin_states[it.key()] = it.value();
      }
    }
    const Json expect = step.value("expect", Json::object());
    auto in = AutoscalerInputFromJson(input, "steps[" + std::to_string(i) + "]");
    StatusOr<AutoscalerResult> r = InternalError("not run");
    if (!in.ok()) {
      r = in.status();
    } else if (chain) {
      ChainedCycleInput chained{.cycle = *in};
      chained.context.job_key = (*doc)["name"].get<std::string>();
      StatusOr<ChainedCycleResult> cr =
          RunAutoscalerCycleWithChain(chained, state, chain->chain, &plugin_states);
      r = cr.ok() ? StatusOr<AutoscalerResult>(std::move(cr->cycle))
                  : StatusOr<AutoscalerResult>(cr.status());
    } else {
      r = RunAutoscalerCycle(*in, state);
    }
    if (expect.contains("error")) {
      ASSERT_FALSE(r.ok()) << where << ": expected an error";
      EXPECT_NE(r.status().message().find(expect["error"].get<std::string>()), std::string::npos)
          << r.status().message();
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const Json log = ToJson(r->log);
    SCOPED_TRACE(log.dump(2));
    if (expect.contains("outcome")) {
      EXPECT_EQ(std::string(CycleOutcomeName(r->log.outcome)), expect["outcome"].get<std::string>());
    }
    if (expect.contains("parallelism")) {
      for (auto it = expect["parallelism"].begin(); it != expect["parallelism"].end(); ++it) {
        ASSERT_TRUE(r->log.vertices.count(it.key())) << it.key();
        EXPECT_EQ(r->log.vertices.at(it.key()).final_parallelism, it.value().get<int>())
            << "final parallelism of " << it.key();
      }
    }
    if (expect.contains("proposed")) {
      for (auto it = expect["proposed"].begin(); it != expect["proposed"].end(); ++it) {
        ASSERT_TRUE(r->log.vertices.count(it.key())) << it.key();
        const auto& p = r->log.vertices.at(it.key()).proposed_parallelism;
        if (it.value().is_null()) {
          EXPECT_FALSE(p.has_value()) << "proposal of " << it.key();
        } else {
          ASSERT_TRUE(p.has_value()) << "proposal of " << it.key();
          EXPECT_EQ(*p, it.value().get<int>()) << "proposal of " << it.key();
        }
      }
    }
    if (expect.contains("metrics")) {
      for (auto it = expect["metrics"].begin(); it != expect["metrics"].end(); ++it) {
        ASSERT_TRUE(r->evaluated.vertices.count(it.key())) << it.key() << " not evaluated";
        CheckMetrics(it.value(), r->evaluated.vertices.at(it.key()), where + " " + it.key());
      }
    }
    if (expect.contains("global")) CheckMetrics(expect["global"], r->evaluated.global, where);
    if (expect.contains("reasons")) {
      for (auto it = expect["reasons"].begin(); it != expect["reasons"].end(); ++it) {
        const auto& reasons = r->log.vertices.at(it.key()).reasons;
        const std::string want = it.value().get<std::string>();
        bool found = false;
        for (const std::string& s : reasons) found = found || s.find(want) != std::string::npos;
        EXPECT_TRUE(found) << it.key() << ": no reason contains \"" << want << "\"";
      }
    }
    if (expect.contains("log")) {
      for (const Json& want : expect["log"]) {
        bool found = false;
        for (const auto& [stage, notes] : r->log.stages) {
          for (const std::string& n : notes) found = found || n.find(want.get<std::string>()) != std::string::npos;
        }
        EXPECT_TRUE(found) << "no stage note contains " << want.dump();
      }
    }
    if (expect.contains("events")) {
      std::vector<std::string> reasons;
      for (const AutoscalerEvent& e : r->log.events) reasons.push_back(e.reason);
      EXPECT_EQ(reasons, expect["events"].get<std::vector<std::string>>());
    }
    if (expect.contains("eventMessages")) {
      for (const Json& want : expect["eventMessages"]) {
        bool found = false;
        for (const AutoscalerEvent& e : r->log.events) {
          found = found || e.message.find(want.get<std::string>()) != std::string::npos;
        }
        EXPECT_TRUE(found) << "no event message contains " << want.dump();
      }
    }
    if (expect.contains("stateIncludes")) {
      std::string why;
      EXPECT_TRUE(Includes(expect["stateIncludes"], ToJson(r->state), "state", &why)) << why;
    }
    if (expect.contains("configOverrides")) {
      EXPECT_EQ(r->config_overrides.overrides,
                (expect["configOverrides"].get<std::map<std::string, std::string>>()));
    }
    if (expect.contains("configRemovals")) {
      EXPECT_EQ(r->config_overrides.removals,
                (expect["configRemovals"].get<std::set<std::string>>()));
    }
    // The state survives its JSON codec unchanged (as it would through a ConfigMap).
    auto round_trip = AutoscalerStateFromJson(ToJson(r->state), "state");
    ASSERT_TRUE(round_trip.ok()) << round_trip.status().ToString();
    EXPECT_EQ(ToJson(*round_trip), ToJson(r->state));
    state = std::move(*round_trip);
  }
}

class FlinkScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FlinkScenarioTest, Run) { RunScenario(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Scenarios, FlinkScenarioTest, ::testing::ValuesIn(ScenarioFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = std::filesystem::path(info.param).stem().string();
                           for (char& c : n) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(FlinkScenarioFilesTest, AllRequiredTopicsPresent) {
  const std::vector<std::string> files = ScenarioFiles();
  EXPECT_GE(files.size(), 7u);
}

}  // namespace
}  // namespace trimtab::core::flink
