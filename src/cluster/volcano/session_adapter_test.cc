// The adapter between the local cluster and the scheduling engine: the session's input built
// from the snapshot and caches (assumed placements filled in), and the status writes computed
// against the current objects (only when something besides timestamps changes), plus the queue
// state machine.
#include "cluster/volcano/session_adapter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/volcano/queue_controller.h"

namespace trimtab::cluster::volcano {
namespace {

using core::scheduling::Condition;
using core::scheduling::PodGroupOutcome;
using core::scheduling::QueueOutcome;

Json Node(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}}},
          {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}}}}};
}

Json Pod(const std::string& name, const std::string& node = "", const std::string& phase = "Pending") {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"namespace", "default"}, {"name", name}, {"uid", "uid-" + name}}},
              {"spec", {{"schedulerName", "volcano"}, {"containers", Json::array()}}},
              {"status", {{"phase", phase}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

TEST(SessionAdapterTest, ClusterObjectsCarryEveryPodAndTheLoopsAssumedPlacements) {
  runtime::ClusterSnapshot snapshot({Node("n1"), Node("n2")}, {Pod("bound", "n1", "Running")});
  Json assumed = Pod("assumed");  // bound by the loop, not in the cache yet
  snapshot.Assume(assumed, "n2");
  auto shared = [](std::vector<Json> list) {
    std::vector<kube::ObjectPtr> out;
    for (Json& o : list) out.push_back(std::make_shared<const Json>(std::move(o)));
    return out;
  };
  const std::vector<kube::ObjectPtr> pods = shared(
      {Pod("bound", "n1", "Running"), assumed, Pod("waiting"), Pod("done", "n1", "Succeeded")});
  SessionInput in = BuildSessionInput(snapshot, pods, shared({Json{{"kind", "PodGroup"}}}),
                                      shared({Json{{"kind", "Queue"}}}), {});
  const core::scheduling::ClusterObjectRefs& objects = in.refs;
  ASSERT_EQ(objects.nodes.size(), 2u);
  EXPECT_EQ((*objects.nodes[0])["metadata"]["name"], "n1");
  ASSERT_EQ(objects.pods.size(), 4u);
  EXPECT_EQ(objects.pods[0], pods[0].get());                     // the cache's own object
  EXPECT_EQ((*objects.pods[1])["spec"]["nodeName"], "n2");       // assumed: placed, on a copy
  EXPECT_FALSE((*pods[1])["spec"].contains("nodeName"));         // the cache is untouched
  EXPECT_FALSE((*objects.pods[2])["spec"].contains("nodeName"));  // really pending
  EXPECT_EQ((*objects.pods[3])["status"]["phase"], "Succeeded");   // finished pods count too
  EXPECT_EQ(objects.pod_groups.size(), 1u);
  EXPECT_EQ(objects.queues.size(), 1u);

  // Moving the input keeps its refs valid.
  SessionInput moved = std::move(in);
  EXPECT_EQ((*moved.refs.pods[1])["spec"]["nodeName"], "n2");
}

PodGroupOutcome Outcome(const std::string& phase, const std::string& stamp) {
  PodGroupOutcome o;
  o.ns = "default";
  o.name = "pg";
  o.phase = phase;
  o.conditions = {Condition{.type = "Unschedulable",
                            .status = "True",
                            .reason = "NotEnoughResources",
                            .message = "2/2 tasks in gang unschedulable: 0/1 nodes are unavailable",
                            .transition_id = "session-" + stamp,
                            .last_transition_time = "2026-01-01T00:00:0" + stamp + "Z"}};
  o.running = 0;
  o.changed = true;
  return o;
}

TEST(SessionAdapterTest, PodGroupStatusIsWrittenOnlyWhenMoreThanStampsChange) {
  Json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"namespace", "default"}, {"name", "pg"}, {"resourceVersion", "7"}}},
             {"spec", {{"minMember", 2}}}};
  auto first = PodGroupWithStatus(pg, Outcome("Inqueue", "1"));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ((*first)["metadata"]["resourceVersion"], "7");  // the update is conditional
  EXPECT_EQ((*first)["spec"]["minMember"], 2);
  EXPECT_EQ((*first)["status"]["phase"], "Inqueue");
  EXPECT_EQ((*first)["status"]["conditions"][0]["transitionID"], "session-1");
  EXPECT_EQ((*first)["status"]["conditions"][0]["lastTransitionTime"], "2026-01-01T00:00:01Z");
  EXPECT_FALSE((*first)["status"].contains("running"));

  // The next session stamps the same condition again: nothing to write.
  EXPECT_FALSE(PodGroupWithStatus(*first, Outcome("Inqueue", "2")).has_value());
  // A new phase or count is.
  PodGroupOutcome running = Outcome("Running", "3");
  running.conditions.clear();
  running.running = 2;
  auto next = PodGroupWithStatus(*first, running);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ((*next)["status"]["running"], 2);
  EXPECT_FALSE((*next)["status"].contains("conditions"));
}

TEST(SessionAdapterTest, QueueAllocatedPatchClearsResourcesThatAreGone) {
  Json queue = {{"metadata", {{"name", "q"}}},
                {"status", {{"allocated", {{"cpu", "2"}, {"memory", "1Gi"}, {"pods", "2"}}}}}};
  QueueOutcome same;
  same.allocated = {{"cpu", "2"}, {"memory", "1Gi"}, {"pods", "2"}};
  EXPECT_FALSE(QueueAllocatedPatch(queue, same).has_value());
  QueueOutcome less;
  less.allocated = {{"cpu", "1"}};
  auto patch = QueueAllocatedPatch(queue, less);
  ASSERT_TRUE(patch.has_value());
  EXPECT_EQ(*patch, Json::parse(R"({"status": {"allocated": {"cpu": "1", "memory": null, "pods": null}}})"));
  QueueOutcome empty;
  empty.allocated = Json::object();
  EXPECT_FALSE(QueueAllocatedPatch(Json{{"metadata", {{"name", "q"}}}}, empty).has_value());
}

TEST(SessionAdapterTest, PodScheduledFalseOnlyWhenItChanges) {
  Json pod = Pod("p");
  auto patch = PodScheduledPatch(pod, "Unschedulable", "1/2 tasks in gang unschedulable", "T1");
  ASSERT_TRUE(patch.has_value());
  const Json& c = (*patch)["status"]["conditions"][0];
  EXPECT_EQ(c["type"], "PodScheduled");
  EXPECT_EQ(c["status"], "False");
  EXPECT_EQ(c["reason"], "Unschedulable");
  EXPECT_EQ(c["lastTransitionTime"], "T1");
  pod["status"]["conditions"] = (*patch)["status"]["conditions"];
  EXPECT_FALSE(PodScheduledPatch(pod, "Unschedulable", "1/2 tasks in gang unschedulable", "T2"));
  auto changed = PodScheduledPatch(pod, "Unschedulable", "other", "T3");
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ((*changed)["status"]["conditions"][0]["lastTransitionTime"], "T1");  // same status
}

TEST(QueueStateTest, FollowsVolcanosQueueStateMachine) {
  struct Case {
    std::string queue, current;
    int pod_groups;
    std::string want;
  } cases[] = {
      {"q", "", 0, "Open"},           {"q", "Open", 3, "Open"},
      {"q", "Closing", 2, "Closing"}, {"q", "Closing", 0, "Closed"},
      {"q", "Closed", 5, "Closed"},   {"q", "Weird", 0, "Unknown"},
      {"root", "Closed", 0, "Open"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NextQueueState(c.queue, c.current, c.pod_groups), c.want)
        << c.queue << " " << c.current << " " << c.pod_groups;
  }
}

}  // namespace
}  // namespace trimtab::cluster::volcano
