// proportion's water-filling (B.5): deserved per queue from weights, requests, capability and
// guarantee, as reported in the queue status, for a 12-cpu cluster.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/scheduling/test_session.h"

namespace trimtab::core::scheduling {
namespace {

struct QueueCase {
  std::string name;
  Json spec;
  int request_cpu;        // pending 1-cpu pods
  std::string deserved;   // expected deserved cpu
};

TEST(ProportionPlugin, WaterFilling) {
  struct Case {
    const char* name;
    std::vector<QueueCase> queues;
  } cases[] = {
      {"equal weights, enough demand",
       {{"a", {{"weight", 1}}, 10, "6"}, {"b", {{"weight", 1}}, 10, "6"}}},
      {"weights 2:1", {{"a", {{"weight", 2}}, 12, "8"}, {"b", {{"weight", 1}}, 12, "4"}}},
      {"a small request frees the rest for the others",
       {{"a", {{"weight", 1}}, 2, "2"}, {"b", {{"weight", 1}}, 12, "10"}}},
      {"capability caps a queue, the rest goes on",
       {{"a", {{"weight", 1}, {"capability", {{"cpu", "3"}}}}, 12, "3"},
        {"b", {{"weight", 1}}, 12, "9"}}},
      {"guarantee raises a small queue",
       {{"a", {{"weight", 1}, {"guarantee", {{"resource", {{"cpu", "5"}}}}}}, 1, "5"},
        {"b", {{"weight", 1}}, 12, "7"}}},
      {"demand below the cluster: deserved = request",
       {{"a", {{"weight", 3}}, 2, "2"}, {"b", {{"weight", 1}}, 3, "3"}}},
  };
  for (const Case& c : cases) {
    TestCluster cluster;
    cluster.nodes.push_back(TestNode("n1", "6", "16Gi"));
    cluster.nodes.push_back(TestNode("n2", "6", "16Gi"));
    for (const QueueCase& q : c.queues) {
      cluster.queues.push_back(TestQueue(q.name, q.spec));
      cluster.pod_groups.push_back(TestGroup("g-" + q.name, 1, q.name));
      for (int i = 0; i < q.request_cpu; ++i) {
        cluster.pods.push_back(TestPod("g-" + q.name + "-" + std::to_string(i), "g-" + q.name, "1"));
      }
    }
    auto s = TestSession::Open(cluster,
                               "actions: allocate\ntiers:\n- plugins:\n  - name: proportion\n");
    ASSERT_TRUE(s.ok()) << s.status().message();
    Session& ssn = (*s)->ssn();
    for (const QueueCase& q : c.queues) {
      const int id = ssn.snapshot().FindQueue(q.name);
      ASSERT_GE(id, 0);
      EXPECT_EQ(ssn.result().queues[id].deserved["cpu"], q.deserved) << c.name << ", queue " << q.name;
    }
  }
}

}  // namespace
}  // namespace trimtab::core::scheduling
