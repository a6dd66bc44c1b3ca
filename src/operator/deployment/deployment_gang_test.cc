// FlinkDeploymentController with gang scheduling against the in-process API server: the Volcano
// PodGroup is created before the JobManager Deployment and owned by it, the JobManager and
// TaskManager pod templates join the gang, minMember follows the TaskManager pods, nothing is
// created when the PodGroup cannot be, and the queue facts the queue-capacity plugin reads.
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "operator/deployment/queue_headroom_reader.h"
#include "operator/testing/controller_test_fixture.h"

namespace trimtab::op::testing {
namespace {

const kube::GroupVersionResource kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                                       false};
const kube::GroupVersionResource kPodGroups{"scheduling.volcano.sh", "v1beta1", "podgroups", true};
const kube::GroupVersionResource kQueues{"scheduling.volcano.sh", "v1beta1", "queues", false};
const kube::GroupVersionResource kNodes{"", "v1", "nodes", false};

// A minimal CRD (schema-less) for a Volcano kind: enough for the API server to serve it.
Json Crd(const std::string& kind, const std::string& plural, bool namespaced) {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", plural + ".scheduling.volcano.sh"}}},
          {"spec",
           {{"group", "scheduling.volcano.sh"},
            {"scope", namespaced ? "Namespaced" : "Cluster"},
            {"names",
             {{"kind", kind}, {"plural", plural}, {"singular", kind == "Queue" ? "queue" : "podgroup"},
              {"listKind", kind + "List"}}},
            {"versions",
             Json::array({{{"name", "v1beta1"},
                           {"served", true},
                           {"storage", true},
                           {"subresources", {{"status", Json::object()}}},
                           {"schema",
                            {{"openAPIV3Schema",
                              {{"type", "object"},
                               {"x-kubernetes-preserve-unknown-fields", true}}}}}}})}}}};
}

std::string GangYaml(const std::string& name, const std::string& config) {
  return "apiVersion: flink.apache.org/v1beta1\n"
         "kind: FlinkDeployment\n"
         "metadata:\n"
         "  name: " + name + "\n"
         "  namespace: default\n"
         "spec:\n"
         "  image: flink:1.20\n"
         "  flinkVersion: v1_20\n"
         "  serviceAccount: flink\n"
         "  flinkConfiguration:\n"
         "    taskmanager.numberOfTaskSlots: \"2\"\n" + config +
         "  jobManager:\n"
         "    resource: {memory: 1g, cpu: 1}\n"
         "  taskManager:\n"
         "    resource: {memory: 2g, cpu: 1}\n"
         "  job:\n"
         "    jarURI: local:///opt/flink/examples/streaming/StateMachineExample.jar\n"
         "    parallelism: 4\n"
         "    upgradeMode: stateless\n";
}

class GangTest : public ControllerTest {
 protected:
  void InstallVolcano() {
    for (const Json& crd : {Crd("PodGroup", "podgroups", true), Crd("Queue", "queues", false)}) {
      ASSERT_TRUE(env_.client()->Create(kCrds, "", crd).ok());
    }
    for (int i = 0; i < 200; ++i) {
      if (env_.client()->List(kPodGroups, "default", {}).ok() &&
          env_.client()->List(kQueues, "", {}).ok()) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL() << "the Volcano CRDs are not served";
  }

  StatusOr<Json> PodGroup(const std::string& cluster) {
    return env_.client()->Get(kPodGroups, "default", "podgroup-" + cluster);
  }

  // A TaskManager pod placed on `node` ("" = still waiting for the scheduler).
  void AddTaskManager(const std::string& cluster, const std::string& pod,
                      const std::string& node = "node-1") {
    Json p = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", pod},
                {"labels", {{"app", cluster}, {"component", "taskmanager"},
                            {"type", "flink-native-kubernetes"}}}}},
              {"spec", {{"containers", Json::array({{{"name", "flink-main-container"},
                                                     {"image", "flink:1.20"}}})}}}};
    if (!node.empty()) p["spec"]["nodeName"] = node;
    ASSERT_TRUE(env_.client()->Create(kube::PodsResource(), "default", p).ok());
  }

  // The resourceVersion at which the first object of `gvr` named `name` was ADDED after `since`.
  int64_t AddedAt(const kube::GroupVersionResource& gvr, const std::string& name,
                  const std::string& since) {
    int64_t added = -1;
    env_.client()->Watch(
        gvr, "default", {.resource_version = since, .timeout_seconds = 2},
        [&](const kube::WatchEvent& e) {
          if (e.type == "ADDED" && kube::ObjectName(*e.object) == name) {
            added = std::stoll(kube::ObjectResourceVersion(*e.object));
            return false;
          }
          return true;
        }).IgnoreError();
    return added;
  }
};

TEST_F(GangTest, VolcanoPodGroupComesFirstIsOwnedAndFollowsTheTaskManagers) {
  InstallVolcano();
  StatusOr<Json> before = env_.client()->ListPage(kPodGroups, "default", {});
  ASSERT_TRUE(before.ok());
  const std::string since = (*before)["metadata"].value("resourceVersion", "");
  ASSERT_TRUE(env_.Apply(GangYaml("gang",
                                  "    kubernetes.scheduler-name: volcano\n"
                                  "    kubernetes.scheduler.volcano.config: "
                                  "\"queue:q1,priorityClassName:high\"\n"))
                  .ok());
  Pass("gang");

  StatusOr<Json> dep = env_.client()->Get(DeploymentsResource(), "default", "gang");
  ASSERT_TRUE(dep.ok()) << dep.status().ToString();
  StatusOr<Json> group = PodGroup("gang");
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  // Created before the Deployment, then owned by it.
  const int64_t group_added = AddedAt(kPodGroups, "podgroup-gang", since);
  const int64_t dep_added = AddedAt(DeploymentsResource(), "gang", since);
  ASSERT_GT(group_added, 0);
  EXPECT_LT(group_added, dep_added);
  const Json& owner = (*group)["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "Deployment");
  EXPECT_EQ(owner["uid"], (*dep)["metadata"]["uid"]);
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ(owner["blockOwnerDeletion"], true);
  EXPECT_EQ((*group)["metadata"]["labels"]["app.kubernetes.io/managed-by"], "trimtab-operator");
  // Queue, priority, and the whole job's requests (1 JobManager + 2 TaskManagers); one member
  // until the TaskManagers exist.
  EXPECT_EQ((*group)["spec"], Json::parse(R"({"minMember":1,"minResources":{"cpu":"3","memory":"5Gi"},
                                             "queue":"q1","priorityClassName":"high"})"));

  // Both pod templates carry the scheduler and the group.
  const Json& jm = (*dep)["spec"]["template"];
  EXPECT_EQ(jm["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(jm["metadata"]["annotations"]["scheduling.k8s.io/group-name"], "podgroup-gang");
  StatusOr<Json> cm = env_.client()->Get(kube::ConfigMapsResource(), "default", "flink-config-gang");
  ASSERT_TRUE(cm.ok());
  StatusOr<Json> tm = ParseYaml((*cm)["data"].value("taskmanager-pod-template.yaml", ""), "tm");
  ASSERT_TRUE(tm.ok());
  EXPECT_EQ((*tm)["spec"]["schedulerName"], "volcano");
  EXPECT_EQ((*tm)["metadata"]["annotations"]["scheduling.k8s.io/group-name"], "podgroup-gang");
  StatusOr<Json> conf = env_.DeployedConfig("gang");
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ((*conf)["kubernetes.pod-template-file.taskmanager"],
            "/opt/flink/conf/taskmanager-pod-template.yaml");

  // Neither the queue nor the priority class exists: one Warning each, naming them.
  // Events are listed by name, which says nothing about the order they were recorded in.
  std::vector<std::string> missing = env_.Events("gang", "SchedulingReferenceMissing");
  ASSERT_EQ(missing.size(), 2u);
  std::sort(missing.begin(), missing.end());
  EXPECT_NE(missing[0].find("PriorityClass \"high\""), std::string::npos) << missing[0];
  EXPECT_EQ(missing[1], "Queue \"q1\" named by kubernetes.scheduler.volcano.config: queue does not "
                        "exist: the scheduler will not admit the PodGroup until it does");

  // Flink creates the TaskManagers: the gang grows with them as they are placed, up to the
  // desired two. One still waiting for a node does not count (issue 20): a minMember above the
  // placed pods would turn the running group back to Pending, drop its reservation in the queue
  // and leave the TaskManager unplaced while the JobManager runs.
  ASSERT_TRUE(env_.StartCluster("gang").ok());
  AddTaskManager("gang", "gang-taskmanager-1-9", "");
  Pass("gang");
  EXPECT_EQ((*PodGroup("gang"))["spec"]["minMember"], 1);
  AddTaskManager("gang", "gang-taskmanager-1-1");
  Pass("gang");
  EXPECT_EQ((*PodGroup("gang"))["spec"]["minMember"], 2);
  AddTaskManager("gang", "gang-taskmanager-1-2");
  AddTaskManager("gang", "gang-taskmanager-1-3");  // more than desired: capped
  Pass("gang");
  EXPECT_EQ((*PodGroup("gang"))["spec"]["minMember"], 3);
  EXPECT_EQ((*PodGroup("gang"))["metadata"]["ownerReferences"][0]["uid"], (*dep)["metadata"]["uid"]);
  // TaskManagers gone (a JobManager restart): lowered again.
  for (const char* pod : {"gang-taskmanager-1-1", "gang-taskmanager-1-2", "gang-taskmanager-1-3",
                          "gang-taskmanager-1-9"}) {
    ASSERT_TRUE(env_.client()->Delete(kube::PodsResource(), "default", pod, {}).ok());
  }
  ASSERT_TRUE(PassUntil("gang", [&](const api::FlinkDeployment&) {
    StatusOr<Json> g = PodGroup("gang");
    return g.ok() && (*g)["spec"]["minMember"] == 1;
  }, 100));
}

TEST_F(GangTest, DefaultSchedulerCreatesNoPodGroup) {
  InstallVolcano();
  ASSERT_TRUE(env_.Apply(GangYaml("plain", "")).ok());
  Pass("plain");
  StatusOr<Json> dep = env_.client()->Get(DeploymentsResource(), "default", "plain");
  ASSERT_TRUE(dep.ok());
  // The API server's default, not ours.
  EXPECT_EQ((*dep)["spec"]["template"]["spec"].value("schedulerName", "default-scheduler"),
            "default-scheduler");
  EXPECT_FALSE((*dep)["spec"]["template"]["metadata"].contains("annotations"));
  StatusOr<std::vector<Json>> groups = env_.client()->List(kPodGroups, "default", {});
  ASSERT_TRUE(groups.ok());
  EXPECT_TRUE(groups->empty());
  StatusOr<Json> cm = env_.client()->Get(kube::ConfigMapsResource(), "default", "flink-config-plain");
  ASSERT_TRUE(cm.ok());
  EXPECT_FALSE((*cm)["data"].contains("taskmanager-pod-template.yaml"));
}

TEST_F(GangTest, UnknownSchedulerNameGetsItsNameAndANormalEvent) {
  InstallVolcano();
  ASSERT_TRUE(env_.Apply(GangYaml("yk", "    kubernetes.scheduler-name: yunikorn\n")).ok());
  Pass("yk");
  StatusOr<Json> dep = env_.client()->Get(DeploymentsResource(), "default", "yk");
  ASSERT_TRUE(dep.ok());
  EXPECT_EQ((*dep)["spec"]["template"]["spec"]["schedulerName"], "yunikorn");
  EXPECT_EQ(env_.Events("yk", "NoPodGroup"),
            std::vector<std::string>{"Scheduler \"yunikorn\" has no step decorator "
                                     "(kubernetes.operator.scheduler.decorators): its pods get no "
                                     "PodGroup"});
  EXPECT_TRUE(env_.client()->List(kPodGroups, "default", {})->empty());
}

TEST_F(GangTest, PodGroupThatCannotBeCreatedMeansNoDeployment) {
  // No Volcano CRD: the API server has no podgroups resource.
  ASSERT_TRUE(env_.Apply(GangYaml("nocrd", "    kubernetes.scheduler-name: volcano\n")).ok());
  EXPECT_FALSE(TryPass("nocrd").ok());
  EXPECT_EQ(env_.client()->Get(DeploymentsResource(), "default", "nocrd").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(env_.client()->Get(kube::ConfigMapsResource(), "default", "flink-config-nocrd")
                .status()
                .code(),
            StatusCode::kNotFound);
  const std::string error = Get("nocrd").status.error;
  EXPECT_NE(error.find("create PodGroup default/podgroup-nocrd"), std::string::npos) << error;
}

TEST_F(GangTest, InvalidQueueNameIsRejectedBeforeAnythingIsCreated) {
  InstallVolcano();
  ASSERT_TRUE(env_.Apply(GangYaml("badq", "    kubernetes.scheduler-name: volcano\n"
                                          "    kubernetes.scheduler.volcano.config: queue:Team_A\n"))
                  .ok());
  Pass("badq");
  EXPECT_EQ(env_.client()->Get(DeploymentsResource(), "default", "badq").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(PodGroup("badq").status().code(), StatusCode::kNotFound);
  const std::string error = Get("badq").status.error;
  EXPECT_NE(error.find("kubernetes.scheduler.volcano.config.queue: \"Team_A\" is not a valid queue "
                       "name"),
            std::string::npos)
      << error;
  EXPECT_EQ(env_.Events("badq", "ValidationError").size(), 1u);
}

TEST_F(GangTest, APodGroupTheOperatorDidNotCreateIsNeverReplaced) {
  InstallVolcano();
  Json foreign = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                  {"kind", "PodGroup"},
                  {"metadata", {{"name", "podgroup-mine"}}},
                  {"spec", {{"minMember", 7}, {"queue", "default"}}}};
  ASSERT_TRUE(env_.client()->Create(kPodGroups, "default", foreign).ok());
  ASSERT_TRUE(env_.Apply(GangYaml("mine", "    kubernetes.scheduler-name: volcano\n")).ok());
  EXPECT_FALSE(TryPass("mine").ok());
  EXPECT_EQ(env_.client()->Get(DeploymentsResource(), "default", "mine").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ((*PodGroup("mine"))["spec"]["minMember"], 7);
  EXPECT_NE(Get("mine").status.error.find("was not created by the operator"), std::string::npos);
}

// Hands out fixed parallelism overrides and records the contexts it was called with.
class OverridingAutoscaler : public JobAutoscaler {
 public:
  StatusOr<AutoscalerOutcome> Scale(const AutoscalerJobContext& context) override {
    contexts.push_back(context);
    return outcome;
  }
  Status Cleanup(const std::string&, const std::string&) override { return Status::Ok(); }
  AutoscalerOutcome outcome;
  std::vector<AutoscalerJobContext> contexts;
};

TEST_F(GangTest, InPlaceScaleUpRaisesMinResourcesFirstAndTheAutoscalerSeesTheQueue) {
  InstallVolcano();
  OverridingAutoscaler autoscaler;
  NewControllers(&autoscaler);
  const std::string job = DeployToStable(GangYaml("elastic",
                                                  "    kubernetes.scheduler-name: volcano\n"
                                                  "    job.autoscaler.enabled: \"true\"\n"
                                                  "    jobmanager.scheduler: adaptive\n"),
                                         "elastic");
  EXPECT_EQ((*PodGroup("elastic"))["spec"]["minResources"],
            Json::parse(R"({"cpu":"3","memory":"5Gi"})"));  // 4 slots: 2 TaskManagers
  ASSERT_FALSE(autoscaler.contexts.empty());
  const AutoscalerJobContext& seen = autoscaler.contexts.back();
  ASSERT_TRUE(seen.queue.has_value());
  EXPECT_EQ(seen.queue->queue, "default");
  EXPECT_FALSE(seen.queue->exists);  // no Queue objects in this API server
  EXPECT_EQ(seen.queue->task_manager.cpu, 1);
  EXPECT_EQ(seen.queue->slots_per_task_manager, 2);

  autoscaler.outcome.parallelism_overrides = {{"vertex-a", 8}, {"vertex-b", 8}};
  autoscaler.outcome.scaled = true;
  Pass("elastic");
  EXPECT_EQ(env_.jm()->Job(job)->requirements.at("vertex-a"), (flink::ParallelismBounds{1, 8}));
  EXPECT_EQ(env_.Events("elastic", "Scaling"), std::vector<std::string>{"In-place scaling triggered"});
  // 8 slots: 4 TaskManagers of 1 cpu / 2 GiB plus the JobManager.
  EXPECT_EQ((*PodGroup("elastic"))["spec"]["minResources"],
            Json::parse(R"({"cpu":"5","memory":"9Gi"})"));
  EXPECT_EQ((*PodGroup("elastic"))["spec"]["minMember"], 1);  // no TaskManager pod exists here
}

TEST_F(GangTest, QueueFactsForTheQueueCapacityPlugin) {
  InstallVolcano();
  Json queue = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "Queue"},
                {"metadata", {{"name", "analytics"}}},
                {"spec", {{"capability", {{"cpu", "8"}, {"memory", "64Gi"}}},
                          {"deserved", {{"cpu", "6"}}}}}};
  StatusOr<Json> created = env_.client()->Create(kQueues, "", queue);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  (*created)["status"] = {{"state", "Open"}, {"allocated", {{"cpu", "5"}, {"memory", "10Gi"}}}};
  ASSERT_TRUE(env_.client()->UpdateStatus(kQueues, *created).ok());
  Json other = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "Queue"},
                {"metadata", {{"name", "batch"}}},
                {"spec", {{"guarantee", {{"resource", {{"cpu", "2"}}}}}}}};
  ASSERT_TRUE(env_.client()->Create(kQueues, "", other).ok());
  for (const char* name : {"n1", "n2"}) {
    Json node = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}};
    StatusOr<Json> n = env_.client()->Create(kNodes, "", node);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    (*n)["status"] = {{"allocatable", {{"cpu", "4"}, {"memory", "16Gi"}}},
                      {"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})}};
    ASSERT_TRUE(env_.client()->UpdateStatus(kNodes, *n).ok());
  }
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "busy"}}},
              {"spec", {{"nodeName", "n1"},
                        {"containers", Json::array({{{"name", "c"}, {"image", "x"},
                                                     {"resources", {{"requests", {{"cpu", "1500m"},
                                                                                  {"memory", "1Gi"}}}}}}})}}}};
  ASSERT_TRUE(env_.client()->Create(kube::PodsResource(), "default", pod).ok());

  core::QueueHeadroom h = ReadQueueHeadroom(
      *env_.client(), "analytics",
      {.task_manager = {.cpu = 1, .memory_bytes = int64_t{2} << 30}, .slots_per_task_manager = 2,
       .task_managers = 2});
  EXPECT_TRUE(h.error.empty()) << h.error;
  EXPECT_TRUE(h.exists);
  EXPECT_EQ(h.state, "Open");
  EXPECT_EQ(h.capability.cpu, 8);
  EXPECT_EQ(h.capability.memory_bytes, 64.0 * (1 << 30));
  EXPECT_EQ(h.deserved.cpu, 6);
  EXPECT_FALSE(h.deserved.memory_bytes);
  EXPECT_EQ(h.allocated.cpu, 5);
  EXPECT_EQ(h.others_guarantee.cpu, 2);
  EXPECT_EQ(h.cluster_total.cpu, 8);
  ASSERT_TRUE(h.node_free.has_value());
  ASSERT_EQ(h.node_free->size(), 2u);
  EXPECT_DOUBLE_EQ(*(*h.node_free)[0].cpu + *(*h.node_free)[1].cpu, 6.5);
  EXPECT_EQ(h.task_manager.cpu, 1);
  EXPECT_EQ(h.task_managers, 2);

  core::QueueHeadroom none = ReadQueueHeadroom(*env_.client(), "nope", {});
  EXPECT_FALSE(none.exists);
  EXPECT_TRUE(none.error.empty());
}

}  // namespace
}  // namespace trimtab::op::testing
