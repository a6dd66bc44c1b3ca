// binpack's node score (B.5): binpack.weight x 100 x sum_r w_r (used_r + req_r) / alloc_r /
// sum_r w_r over the requested resources that have a weight; 0 when the request does not fit.
#include <gtest/gtest.h>

#include <string>

#include "core/scheduling/test_session.h"

namespace trimtab::core::scheduling {
namespace {

TEST(BinpackPlugin, Score) {
  struct Case {
    const char* name;
    std::string arguments;  // binpack arguments, YAML flow map
    int used_cpu;           // running 1-cpu / 1Gi pods on the 4-cpu / 8Gi node
    std::string req_cpu, req_mem;
    double want;
  } cases[] = {
      {"empty node, cpu only", "{}", 0, "2", "", 50},  // cpu (0+2)/4 x 100; memory not requested
      {"half used, cpu only", "{}", 2, "1", "", 75},
      {"cpu and memory averaged", "{}", 2, "2", "2Gi", (100.0 + 50.0) / 2},
      {"cpu weight 3", "{binpack.cpu: 3}", 2, "2", "2Gi", (3 * 100.0 + 50.0) / 4},
      {"binpack.weight 2 doubles it", "{binpack.weight: 2}", 2, "1", "", 150},
      {"does not fit: 0", "{}", 3, "2", "", 0},
  };
  for (const Case& c : cases) {
    TestCluster cluster;
    cluster.nodes.push_back(TestNode("n1", "4", "8Gi"));
    cluster.queues.push_back(TestQueue("default"));
    cluster.pod_groups.push_back(TestGroup("busy", 1, "default", "Running"));
    for (int i = 0; i < c.used_cpu; ++i) {
      cluster.pods.push_back(TestPod("busy-" + std::to_string(i), "busy", "1", "n1", "1Gi"));
    }
    cluster.pod_groups.push_back(TestGroup("p", 1));
    cluster.pods.push_back(TestPod("p-0", "p", c.req_cpu, "", c.req_mem));
    auto s = TestSession::Open(cluster, "actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n"
                                        "    arguments: " + c.arguments + "\n");
    ASSERT_TRUE(s.ok()) << s.status().message();
    Session& ssn = (*s)->ssn();
    std::vector<double> scores;
    ssn.ScoreNodes(ssn.tasks()[(*s)->Task("p-0")], {0}, &scores);
    ASSERT_EQ(scores.size(), 1u);
    // Memory of the busy pods: 1Gi each, so with memory requested (used + 2Gi) / 8Gi.
    EXPECT_NEAR(scores[0], c.want, 1e-6) << c.name;
  }
}

}  // namespace
}  // namespace trimtab::core::scheduling
