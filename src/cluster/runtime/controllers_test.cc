// The runtime's controllers and scheduler end to end against an in-process API server, on a
// clock running 10x faster than wall time: ReplicaSets, Deployments (rolling update, Recreate,
// pause, progress deadline, history limit, deletion propagation), Endpoints/EndpointSlices,
// scheduling and its failure reporting, default ServiceAccounts and pod GC.
#include <nlohmann/json.hpp>

#include "cluster/runtime/replicaset_controller.h"
#include "cluster/runtime/rollout_math.h"
#include "cluster/runtime/runtime_test_util.h"

namespace trimtab::cluster::runtime::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

Json Template(const std::string& app, const std::string& image, Json annotations = Json::object()) {
  return {{"metadata", {{"labels", {{"app", app}}}, {"annotations", annotations}}},
          {"spec",
           {{"containers",
             Json::array({{{"name", "main"},
                           {"image", image},
                           {"ports", Json::array({{{"name", "http"}, {"containerPort", 8080}}})}}})}}}};
}

Json ReplicaSet(const std::string& name, int replicas, Json annotations = Json::object()) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "ReplicaSet"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", name}}}}},
            {"template", Template(name, "nginx:1.27", annotations)}}}};
}

Json Deployment(const std::string& name, int replicas, Json strategy = Json()) {
  Json d = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", name}}},
            {"spec",
             {{"replicas", replicas},
              {"selector", {{"matchLabels", {{"app", name}}}}},
              {"template", Template(name, "nginx:1.27")}}}};
  if (!strategy.is_null()) d["spec"]["strategy"] = strategy;
  return d;
}

class ControllersTest : public ClusterTest {
 protected:
  void SetUp() override {
    StartApiServer(&clock_);
    StartRuntime({.clock = &clock_, .nodes = UniformNodes(3, "4", "16Gi"), .service_proxy = false});
  }

  std::vector<Json> Pods(const std::string& selector) {
    std::vector<Json> out;
    for (Json& p : List(PodsGvr(), selector)) {
      if (!IsDeleting(p)) out.push_back(std::move(p));
    }
    return out;
  }

  // What `kubectl rollout status` checks.
  bool RolledOut(const std::string& name) {
    Json d = Get(DeploymentsGvr(), name);
    const Json& s = d["status"];
    int64_t want = Int(d, {"spec", "replicas"}, 1);
    return !d.is_null() && Int(d, {"metadata", "generation"}) <= Int(s, {"observedGeneration"}) &&
           Int(s, {"updatedReplicas"}) == want && Int(s, {"replicas"}) == want &&
           Int(s, {"availableReplicas"}) == want;
  }

  void SetImage(const std::string& deployment, const std::string& image) {
    Json patch = {{"spec", {{"template", {{"spec", {{"containers", Json::array({{{"name", "main"}, {"image", image}}})}}}}}}}};
    auto r = client_->Patch(DeploymentsGvr(), "default", deployment, kube::PatchType::kStrategic,
                            patch.dump());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  ScaledClock clock_{10.0};
};

TEST_F(ControllersTest, ReplicaSetCreatesAdoptsAndScalesPods) {
  Json orphan = TestPod("orphan");
  orphan["metadata"]["labels"] = {{"app", "web"}};
  Create(PodsGvr(), orphan);
  // Once the kubelet runs it, the shared pod cache has it too.
  ASSERT_TRUE(Eventually([&] { return Get(PodsGvr(), "orphan")["status"]["phase"] == "Running"; }));
  Json rs = Create(ReplicaSetsGvr(), ReplicaSet("web", 3));
  ASSERT_TRUE(Eventually([&] {
    Json s = Get(ReplicaSetsGvr(), "web")["status"];
    return Int(s, {"readyReplicas"}) == 3 && Int(s, {"availableReplicas"}) == 3;
  }));
  std::vector<Json> pods = Pods("app=web");
  ASSERT_EQ(pods.size(), 3u);
  int created = 0;
  for (const Json& p : pods) {
    auto ref = ControllerRef(p);
    ASSERT_TRUE(ref.has_value()) << p.dump();
    EXPECT_EQ(ref->value("uid", ""), Str(rs, {"metadata", "uid"}));
    EXPECT_TRUE(ref->value("blockOwnerDeletion", false));
    if (Str(p, {"metadata", "name"}).rfind("web-", 0) == 0) ++created;
  }
  EXPECT_EQ(created, 2);  // the orphan was adopted
  Json status = Get(ReplicaSetsGvr(), "web")["status"];
  EXPECT_EQ(status["replicas"], 3);
  EXPECT_EQ(status["fullyLabeledReplicas"], 3);
  EXPECT_EQ(status["observedGeneration"], 1);
  EXPECT_TRUE(Eventually([&] { return Events("web", "SuccessfulCreate").size() == 2u; }));

  auto scaled = client_->Patch(ReplicaSetsGvr(), "default", "web", kube::PatchType::kMerge,
                               R"({"spec":{"replicas":1}})", {.subresource = "scale"});
  ASSERT_TRUE(scaled.ok()) << scaled.status().ToString();
  ASSERT_TRUE(Eventually([&] { return List(PodsGvr(), "app=web").size() == 1; }));
  EXPECT_TRUE(Eventually([&] { return Get(ReplicaSetsGvr(), "web")["status"]["replicas"] == 1; }));
}

TEST_F(ControllersTest, MinReadySecondsDelaysAvailability) {
  // 30 s of the 10x clock is 3 s of wall time: long enough that a loaded machine (ctest -j2
  // beside a build) cannot let it pass between two reads of the status, which 3 s (0.3 s of wall
  // time) once did.
  Json rs = ReplicaSet("slow", 2);
  rs["spec"]["minReadySeconds"] = 30;
  Create(ReplicaSetsGvr(), rs);
  ASSERT_TRUE(Eventually([&] { return Get(ReplicaSetsGvr(), "slow")["status"]["readyReplicas"] == 2; }));
  TimePoint ready_at = clock_.Now();
  EXPECT_EQ(Int(Get(ReplicaSetsGvr(), "slow"), {"status", "availableReplicas"}), 0);
  ASSERT_TRUE(Eventually([&] { return Get(ReplicaSetsGvr(), "slow")["status"]["availableReplicas"] == 2; }));
  EXPECT_GE(clock_.Now() - ready_at, seconds(20));
}

TEST_F(ControllersTest, DeploymentRollingUpdateRespectsSurgeAndUnavailability) {
  Create(DeploymentsGvr(), Deployment("web", 4, {{"type", "RollingUpdate"},
                                                 {"rollingUpdate", {{"maxSurge", 1}, {"maxUnavailable", 0}}}}));
  ASSERT_TRUE(Eventually([&] { return RolledOut("web"); }));
  Json d = Get(DeploymentsGvr(), "web");
  EXPECT_EQ(Str(d, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "1");
  EXPECT_EQ(ConditionStatus(d, "Available"), "True");
  ASSERT_NE(FindCondition(d, "Progressing"), nullptr);
  EXPECT_EQ(FindCondition(d, "Progressing")->value("reason", ""), "NewReplicaSetAvailable");
  std::vector<Json> sets = List(ReplicaSetsGvr(), "app=web");
  ASSERT_EQ(sets.size(), 1u);
  std::string first = Str(sets[0], {"metadata", "name"});
  std::string hash = Str(sets[0], {"metadata", "labels", "pod-template-hash"});
  EXPECT_EQ(first, "web-" + hash);
  EXPECT_EQ(Str(sets[0], {"spec", "selector", "matchLabels", "pod-template-hash"}), hash);

  SetImage("web", "nginx:1.28");
  int64_t max_pods = 0, min_available = 4;
  ASSERT_TRUE(Eventually([&] {
    int64_t total = 0, available = 0;
    for (const Json& rs : List(ReplicaSetsGvr(), "app=web")) {
      total += Int(rs, {"spec", "replicas"});
      available += Int(rs, {"status", "availableReplicas"});
    }
    max_pods = std::max(max_pods, total);
    min_available = std::min(min_available, available);
    return RolledOut("web") && Get(DeploymentsGvr(), "web")["status"]["observedGeneration"] == 2;
  }));
  EXPECT_LE(max_pods, 5);       // replicas + maxSurge
  EXPECT_GE(min_available, 4);  // replicas - maxUnavailable (as observed)
  sets = List(ReplicaSetsGvr(), "app=web");
  ASSERT_EQ(sets.size(), 2u);
  for (const Json& rs : sets) {
    bool old = Str(rs, {"metadata", "name"}) == first;
    EXPECT_EQ(Int(rs, {"spec", "replicas"}), old ? 0 : 4);
    EXPECT_EQ(Str(rs, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), old ? "1" : "2");
  }
  d = Get(DeploymentsGvr(), "web");
  EXPECT_EQ(Str(d, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "2");
  EXPECT_TRUE(Eventually([&] { return !Events("web", "ScalingReplicaSet").empty(); }));

  // Scaling a finished rollout only resizes the new ReplicaSet.
  ASSERT_TRUE(client_->Patch(DeploymentsGvr(), "default", "web", kube::PatchType::kMerge,
                             R"({"spec":{"replicas":6}})", {.subresource = "scale"}).ok());
  ASSERT_TRUE(Eventually([&] { return RolledOut("web") && Pods("app=web").size() == 6; }));
  EXPECT_EQ(List(ReplicaSetsGvr(), "app=web").size(), 2u);
}

TEST_F(ControllersTest, RecreateStopsOldPodsFirst) {
  Create(DeploymentsGvr(), Deployment("re", 2, {{"type", "Recreate"}}));
  ASSERT_TRUE(Eventually([&] { return RolledOut("re"); }));
  std::string old_rs = Str(List(ReplicaSetsGvr(), "app=re")[0], {"metadata", "name"});
  SetImage("re", "nginx:1.28");
  bool overlap = false;
  ASSERT_TRUE(Eventually([&] {
    int old_pods = 0, new_pods = 0;
    for (const Json& p : List(PodsGvr(), "app=re")) {
      bool is_old = Str(p, {"metadata", "name"}).rfind(old_rs + "-", 0) == 0;
      (is_old ? old_pods : new_pods) += 1;
    }
    overlap = overlap || (old_pods > 0 && new_pods > 0);
    return RolledOut("re") && Get(DeploymentsGvr(), "re")["status"]["observedGeneration"] == 2;
  }));
  EXPECT_FALSE(overlap);
}

TEST_F(ControllersTest, PausedDeploymentsWaitAndStuckOnesTimeOut) {
  Json d = Deployment("p", 2);
  d["spec"]["paused"] = true;
  Create(DeploymentsGvr(), d);
  ASSERT_TRUE(Eventually([&] {
    Json p = Get(DeploymentsGvr(), "p");
    const Json* c = FindCondition(p, "Progressing");
    return c && c->value("reason", "") == "DeploymentPaused";
  }));
  EXPECT_TRUE(List(ReplicaSetsGvr(), "app=p").empty());
  ASSERT_TRUE(client_->Patch(DeploymentsGvr(), "default", "p", kube::PatchType::kMerge,
                             R"({"spec":{"paused":false}})").ok());
  ASSERT_TRUE(Eventually([&] { return RolledOut("p"); }));

  // Pods that never become ready: the rollout stops progressing after the deadline.
  Json stuck = Deployment("stuck", 2);
  stuck["spec"]["progressDeadlineSeconds"] = 5;
  stuck["spec"]["template"]["metadata"]["annotations"] = {{"trimtab.dev/fail-readiness", "true"}};
  Create(DeploymentsGvr(), stuck);
  ASSERT_TRUE(Eventually([&] {
    Json d = Get(DeploymentsGvr(), "stuck");
    const Json* c = FindCondition(d, "Progressing");
    return c && c->value("reason", "") == "ProgressDeadlineExceeded" && c->value("status", "") == "False";
  }));
  EXPECT_EQ(ConditionStatus(Get(DeploymentsGvr(), "stuck"), "Available"), "False");
}

TEST_F(ControllersTest, OldReplicaSetsBeyondTheHistoryLimitAreDeleted) {
  Json d = Deployment("hist", 1);
  d["spec"]["revisionHistoryLimit"] = 1;
  Create(DeploymentsGvr(), d);
  for (const char* image : {"nginx:1.28", "nginx:1.29", "nginx:1.30"}) {
    ASSERT_TRUE(Eventually([&] { return RolledOut("hist"); }));
    SetImage("hist", image);
  }
  ASSERT_TRUE(Eventually([&] {
    return RolledOut("hist") && List(ReplicaSetsGvr(), "app=hist").size() == 2;
  }));
  EXPECT_EQ(Str(Get(DeploymentsGvr(), "hist"), {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "4");
}

TEST_F(ControllersTest, DeletingADeploymentRemovesWhatItOwns) {
  Create(DeploymentsGvr(), Deployment("bg", 2));
  Create(DeploymentsGvr(), Deployment("fg", 2));
  Create(DeploymentsGvr(), Deployment("orph", 2));
  ASSERT_TRUE(Eventually([&] { return RolledOut("bg") && RolledOut("fg") && RolledOut("orph"); }));
  ASSERT_TRUE(client_->Delete(DeploymentsGvr(), "default", "bg").ok());
  ASSERT_TRUE(client_->Delete(DeploymentsGvr(), "default", "fg",
                              {.propagation = kube::PropagationPolicy::kForeground}).ok());
  ASSERT_TRUE(client_->Delete(DeploymentsGvr(), "default", "orph",
                              {.propagation = kube::PropagationPolicy::kOrphan}).ok());
  EXPECT_TRUE(Eventually([&] {
    return List(ReplicaSetsGvr(), "app=bg").empty() && List(PodsGvr(), "app=bg").empty();
  }));
  EXPECT_TRUE(Eventually([&] {
    return Get(DeploymentsGvr(), "fg").is_null() && List(ReplicaSetsGvr(), "app=fg").empty() &&
           List(PodsGvr(), "app=fg").empty();
  }));
  ASSERT_TRUE(Eventually([&] { return Get(DeploymentsGvr(), "orph").is_null(); }));
  std::vector<Json> kept = List(ReplicaSetsGvr(), "app=orph");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_FALSE(ControllerRef(kept[0]).has_value());
  EXPECT_EQ(Pods("app=orph").size(), 2u);
}

TEST_F(ControllersTest, EndpointsFollowPodReadiness) {
  Json rs = ReplicaSet("svc", 2);
  rs["spec"]["template"]["metadata"]["labels"]["role"] = "backend";
  Create(ReplicaSetsGvr(), rs);
  // Selected by the Service but not by the ReplicaSet; its "http" port is another number.
  Json unready = TestPod("unready", Json(), {{"trimtab.dev/fail-readiness", "true"}});
  unready["metadata"]["labels"] = {{"role", "backend"}};
  unready["spec"]["containers"][0]["ports"] = Json::array({{{"name", "http"}, {"containerPort", 9090}}});
  Create(PodsGvr(), unready);
  Json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"name", "svc"}}},
              {"spec", {{"selector", {{"role", "backend"}}},
                        {"ports", Json::array({{{"name", "web"}, {"port", 80}, {"targetPort", "http"}}})}}}};
  Create(ServicesGvr(), svc);
  ASSERT_TRUE(Eventually([&] {
    Json ep = Get(EndpointsGvr(), "svc");
    return ep["subsets"].is_array() && !ep["subsets"].empty();
  }));
  ASSERT_TRUE(Eventually([&] {
    int ready = 0, not_ready = 0;
    Json ep = Get(EndpointsGvr(), "svc");
    for (const Json& s : ep["subsets"]) {
      if (s.contains("addresses")) ready += static_cast<int>(s["addresses"].size());
      if (s.contains("notReadyAddresses")) not_ready += static_cast<int>(s["notReadyAddresses"].size());
    }
    return ready + not_ready == 3;
  }));
  Json ep = Get(EndpointsGvr(), "svc");
  std::set<int64_t> ports;
  int not_ready = 0;
  for (const Json& s : ep["subsets"]) {
    for (const Json& p : s["ports"]) ports.insert(Int(p, {"port"}));
    EXPECT_EQ(s["ports"][0]["name"], "web");
    if (s.contains("notReadyAddresses")) {
      not_ready += static_cast<int>(s["notReadyAddresses"].size());
      EXPECT_EQ(s["ports"][0]["port"], 9090);  // the named port of that pod
    }
  }
  EXPECT_EQ(not_ready, 1);
  EXPECT_EQ(ports, (std::set<int64_t>{8080, 9090}));
  std::vector<Json> slices;
  ASSERT_TRUE(Eventually([&] {
    slices = List(EndpointSlicesGvr(), "kubernetes.io/service-name=svc");
    size_t endpoints = 0;
    for (const Json& s : slices) endpoints += s["endpoints"].size();
    return slices.size() == 2u && endpoints == 3u;
  }));
  for (const Json& s : slices) {
    EXPECT_EQ(s["addressType"], "IPv4");
    EXPECT_TRUE(ControllerRef(s).has_value());
    for (const Json& e : s["endpoints"]) {
      bool unready = e["targetRef"]["name"] == "unready";
      EXPECT_EQ(e["conditions"]["ready"], !unready);
      EXPECT_EQ(e["conditions"]["terminating"], false);
    }
  }
  ASSERT_TRUE(client_->Delete(ServicesGvr(), "default", "svc").ok());
  EXPECT_TRUE(Eventually([&] {
    return Get(EndpointsGvr(), "svc").is_null() &&
           List(EndpointSlicesGvr(), "kubernetes.io/service-name=svc").empty();
  }));
}

TEST_F(ControllersTest, SchedulerReportsAndRetriesUnschedulablePods) {
  auto requesting = [](const std::string& name, const std::string& cpu) {
    Json pod = TestPod(name);
    pod["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", cpu}}}};
    return pod;
  };
  // One 3-cpu pod per 4-cpu node leaves no room for 2 cpu anywhere.
  for (const char* hog : {"hog-1", "hog-2", "hog-3"}) Create(PodsGvr(), requesting(hog, "3"));
  ASSERT_TRUE(Eventually([&] {
    for (const char* hog : {"hog-1", "hog-2", "hog-3"}) {
      if (Get(PodsGvr(), hog)["status"]["phase"] != "Running") return false;
    }
    return true;
  }));
  Create(PodsGvr(), requesting("big", "2"));
  Json other = TestPod("other");
  other["spec"]["schedulerName"] = "nobody";
  Create(PodsGvr(), other);
  ASSERT_TRUE(Eventually([&] { return ConditionStatus(Get(PodsGvr(), "big"), "PodScheduled") == "False"; }));
  Json pending = Get(PodsGvr(), "big");
  const Json* c = FindCondition(pending, "PodScheduled");
  EXPECT_EQ(c->value("reason", ""), "Unschedulable");
  EXPECT_EQ(c->value("message", ""), "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_TRUE(Eventually([&] { return !Events("big", "FailedScheduling").empty(); }));
  // A pod for an absent scheduler waits without conditions or events.
  Json waiting = Get(PodsGvr(), "other");
  EXPECT_EQ(waiting["status"]["phase"], "Pending");
  EXPECT_EQ(FindCondition(waiting, "PodScheduled"), nullptr);
  EXPECT_TRUE(Events("other", "FailedScheduling").empty());

  // Freeing capacity makes the pending pod schedulable.
  std::string freed = Str(Get(PodsGvr(), "hog-2"), {"spec", "nodeName"});
  ASSERT_TRUE(client_->Delete(PodsGvr(), "default", "hog-2").ok());
  ASSERT_TRUE(Eventually([&] { return Get(PodsGvr(), "big")["status"]["phase"] == "Running"; }));
  Json running = Get(PodsGvr(), "big");
  EXPECT_EQ(ConditionStatus(running, "PodScheduled"), "True");
  EXPECT_EQ(running["spec"]["nodeName"], freed);
  EXPECT_TRUE(Eventually([&] { return !Events("big", "Scheduled").empty(); }));
}

TEST_F(ControllersTest, NamespacesGetADefaultServiceAccount) {
  Create(NamespacesGvr(), {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}}, "");
  EXPECT_TRUE(Eventually([&] { return !Get(ServiceAccountsGvr(), "default", "team").is_null(); }));
}

TEST_F(ControllersTest, PodsOnMissingNodesAreDeleted) {
  Json lost = TestPod("lost");
  lost["spec"]["nodeName"] = "node-gone";
  Create(PodsGvr(), lost);
  EXPECT_TRUE(Eventually([&] { return Get(PodsGvr(), "lost").is_null(); }));
}

TEST(ScaleDownOrderTest, PrefersUnscheduledPendingUnreadyAndNewerPods) {
  auto pod = [](const std::string& name, const std::string& node, const std::string& phase,
                bool ready, const std::string& created) {
    Json p = {{"metadata", {{"name", name}, {"creationTimestamp", created}}},
              {"spec", Json::object()},
              {"status", {{"phase", phase}}}};
    if (!node.empty()) p["spec"]["nodeName"] = node;
    if (ready) {
      p["status"]["conditions"] = Json::array({{{"type", "Ready"}, {"status", "True"},
                                                {"lastTransitionTime", created}}});
    }
    return p;
  };
  std::vector<Json> pods = {pod("old-ready", "n", "Running", true, "2024-01-01T00:00:00Z"),
                            pod("new-ready", "n", "Running", true, "2024-01-02T00:00:00Z"),
                            pod("unready", "n", "Running", false, "2024-01-01T00:00:00Z"),
                            pod("pending", "n", "Pending", false, "2024-01-01T00:00:00Z"),
                            pod("unscheduled", "", "Pending", false, "2024-01-01T00:00:00Z")};
  SortPodsForDeletion(&pods);
  std::vector<std::string> order;
  for (const Json& p : pods) order.push_back(p["metadata"]["name"]);
  EXPECT_EQ(order, (std::vector<std::string>{"unscheduled", "pending", "unready", "new-ready",
                                             "old-ready"}));
}

}  // namespace
}  // namespace trimtab::cluster::runtime::testing
