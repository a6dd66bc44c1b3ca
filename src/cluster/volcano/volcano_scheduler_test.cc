// The Volcano scheduler inside the local cluster, end to end over HTTP: an in-process API server,
// the runtime with VolcanoScheduler registered, nodes of 2 cpu, and plain pods that name
// schedulerName volcano and a PodGroup, on a clock 10x faster than wall time (a session every
// 100 ms of wall time). Checks gang admission (a gang bound whole, the other kept Pending with
// the Unschedulable condition and event until the first is gone), the queue's status, a
// PodGroup naming a missing queue, and whole-gang preemption by priority.
#include "cluster/volcano/volcano_scheduler.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/runtime/runtime_test_util.h"
#include "cluster/volcano/volcano_crds.h"
#include "common/quantity.h"
#include "core/scheduling/scheduler_config.h"

namespace trimtab::cluster::volcano {
namespace {

using runtime::At;
using runtime::Int;
using runtime::NodesGvr;
using runtime::PodsGvr;
using runtime::Str;
using runtime::testing::Eventually;

class VolcanoSchedulerTest : public runtime::testing::ClusterTest {
 protected:
  void Start(VolcanoSchedulerOptions options = {}) {
    StartApiServer(&clock_);
    StartRuntime({.clock = &clock_,
                  .nodes = runtime::UniformNodes(2, "2", "8Gi"),
                  .schedulers = {VolcanoSchedulerFactory(std::move(options))},
                  .service_proxy = false});
  }

  // A PodGroup of `members` pods of 1 cpu each, all needed (minMember = members).
  void Gang(const std::string& name, int members, const std::string& queue = "default",
            const std::string& priority_class = "") {
    Json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
               {"kind", "PodGroup"},
               {"metadata", {{"name", name}}},
               {"spec",
                {{"minMember", members},
                 {"queue", queue},
                 {"minResources", {{"cpu", std::to_string(members)}}}}}};
    if (!priority_class.empty()) pg["spec"]["priorityClassName"] = priority_class;
    Create(PodGroupsGvr(), pg);
    for (int i = 0; i < members; ++i) {
      Json pod = runtime::testing::TestPod(name + "-" + std::to_string(i), Json(),
                                           {{"scheduling.k8s.io/group-name", name}});
      pod["spec"]["schedulerName"] = "volcano";
      pod["spec"]["terminationGracePeriodSeconds"] = 1;
      pod["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "1"}}}};
      if (!priority_class.empty()) pod["spec"]["priorityClassName"] = priority_class;
      Create(PodsGvr(), pod);
    }
  }

  std::vector<Json> Members(const std::string& gang) {
    std::vector<Json> out;
    for (Json& p : List(PodsGvr())) {
      if (Str(p, {"metadata", "annotations", "scheduling.k8s.io/group-name"}) == gang &&
          !runtime::IsDeleting(p)) {
        out.push_back(std::move(p));
      }
    }
    return out;
  }
  int Bound(const std::string& gang) {
    int n = 0;
    for (const Json& p : Members(gang)) n += Str(p, {"spec", "nodeName"}).empty() ? 0 : 1;
    return n;
  }
  int Running(const std::string& gang) {
    int n = 0;
    for (const Json& p : Members(gang)) n += Str(p, {"status", "phase"}) == "Running" ? 1 : 0;
    return n;
  }
  Json Group(const std::string& name) { return Get(PodGroupsGvr(), name); }
  std::string Phase(const std::string& name) { return Str(Group(name), {"status", "phase"}); }
  void DeleteMembers(const std::string& gang) {
    for (const Json& p : Members(gang)) {
      ASSERT_TRUE(client_->Delete(PodsGvr(), "default", Str(p, {"metadata", "name"}),
                                  {.grace_period_seconds = 0})
                      .ok());
    }
  }
  void PriorityClass(const std::string& name, int64_t value) {
    Create(PriorityClassesGvr(),
           {{"apiVersion", "scheduling.k8s.io/v1"},
            {"kind", "PriorityClass"},
            {"metadata", {{"name", name}}},
            {"value", value}},
           "");
  }

  ScaledClock clock_{10.0};
};

TEST_F(VolcanoSchedulerTest, OneGangRunsWholeTheOtherWaitsUntilItIsGone) {
  Start();
  // The queues vc-scheduler creates, with the state the queue controller gives them.
  ASSERT_TRUE(Eventually([&] { return Str(Get(QueuesGvr(), "default", ""), {"status", "state"}) == "Open"; }));
  EXPECT_EQ(Str(Get(QueuesGvr(), "default", ""), {"spec", "parent"}), "root");
  EXPECT_FALSE(Get(QueuesGvr(), "root", "").is_null());

  Gang("first", 3);  // 3 of the 4 cpus
  ASSERT_TRUE(Eventually([&] { return Running("first") == 3; }));
  ASSERT_TRUE(Eventually([&] { return Phase("first") == "Running"; }));
  Gang("second", 3);  // does not fit beside the first
  ASSERT_TRUE(Eventually([&] {
    const Json group = Group("second");
    const Json* c = runtime::FindCondition(group, "Unschedulable");
    return c && c->value("status", "") == "True";
  }));
  // Never half a gang: none of the second's pods is bound.
  EXPECT_EQ(Bound("second"), 0);
  const std::string phase = Phase("second");
  EXPECT_TRUE(phase == "Pending" || phase == "Inqueue") << phase;
  EXPECT_TRUE(Eventually([&] { return !Events("second", "Unschedulable").empty(); }));
  // The queue counts its groups and what they hold.
  EXPECT_TRUE(Eventually([&] {
    Json q = Get(QueuesGvr(), "default", "");
    auto cpu = Quantity::Parse(Str(q, {"status", "allocated", "cpu"}, "0"));
    return Int(q, {"status", "running"}) == 1 && cpu.ok() && cpu->MilliValue() == 3000;
  })) << Get(QueuesGvr(), "default", "").dump();

  DeleteMembers("first");
  ASSERT_TRUE(Eventually([&] { return Running("second") == 3; }));
  EXPECT_TRUE(Eventually([&] { return Phase("second") == "Running"; }));
  for (const Json& p : Members("second")) {
    EXPECT_EQ(runtime::testing::ConditionStatus(p, "PodScheduled"), "True") << p.dump();
  }
}

TEST_F(VolcanoSchedulerTest, APodGroupNamingAMissingQueueSaysSo) {
  Start();
  Gang("lost", 1, "nope");
  ASSERT_TRUE(Eventually([&] {
    for (const Json& e : Events("lost", "Unschedulable")) {
      if (Str(e, {"message"}).find("nope") != std::string::npos) return true;
    }
    return false;
  }));
  EXPECT_EQ(Bound("lost"), 0);
}

// Issue 20: a Flink cluster's group has minMember 1 (only the JobManager exists) and
// minResources of the whole job. With no admission plugin every group is admitted, and the
// JobManager alone fits the free cpu; the start rule keeps it unbound until the whole job fits.
TEST_F(VolcanoSchedulerTest, AJobManagerStartsOnlyWhenItsWholeJobFits) {
  auto config = core::scheduling::ParseSchedulerConfig(
      "actions: \"enqueue, allocate, backfill\"\n"
      "tiers:\n"
      "- plugins:\n"
      "  - name: priority\n"
      "  - name: gang\n"
      "- plugins:\n"
      "  - name: predicates\n"
      "  - name: nodeorder\n",
      "test");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  Start({.config = *config});
  Gang("first", 3);  // 3 of the 4 cpus
  ASSERT_TRUE(Eventually([&] { return Running("first") == 3; }));
  Create(PodGroupsGvr(), {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                          {"kind", "PodGroup"},
                          {"metadata", {{"name", "flink"}}},
                          {"spec", {{"minMember", 1}, {"minResources", {{"cpu", "3"}}}}}});
  Json jm = runtime::testing::TestPod("flink-jm", Json(), {{"scheduling.k8s.io/group-name", "flink"}});
  jm["spec"]["schedulerName"] = "volcano";
  jm["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "1"}}}};
  Create(PodsGvr(), jm);
  ASSERT_TRUE(Eventually([&] {
    const Json group = Group("flink");
    const Json* c = runtime::FindCondition(group, "Unschedulable");
    return c && c->value("message", "").find("the whole gang") != std::string::npos;
  })) << Group("flink").dump();
  EXPECT_EQ(Bound("flink"), 0);
  DeleteMembers("first");
  ASSERT_TRUE(Eventually([&] { return Running("flink") == 1; }));
}

TEST_F(VolcanoSchedulerTest, AHigherPriorityGangEvictsAWholeLowerPriorityOne) {
  const auto& actions = core::scheduling::KnownActionNames();
  if (std::find(actions.begin(), actions.end(), "gangpreempt") == actions.end()) {
    GTEST_SKIP() << "the session engine has no gangpreempt action yet";
  }
  auto config = core::scheduling::ParseSchedulerConfig(
      "actions: \"enqueue, allocate, gangpreempt, backfill\"\n"
      "tiers:\n"
      "- plugins:\n"
      "  - name: priority\n"
      "  - name: gang\n"
      "  - name: conformance\n"
      "- plugins:\n"
      "  - name: drf\n"
      "  - name: predicates\n"
      "  - name: nodeorder\n",
      "test");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  // No proportion plugin: its admission would keep the urgent gang Pending while the batch one
  // holds the queue's whole share, and a Pending job never preempts (Volcano's enqueue-before-
  // preempt order).
  Start({.config = *config});
  PriorityClass("low", 10);
  PriorityClass("high", 1000);
  Gang("batch", 4, "default", "low");  // the whole cluster
  ASSERT_TRUE(Eventually([&] { return Running("batch") == 4; }));
  Gang("urgent", 3, "default", "high");
  // The low-priority gang goes whole (not just the one pod the room needs), the urgent one runs.
  ASSERT_TRUE(Eventually([&] { return Running("urgent") == 3; }, std::chrono::seconds(20)));
  EXPECT_EQ(Bound("batch"), 0);
  // Events of the evicted pods (they outlive the pods) and of their PodGroup.
  EXPECT_TRUE(Eventually([&] {
    for (int i = 0; i < 4; ++i) {
      if (Events("batch-" + std::to_string(i), "Evict").empty()) return false;
    }
    return true;
  }));
  EXPECT_TRUE(Eventually([&] { return !Events("batch", "Evict").empty(); }));
}

}  // namespace
}  // namespace trimtab::cluster::volcano
