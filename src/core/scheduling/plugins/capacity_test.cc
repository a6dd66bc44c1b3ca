// capacity (B.5): deserved = spec.deserved clamped to realCapability and raised to the
// guarantee; Allocatable against realCapability; Preemptive (fits realCapability and stays
// within deserved on some requested dimension); Reclaimable (never below guarantee; victims
// only from queues above deserved on a dimension they request, or requesting nothing the queue
// has a deserved for). One 10-cpu node; victims are 1-cpu (and optionally 1Gi) running pods.
#include <gtest/gtest.h>

#include <string>

#include "core/scheduling/test_session.h"

namespace trimtab::core::scheduling {
namespace {

constexpr char kCapacityOnly[] =
    "actions: allocate, reclaim\ntiers:\n- plugins:\n  - name: capacity\n";

struct Fixture {
  Json reclaimer_spec, victim_spec;
  int victim_running = 0;      // 1-cpu pods of queue `v`
  std::string victim_mem;      // their memory request
  int reclaimer_running = 0;   // 1-cpu pods of queue `r`
};

StatusOr<std::unique_ptr<TestSession>> Open(const Fixture& f) {
  TestCluster cluster;
  cluster.nodes.push_back(TestNode("n1", "10", "64Gi"));
  cluster.queues.push_back(TestQueue("r", f.reclaimer_spec));
  cluster.queues.push_back(TestQueue("v", f.victim_spec));
  cluster.pod_groups.push_back(TestGroup("rj", 1, "r", "Running"));
  cluster.pod_groups.push_back(TestGroup("vj", 1, "v", "Running"));
  for (int i = 0; i < f.reclaimer_running; ++i) {
    cluster.pods.push_back(TestPod("rj-run-" + std::to_string(i), "rj", "1", "n1"));
  }
  cluster.pods.push_back(TestPod("rj-0", "rj", "1"));
  for (int i = 0; i < f.victim_running; ++i) {
    cluster.pods.push_back(TestPod("vj-" + std::to_string(i), "vj", "1", "n1", f.victim_mem));
  }
  return TestSession::Open(cluster, kCapacityOnly);
}

TEST(CapacityPlugin, DeservedAndAllocatable) {
  struct Case {
    const char* name;
    Json spec;
    int running;
    std::string deserved;
    bool allocatable;
  } cases[] = {
      {"deserved as written", {{"deserved", {{"cpu", "4"}}}}, 0, "4", true},
      {"clamped to capability", {{"deserved", {{"cpu", "6"}}}, {"capability", {{"cpu", "3"}}}}, 0, "3", true},
      {"raised to guarantee", {{"deserved", {{"cpu", "1"}}}, {"guarantee", {{"resource", {{"cpu", "2"}}}}}}, 0, "2", true},
      {"allocatable up to capability, not deserved", {{"deserved", {{"cpu", "1"}}}, {"capability", {{"cpu", "3"}}}}, 2, "1", true},
      {"not beyond capability", {{"deserved", {{"cpu", "1"}}}, {"capability", {{"cpu", "3"}}}}, 3, "1", false},
      {"no deserved: best effort", Json::object(), 0, "0", true},
  };
  for (const Case& c : cases) {
    Fixture f;
    f.reclaimer_spec = c.spec;
    f.reclaimer_running = c.running;
    auto s = Open(f);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Session& ssn = (*s)->ssn();
    const int q = ssn.snapshot().FindQueue("r");
    EXPECT_EQ(ssn.result().queues[q].deserved["cpu"], c.deserved) << c.name;
    EXPECT_EQ(ssn.Allocatable(ssn.queues()[q], ssn.tasks()[(*s)->Task("rj-0")]), c.allocatable)
        << c.name;
  }
}

TEST(CapacityPlugin, Preemptive) {
  struct Case {
    const char* name;
    Json spec;
    int running;
    bool want;
  } cases[] = {
      {"below deserved", {{"deserved", {{"cpu", "3"}}}}, 1, true},
      {"reaching deserved", {{"deserved", {{"cpu", "3"}}}}, 2, true},
      {"beyond deserved", {{"deserved", {{"cpu", "3"}}}}, 3, false},
      {"beyond capability", {{"deserved", {{"cpu", "5"}}}, {"capability", {{"cpu", "2"}}}}, 2, false},
      {"no deserved: never", Json::object(), 0, false},
  };
  for (const Case& c : cases) {
    Fixture f;
    f.reclaimer_spec = c.spec;
    f.reclaimer_running = c.running;
    auto s = Open(f);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Session& ssn = (*s)->ssn();
    EXPECT_EQ(ssn.Preemptive(ssn.queues()[ssn.snapshot().FindQueue("r")],
                             ssn.tasks()[(*s)->Task("rj-0")]),
              c.want)
        << c.name;
  }
}

TEST(CapacityPlugin, Reclaimable) {
  struct Case {
    const char* name;
    Json victim_spec;
    int victim_running;
    std::string victim_mem;
    size_t want;
  } cases[] = {
      {"down to deserved", {{"deserved", {{"cpu", "2"}}}}, 5, "", 3},
      {"at deserved: none", {{"deserved", {{"cpu", "5"}}}}, 5, "", 0},
      {"never below guarantee",
       {{"deserved", {{"cpu", "1"}}}, {"guarantee", {{"resource", {{"cpu", "4"}}}}}}, 5, "", 1},
      {"over on memory only, guarantee on cpu holds",
       {{"deserved", {{"memory", "1Gi"}}}, {"guarantee", {{"resource", {{"cpu", "5"}}}}}}, 5, "1Gi", 0},
      {"over on memory, no guarantee: down to 2Gi", {{"deserved", {{"memory", "2Gi"}}}}, 5, "1Gi", 3},
      {"no deserved: every pod is fair game", Json::object(), 4, "", 4},
  };
  for (const Case& c : cases) {
    Fixture f;
    f.reclaimer_spec = {{"deserved", {{"cpu", "5"}}}};
    f.victim_spec = c.victim_spec;
    f.victim_running = c.victim_running;
    f.victim_mem = c.victim_mem;
    auto s = Open(f);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Session& ssn = (*s)->ssn();
    std::vector<int> candidates;
    for (int i = 0; i < c.victim_running; ++i) candidates.push_back((*s)->Task("vj-" + std::to_string(i)));
    EXPECT_EQ(ssn.Reclaimable(ssn.tasks()[(*s)->Task("rj-0")], candidates).size(), c.want)
        << c.name;
  }
}

}  // namespace
}  // namespace trimtab::core::scheduling
