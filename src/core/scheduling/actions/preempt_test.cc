// preempt where the scenario files do not reach: the second, intra-job pass (a pending pod
// evicts a lower-priority pod of its own job), the nominated-node rule (a pod whose nominated
// node already passes the predicates does not preempt again), and refused arguments.
#include <gtest/gtest.h>

#include <string>

#include "core/scheduling/session.h"
#include "core/scheduling/test_session.h"

namespace trimtab::core::scheduling {
namespace {

StatusOr<SessionResult> RunWith(const TestCluster& cluster, const std::string& config_yaml) {
  TRIMTAB_ASSIGN_OR_RETURN(SchedulerConfig config, ParseSchedulerConfig(config_yaml, "config"));
  return RunSession(config, cluster, SessionOptions{});
}

std::string Names(const std::vector<Eviction>& evictions) {
  std::string out;
  for (const Eviction& e : evictions) out += (out.empty() ? "" : ",") + e.pod.name;
  return out;
}

constexpr char kPreempt[] = R"(actions: "allocate, preempt"
tiers:
- plugins:
  - {name: priority}
  - {name: gang, enablePreemptable: false, enableJobStarving: false}
  - {name: conformance}
- plugins: [{name: predicates}, {name: proportion}, {name: nodeorder}]
)";

TEST(PreemptAction, IntraJobPassTakesLowerTaskPriority) {
  TestCluster cluster;
  cluster.nodes.push_back(TestNode("n1", "2", "8Gi"));
  cluster.queues.push_back(TestQueue("default"));
  cluster.pod_groups.push_back(TestGroup("j", 1, "default", "Running"));
  cluster.pods.push_back(TestPod("j-low", "j", "2", "n1", "", 1));
  cluster.pods.push_back(TestPod("j-high", "j", "2", "", "", 100));
  auto r = RunWith(cluster, kPreempt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Names(r->evictions), "j-low");
  ASSERT_EQ(r->pipelined.size(), 1u);
  bool logged = false;
  for (const std::string& line : r->log) logged |= line.find("(own job)") != std::string::npos;
  EXPECT_TRUE(logged);

  // Equal task priority: the priority plugin offers no victim of the same job.
  cluster.pods[1]["spec"]["priority"] = 1;
  r = RunWith(cluster, kPreempt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Names(r->evictions), "");
}

TEST(PreemptAction, NominatedNode) {
  struct Case {
    const char* name;
    std::string nominated;
    bool cordon_n1;
    std::string want;
  } cases[] = {
      {"no nomination: preempts", "", false, "low-0"},
      {"nominated node passes the predicates: waits for it", "n1", false, ""},
      {"nominated node gone: not eligible", "gone", false, ""},
      {"nominated node unusable (cordoned): preempts elsewhere", "n1", true, "low-1"},
  };
  for (const Case& c : cases) {
    TestCluster cluster;
    cluster.nodes.push_back(TestNode("n1", "2", "8Gi"));
    cluster.nodes.push_back(TestNode("n2", "2", "8Gi"));
    if (c.cordon_n1) cluster.nodes[0]["spec"]["unschedulable"] = true;
    cluster.queues.push_back(TestQueue("default"));
    cluster.priority_classes.push_back({{"metadata", {{"name", "high"}}}, {"value", 100}});
    cluster.pod_groups.push_back(TestGroup("low", 1, "default", "Running"));
    Json high = TestGroup("high", 1);
    high["spec"]["priorityClassName"] = "high";
    cluster.pod_groups.push_back(high);
    cluster.pods.push_back(TestPod("low-0", "low", "2", "n1"));
    cluster.pods.push_back(TestPod("low-1", "low", "2", "n2"));
    Json p = TestPod("high-0", "high", "2", "", "", 100);
    if (!c.nominated.empty()) p["status"] = {{"nominatedNodeName", c.nominated}};
    cluster.pods.push_back(p);
    auto r = RunWith(cluster, kPreempt);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(Names(r->evictions), c.want) << c.name;
  }
}

TEST(PreemptAction, Arguments) {
  TestCluster cluster;
  auto r = RunWith(cluster, std::string(kPreempt) +
                            "configurations:\n- name: preempt\n  arguments: "
                            "{enableTopologyAwarePreemption: true}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("enableTopologyAwarePreemption: topology-aware preemption "
                                      "is not supported"),
            std::string::npos)
      << r.status().message();
  r = RunWith(cluster, std::string(kPreempt) +
                       "configurations:\n- name: preempt\n  arguments: {minCandidateNodesPercentage: 20}\n");
  EXPECT_TRUE(r.ok()) << r.status().message();
}

}  // namespace
}  // namespace trimtab::core::scheduling
