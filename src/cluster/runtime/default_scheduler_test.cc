#include "cluster/runtime/default_scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster/runtime/node_agent.h"
#include "cluster/runtime/node_fit.h"

namespace trimtab::cluster::runtime {
namespace {

using ::testing::ElementsAre;

std::vector<kube::ObjectPtr> Shared(std::vector<Json> pods) {
  std::vector<kube::ObjectPtr> out;
  for (Json& p : pods) out.push_back(std::make_shared<const Json>(std::move(p)));
  return out;
}

Json Node(const std::string& name, const std::string& cpu = "8", const std::string& memory = "32Gi",
          int64_t pods = 110, std::map<std::string, std::string> labels = {},
          std::vector<NodeTaint> taints = {}) {
  NodeConfig c;
  c.name = name;
  c.cpu = cpu;
  c.memory = memory;
  c.pods = pods;
  c.labels = std::move(labels);
  c.taints = std::move(taints);
  return NodeAgent::NodeObject(LocalNode{c, "127.30.0.1", *Ipv4Range::Parse("127.20.0.0/24")},
                               TimePoint{});
}

Json Pod(const std::string& name, const std::string& cpu, const std::string& memory = "",
         const std::string& node = "") {
  Json requests = Json::object();
  if (!cpu.empty()) requests["cpu"] = cpu;
  if (!memory.empty()) requests["memory"] = memory;
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}}},
              {"spec",
               {{"containers",
                 Json::array({{{"name", "c"}, {"image", "x"}, {"resources", {{"requests", requests}}}}})}}},
              {"status", {{"phase", node.empty() ? "Pending" : "Running"}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

std::vector<Json> FourNodes() {
  return {Node("node-1"), Node("node-2"), Node("node-3"), Node("node-4")};
}

TEST(DefaultSchedulerTest, SpreadsPodsByLeastAllocated) {
  DefaultScheduler scheduler;
  ClusterSnapshot snapshot(FourNodes(), {Pod("busy", "6", "", "node-1")});
  SchedulingDecision d =
      scheduler.Schedule(snapshot, Shared({Pod("a", "2"), Pod("b", "2"), Pod("c", "2"),
                                           Pod("d", "2")}));
  ASSERT_EQ(d.bindings.size(), 4u);
  EXPECT_TRUE(d.unschedulable.empty());
  std::vector<std::string> nodes;
  for (const auto& b : d.bindings) nodes.push_back(b.node);
  // node-1 is busy; each placement makes its node less attractive for the next pod.
  EXPECT_THAT(nodes, ElementsAre("node-2", "node-3", "node-4", "node-2"));
  EXPECT_EQ(d.bindings[0].uid, "uid-a");
}

TEST(DefaultSchedulerTest, UnschedulableMessageCountsReasons) {
  DefaultScheduler scheduler;
  ClusterSnapshot snapshot(FourNodes(), {});
  SchedulingDecision d = scheduler.Schedule(snapshot, Shared({Pod("huge", "16")}));
  ASSERT_EQ(d.unschedulable.size(), 1u);
  EXPECT_TRUE(d.bindings.empty());
  EXPECT_EQ(d.unschedulable[0].reason, "Unschedulable");
  EXPECT_EQ(d.unschedulable[0].message, "0/4 nodes are available: 4 Insufficient cpu.");

  // Different reasons per node are counted and sorted as strings, as kube-scheduler does.
  ClusterSnapshot mixed({Node("a", "8", "8Gi"), Node("b", "2"), Node("c", "2"), Node("d", "2")}, {});
  d = scheduler.Schedule(mixed, Shared({Pod("p", "4", "16Gi")}));
  ASSERT_EQ(d.unschedulable.size(), 1u);
  EXPECT_EQ(d.unschedulable[0].message,
            "0/4 nodes are available: 1 Insufficient memory, 3 Insufficient cpu.");
}

TEST(DefaultSchedulerTest, AccountsPodsOfTheSameCycle) {
  DefaultScheduler scheduler;
  ClusterSnapshot snapshot({Node("only", "4")}, {});
  SchedulingDecision d = scheduler.Schedule(snapshot, Shared({Pod("a", "3"), Pod("b", "3")}));
  ASSERT_EQ(d.bindings.size(), 1u);
  EXPECT_EQ(d.bindings[0].name, "a");
  ASSERT_EQ(d.unschedulable.size(), 1u);
  EXPECT_EQ(d.unschedulable[0].message, "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(DefaultSchedulerTest, TerminalPodsFreeTheirRequests) {
  Json done = Pod("done", "4", "", "n");
  done["status"]["phase"] = "Succeeded";
  ClusterSnapshot snapshot({Node("n", "4")}, {done});
  EXPECT_TRUE(CheckNodeFit(Pod("p", "4"), *snapshot.Find("n")).empty());
}

TEST(NodeFitTest, FiltersInPluginOrder) {
  NodeInfo info;
  Json tainted = Node("t", "8", "32Gi", 110, {}, {{"dedicated", "flink", "NoSchedule"}});
  ClusterSnapshot snapshot({tainted, Node("l", "8", "32Gi", 110, {{"pool", "big"}}),
                            Node("full", "8", "32Gi", 1)},
                           {Pod("x", "1", "", "full")});
  Json pod = Pod("p", "1");
  EXPECT_THAT(CheckNodeFit(pod, *snapshot.Find("t")),
              ElementsAre("node(s) had untolerated taint {dedicated: flink}"));
  pod["spec"]["tolerations"] = Json::array({{{"key", "dedicated"}, {"operator", "Equal"},
                                             {"value", "flink"}, {"effect", "NoSchedule"}}});
  EXPECT_TRUE(CheckNodeFit(pod, *snapshot.Find("t")).empty());
  EXPECT_THAT(CheckNodeFit(pod, *snapshot.Find("full")), ElementsAre("Too many pods"));

  Json selective = Pod("s", "1");
  selective["spec"]["nodeSelector"] = {{"pool", "big"}};
  EXPECT_TRUE(CheckNodeFit(selective, *snapshot.Find("l")).empty());
  EXPECT_THAT(CheckNodeFit(selective, *snapshot.Find("full")),
              ElementsAre("node(s) didn't match Pod's node affinity/selector"));

  Json affinity = Pod("a", "1");
  affinity["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
          ["nodeSelectorTerms"] = Json::array(
              {{{"matchExpressions",
                 Json::array({{{"key", "pool"}, {"operator", "NotIn"}, {"values", {"big"}}}})}}});
  EXPECT_FALSE(MatchesNodeAffinity(affinity, *snapshot.Find("l")->node));
  EXPECT_TRUE(MatchesNodeAffinity(affinity, *snapshot.Find("t")->node));

  Json cordoned = Node("c");
  cordoned["spec"]["unschedulable"] = true;
  ClusterSnapshot with_cordon({cordoned}, {});
  EXPECT_THAT(CheckNodeFit(Pod("p", "1"), *with_cordon.Find("c")),
              ElementsAre("node(s) were unschedulable"));
}

TEST(NodeFitTest, RequestsAndScores) {
  Json pod = Pod("p", "");
  pod["spec"]["containers"] = Json::array(
      {{{"name", "a"}, {"resources", {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}}}}},
       {{"name", "b"}, {"resources", {{"requests", {{"cpu", "500m"}}}}}}});
  pod["spec"]["initContainers"] = Json::array(
      {{{"name", "init"}, {"resources", {{"requests", {{"cpu", "2"}}}}}}});
  ResourceList r = PodRequests(pod);
  EXPECT_EQ(r["cpu"], 2000);                             // the init container's 2 > 1.5
  EXPECT_EQ(r["memory"], 1024LL * 1024 * 1024 * 1000);  // milli-bytes
  ResourceList nz = NonZeroPodRequests(Pod("empty", ""));
  EXPECT_EQ(nz["cpu"], 100);
  EXPECT_EQ(nz["memory"], 200LL * 1024 * 1024 * 1000);

  ClusterSnapshot snapshot({Node("n")}, {});
  EXPECT_EQ(LeastAllocatedScore(Pod("half", "4", "16Gi"), *snapshot.Find("n")), 50);
  EXPECT_EQ(LeastAllocatedScore(Pod("all", "8", "32Gi"), *snapshot.Find("n")), 0);
  EXPECT_EQ(FitErrorMessage(0, {}), "no nodes available to schedule pods");
}

}  // namespace
}  // namespace trimtab::cluster::runtime
