// Runs every tests/scenarios/schedule/*.yaml scenario (format: docs/scenarios.md): the scenario's
// `input` is one `trimtab eval schedule` document (pods may carry `repeat: N` to stand for N
// pods named <name>-0 ... <name>-(N-1)); `expect` lists what the session must decide.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/quantity.h"
#include "core/scheduling/eval.h"
#include "core/scheduling/session_result_json.h"

namespace trimtab::core::scheduling {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> files;
  const fs::path dir = fs::path(TRIMTAB_SOURCE_DIR) / "tests" / "scenarios" / "schedule";
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Expands `repeat: N` pods.
Json ExpandInput(Json input) {
  if (!input.is_object() || !input.contains("pods")) return input;
  Json pods = Json::array();
  for (Json pod : input["pods"]) {
    if (!pod.is_object() || !pod.contains("repeat")) {
      pods.push_back(std::move(pod));
      continue;
    }
    const int n = pod["repeat"].get<int>();
    pod.erase("repeat");
    const std::string base = pod["metadata"]["name"].get<std::string>();
    for (int i = 0; i < n; ++i) {
      Json p = pod;
      p["metadata"]["name"] = base + "-" + std::to_string(i);
      pods.push_back(std::move(p));
    }
  }
  input["pods"] = std::move(pods);
  return input;
}

std::string Key(const std::string& ref) {
  return ref.find('/') == std::string::npos ? "default/" + ref : ref;
}

std::set<std::string> KeySet(const Json& list) {
  std::set<std::string> out;
  for (const Json& e : list) out.insert(Key(e.get<std::string>()));
  return out;
}

std::string Join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& e : s) out += (out.empty() ? "" : ", ") + e;
  return "[" + out + "]";
}

bool QuantityEquals(const Json& want, const Json& got) {
  auto w = QuantityFromJson(want, "want");
  auto g = QuantityFromJson(got, "got");
  return w.ok() && g.ok() && *w == *g;
}

std::string CheckExpect(const Json& expect, const Json& out) {
  std::string diff;
  JsonReader r(expect, "expect");
  Status st = r.ExpectObject();
  if (!st.ok()) return st.message();
  std::map<std::string, std::string> binds;
  for (const Json& b : out["binds"]) binds[b["pod"].get<std::string>()] = b["node"].get<std::string>();
  if (const Json* want = r.Get("binds")) {
    std::map<std::string, std::string> w;
    for (auto it = want->begin(); it != want->end(); ++it) w[Key(it.key())] = it->get<std::string>();
    if (w != binds) {
      diff += "binds: want " + Json(w).dump() + ", got " + Json(binds).dump() + "\n";
    }
  }
  if (const Json* want = r.Get("bindCount")) {
    if (want->get<size_t>() != binds.size()) {
      diff += "bindCount: want " + want->dump() + ", got " + std::to_string(binds.size()) + "\n";
    }
  }
  if (const Json* want = r.Get("bound")) {
    for (const std::string& p : KeySet(*want)) {
      if (!binds.count(p)) diff += "bound: " + p + " was not bound\n";
    }
  }
  if (const Json* want = r.Get("notBound")) {
    for (const std::string& p : KeySet(*want)) {
      if (binds.count(p)) diff += "notBound: " + p + " was bound to " + binds[p] + "\n";
    }
  }
  auto pod_set = [&](const char* field) {
    std::set<std::string> got;
    for (const Json& e : out[field]) got.insert(e["pod"].get<std::string>());
    return got;
  };
  for (const char* field : {"pipelined", "evictions"}) {
    if (const Json* want = r.Get(field)) {
      const std::set<std::string> w = KeySet(*want), g = pod_set(field);
      if (w != g) diff += std::string(field) + ": want " + Join(w) + ", got " + Join(g) + "\n";
    }
  }
  std::map<std::string, const Json*> groups;
  for (const Json& g : out["podGroups"]) {
    groups[g["namespace"].get<std::string>() + "/" + g["name"].get<std::string>()] = &g;
  }
  auto group = [&](const std::string& ref, const char* field) -> const Json* {
    auto it = groups.find(Key(ref));
    if (it == groups.end()) diff += std::string(field) + ": no PodGroup " + Key(ref) + " in the result\n";
    return it == groups.end() ? nullptr : it->second;
  };
  if (const Json* want = r.Get("phases")) {
    for (auto it = want->begin(); it != want->end(); ++it) {
      const Json* g = group(it.key(), "phases");
      if (g && (*g)["phase"] != *it) {
        diff += "phase of " + Key(it.key()) + ": want " + it->dump() + ", got " +
                (*g)["phase"].dump() + "\n";
      }
    }
  }
  if (const Json* want = r.Get("conditions")) {
    for (auto it = want->begin(); it != want->end(); ++it) {
      const Json* g = group(it.key(), "conditions");
      if (!g) continue;
      for (auto c = it->begin(); c != it->end(); ++c) {
        std::string got = "absent";
        for (const Json& cond : (*g)["conditions"]) {
          if (cond["type"] == c.key()) {
            got = cond["status"].get<std::string>() + "/" + cond["reason"].get<std::string>();
          }
        }
        if (got != c->get<std::string>()) {
          diff += "condition " + c.key() + " of " + Key(it.key()) + ": want " + c->dump() +
                  ", got " + got + "\n";
        }
      }
    }
  }
  if (const Json* want = r.Get("podGroupMessages")) {
    for (auto it = want->begin(); it != want->end(); ++it) {
      const Json* g = group(it.key(), "podGroupMessages");
      if (!g) continue;
      std::string all;
      for (const Json& c : (*g)["conditions"]) all += c["message"].get<std::string>() + "\n";
      if (g->contains("events")) {
        for (const Json& e : (*g)["events"]) all += e["message"].get<std::string>() + "\n";
      }
      for (const Json& sub : *it) {
        if (all.find(sub.get<std::string>()) == std::string::npos) {
          diff += "podGroupMessages of " + Key(it.key()) + ": no \"" + sub.get<std::string>() +
                  "\" in:\n" + all;
        }
      }
    }
  }
  if (const Json* want = r.Get("podReasons")) {
    std::map<std::string, std::string> reasons;
    for (const Json& u : out["unschedulable"]) {
      reasons[u["pod"].get<std::string>()] =
          u["reason"].get<std::string>() + ": " + u["message"].get<std::string>();
    }
    for (auto it = want->begin(); it != want->end(); ++it) {
      const std::string& got = reasons[Key(it.key())];
      if (got.find(it->get<std::string>()) == std::string::npos) {
        diff += "podReasons of " + Key(it.key()) + ": want text " + it->dump() + ", got \"" + got +
                "\"\n";
      }
    }
  }
  if (const Json* want = r.Get("queues")) {
    std::map<std::string, const Json*> queues;
    for (const Json& q : out["queues"]) queues[q["name"].get<std::string>()] = &q;
    for (auto it = want->begin(); it != want->end(); ++it) {
      auto q = queues.find(it.key());
      if (q == queues.end()) {
        diff += "queues: no queue " + it.key() + "\n";
        continue;
      }
      for (auto f = it->begin(); f != it->end(); ++f) {
        const Json& got = (*q->second)[f.key()];
        if (f.key() == "allocated" || f.key() == "deserved") {
          for (auto res = f->begin(); res != f->end(); ++res) {
            const Json g = got.contains(res.key()) ? got[res.key()] : Json("0");
            if (!QuantityEquals(*res, g)) {
              diff += "queue " + it.key() + " " + f.key() + "." + res.key() + ": want " +
                      res->dump() + ", got " + g.dump() + "\n";
            }
          }
        } else if (got != *f) {
          diff += "queue " + it.key() + " " + f.key() + ": want " + f->dump() + ", got " +
                  got.dump() + "\n";
        }
      }
    }
  }
  if (const Json* want = r.Get("skipped")) {
    std::string all;
    for (const Json& s : out["skipped"]) all += s.dump() + "\n";
    for (const Json& sub : *want) {
      if (all.find(sub.get<std::string>()) == std::string::npos) {
        diff += "skipped: no \"" + sub.get<std::string>() + "\" in:\n" + all;
      }
    }
  }
  if (const Json* want = r.Get("log")) {
    std::string all;
    for (const Json& l : out["log"]) all += l.get<std::string>() + "\n";
    for (const Json& sub : *want) {
      if (all.find(sub.get<std::string>()) == std::string::npos) {
        diff += "log: no line with \"" + sub.get<std::string>() + "\"\n";
      }
    }
  }
  r.Ignore("error");
  if (!(st = r.NoUnknownFields()).ok()) return st.message();
  return diff;
}

class ScheduleScenarioTest : public testing::TestWithParam<std::string> {};

TEST_P(ScheduleScenarioTest, Runs) {
  auto text = ReadFile(GetParam());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto parsed = ParseYaml(*text, GetParam());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  JsonReader r(*parsed, "");
  ASSERT_TRUE(r.ExpectObject().ok());
  std::string name, description, group;
  ASSERT_TRUE(r.RequiredString("name", &name).ok()) << "scenario needs a name";
  ASSERT_TRUE(r.RequiredString("description", &description).ok()) << "needs a description";
  ASSERT_TRUE(r.RequiredString("group", &group).ok()) << "scenario needs a group";
  const Json* input = r.Get("input");
  ASSERT_NE(input, nullptr) << "scenario needs an input document";
  const Json* expect = r.Get("expect");
  ASSERT_NE(expect, nullptr) << "scenario needs an expect block";
  Status unknown = r.NoUnknownFields();
  ASSERT_TRUE(unknown.ok()) << unknown.message();

  const std::string expected_error =
      expect->contains("error") ? (*expect)["error"].get<std::string>() : "";
  auto doc = EvalDocumentFromJson(ExpandInput(*input));
  StatusOr<SessionResult> result = doc.ok() ? RunEval(*doc) : StatusOr<SessionResult>(doc.status());
  if (!expected_error.empty()) {
    ASSERT_FALSE(result.ok()) << "expected error \"" << expected_error << "\"";
    EXPECT_NE(result.status().message().find(expected_error), std::string::npos)
        << result.status().message();
    return;
  }
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const Json out = SessionResultToJson(*result);
  const std::string diff = CheckExpect(*expect, out);
  std::string log;
  for (const auto& l : result->log) log += "  " + l + "\n";
  EXPECT_TRUE(diff.empty()) << name << ":\n"
                            << diff << "summary:\n"
                            << SessionResultSummary(*result) << "log:\n"
                            << log;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScheduleScenarioTest, testing::ValuesIn(ScenarioFiles()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string stem = fs::path(info.param).stem().string();
                           for (char& c : stem) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return stem;
                         });

TEST(ScheduleScenarioFilesTest, ScenarioDirectoryIsNotEmpty) {
  EXPECT_GE(ScenarioFiles().size(), 5u);
}

}  // namespace
}  // namespace trimtab::core::scheduling
