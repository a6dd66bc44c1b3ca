// FlinkPodRunner against an in-process local API server: the test creates the objects the
// operator would (Deployment, ConfigMap, JobManager pod), calls Start() as the kubelet would and
// plays the kubelet for the TaskManager pods the runner creates.
#include "cluster/flink/flink_pod_runner.h"

#include <filesystem>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "adapters/http/test_client.h"
#include "cluster/apiserver/apiserver.h"
#include "cluster/flink/flink_pods.h"

namespace trimtab::sim::flink {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

const kube::GroupVersionResource kDeployments{.group = "apps", .version = "v1", .resource = "deployments"};

class FlinkPodRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto api = cluster::ApiServer::Create({.data_dir = "", .port = 0});
    ASSERT_TRUE(api.ok()) << api.status().ToString();
    api_ = std::move(*api);
    kube::RestConfig rc;
    rc.server = api_->url();
    auto kube = kube::KubeClient::Create(rc, {});
    ASSERT_TRUE(kube.ok()) << kube.status().ToString();
    kube_ = std::move(*kube);
    data_dir_ = std::filesystem::temp_directory_path() / ("trimtab-flink-runner-test-" + std::to_string(::getpid()) +
                                                          "-" + std::to_string(counter_++));
    NewRunner({});
  }
  void TearDown() override {
    processes_.clear();
    runner_.reset();
    if (api_) api_->Stop();
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
  }

  void NewRunner(std::map<std::string, WorkloadEntry> workloads) {
    FlinkPodRunnerOptions o;
    o.kube = kube_;
    o.clock = &clock_;
    o.data_dir = data_dir_.string();
    o.workloads = std::move(workloads);
    o.sync_interval = 10ms;
    runner_ = std::make_unique<FlinkPodRunner>(std::move(o));
  }

  Json Create(const kube::GroupVersionResource& gvr, const Json& object) {
    auto r = kube_->Create(gvr, "default", object);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.value_or(Json());
  }

  // What the operator creates for FlinkDeployment "wc": the Deployment and the config map.
  Json CreateDeploymentAndConfig(const std::string& config_yaml, Json annotations = Json::object()) {
    Create(kube::ConfigMapsResource(),
           Json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "flink-config-wc"}}},
                {"data", {{"config.yaml", config_yaml}, {"log4j-console.properties", "rootLogger.level = INFO"}}}});
    Json labels = {{"app", "wc"}, {"component", "jobmanager"}, {"type", "flink-native-kubernetes"}};
    return Create(kDeployments,
                  Json{{"apiVersion", "apps/v1"},
                       {"kind", "Deployment"},
                       {"metadata", {{"name", "wc"}, {"labels", labels}, {"annotations", annotations}}},
                       {"spec", {{"replicas", 1}, {"selector", {{"matchLabels", labels}}}, {"strategy", {{"type", "Recreate"}}},
                                 {"template", {{"metadata", {{"labels", labels}}},
                                               {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}}}}}});
  }

  Json JobManagerPod(const std::string& name, const Json& deployment, const std::string& image = "flink:1.20",
                     Json env = Json::array(), std::string extra_args = "") {
    return Json{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name},
                      {"namespace", "default"},
                      {"uid", "uid-" + name},
                      {"labels", {{"app", "wc"}, {"component", "jobmanager"}, {"type", "flink-native-kubernetes"}}},
                      {"ownerReferences", Json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "wc"},
                                                        {"uid", kube::ObjectUid(deployment)}, {"controller", true}}})}}},
        {"spec", {{"containers", Json::array({{{"name", "flink-main-container"},
                                               {"image", image},
                                               {"args", Json::array({"bash", "-c",
                                                                     "kubernetes-jobmanager.sh kubernetes-application" + extra_args})},
                                               {"env", env},
                                               {"volumeMounts", Json::array({{{"name", "flink-config-volume"},
                                                                              {"mountPath", "/opt/flink/conf"}}})}}})},
                  {"volumes", Json::array({{{"name", "flink-config-volume"}, {"configMap", {{"name", "flink-config-wc"}}}}})}}}};
  }

  cluster::PodProcess* StartPod(const Json& pod, const std::string& ip) {
    auto p = runner_->Start({.pod = pod, .pod_ip = ip, .node_name = "node-1"});
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    if (!p.ok()) return nullptr;
    processes_.push_back(std::move(*p));
    return processes_.back().get();
  }

  std::vector<Json> TaskManagerPods() {
    kube::ReadOptions o;
    o.labels = *LabelSelector::Parse("app=wc,component=taskmanager");
    return kube_->List(kube::PodsResource(), "default", o).value_or(std::vector<Json>{});
  }

  // Plays the kubelet: every TaskManager pod without a phase becomes Running.
  void RunTaskManagerPods() {
    int n = 0;
    for (Json pod : TaskManagerPods()) {
      ++n;
      if (pod.contains("status") && pod["status"].value("phase", "") == "Running") continue;
      pod["status"] = {{"phase", "Running"}, {"podIP", "127.0.46." + std::to_string(n)}};
      auto r = kube_->UpdateStatus(kube::PodsResource(), pod);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    }
  }

  // Polls `done` (advancing the virtual clock by `step` each round) for up to 10 s of wall time.
  bool Eventually(const std::function<bool()>& done, std::chrono::milliseconds step = 1s) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      clock_.Advance(step);
      std::this_thread::sleep_for(5ms);
    }
    return done();
  }

  Json Rest(const std::string& ip, const std::string& target, int* status = nullptr) {
    http::TestHttpClient client("http://" + ip + ":8081");
    http::TestHttpResponse r = client.Get(target);
    if (status) *status = r.status;
    return Json::parse(r.body, nullptr, false);
  }

  std::string JobId(const std::string& ip) {
    Json jobs = Rest(ip, "/jobs");
    return jobs.is_object() && !jobs["jobs"].empty() ? jobs["jobs"][0]["id"].get<std::string>() : "";
  }

  static constexpr char kConfig[] =
      "kubernetes.cluster-id: wc\n"
      "taskmanager.numberOfTaskSlots: 2\n"
      "parallelism.default: 2\n"
      "execution.checkpointing.interval: 10 s\n"
      "execution.checkpointing.dir: s3://flink/checkpoints\n"
      "execution.checkpointing.savepoint-dir: s3://flink/savepoints\n"
      "trimtab.job: \"{vertices: [{id: source, partitions: 4, capacityPerSubtask: 1000}, {id: sink, capacityPerSubtask: 1000}],"
      " edges: [{from: source, to: sink}], restart: {baseDowntime: 2 s}}\"\n"
      "trimtab.workload: \"400\"\n";

  ManualClock clock_{FromUnixMillis(1'700'000'000'000)};
  std::unique_ptr<cluster::ApiServer> api_;
  std::shared_ptr<kube::KubeClient> kube_;
  std::filesystem::path data_dir_;
  std::unique_ptr<FlinkPodRunner> runner_;
  std::vector<std::unique_ptr<cluster::PodProcess>> processes_;
  static inline int counter_ = 0;
};

TEST_F(FlinkPodRunnerTest, HandlesJobManagerAndTaskManagerPodsOnly) {
  const Json deployment = CreateDeploymentAndConfig(kConfig);
  EXPECT_TRUE(runner_->Handles(JobManagerPod("wc-1", deployment)));
  Json tm = {{"metadata", {{"name", "wc-taskmanager-1-1"}}},
             {"spec", {{"containers", Json::array({{{"name", "flink-main-container"},
                                                    {"args", Json::array({"bash", "-c",
                                                                          "kubernetes-taskmanager.sh -Djobmanager.rpc.address=x"})}}})}}}};
  EXPECT_TRUE(runner_->Handles(tm));
  EXPECT_TRUE(IsTaskManagerPod(tm));
  EXPECT_FALSE(IsJobManagerPod(tm));
  Json docker_jm = {{"metadata", {{"name", "jm"}}},
                    {"spec", {{"containers", Json::array({{{"name", "c"}, {"args", Json::array({"jobmanager", "-Dtaskmanager.numberOfTaskSlots=2"})}}})}}}};
  EXPECT_TRUE(IsJobManagerPod(docker_jm));
  Json nginx = {{"metadata", {{"name", "web"}, {"labels", {{"app", "web"}}}}},
                {"spec", {{"containers", Json::array({{{"name", "nginx"}, {"image", "nginx"}}})}}}};
  EXPECT_FALSE(runner_->Handles(nginx));
}

TEST_F(FlinkPodRunnerTest, RunsTheJobOnTaskManagerPodsItCreates) {
  const Json deployment = CreateDeploymentAndConfig(kConfig);
  cluster::PodProcess* jm = StartPod(JobManagerPod("wc-5b6c7-x1", deployment), "127.0.45.1");
  ASSERT_NE(jm, nullptr);
  cluster::PodProcessStatus st = jm->Status();
  ASSERT_EQ(st.containers.size(), 1u);
  EXPECT_EQ(st.containers[0].state, cluster::ContainerRunStatus::State::kRunning);
  EXPECT_TRUE(st.containers[0].ready);
  EXPECT_EQ(Rest("127.0.45.1", "/config")["flink-version"], "1.20.0");
  // Two slots of parallelism 2 in one TaskManager of 2 slots: one pod, as the resource manager names it.
  ASSERT_TRUE(Eventually([&] { return TaskManagerPods().size() == 1; }));
  const Json tm = TaskManagerPods().front();
  EXPECT_EQ(kube::ObjectName(tm), "wc-taskmanager-1-1");
  EXPECT_EQ(tm["metadata"]["labels"], Json::parse(R"({"app": "wc", "component": "taskmanager", "type": "flink-native-kubernetes"})"));
  EXPECT_EQ(tm["metadata"]["ownerReferences"][0]["kind"], "Deployment");
  EXPECT_EQ(tm["metadata"]["ownerReferences"][0]["uid"], kube::ObjectUid(deployment));
  const Json& c = tm["spec"]["containers"][0];
  EXPECT_EQ(c["name"], "flink-main-container");
  EXPECT_THAT(c["args"][2].get<std::string>(), HasSubstr("kubernetes-taskmanager.sh -Dtaskmanager.resource-id=wc-taskmanager-1-1"));
  EXPECT_EQ(c["resources"]["requests"], Json::parse(R"({"cpu": "2", "memory": "1728Mi"})"));
  EXPECT_TRUE(runner_->Handles(tm));
  const std::string job = JobId("127.0.45.1");
  ASSERT_FALSE(job.empty());
  // No TaskManager is Running yet: the job waits for slots.
  clock_.Advance(30s);
  EXPECT_EQ(Rest("127.0.45.1", "/jobs/" + job)["vertices"][0]["status"], "SCHEDULED");
  RunTaskManagerPods();
  ASSERT_TRUE(Eventually([&] { return Rest("127.0.45.1", "/jobs/" + job)["vertices"][0]["status"] == "RUNNING"; }));
  Json tms = Rest("127.0.45.1", "/taskmanagers");
  ASSERT_EQ(tms["taskmanagers"].size(), 1u);
  EXPECT_EQ(tms["taskmanagers"][0]["id"], "wc-taskmanager-1-1");
  // Every transition is logged in order, as Flink's JobMaster logs them, however late the sync.
  const std::string logs = jm->Logs("flink-main-container");
  EXPECT_THAT(logs, HasSubstr("switched from state NONE to INITIALIZING."));
  EXPECT_THAT(logs, HasSubstr("switched from state INITIALIZING to CREATED."));
  EXPECT_THAT(logs, HasSubstr("switched from state CREATED to RUNNING."));
  EXPECT_LT(logs.find("INITIALIZING to CREATED"), logs.find("CREATED to RUNNING"));

  // The TaskManager pod goes away: the job restarts on a new pod.
  ASSERT_TRUE(kube_->Delete(kube::PodsResource(), "default", "wc-taskmanager-1-1").ok());
  ASSERT_TRUE(Eventually([&] {
    const std::vector<Json> pods = TaskManagerPods();
    return pods.size() == 1 && kube::ObjectName(pods[0]) == "wc-taskmanager-1-2";
  }));
  RunTaskManagerPods();
  ASSERT_TRUE(Eventually([&] { return Rest("127.0.45.1", "/jobs/" + job)["vertices"][0]["status"] == "RUNNING"; }));
  // The metric store is refetched every 10 s.
  EXPECT_TRUE(Eventually([&] { return Rest("127.0.45.1", "/jobs/" + job + "/metrics?get=numRestarts")[0]["value"] == "1"; }));

  jm->Terminate(1s);
  st = jm->Status();
  EXPECT_EQ(st.containers[0].state, cluster::ContainerRunStatus::State::kTerminated);
  int status = 0;
  Rest("127.0.45.1", "/overview", &status);
  EXPECT_EQ(status, 0);  // nothing listens any more
}

TEST_F(FlinkPodRunnerTest, HaConfigMapsCarryCheckpointsAndANewJobManagerRecoversFromThem) {
  const std::string config = std::string(kConfig) +
                             "high-availability.type: kubernetes\n"
                             "high-availability.storageDir: s3://flink/ha\n"
                             "$internal.pipeline.job-id: 0000000000000000000000000000cafe\n";
  const Json deployment = CreateDeploymentAndConfig(config);
  cluster::PodProcess* jm = StartPod(JobManagerPod("wc-a", deployment), "127.0.45.11");
  ASSERT_NE(jm, nullptr);
  ASSERT_TRUE(Eventually([&] {
    RunTaskManagerPods();
    auto cm = kube_->Get(kube::ConfigMapsResource(), "default", "wc-0000000000000000000000000000cafe-config-map");
    return cm.ok() && cm->contains("data") && (*cm)["data"].contains("counter");
  }));
  Json cluster_cm = *kube_->Get(kube::ConfigMapsResource(), "default", "wc-cluster-config-map");
  EXPECT_EQ(cluster_cm["metadata"]["labels"]["configmap-type"], "high-availability");
  EXPECT_FALSE(cluster_cm["metadata"].contains("ownerReferences"));
  EXPECT_THAT(cluster_cm["data"]["org.apache.flink.k8s.leader.restserver"].get<std::string>(),
              HasSubstr("http://127.0.45.11:8081,"));
  EXPECT_TRUE(cluster_cm["data"].contains("jobGraph-0000000000000000000000000000cafe"));
  Json job_cm = *kube_->Get(kube::ConfigMapsResource(), "default", "wc-0000000000000000000000000000cafe-config-map");
  int64_t last = 0;
  for (const auto& [key, value] : job_cm["data"].items()) {
    if (!key.starts_with("checkpointID-")) continue;
    EXPECT_EQ(key.size(), std::string("checkpointID-").size() + 19);
    EXPECT_THAT(value.get<std::string>(), HasSubstr("s3://flink/checkpoints/0000000000000000000000000000cafe/chk-"));
    last = std::stoll(key.substr(13));
  }
  ASSERT_GT(last, 0);
  clock_.Advance(3s);
  jm->Terminate(1s);  // the JobManager pod is deleted (last-state upgrade): HA stays
  const std::string topic = "default/wc/" + StableHexId("Flink Streaming Job", "source");
  const Json after = *kube_->Get(kube::ConfigMapsResource(), "default", "wc-0000000000000000000000000000cafe-config-map");
  int64_t restored = 0;
  for (const auto& [key, value] : after["data"].items()) {
    if (key.starts_with("checkpointID-")) restored = std::stoll(key.substr(13));
  }
  clock_.Advance(20s);
  // A new JobManager with the operator's last-state marker.
  ASSERT_TRUE(kube_->Patch(kube::ConfigMapsResource(), "default", "flink-config-wc", kube::PatchType::kMerge,
                           Json{{"data", {{"config.yaml", config + "execution.savepoint.path: KUBERNETES_OPERATOR_LAST_STATE\n"}}}}.dump())
                  .ok());
  cluster::PodProcess* jm2 = StartPod(JobManagerPod("wc-b", deployment), "127.0.45.12");
  ASSERT_NE(jm2, nullptr);
  ASSERT_TRUE(Eventually([&] {
    RunTaskManagerPods();
    Json cp = Rest("127.0.45.12", "/jobs/0000000000000000000000000000cafe/checkpoints");
    return cp.is_object() && cp.contains("latest") && cp["latest"]["completed"].is_object() &&
           cp["latest"]["completed"]["id"].get<int64_t>() > restored + 1;
  }));
  Json cp = Rest("127.0.45.12", "/jobs/0000000000000000000000000000cafe/checkpoints");
  EXPECT_EQ(cp["latest"]["restored"]["id"], restored);
  const std::vector<LedgerIssue> issues = runner_->topics()->CheckLedger(topic);
  EXPECT_FALSE(runner_->topics()->Ledger(topic, 0).empty());
  EXPECT_TRUE(issues.empty()) << LedgerIssuesToString(issues);
  // The TaskManager pods of the first JobManager are adopted; new ones get attempt 2.
  for (const Json& p : TaskManagerPods()) {
    const std::string name = kube::ObjectName(p);
    EXPECT_TRUE(name.starts_with("wc-taskmanager-1-") || name.starts_with("wc-taskmanager-2-")) << name;
  }
}

TEST_F(FlinkPodRunnerTest, JobAndWorkloadFromOwnerAnnotationsAndConfigMaps) {
  Create(kube::ConfigMapsResource(), Json{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                                          {"metadata", {{"name", "wc-workload"}}},
                                          {"data", {{"workload", "{type: constant, rate: 1234}"}}}});
  const std::string config = "kubernetes.cluster-id: wc\nparallelism.default: 3\n";
  const Json deployment = CreateDeploymentAndConfig(
      config, Json{{"trimtab.dev/job", "{library: q2, partitions: 6}"}, {"trimtab.dev/workload-configmap", "wc-workload"}});
  cluster::PodProcess* jm = StartPod(JobManagerPod("wc-1", deployment, "apache/flink:1.18.1-scala_2.12",
                                                   Json::array({{{"name", "FLINK_PROPERTIES"},
                                                                 {"value", "taskmanager.numberOfTaskSlots: 3\n"}}}),
                                                   " -Dpipeline.name=annotated"),
                                     "127.0.45.21");
  ASSERT_NE(jm, nullptr);
  EXPECT_EQ(Rest("127.0.45.21", "/config")["flink-version"], "1.18.1");
  const std::string job = JobId("127.0.45.21");
  Json details;
  ASSERT_TRUE(Eventually([&] {  // vertices appear once the job has left INITIALIZING
    details = Rest("127.0.45.21", "/jobs/" + job);
    return !details["vertices"].empty();
  }, 100ms));
  EXPECT_EQ(details["name"], "annotated");
  ASSERT_EQ(details["vertices"].size(), 1u);  // q2 is one chained vertex
  EXPECT_EQ(details["vertices"][0]["parallelism"], 3);
  ASSERT_TRUE(Eventually([&] { return TaskManagerPods().size() == 1; }));  // 3 slots per TaskManager
  RunTaskManagerPods();
  ASSERT_TRUE(Eventually([&] {
    Json m = Rest("127.0.45.21", "/jobs/" + job + "/vertices/" + details["vertices"][0]["id"].get<std::string>() +
                                     "/subtasks/metrics?get=numRecordsInPerSecond&agg=sum");
    return m.is_array() && !m.empty() && std::abs(m[0]["sum"].get<double>() - 1234) < 1;
  }, 5s));
}

TEST_F(FlinkPodRunnerTest, WorkloadFileEntriesAndStartErrors) {
  auto entries = ParseWorkloadFile("default/wc: {job: q1, workload: 777}\n", "workloads.yaml");
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  NewRunner(*entries);
  const Json deployment = CreateDeploymentAndConfig("kubernetes.cluster-id: wc\n");
  cluster::PodProcess* jm = StartPod(JobManagerPod("wc-1", deployment), "127.0.45.31");
  ASSERT_NE(jm, nullptr);
  const std::string job = JobId("127.0.45.31");
  Json details;
  ASSERT_TRUE(Eventually([&] {
    details = Rest("127.0.45.31", "/jobs/" + job);
    return !details["vertices"].empty();
  }, 100ms));
  EXPECT_EQ(details["vertices"].size(), 1u);  // q1
  jm->Terminate(0ms);

  EXPECT_FALSE(ParseWorkloadFile("wc: {job: q1}", "w.yaml").ok());  // key without namespace
  auto unknown = ParseWorkloadFile("default/wc: {jobs: q1}", "w.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("jobs"));

  // A job text that does not parse fails the start with an error naming its source.
  ASSERT_TRUE(kube_->Patch(kDeployments, "default", "wc", kube::PatchType::kMerge,
                           R"({"metadata": {"annotations": {"trimtab.dev/job": "{library: q99}"}}})")
                  .ok());
  auto failed = runner_->Start({.pod = JobManagerPod("wc-2", deployment), .pod_ip = "127.0.45.32", .node_name = "n"});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("annotation trimtab.dev/job on Deployment default/wc"));
}

TEST_F(FlinkPodRunnerTest, DeleteClusterDeletesTheJobManagerDeployment) {
  const Json deployment = CreateDeploymentAndConfig(kConfig);
  cluster::PodProcess* jm = StartPod(JobManagerPod("wc-1", deployment), "127.0.45.41");
  ASSERT_NE(jm, nullptr);
  http::TestHttpClient client("http://127.0.45.41:8081");
  EXPECT_EQ(client.Request("DELETE", "/cluster").status, 200);
  ASSERT_TRUE(Eventually([&] { return kube_->Get(kDeployments, "default", "wc").status().code() == StatusCode::kNotFound; }));
  EXPECT_THAT(jm->Logs("flink-main-container"), HasSubstr("deleting its JobManager Deployment"));
}

// The TaskManager pod template the operator ships in the Flink ConfigMap
// (kubernetes.pod-template-file.taskmanager): the TaskManager pods Flink creates carry its
// scheduler name and PodGroup annotation, so they join the JobManager's gang.
TEST_F(FlinkPodRunnerTest, TaskManagerPodsFollowThePodTemplateInTheConfigMap) {
  const Json deployment = CreateDeploymentAndConfig(
      std::string(kConfig) +
      "kubernetes.pod-template-file.taskmanager: /opt/flink/conf/taskmanager-pod-template.yaml\n");
  Json map = kube_->Get(kube::ConfigMapsResource(), "default", "flink-config-wc").value();
  map["data"]["taskmanager-pod-template.yaml"] =
      "apiVersion: v1\n"
      "kind: Pod\n"
      "metadata:\n"
      "  annotations: {scheduling.k8s.io/group-name: podgroup-wc}\n"
      "  labels: {team: search}\n"
      "spec:\n"
      "  schedulerName: volcano\n"
      "  priorityClassName: batch-high\n"
      "  containers:\n"
      "  - name: flink-main-container\n"
      "    env: [{name: TEAM, value: search}]\n";
  ASSERT_TRUE(kube_->Update(kube::ConfigMapsResource(), map).ok());
  // The class must exist: the API server admits the TaskManager pods with their priority.
  const kube::GroupVersionResource classes{
      .group = "scheduling.k8s.io", .version = "v1", .resource = "priorityclasses", .namespaced = false};
  ASSERT_TRUE(kube_->Create(classes, "", Json{{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"},
                                               {"metadata", {{"name", "batch-high"}}}, {"value", 1000}})
                  .ok());
  ASSERT_NE(StartPod(JobManagerPod("wc-5b6c7-x1", deployment), "127.0.45.1"), nullptr);
  ASSERT_TRUE(Eventually([&] { return TaskManagerPods().size() == 1; }));
  const Json tm = TaskManagerPods().front();
  EXPECT_EQ(tm["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(tm["spec"]["priorityClassName"], "batch-high");
  EXPECT_EQ(tm["spec"]["priority"], 1000);
  EXPECT_EQ(tm["metadata"]["annotations"]["scheduling.k8s.io/group-name"], "podgroup-wc");
  EXPECT_EQ(tm["metadata"]["labels"]["team"], "search");
  EXPECT_EQ(tm["metadata"]["labels"]["component"], "taskmanager");
  const Json* main = MainContainer(tm);
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(ContainerEnv(*main, "TEAM"), "search");
  EXPECT_EQ((*main)["resources"]["requests"], Json::parse(R"({"cpu": "2", "memory": "1728Mi"})"));
}

TEST_F(FlinkPodRunnerTest, AMissingPodTemplateFileFailsTheJobManager) {
  const Json deployment = CreateDeploymentAndConfig(
      std::string(kConfig) +
      "kubernetes.pod-template-file.taskmanager: /opt/flink/conf/taskmanager-pod-template.yaml\n");
  auto started = runner_->Start({.pod = JobManagerPod("wc-5b6c7-x1", deployment), .pod_ip = "127.0.45.1",
                                 .node_name = "node-1"});
  ASSERT_FALSE(started.ok());
  EXPECT_THAT(started.status().message(),
              HasSubstr("kubernetes.pod-template-file.taskmanager: pod template file "
                        "/opt/flink/conf/taskmanager-pod-template.yaml does not exist (ConfigMap "
                        "default/flink-config-wc key taskmanager-pod-template.yaml is missing)"));
}

}  // namespace
}  // namespace trimtab::sim::flink
