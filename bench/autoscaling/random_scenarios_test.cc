#include "random_scenarios.h"

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/scenario.h"

namespace trimtab::bench {
namespace {

// Every rate a workload document names (constant, step, ramp, daily, spike, on/off, piecewise,
// nested under noise).
void CollectRates(const Json& w, std::vector<double>* out) {
  for (const char* key : {"rate", "offRate", "from", "to", "trough", "peak", "base"}) {
    if (w.contains(key)) out->push_back(w[key].get<double>());
  }
  if (w.contains("steps")) {
    for (const Json& s : w["steps"]) out->push_back(s["rate"].get<double>());
  }
  if (w.contains("points")) {
    for (const Json& p : w["points"]) out->push_back(p[1].get<double>());
  }
  if (w.contains("of")) CollectRates(w["of"], out);
}

TEST(RandomScenariosTest, EveryDrawIsAValidServableScenario) {
  for (int i = 0; i < 100; ++i) {
    Json doc = RandomScenario(7, i);
    SCOPED_TRACE(doc.dump());
    EXPECT_EQ(doc["name"], "random-7-" + std::to_string(i));
    doc["policies"] = Json::array({"static"});
    StatusOr<sim::Scenario> s = sim::ParseScenario(doc);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_DOUBLE_EQ(s->duration_seconds, 12 * 3600);
    std::vector<double> rates;
    CollectRates(doc["workload"], &rates);
    ASSERT_FALSE(rates.empty());
    const double cap = 0.8 * doc["job"]["partitions"].get<int>() * 155'000;
    for (double r : rates) {
      EXPECT_GT(r, 0);
      EXPECT_LE(r, cap);
    }
  }
}

TEST(RandomScenariosTest, ASeedAndIndexAlwaysGiveTheSameScenario) {
  EXPECT_EQ(RandomScenario(3, 5), RandomScenario(3, 5));
  EXPECT_NE(RandomScenario(3, 5)["workload"], RandomScenario(4, 5)["workload"]);
  EXPECT_NE(RandomScenario(3, 5)["workload"], RandomScenario(3, 6)["workload"]);
}

TEST(RandomScenariosTest, DrawsCoverEveryJobAndWorkloadShape) {
  std::set<std::string> jobs, shapes;
  for (int i = 0; i < 200; ++i) {
    const Json doc = RandomScenario(1, i);
    jobs.insert(doc["job"]["library"].get<std::string>());
    const Json& w = doc["workload"];
    shapes.insert(w["type"] == "noise" ? "noise/" + w["of"]["type"].get<std::string>()
                                       : w["type"].get<std::string>());
  }
  EXPECT_EQ(jobs, (std::set<std::string>{"q1", "q2", "q5", "q8", "q11"}));
  EXPECT_EQ(shapes, (std::set<std::string>{"step", "noise/step", "ramp", "noise/daily", "spike",
                                           "onoff", "piecewise"}));
}

}  // namespace
}  // namespace trimtab::bench
