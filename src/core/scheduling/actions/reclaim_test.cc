// reclaim where the scenario files do not reach: a queue at its deserved share does not
// reclaim, nor does a pod with preemptionPolicy Never; otherwise a queue below its deserved
// share takes a pod of the other queue.
#include <gtest/gtest.h>

#include <string>

#include "core/scheduling/session.h"
#include "core/scheduling/test_session.h"

namespace trimtab::core::scheduling {
namespace {

constexpr char kReclaim[] = R"(actions: "allocate, reclaim"
tiers:
- plugins: [{name: priority}, {name: gang, enablePreemptable: false}, {name: conformance}]
- plugins: [{name: predicates}, {name: proportion}, {name: nodeorder}]
)";

TEST(ReclaimAction, OverusedQueuesAndPolicyNever) {
  struct Case {
    const char* name;
    int prod_running;  // 2-cpu pods of prod already running (on n1)
    bool never;
    size_t want;
  } cases[] = {
      {"below deserved: reclaims", 0, false, 1},
      {"at deserved (overused, not preemptive): nothing", 1, false, 0},
      {"preemptionPolicy Never", 0, true, 0},
  };
  for (const Case& c : cases) {
    TestCluster cluster;
    cluster.nodes.push_back(TestNode("n1", "2", "8Gi"));
    cluster.nodes.push_back(TestNode("n2", "2", "8Gi"));
    cluster.queues.push_back(TestQueue("prod"));
    cluster.queues.push_back(TestQueue("batch"));
    cluster.pod_groups.push_back(TestGroup("batch", 1, "batch", "Running"));
    // With a pod running, minMember 2 keeps the job starving.
    cluster.pod_groups.push_back(
        TestGroup("web", c.prod_running ? 2 : 1, "prod", c.prod_running ? "Running" : "Inqueue"));
    if (c.prod_running) {
      cluster.pods.push_back(TestPod("web-run", "web", "2", "n1"));
    } else {
      cluster.pods.push_back(TestPod("batch-1", "batch", "2", "n1"));
    }
    cluster.pods.push_back(TestPod("batch-0", "batch", "2", "n2"));
    Json p = TestPod("web-0", "web", "2");
    if (c.never) p["spec"]["preemptionPolicy"] = "Never";
    cluster.pods.push_back(p);
    auto config = ParseSchedulerConfig(kReclaim, "config");
    ASSERT_TRUE(config.ok()) << config.status().message();
    auto r = RunSession(*config, cluster, SessionOptions{});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->evictions.size(), c.want) << c.name;
    EXPECT_EQ(r->pipelined.size(), c.want) << c.name;
  }
}

}  // namespace
}  // namespace trimtab::core::scheduling
