#include "random_scenarios.h"

#include <cmath>
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

TEST(RandomScenariosTest, GraphDrawsAreValidChainsWithStateAndServableRates) {
  std::set<double> states, intervals;
  std::set<std::string> ships;
  std::set<size_t> sizes;
  for (int i = 0; i < 200; ++i) {
    Json doc = RandomGraphScenario(5, i);
    SCOPED_TRACE(doc.dump());
    EXPECT_EQ(doc["name"], "graph-5-" + std::to_string(i));
    doc["policies"] = Json::array({"static"});
    StatusOr<sim::Scenario> s = sim::ParseScenario(doc);
    ASSERT_TRUE(s.ok()) << s.status().message();
    const Json& vertices = doc["job"]["vertices"];
    const Json& edges = doc["job"]["edges"];
    sizes.insert(vertices.size());
    ASSERT_EQ(edges.size(), vertices.size() - 1);  // a chain
    for (const Json& e : edges) {
      ships.insert(e["ship"].get<std::string>());
      if (e["ship"] == "forward") {  // both ends at the same parallelism
        int from = 0, to = 0;
        for (const Json& v : vertices) {
          if (v["id"] == e["from"]) from = v["parallelism"].get<int>();
          if (v["id"] == e["to"]) to = v["parallelism"].get<int>();
        }
        EXPECT_EQ(from, to);
      }
    }
    states.insert(LargestState(doc));
    intervals.insert(doc["decisionInterval"].get<double>());
    std::vector<double> rates;
    CollectRates(doc["workload"], &rates);
    const Json& source = vertices[0];
    // 30 % of what the partitions deliver, rounded as the rates are.
    const double cap = std::round(0.3 * source["partitions"].get<int>() *
                                  source["capacityPerSubtask"].get<double>());
    for (double r : rates) {
      EXPECT_GT(r, 0);
      EXPECT_LE(r, cap);
    }
  }
  EXPECT_EQ(sizes, (std::set<size_t>{2, 3, 4, 5}));
  EXPECT_EQ(ships, (std::set<std::string>{"hash", "rebalance", "forward"}));
  EXPECT_EQ(states, (std::set<double>{0, 1e9, 1e10, 5e10}));
  EXPECT_EQ(intervals, (std::set<double>{10, 30, 60}));
  EXPECT_EQ(RandomGraphScenario(5, 3), RandomGraphScenario(5, 3));
  EXPECT_NE(RandomGraphScenario(5, 3)["job"], RandomGraphScenario(5, 4)["job"]);
}

}  // namespace
}  // namespace trimtab::bench
