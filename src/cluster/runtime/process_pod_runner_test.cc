#include "cluster/runtime/process_pod_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/apiserver.h"
#include "cluster/apiserver/auth/auth_layer.h"

namespace trimtab::cluster::runtime {
namespace {

TEST(ProcessPodRunnerTest, ClaimsTheTrimtabImage) {
  EXPECT_TRUE(IsImageOf("trimtab", "trimtab"));
  EXPECT_TRUE(IsImageOf("trimtab:0.1.0", "trimtab"));
  EXPECT_TRUE(IsImageOf("ghcr.io/acme/trimtab:1.2", "trimtab"));
  EXPECT_TRUE(IsImageOf("localhost:5000/trimtab", "trimtab"));
  EXPECT_TRUE(IsImageOf("registry:5000/x/trimtab:v1@sha256:abc", "trimtab"));
  EXPECT_FALSE(IsImageOf("flink:1.20", "trimtab"));
  EXPECT_FALSE(IsImageOf("trimtab-plugins:1", "trimtab"));
  EXPECT_FALSE(IsImageOf("trimtab/flink:1", "trimtab"));

  ProcessPodRunner runner({});
  Json pod = {{"spec", {{"containers", Json::array({{{"name", "a"}, {"image", "trimtab:1"}}})}}}};
  EXPECT_TRUE(runner.Handles(pod));
  pod["spec"]["containers"].push_back({{"name", "b"}, {"image", "busybox"}});
  EXPECT_FALSE(runner.Handles(pod));  // another image in the pod: not ours to run
}

bool Eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 500; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// A pod whose "trimtab" is /bin/sh: the container's env (literal, fieldRef, mapped paths), its
// ConfigMap volume, the pod-bound service-account token, the log, SIGTERM and the exit code.
TEST(ProcessPodRunnerTest, RunsThePodAsAProcess) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("trimtab-process-runner-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto server = ApiServer::Create({.port = 0});
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto client = kube::KubeClient::Create({.server = (*server)->url()}, {});
  ASSERT_TRUE(client.ok());
  const kube::GroupVersionResource sa{"", "v1", "serviceaccounts", true};
  const kube::GroupVersionResource cm{"", "v1", "configmaps", true};
  const kube::GroupVersionResource pods{"", "v1", "pods", true};
  ASSERT_TRUE((*client)->Create(sa, "default", {{"apiVersion", "v1"}, {"kind", "ServiceAccount"},
                                                {"metadata", {{"name", "runner"}}}}).ok());
  ASSERT_TRUE((*client)->Create(cm, "default", {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                                                {"metadata", {{"name", "cfg"}}},
                                                {"data", {{"a.txt", "hello"}}}}).ok());
  const std::string script =
      "echo host=$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT; cat $CFG; echo; "
      "cat $TRIMTAB_SERVICE_ACCOUNT_DIR/namespace; echo; echo pod=$POD name=$HOSTNAME; "
      "echo arg=$1; trap 'echo bye; exit 3' TERM; while true; do sleep 0.05; done";
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "p1"}}},
      {"spec",
       {{"serviceAccountName", "runner"},
        {"containers",
         Json::array({{{"name", "main"},
                       {"image", "trimtab:test"},
                       {"command", {"trimtab", "-c", script, "sh"}},
                       {"args", {"--config=/etc/cfg/a.txt"}},
                       {"env", Json::array({{{"name", "CFG"}, {"value", "/etc/cfg/a.txt"}},
                                            {{"name", "POD"},
                                             {"valueFrom",
                                              {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}}})},
                       {"volumeMounts", Json::array({{{"name", "c"}, {"mountPath", "/etc/cfg"}}})}}})},
        {"volumes", Json::array({{{"name", "c"}, {"configMap", {{"name", "cfg"}}}}})}}}};
  auto created = (*client)->Create(pods, "default", pod);
  ASSERT_TRUE(created.ok()) << created.status().ToString();

  ProcessPodRunner runner({.executable = "/bin/sh",
                           .data_dir = dir.string(),
                           .api_server_url = (*server)->url(),
                           .client = client->get()});
  auto process = runner.Start({.pod = *created, .pod_ip = "127.0.0.1", .node_name = "node-1"});
  ASSERT_TRUE(process.ok()) << process.status().ToString();
  ASSERT_TRUE(Eventually([&] { return (*process)->Logs("main").find("arg=") != std::string::npos; }))
      << (*process)->Logs("main");
  const std::string log = (*process)->Logs("main");
  const std::string port = std::to_string((*server)->port());
  EXPECT_NE(log.find("host=127.0.0.1:" + port), std::string::npos) << log;
  EXPECT_NE(log.find("hello"), std::string::npos) << log;
  EXPECT_NE(log.find("\ndefault\n"), std::string::npos) << log;
  EXPECT_NE(log.find("pod=p1 name=p1"), std::string::npos) << log;
  // The mount path in the argument names the pod's copy of the ConfigMap.
  EXPECT_NE(log.find("arg=--config=" + dir.string()), std::string::npos) << log;
  EXPECT_NE(log.find("/volumes/c/a.txt"), std::string::npos) << log;
  PodProcessStatus running = (*process)->Status();
  ASSERT_EQ(running.containers.size(), 1u);
  EXPECT_EQ(running.containers[0].state, ContainerRunStatus::State::kRunning);
  EXPECT_TRUE(running.containers[0].ready);  // no readiness probe

  // The token the pod got authenticates as its service account while the pod exists.
  std::ifstream token_file(dir / ("pods/default_p1_" + (*created)["metadata"]["uid"].get<std::string>()) /
                           "serviceaccount" / "token");
  std::stringstream token;
  token << token_file.rdbuf();
  auto claims = (*server)->auth()->tokens().Verify(token.str(), RealClock::Default()->Now());
  ASSERT_TRUE(claims.ok()) << claims.status().ToString();
  EXPECT_EQ(claims->service_account, "runner");
  EXPECT_EQ(claims->pod_name, "p1");

  (*process)->Terminate(std::chrono::seconds(5));
  PodProcessStatus done = (*process)->Status();
  EXPECT_EQ(done.containers[0].state, ContainerRunStatus::State::kTerminated);
  EXPECT_EQ(done.containers[0].exit_code, 3);
  EXPECT_NE((*process)->Logs("main").find("bye"), std::string::npos);
  process->reset();
  (*server)->Stop();
  std::filesystem::remove_all(dir);
}

TEST(ProcessPodRunnerTest, OnlyTrimtabRunsAndMissingConfigMapsFail) {
  auto server = ApiServer::Create({.port = 0});
  ASSERT_TRUE(server.ok());
  auto client = kube::KubeClient::Create({.server = (*server)->url()}, {});
  ASSERT_TRUE(client.ok());
  ProcessPodRunner runner({.executable = "/bin/true",
                           .data_dir = std::filesystem::temp_directory_path().string(),
                           .api_server_url = (*server)->url(),
                           .client = client->get()});
  Json pod = {{"metadata", {{"name", "p2"}, {"namespace", "default"}, {"uid", "u2"}}},
              {"spec",
               {{"automountServiceAccountToken", false},
                {"containers",
                 Json::array({{{"name", "main"}, {"image", "trimtab"}, {"command", {"/bin/bash"}}}})}}}};
  auto bash = runner.Start({.pod = pod, .pod_ip = "127.0.0.1", .node_name = "n"});
  ASSERT_FALSE(bash.ok());
  EXPECT_NE(bash.status().message().find("only trimtab can"), std::string::npos);
  pod["spec"]["containers"][0].erase("command");
  pod["spec"]["volumes"] = Json::array({{{"name", "c"}, {"configMap", {{"name", "absent"}}}}});
  auto missing = runner.Start({.pod = pod, .pod_ip = "127.0.0.1", .node_name = "n"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("volume \"c\""), std::string::npos)
      << missing.status().ToString();
  (*server)->Stop();
}

}  // namespace
}  // namespace trimtab::cluster::runtime
