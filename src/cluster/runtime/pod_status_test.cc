#include "cluster/runtime/pod_status.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::cluster::runtime {
namespace {

ContainerView Running(const std::string& name, bool ready) {
  ContainerView v;
  v.name = name;
  v.state = ContainerView::State::kRunning;
  v.ready = ready;
  v.started = true;
  return v;
}

ContainerView Terminated(const std::string& name, int code) {
  ContainerView v;
  v.name = name;
  v.state = ContainerView::State::kTerminated;
  v.terminated = TerminationInfo{.exit_code = code, .reason = code == 0 ? "Completed" : "Error"};
  return v;
}

ContainerView Waiting(const std::string& name, bool restarting) {
  ContainerView v;
  v.name = name;
  v.waiting_reason = restarting ? "CrashLoopBackOff" : "ContainerCreating";
  if (restarting) v.last_termination = TerminationInfo{.exit_code = 1, .reason = "Error"};
  return v;
}

std::string ConditionStatus(const Json& status, const std::string& type) {
  for (const auto& c : status["conditions"]) {
    if (c["type"] == type) return c["status"];
  }
  return "";
}

TEST(PodPhaseTest, FollowsTheKubelet) {
  EXPECT_EQ(PodPhase("Always", {Waiting("a", false)}), "Pending");
  EXPECT_EQ(PodPhase("Always", {Running("a", true), Waiting("b", false)}), "Pending");
  EXPECT_EQ(PodPhase("Always", {Running("a", true), Terminated("b", 0)}), "Running");
  EXPECT_EQ(PodPhase("Always", {Terminated("a", 0)}), "Running");  // it restarts
  EXPECT_EQ(PodPhase("Always", {Waiting("a", true)}), "Running");  // CrashLoopBackOff
  EXPECT_EQ(PodPhase("OnFailure", {Terminated("a", 0)}), "Succeeded");
  EXPECT_EQ(PodPhase("OnFailure", {Terminated("a", 3)}), "Running");
  EXPECT_EQ(PodPhase("Never", {Terminated("a", 0), Terminated("b", 0)}), "Succeeded");
  EXPECT_EQ(PodPhase("Never", {Terminated("a", 0), Terminated("b", 2)}), "Failed");
}

TEST(PodStatusTest, ConditionsAndReadiness) {
  Json pod = {{"metadata", {{"name", "p"}}},
              {"spec", {{"restartPolicy", "Always"}, {"containers", Json::array({{{"name", "a"}}, {{"name", "b"}}})}}},
              {"status", {{"phase", "Pending"},
                          {"qosClass", "BestEffort"},
                          {"conditions", Json::array({{{"type", "PodScheduled"},
                                                       {"status", "True"},
                                                       {"lastTransitionTime", "2024-01-01T00:00:00Z"}}})}}}};
  TimePoint t0 = *ParseRfc3339("2024-01-01T00:00:10Z");
  PodStatusInput in{.containers = {Running("a", true), Running("b", false)},
                    .host_ip = "127.30.0.1",
                    .pod_ip = "127.20.0.5",
                    .start_time = t0,
                    .now = t0};
  Json status = BuildPodStatus(pod, in);
  EXPECT_EQ(status["phase"], "Running");
  EXPECT_EQ(status["podIP"], "127.20.0.5");
  EXPECT_EQ(status["podIPs"][0]["ip"], "127.20.0.5");
  EXPECT_EQ(status["hostIP"], "127.30.0.1");
  EXPECT_EQ(status["qosClass"], "BestEffort");
  EXPECT_EQ(ConditionStatus(status, "Ready"), "False");
  const Json& conditions = status["conditions"];
  ASSERT_EQ(conditions.size(), 5u);
  EXPECT_EQ(conditions[0]["type"], "PodReadyToStartContainers");
  EXPECT_EQ(conditions[2]["type"], "Ready");
  EXPECT_EQ(conditions[2]["message"], "containers with unready status: [b]");
  EXPECT_EQ(conditions[4]["type"], "PodScheduled");
  EXPECT_EQ(conditions[4]["lastTransitionTime"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(status["containerStatuses"][0]["state"]["running"]["startedAt"], "1970-01-01T00:00:00Z");

  // Ready later: the transition time is the time it became ready; unchanged afterwards.
  pod["status"] = status;
  in.containers = {Running("a", true), Running("b", true)};
  in.now = t0 + std::chrono::seconds(5);
  Json ready = BuildPodStatus(pod, in);
  EXPECT_EQ(ConditionStatus(ready, "Ready"), "True");
  EXPECT_EQ(ready["conditions"][2]["lastTransitionTime"], "2024-01-01T00:00:15Z");
  pod["status"] = ready;
  in.now = t0 + std::chrono::seconds(50);
  EXPECT_EQ(BuildPodStatus(pod, in)["conditions"][2]["lastTransitionTime"], "2024-01-01T00:00:15Z");
}

TEST(PodStatusTest, TerminalAndDeletedPods) {
  Json pod = {{"spec", {{"restartPolicy", "Never"}, {"containers", Json::array({{{"name", "a"}}})}}}};
  PodStatusInput in{.containers = {Terminated("a", 0)}, .now = TimePoint{}};
  Json done = BuildPodStatus(pod, in);
  EXPECT_EQ(done["phase"], "Succeeded");
  EXPECT_EQ(done["conditions"][2]["reason"], "PodCompleted");
  EXPECT_EQ(done["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed");

  pod["spec"]["restartPolicy"] = "Always";
  in.containers = {Terminated("a", 137)};
  in.deleted = true;
  EXPECT_EQ(BuildPodStatus(pod, in)["phase"], "Failed");
}

TEST(PodStatusTest, CrashLoopShowsLastState) {
  ContainerView v = Waiting("a", true);
  v.waiting_message = "back-off 10s restarting failed container=a pod=p_ns(u)";
  v.restart_count = 2;
  Json pod = {{"spec", {{"containers", Json::array({{{"name", "a"}}})}}}};
  Json status = BuildPodStatus(pod, PodStatusInput{.containers = {v}});
  const Json& cs = status["containerStatuses"][0];
  EXPECT_EQ(cs["state"]["waiting"]["reason"], "CrashLoopBackOff");
  EXPECT_EQ(cs["lastState"]["terminated"]["exitCode"], 1);
  EXPECT_EQ(cs["restartCount"], 2);
  EXPECT_EQ(status["phase"], "Running");
}

}  // namespace
}  // namespace trimtab::cluster::runtime
