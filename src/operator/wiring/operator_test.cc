// The embeddable Operator (informers, work queues, workers, leader election, health endpoint),
// the Service-based REST endpoint resolver and the status recorder, against the in-process API
// server.
#include "operator/wiring/operator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/http/test_client.h"
#include "operator/controller_shared/status_recorder.h"
#include "operator/testing/controller_test_fixture.h"

namespace trimtab::op::testing {
namespace {

using namespace std::chrono_literals;

template <typename Pred>
bool Eventually(Pred pred, std::chrono::milliseconds limit = 15s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

class OperatorTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(env_.status().ok()) << env_.status().ToString(); }

  OperatorOptions Options() {
    url_ = env_.jm()->base_url();
    resolver_ = std::make_unique<FunctionRestEndpointResolver>(
        [this](const std::string&, const std::string&) -> StatusOr<std::string> { return url_; });
    return OperatorOptions{
        .rest_config = {.server = env_.apiserver()->url()},
        .default_configuration = {{"kubernetes.operator.observer.progress-check.interval", "50 ms"},
                                  {"kubernetes.operator.observer.rest-ready.delay", "50 ms"},
                                  {"kubernetes.operator.reconcile.interval", "1 s"}},
        .resolver = resolver_.get(),
        .workers = 2};
  }

  OperatorTestEnv env_;
  std::string url_;
  std::unique_ptr<RestEndpointResolver> resolver_;
};

TEST_F(OperatorTest, RunsTheControllersAgainstTheApiServer) {
  OperatorOptions options = Options();
  options.health_port = 0;
  options.health_address = "127.0.0.1";
  StatusOr<std::unique_ptr<Operator>> op = Operator::Create(std::move(options));
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  ASSERT_TRUE((*op)->Start().ok());
  EXPECT_TRUE((*op)->IsLeader());
  http::TestHttpClient health("http://127.0.0.1:" + std::to_string((*op)->health_port()));
  EXPECT_EQ(health.Request("GET", "/healthz").status, 200);
  EXPECT_TRUE(Eventually([&] { return health.Request("GET", "/readyz").status == 200; }));

  ASSERT_TRUE(env_.Apply(AppYaml("sm", "stateless")).ok());
  ASSERT_TRUE(Eventually([&] {
    return env_.client()->Get(DeploymentsResource(), "default", "sm").ok();
  }));
  ASSERT_TRUE(Eventually([&] { return env_.StartCluster("sm").ok(); }));
  ASSERT_TRUE(Eventually([&] {
    StatusOr<api::FlinkDeployment> fd = env_.GetDeployment("sm");
    return fd.ok() && api::DeriveLifecycleState(fd->status) == api::LifecycleState::kStable;
  })) << env_.GetDeployment("sm")->status.error;

  // A spec change is picked up from the watch and upgrades the job.
  const std::string job = env_.jm()->Jobs()[0].id;
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["job"]["parallelism"] = 4;
  }).ok());
  ASSERT_TRUE(Eventually([&] {
    StatusOr<Json> conf = env_.DeployedConfig("sm");
    return conf.ok() && conf->value("parallelism.default", "") == "4";
  }));
  EXPECT_EQ(env_.jm()->Count("PATCH", "/jobs/" + job + "?mode=cancel"), 1);

  // Deletion goes through the finalizer.
  ASSERT_TRUE(env_.client()->Delete(FlinkDeploymentsResource(), "default", "sm").ok());
  EXPECT_TRUE(Eventually([&] { return !env_.Get(FlinkDeploymentsResource(), "sm").ok(); }));

  // /metrics: the passes, the queue, the API requests and leadership, in the text format.
  http::TestHttpResponse scraped = health.Request("GET", "/metrics");
  EXPECT_EQ(scraped.status, 200);
  EXPECT_EQ(scraped.headers["Content-Type"], "text/plain; version=0.0.4; charset=utf-8");
  const LabelValues fd = {"flinkdeploymentcontroller", "FlinkDeployment"};
  MetricsRegistry* m = (*op)->metrics();
  EXPECT_GE(*m->Find("flink_k8soperator_JOSDK_Reconciliation_Count")->Value(fd), 3);
  EXPECT_GE(m->Find("flink_k8soperator_JOSDK_Reconciliation_TimeSeconds")
                ->Count({"flinkdeploymentcontroller", "FlinkDeployment", "success"}),
            3u);
  EXPECT_GE(*m->Find("workqueue_adds_total")->Value({"flinkdeployment"}), 1);
  EXPECT_GE(*m->Find("flink_k8soperator_KubeClient_HttpResponse_Count")->Value({"list", "200"}), 1);
  EXPECT_NE(scraped.body.find("# TYPE flink_k8soperator_JOSDK_Reconciliation_TimeSeconds "
                              "histogram\n"),
            std::string::npos);
  EXPECT_NE(scraped.body.find("leader_election_master_status{name=\"trimtab-operator\"} 1\n"),
            std::string::npos);
  (*op)->Stop();
  EXPECT_FALSE((*op)->Healthy());
}

TEST_F(OperatorTest, WatchesOnlyItsNamespaces) {
  OperatorOptions options = Options();
  options.namespaces = {"team-a"};
  StatusOr<std::unique_ptr<Operator>> op = Operator::Create(std::move(options));
  ASSERT_TRUE(op.ok());
  ASSERT_TRUE(env_.client()->Create(kube::GroupVersionResource{"", "v1", "namespaces", false}, "",
                                    Json{{"apiVersion", "v1"}, {"kind", "Namespace"},
                                         {"metadata", {{"name", "team-a"}}}}).ok());
  ASSERT_TRUE((*op)->Start().ok());
  ASSERT_TRUE(env_.Apply(AppYaml("outside", "stateless")).ok());
  std::string inside = AppYaml("inside", "stateless");
  inside.replace(inside.find("namespace: default"), 18, "namespace: team-a");
  ASSERT_TRUE(env_.Apply(inside).ok());
  EXPECT_TRUE(Eventually([&] {
    return env_.client()->Get(DeploymentsResource(), "team-a", "inside").ok();
  }));
  std::this_thread::sleep_for(200ms);  // give a wrongly watched namespace a chance to show up
  EXPECT_EQ(env_.client()->Get(DeploymentsResource(), "default", "outside").status().code(),
            StatusCode::kNotFound);
  (*op)->Stop();
}

TEST_F(OperatorTest, OnlyTheLeaderReconciles) {
  OperatorOptions a = Options();
  a.leader_election = true;
  a.identity = "a";
  OperatorOptions b = Options();
  b.leader_election = true;
  b.identity = "b";
  StatusOr<std::unique_ptr<Operator>> first = Operator::Create(std::move(a));
  StatusOr<std::unique_ptr<Operator>> second = Operator::Create(std::move(b));
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_TRUE((*first)->Start().ok());
  ASSERT_TRUE(Eventually([&] { return (*first)->IsLeader(); }));
  ASSERT_TRUE((*second)->Start().ok());
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE((*second)->IsLeader());
  EXPECT_TRUE((*second)->Healthy());  // a standby is healthy
  (*first)->Stop();                   // releases the lease
  EXPECT_TRUE(Eventually([&] { return (*second)->IsLeader(); }, 10s));
  ASSERT_TRUE(env_.Apply(AppYaml("sm", "stateless")).ok());
  EXPECT_TRUE(Eventually([&] {
    return env_.client()->Get(DeploymentsResource(), "default", "sm").ok();
  }));
  (*second)->Stop();
}

TEST_F(OperatorTest, ServiceResolver) {
  const kube::GroupVersionResource services = ServicesResource();
  Json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"name", "sm-rest"}}},
              {"spec", {{"type", "ClusterIP"},
                        {"selector", {{"app", "sm"}, {"component", "jobmanager"}}},
                        {"ports", Json::array({{{"name", "rest"}, {"port", 8081},
                                                {"targetPort", 8081}}})}}}};
  ServiceRestEndpointResolver api(env_.client(), {.resolve_via_api = true});
  ServiceRestEndpointResolver dns(env_.client(), {.resolve_via_api = false});
  ServiceRestEndpointResolver fqdn(env_.client(),
                                   {.resolve_via_api = false, .cluster_domain = "cluster.local"});
  EXPECT_EQ(api.RestUrl("default", "sm").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(*dns.RestUrl("default", "sm"), "http://sm-rest.default:8081");
  EXPECT_EQ(*fqdn.RestUrl("default", "sm"), "http://sm-rest.default.svc.cluster.local:8081");

  // Headless: the ready JobManager pod's IP on the target port.
  Json headless = svc;
  headless["spec"]["clusterIP"] = "None";
  headless["spec"]["ports"][0]["targetPort"] = 18081;
  ASSERT_TRUE(env_.client()->Create(services, "default", headless).ok());
  EXPECT_EQ(api.RestUrl("default", "sm").status().code(), StatusCode::kNotFound);
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "sm-jm"}, {"labels", {{"app", "sm"}, {"component", "jobmanager"}}}}},
              {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "flink"}}})}}}};
  StatusOr<Json> created = env_.client()->Create(kube::PodsResource(), "default", pod);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  (*created)["status"] = {{"phase", "Running"},
                          {"podIP", "127.0.0.42"},
                          {"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})}};
  ASSERT_TRUE(env_.client()->UpdateStatus(kube::PodsResource(), *created).ok());
  EXPECT_EQ(*api.RestUrl("default", "sm"), "http://127.0.0.42:18081");
  EXPECT_EQ(*dns.RestUrl("default", "sm"), "http://sm-rest.default:8081");

  // With a cluster IP: the service address.
  ASSERT_TRUE(env_.client()->Delete(services, "default", "sm-rest").ok());
  Json with_ip = svc;
  with_ip["spec"]["clusterIP"] = "127.10.200.9";
  StatusOr<Json> ip_svc = env_.client()->Create(services, "default", with_ip);
  ASSERT_TRUE(ip_svc.ok()) << ip_svc.status().ToString();
  const std::string ip = (*ip_svc)["spec"].value("clusterIP", "");
  ASSERT_FALSE(ip.empty());
  EXPECT_EQ(*api.RestUrl("default", "sm"), "http://" + ip + ":8081");
}

TEST_F(OperatorTest, StatusRecorderLocksOnResourceVersion) {
  ASSERT_TRUE(env_.Apply(AppYaml("sm", "stateless")).ok());
  StatusRecorder recorder(env_.client(), FlinkDeploymentsResource());
  StatusOr<Json> object = env_.Get(FlinkDeploymentsResource(), "sm");
  ASSERT_TRUE(object.ok());
  recorder.Seed(*object);
  Json status = {{"jobManagerDeploymentStatus", "DEPLOYING"}, {"error", "a"}};
  ASSERT_TRUE(recorder.Write(&*object, status).ok());
  EXPECT_EQ(recorder.WritesForTest(), 1);
  ASSERT_TRUE(recorder.Write(&*object, status).ok());  // unchanged: no write
  EXPECT_EQ(recorder.WritesForTest(), 1);

  // The spec changes behind the recorder's back: the stale write is retried on the new version.
  ASSERT_TRUE(env_.UpdateSpec(FlinkDeploymentsResource(), "sm", [](Json& spec) {
    spec["job"]["parallelism"] = 5;
  }).ok());
  status["error"] = "b";
  ASSERT_TRUE(recorder.Write(&*object, status).ok());
  EXPECT_EQ((*env_.Get(FlinkDeploymentsResource(), "sm"))["status"]["error"], "b");
  EXPECT_EQ((*env_.Get(FlinkDeploymentsResource(), "sm"))["spec"]["job"]["parallelism"], 5);

  // Someone else writes the status: a conflict, and nothing of ours is written.
  Json other = *env_.Get(FlinkDeploymentsResource(), "sm");
  other["status"]["error"] = "theirs";
  ASSERT_TRUE(env_.client()->UpdateStatus(FlinkDeploymentsResource(), other).ok());
  status["error"] = "c";
  Status conflict = recorder.Write(&*object, status);
  EXPECT_EQ(conflict.code(), StatusCode::kConflict) << conflict.ToString();
  EXPECT_EQ((*env_.Get(FlinkDeploymentsResource(), "sm"))["status"]["error"], "theirs");
}

}  // namespace
}  // namespace trimtab::op::testing
