// Runs every tests/scenarios/hpa/*.yaml scenario (format: docs/scenarios.md). Each step becomes
// one `trimtab eval hpa` document; the HPA state and the replica count carry over from step to
// step, so a scenario replays a sequence of controller syncs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/hpa/decision_json.h"
#include "core/hpa/eval.h"

namespace trimtab::core::hpa {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> files;
  const fs::path dir = fs::path(TRIMTAB_SOURCE_DIR) / "tests" / "scenarios" / "hpa";
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Json GeneratedPods(int64_t count) {
  Json pods = Json::array();
  for (int64_t i = 0; i < count; ++i) {
    pods.push_back({{"name", "pod-" + std::to_string(i)},
                    {"ready", true},
                    {"startTime", "2000-01-01T00:00:00Z"},
                    {"readyTransitionTime", "2000-01-01T00:00:30Z"}});
  }
  return pods;
}

// Checks one step's expectations against the decision; returns "" or what differed.
std::string CheckExpect(const Json& expect, const std::string& path, const HpaDecision& d,
                        const Json& out) {
  JsonReader r(expect, path);
  Status st = r.ExpectObject();
  if (!st.ok()) return st.message();
  std::string diff;
  std::optional<int64_t> desired;
  if (!(st = r.OptionalInt("desiredReplicas", &desired)).ok()) return st.message();
  if (desired && *desired != d.desired_replicas) {
    diff += "desiredReplicas: want " + std::to_string(*desired) + ", got " +
            std::to_string(d.desired_replicas) + "\n";
  }
  std::optional<int64_t> proposal;
  if (!(st = r.OptionalInt("recommendation", &proposal)).ok()) return st.message();
  if (proposal && *proposal != d.normalization.recommendation) {
    diff += "recommendation: want " + std::to_string(*proposal) + ", got " +
            std::to_string(d.normalization.recommendation) + "\n";
  }
  std::optional<int64_t> stabilized;
  if (!(st = r.OptionalInt("stabilized", &stabilized)).ok()) return st.message();
  if (stabilized && *stabilized != d.normalization.stabilized) {
    diff += "stabilized: want " + std::to_string(*stabilized) + ", got " +
            std::to_string(d.normalization.stabilized) + "\n";
  }
  if (const Json* metrics = r.Get("metricReplicas")) {
    Json got = Json::array();
    for (const Json& m : out["metrics"])
      got.push_back(m.contains("replicas") ? m["replicas"] : Json("error"));
    if (*metrics != got)
      diff += "metricReplicas: want " + metrics->dump() + ", got " + got.dump() + "\n";
  }
  if (const Json* conditions = r.Get("conditions")) {
    if (!conditions->is_object()) return r.FieldPath("conditions") + ": expected object";
    for (auto it = conditions->begin(); it != conditions->end(); ++it) {
      std::string got = "absent";
      for (const Condition& c : d.conditions) {
        if (c.type == it.key()) got = c.status + "/" + c.reason;
      }
      if (!it->is_string() || it->get<std::string>() != got) {
        diff += "condition " + it.key() + ": want " + it->dump() + ", got " + got + "\n";
      }
    }
  }
  std::string metrics_error;
  if (!(st = r.OptionalString("metricsError", &metrics_error)).ok()) return st.message();
  if (!metrics_error.empty() && d.error.find(metrics_error) == std::string::npos) {
    diff += "metricsError: want text \"" + metrics_error + "\", got \"" + d.error + "\"\n";
  }
  r.Ignore("error");
  if (!(st = r.NoUnknownFields()).ok()) return st.message();
  return diff;
}

class HpaScenarioTest : public testing::TestWithParam<std::string> {};

TEST_P(HpaScenarioTest, Replays) {
  auto text = ReadFile(GetParam());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto parsed = ParseYaml(*text, GetParam());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const Json& scenario = *parsed;
  JsonReader r(scenario, "");
  ASSERT_TRUE(r.ExpectObject().ok());
  std::string name, description, group, start;
  ASSERT_TRUE(r.RequiredString("name", &name).ok()) << "scenario needs a name";
  ASSERT_TRUE(r.RequiredString("description", &description).ok()) << "scenario needs a description";
  ASSERT_TRUE(r.RequiredString("group", &group).ok()) << "scenario needs a group";
  ASSERT_TRUE(r.RequiredString("start", &start).ok()) << "scenario needs a start time";
  auto start_time = ParseRfc3339(start);
  ASSERT_TRUE(start_time.ok()) << start_time.status().ToString();
  const Json* spec = r.Get("spec");
  ASSERT_NE(spec, nullptr) << "scenario needs a spec";
  const Json* controller = r.Get("controller");
  const Json* default_pods = r.Get("pods");
  std::string ns = "default";
  ASSERT_TRUE(r.OptionalString("namespace", &ns).ok());
  Json state = scenario.contains("state") ? scenario["state"] : Json::object();
  r.Ignore("state");
  const Json* steps = r.Get("steps");
  ASSERT_TRUE(steps && steps->is_array() && !steps->empty()) << "scenario needs steps";
  Status unknown = r.NoUnknownFields();
  ASSERT_TRUE(unknown.ok()) << unknown.message();

  std::optional<int64_t> replicas;
  bool scaled_to_zero = false;
  for (size_t i = 0; i < steps->size(); ++i) {
    const std::string path = JoinPath("steps", i);
    SCOPED_TRACE(name + " " + path);
    JsonReader s((*steps)[i], path);
    ASSERT_TRUE(s.ExpectObject().ok());
    int64_t at = 0;
    ASSERT_TRUE(s.RequiredInt("at", &at).ok()) << path << ".at is required";
    Json doc = Json::object();
    doc["now"] = FormatRfc3339(*start_time + std::chrono::seconds(at));
    doc["namespace"] = ns;
    doc["spec"] = (*spec);
    if (const Json* step_spec = s.Get("spec")) doc["spec"] = *step_spec;
    if (controller) doc["controller"] = *controller;
    doc["state"] = state;
    std::optional<int64_t> current;
    ASSERT_TRUE(s.OptionalInt("currentReplicas", &current).ok());
    if (!current) current = replicas;
    ASSERT_TRUE(current.has_value()) << path << ": the first step needs currentReplicas";
    doc["currentReplicas"] = *current;
    if (const Json* status = s.Get("statusReplicas")) doc["statusReplicas"] = *status;
    doc["scaledToZero"] = scaled_to_zero;
    if (const Json* stz = s.Get("scaledToZero")) doc["scaledToZero"] = *stz;
    std::optional<int64_t> ready_pods;
    ASSERT_TRUE(s.OptionalInt("readyPods", &ready_pods).ok());
    if (const Json* pods = s.Get("pods")) {
      doc["pods"] = *pods;
    } else if (ready_pods) {
      doc["pods"] = GeneratedPods(*ready_pods);
    } else if (default_pods) {
      doc["pods"] = *default_pods;
    }
    if (const Json* metrics = s.Get("metrics")) doc["metrics"] = *metrics;
    const Json* expect = s.Get("expect");
    ASSERT_NE(expect, nullptr) << path << ": every step needs an expect block";
    Status step_unknown = s.NoUnknownFields();
    ASSERT_TRUE(step_unknown.ok()) << step_unknown.message();

    const std::string expected_error = expect->is_object() && expect->contains("error")
                                           ? (*expect)["error"].get<std::string>()
                                           : "";
    auto decoded = EvalDocumentFromJson(doc);
    if (!expected_error.empty()) {
      ASSERT_FALSE(decoded.ok()) << path << ": expected error \"" << expected_error << "\"";
      EXPECT_NE(decoded.status().message().find(expected_error), std::string::npos)
          << decoded.status().message();
      continue;
    }
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    const HpaDecision d = RunEval(*decoded);
    const Json out = DecisionToJson(d);
    const std::string diff = CheckExpect(*expect, path + ".expect", d, out);
    EXPECT_TRUE(diff.empty()) << diff << "summary:\n" << DecisionSummary(d);

    state = out["state"];
    replicas = d.desired_replicas;  // the rescale is applied before the next sync
    scaled_to_zero = false;
    for (const Condition& c : d.conditions) {
      if (c.type == "ScaledToZero") scaled_to_zero = c.status == "True";
    }
    if (!d.rescale) scaled_to_zero = doc["scaledToZero"].get<bool>();
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, HpaScenarioTest, testing::ValuesIn(ScenarioFiles()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string stem = fs::path(info.param).stem().string();
                           for (char& c : stem) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return stem;
                         });

TEST(HpaScenarioFilesTest, ScenarioDirectoryIsNotEmpty) { EXPECT_GE(ScenarioFiles().size(), 5u); }

}  // namespace
}  // namespace trimtab::core::hpa
