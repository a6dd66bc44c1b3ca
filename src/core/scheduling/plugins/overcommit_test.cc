// overcommit's admission (B.5): idle = total x overcommit-factor - used; a group with
// minResources is admitted while the minResources already admitted plus its own fit in idle.
#include <gtest/gtest.h>

#include <string>

#include "core/scheduling/test_session.h"

namespace trimtab::core::scheduling {
namespace {

TEST(OvercommitPlugin, IdleIsTotalTimesFactorMinusUsed) {
  struct Case {
    const char* name;
    std::string factor;      // "" = default 1.2
    int used_cpu;            // running 1-cpu pods on the 10-cpu node
    std::string inqueue;     // minResources cpu of an already Inqueue group ("" = none)
    std::string min_cpu;     // the candidate's minResources cpu
    bool admitted;
  } cases[] = {
      {"default 1.2: 12 - 0 >= 12", "", 0, "", "12", true},
      {"default 1.2: 12 - 0 < 12.5", "", 0, "", "12500m", false},
      {"used counts: 12 - 4 >= 8", "", 4, "", "8", true},
      {"used counts: 12 - 4 < 9", "", 4, "", "9", false},
      {"admitted groups count: 12 - 0 - 5 >= 7", "", 0, "5", "7", true},
      {"admitted groups count: 12 - 0 - 5 < 8", "", 0, "5", "8", false},
      {"factor 2: 20 - 4 >= 16", "2.0", 4, "", "16", true},
      {"factor below 1 falls back to 1.2", "0.5", 0, "", "12", true},
  };
  for (const Case& c : cases) {
    TestCluster cluster;
    cluster.nodes.push_back(TestNode("n1", "10", "64Gi"));
    cluster.queues.push_back(TestQueue("default"));
    cluster.pod_groups.push_back(TestGroup("busy", 1, "default", "Running"));
    for (int i = 0; i < c.used_cpu; ++i) {
      cluster.pods.push_back(TestPod("busy-" + std::to_string(i), "busy", "1", "n1"));
    }
    if (!c.inqueue.empty()) {
      Json g = TestGroup("admitted", 1);
      g["spec"]["minResources"] = {{"cpu", c.inqueue}};
      cluster.pod_groups.push_back(g);
      cluster.pods.push_back(TestPod("admitted-0", "admitted", "1"));
    }
    Json g = TestGroup("candidate", 1, "default", "Pending");
    g["spec"]["minResources"] = {{"cpu", c.min_cpu}};
    cluster.pod_groups.push_back(g);
    cluster.pods.push_back(TestPod("candidate-0", "candidate", "1"));
    std::string config = "actions: enqueue\ntiers:\n- plugins:\n  - name: overcommit\n";
    if (!c.factor.empty()) config += "    arguments: {overcommit-factor: " + c.factor + "}\n";
    auto s = TestSession::Open(cluster, config);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Session& ssn = (*s)->ssn();
    EXPECT_EQ(ssn.JobEnqueueable(ssn.jobs()[(*s)->Job("candidate")]), c.admitted) << c.name;
  }
}

}  // namespace
}  // namespace trimtab::core::scheduling
