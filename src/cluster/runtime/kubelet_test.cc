// The kubelet against an in-process API server, on a ManualClock: pod start with events and
// status, exit codes and restartPolicy, CrashLoopBackOff timing, readiness, graceful deletion,
// pod IPs, logs and recovery after a restart.
#include "cluster/runtime/kubelet.h"

#include "cluster/runtime/event_recorder.h"
#include "cluster/runtime/runtime_test_util.h"

namespace trimtab::cluster::runtime::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class KubeletTest : public ClusterTest {
 protected:
  void SetUp() override {
    clock_.Set(*ParseRfc3339("2025-01-01T00:00:00Z"));
    StartApiServer(&clock_);
    auto nodes = PlanNodes(UniformNodes(2, "8", "32Gi"), *Ipv4Range::Parse("127.20.0.0/16"), 24,
                           *Ipv4Range::Parse("127.30.0.0/16"));
    ASSERT_TRUE(nodes.ok());
    nodes_ = *nodes;
    StartKubelet();
  }

  void StartKubelet() {
    informers_ = std::make_unique<InformerSet>(client_.get());
    events_ = std::make_unique<EventRecorder>(LocalClusterEventOptions(client_.get(), &clock_));
    kubelet_ = std::make_unique<Kubelet>(client_.get(), informers_.get(), events_.get(), &clock_,
                                         nodes_, std::vector<std::shared_ptr<PodRunner>>{},
                                         KubeletOptions{.status_interval = milliseconds(100)});
    ASSERT_TRUE(informers_->Start(milliseconds(5000)).ok());
    events_->Start();
    kubelet_->Start();
  }

  void StopKubelet() {
    kubelet_->Stop();
    informers_->Stop();
    events_->Stop();
  }

  void TearDown() override {
    if (kubelet_) StopWhileAdvancing(clock_, [this] { StopKubelet(); });
    ClusterTest::TearDown();
  }

  Json Pod(const std::string& name) { return Get(PodsGvr(), name); }

  // Creates `pod` bound to node-1.
  Json Run(Json pod, const std::string& node = "node-1") {
    pod["spec"]["nodeName"] = node;
    return Create(PodsGvr(), pod);
  }

  bool Advance(const std::function<bool()>& done, Duration limit = seconds(5),
               Duration step = milliseconds(250)) {
    return AdvanceUntil(clock_, step, done, limit);
  }

  // A copy, so that indexing a field the status does not have yet (a poll that races the
  // kubelet) yields null instead of undefined behaviour on a const Json.
  Json Container(const Json& pod) {
    return pod.value(Json::json_pointer("/status/containerStatuses/0"), Json::object());
  }

  ManualClock clock_;
  std::vector<LocalNode> nodes_;
  std::unique_ptr<InformerSet> informers_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<Kubelet> kubelet_;
};

TEST_F(KubeletTest, StartsPodsWithEventsStatusAndIps) {
  Run(TestPod("slow", Json(), {{"trimtab.dev/start-delay", "2s"}}));
  ASSERT_TRUE(Eventually([&] { return Pod("slow")["status"].contains("containerStatuses"); }));
  Json pod = Pod("slow");
  EXPECT_EQ(pod["status"]["phase"], "Pending");
  EXPECT_EQ(Container(pod)["state"]["waiting"]["reason"], "ContainerCreating");
  EXPECT_EQ(pod["status"]["hostIP"], "127.30.0.1");
  std::string ip = pod["status"]["podIP"];
  EXPECT_EQ(ip.rfind("127.20.0.", 0), 0u) << ip;

  ASSERT_TRUE(Advance([&] { return Pod("slow")["status"]["phase"] == "Running"; }));
  pod = Pod("slow");
  EXPECT_EQ(ConditionStatus(pod, "Ready"), "True");
  EXPECT_EQ(ConditionStatus(pod, "ContainersReady"), "True");
  EXPECT_EQ(ConditionStatus(pod, "Initialized"), "True");
  Json c = Container(pod);
  EXPECT_TRUE(c["state"]["running"].contains("startedAt"));
  EXPECT_EQ(c["ready"], true);
  EXPECT_EQ(c["started"], true);
  EXPECT_EQ(c["restartCount"], 0);
  EXPECT_EQ(c["image"], "busybox:1.36");
  EXPECT_EQ(c["imageID"].get<std::string>().rfind("docker.io/library/busybox@sha256:", 0), 0u);
  EXPECT_EQ(c["containerID"].get<std::string>().rfind("containerd://", 0), 0u);
  EXPECT_TRUE(pod["status"].contains("startTime"));
  events_->FlushForTest();
  for (const char* reason : {"Pulling", "Pulled", "Created", "Started"}) {
    EXPECT_EQ(Events("slow", reason).size(), 1u) << reason;
  }
  EXPECT_EQ(Events("slow", "Created")[0]["message"], "Created container: main");
  EXPECT_EQ(Events("slow", "Started")[0]["source"]["host"], "node-1");

  // A second pod on the node gets another IP; the image is already there.
  Run(TestPod("second"));
  ASSERT_TRUE(Eventually([&] { return Pod("second")["status"]["phase"] == "Running"; }));
  EXPECT_NE(Pod("second")["status"]["podIP"], ip);
  events_->FlushForTest();
  ASSERT_EQ(Events("second", "Pulled").size(), 1u);
  EXPECT_EQ(Events("second", "Pulled")[0]["message"],
            "Container image \"busybox:1.36\" already present on machine");
}

TEST_F(KubeletTest, ExitCodesFollowRestartPolicy) {
  Json never = TestPod("never", Json::array({"sh", "-c", "echo bye; exit 3"}));
  never["spec"]["restartPolicy"] = "Never";
  Run(never);
  Json ok = TestPod("ok", Json::array({"true"}));
  ok["spec"]["restartPolicy"] = "OnFailure";
  Run(ok);
  ASSERT_TRUE(Eventually([&] { return Pod("never")["status"]["phase"] == "Failed"; }));
  Json pod = Pod("never");
  EXPECT_EQ(Container(pod)["state"]["terminated"]["exitCode"], 3);
  EXPECT_EQ(Container(pod)["state"]["terminated"]["reason"], "Error");
  EXPECT_EQ(ConditionStatus(pod, "Ready"), "False");
  ASSERT_TRUE(Eventually([&] { return Pod("ok")["status"]["phase"] == "Succeeded"; }));
  EXPECT_EQ(Container(Pod("ok"))["state"]["terminated"]["reason"], "Completed");
  EXPECT_EQ(Container(Pod("ok"))["restartCount"], 0);
  std::string logs = kubelet_->PodLogs(pod, "main", false).value_or("");
  EXPECT_NE(logs.find("bye\n"), std::string::npos) << logs;
  EXPECT_NE(logs.find("exited with code 3"), std::string::npos) << logs;

  // exit-after: runs, then exits with the annotated code.
  Json later = TestPod("later", Json(), {{"trimtab.dev/exit-after", "3s"}, {"trimtab.dev/exit-code", "2"}});
  later["spec"]["restartPolicy"] = "Never";
  Run(later);
  ASSERT_TRUE(Eventually([&] { return Pod("later")["status"]["phase"] == "Running"; }));
  EXPECT_TRUE(Advance([&] { return Pod("later")["status"]["phase"] == "Failed"; }, seconds(5)));
  EXPECT_EQ(Container(Pod("later"))["state"]["terminated"]["exitCode"], 2);
}

TEST_F(KubeletTest, CrashLoopBackOffDoublesTheDelay) {
  Run(TestPod("crash", Json::array({"sh", "-c", "exit 1"})));
  // The first restart is immediate, the second crash starts a 10 s back-off.
  ASSERT_TRUE(Eventually([&] {
    Json p = Pod("crash");
    return p["status"]["containerStatuses"].is_array() &&
           Container(p)["state"]["waiting"]["reason"] == "CrashLoopBackOff";
  }));
  Json pod = Pod("crash");
  EXPECT_EQ(Container(pod)["restartCount"], 1);
  EXPECT_EQ(Container(pod)["lastState"]["terminated"]["exitCode"], 1);
  EXPECT_EQ(pod["status"]["phase"], "Running");
  EXPECT_NE(Container(pod)["state"]["waiting"]["message"].get<std::string>().find("back-off 10s"),
            std::string::npos);
  auto restarts = [&] { return Container(Pod("crash")).value("restartCount", -1); };
  clock_.Advance(seconds(9));
  EXPECT_FALSE(Eventually([&] { return restarts() == 2; }, milliseconds(200)));
  ASSERT_TRUE(Advance([&] { return restarts() == 2; }, seconds(2)));
  // Now 20 s.
  clock_.Advance(seconds(18));
  EXPECT_FALSE(Eventually([&] { return restarts() == 3; }, milliseconds(200)));
  ASSERT_TRUE(Advance([&] { return restarts() == 3; }, seconds(3)));
  events_->FlushForTest();
  EXPECT_FALSE(Events("crash", "BackOff").empty());
}

TEST_F(KubeletTest, ReadinessWaitsForTheProbeDelay) {
  Json probed = TestPod("probed");
  probed["spec"]["containers"][0]["readinessProbe"] = {{"httpGet", {{"port", 80}}},
                                                        {"initialDelaySeconds", 5}};
  Run(probed);
  Run(TestPod("unready", Json(), {{"trimtab.dev/fail-readiness", "true"}}));
  ASSERT_TRUE(Eventually([&] { return Pod("probed")["status"]["phase"] == "Running"; }));
  EXPECT_EQ(ConditionStatus(Pod("probed"), "Ready"), "False");
  clock_.Advance(seconds(4));
  EXPECT_FALSE(Eventually([&] { return ConditionStatus(Pod("probed"), "Ready") == "True"; },
                          milliseconds(200)));
  ASSERT_TRUE(Advance([&] { return ConditionStatus(Pod("probed"), "Ready") == "True"; }, seconds(2)));
  Json unready = Pod("unready");
  EXPECT_EQ(unready["status"]["phase"], "Running");
  EXPECT_EQ(ConditionStatus(unready, "Ready"), "False");
  EXPECT_EQ(FindCondition(unready, "Ready")->value("message", ""),
            "containers with unready status: [main]");
}

TEST_F(KubeletTest, GracefulDeletionWaitsForTheContainers) {
  Run(TestPod("slow-stop", Json(), {{"trimtab.dev/termination-delay", "3s"}}));
  Json killed = TestPod("killed", Json(), {{"trimtab.dev/termination-delay", "60s"}});
  Run(killed);
  ASSERT_TRUE(Eventually([&] {
    return Pod("slow-stop")["status"]["phase"] == "Running" && Pod("killed")["status"]["phase"] == "Running";
  }));
  ASSERT_TRUE(client_->Delete(PodsGvr(), "default", "slow-stop").ok());
  ASSERT_TRUE(client_->Delete(PodsGvr(), "default", "killed", {.grace_period_seconds = 5}).ok());
  Json deleting = Pod("slow-stop");
  ASSERT_FALSE(deleting.is_null());
  EXPECT_TRUE(IsDeleting(deleting));
  events_->FlushForTest();
  ASSERT_TRUE(Eventually([&] {
    return !Events("slow-stop", "Killing").empty() && !Events("killed", "Killing").empty();
  }));
  EXPECT_EQ(Events("slow-stop", "Killing")[0]["message"], "Stopping container main");
  clock_.Advance(seconds(2));
  EXPECT_FALSE(Eventually([&] { return Pod("slow-stop").is_null(); }, milliseconds(200)));
  ASSERT_TRUE(Advance([&] { return Pod("slow-stop").is_null(); }, seconds(2)));
  // 60 s of shutdown do not fit a 5 s grace period: killed after 5 s.
  EXPECT_FALSE(Pod("killed").is_null());
  ASSERT_TRUE(Advance([&] { return Pod("killed").is_null(); }, seconds(4)));
}

TEST_F(KubeletTest, RestartedKubeletRestartsPodsKeepingTheirIps) {
  Run(TestPod("survivor"));
  ASSERT_TRUE(Eventually([&] { return Pod("survivor")["status"]["phase"] == "Running"; }));
  std::string ip = Pod("survivor")["status"]["podIP"];
  StopKubelet();
  StartKubelet();
  ASSERT_TRUE(Eventually([&] { return Container(Pod("survivor"))["restartCount"] == 1; }));
  Json pod = Pod("survivor");
  EXPECT_EQ(pod["status"]["podIP"], ip);
  EXPECT_EQ(Container(pod)["lastState"]["terminated"]["reason"], "ContainerStatusUnknown");
  EXPECT_TRUE(Eventually([&] { return Container(Pod("survivor"))["state"].contains("running"); }));
  EXPECT_EQ(kubelet_->PodsWithProcessForTest(), 1u);
}

}  // namespace
}  // namespace trimtab::cluster::runtime::testing
