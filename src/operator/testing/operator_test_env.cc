#include "operator/testing/operator_test_env.h"

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "operator/decisions/jm_resources.h"
#include "operator/controller_shared/kube_resources.h"

namespace trimtab::op::testing {
namespace {

const kube::GroupVersionResource kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                                       false};

}  // namespace

std::string ReferenceDir() { return TRIMTAB_SOURCE_DIR "/../shared/reference"; }

OperatorTestEnv::OperatorTestEnv() : clock_(RealClock::Default()->Now()) {
  status_ = [&]() -> Status {
    TRIMTAB_ASSIGN_OR_RETURN(apiserver_,
                             cluster::ApiServer::Create({.port = 0,
                                                         .gc_period = std::chrono::milliseconds(100),
                                                         .lifecycle_period = std::chrono::milliseconds(100)}));
    TRIMTAB_ASSIGN_OR_RETURN(client_, kube::KubeClient::Create({.server = apiserver_->url()}, {}));
    for (const char* file : {"flinkdeployments.flink.apache.org-v1.yml",
                             "flinksessionjobs.flink.apache.org-v1.yml"}) {
      TRIMTAB_ASSIGN_OR_RETURN(std::string text,
                               ReadFile(ReferenceDir() + "/flink-operator/crds/" + file));
      TRIMTAB_ASSIGN_OR_RETURN(Json crd, ParseYaml(text, file));
      TRIMTAB_RETURN_IF_ERROR(client_->Create(kCrds, "", crd).status());
    }
    // CRDs are served at once by the local API server; make sure before the tests start.
    for (int i = 0; i < 200; ++i) {
      if (client_->List(FlinkDeploymentsResource(), "default", {}).ok() &&
          client_->List(FlinkSessionJobsResource(), "default", {}).ok()) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    TRIMTAB_ASSIGN_OR_RETURN(jm_, trimtab::testing::FakeFlinkRestServer::Create(
                                      {.flink_version = "1.20.0",
                                       .default_savepoint_dir = "file:///flink-data/savepoints"}));
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<http::HttpClient> http, http::HttpClient::Create({}));
    http_ = std::shared_ptr<const http::HttpClient>(std::move(http));
    events_ = std::make_unique<EventRecorder>(OperatorEventOptions(client_.get(), &clock_));
    const std::string url = jm_->base_url();
    resolver_ = std::make_unique<FunctionRestEndpointResolver>(
        [url](const std::string&, const std::string&) -> StatusOr<std::string> { return url; });
    return Status::Ok();
  }();
}

OperatorTestEnv::~OperatorTestEnv() {
  client_.reset();
  if (apiserver_) apiserver_->Stop();
}

ControllerDeps OperatorTestEnv::Deps() {
  return ControllerDeps{.client = client_.get(),
                        .clock = &clock_,
                        .events = events_.get(),
                        .resolver = resolver_.get(),
                        .http = http_};
}

StatusOr<Json> OperatorTestEnv::Apply(const std::string& yaml) {
  TRIMTAB_ASSIGN_OR_RETURN(Json object, ParseYaml(yaml, "test object"));
  const std::string kind = object.value("kind", "");
  const kube::GroupVersionResource gvr =
      kind == "FlinkSessionJob" ? FlinkSessionJobsResource() : FlinkDeploymentsResource();
  const std::string ns = object["metadata"].value("namespace", "default");
  return client_->Create(gvr, ns, object);
}

StatusOr<Json> OperatorTestEnv::Get(const kube::GroupVersionResource& gvr, const std::string& name) {
  return client_->Get(gvr, "default", name);
}

StatusOr<api::FlinkDeployment> OperatorTestEnv::GetDeployment(const std::string& name) {
  TRIMTAB_ASSIGN_OR_RETURN(Json o, Get(FlinkDeploymentsResource(), name));
  return api::DecodeFlinkDeployment(o);
}

StatusOr<api::FlinkSessionJob> OperatorTestEnv::GetSessionJob(const std::string& name) {
  TRIMTAB_ASSIGN_OR_RETURN(Json o, Get(FlinkSessionJobsResource(), name));
  return api::DecodeFlinkSessionJob(o);
}

Status OperatorTestEnv::UpdateSpec(const kube::GroupVersionResource& gvr, const std::string& name,
                                   const std::function<void(Json& spec)>& change) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    TRIMTAB_ASSIGN_OR_RETURN(Json o, Get(gvr, name));
    change(o["spec"]);
    StatusOr<Json> written = client_->Update(gvr, o);
    if (written.ok()) return Status::Ok();
    if (written.status().code() != StatusCode::kConflict) return written.status();
  }
  return ConflictError("update " + name + ": conflicts");
}

StatusOr<Json> OperatorTestEnv::DeployedConfig(const std::string& name) {
  TRIMTAB_ASSIGN_OR_RETURN(Json cm, client_->Get(kube::ConfigMapsResource(), "default",
                                                 ConfigMapName(name)));
  const Json data = cm.value("data", Json::object());
  const std::string file = data.contains("config.yaml") ? "config.yaml" : "flink-conf.yaml";
  return ParseYaml(data.value(file, ""), file);
}

StatusOr<std::string> OperatorTestEnv::StartCluster(const std::string& name) {
  TRIMTAB_ASSIGN_OR_RETURN(Json dep, client_->Get(DeploymentsResource(), "default", name));
  dep["status"] = {{"replicas", 1},
                   {"readyReplicas", 1},
                   {"availableReplicas", 1},
                   {"updatedReplicas", 1},
                   {"conditions", Json::array({{{"type", "Available"}, {"status", "True"}}})}};
  TRIMTAB_RETURN_IF_ERROR(client_->UpdateStatus(DeploymentsResource(), dep).status());
  TRIMTAB_ASSIGN_OR_RETURN(Json conf, DeployedConfig(name));
  if (!conf.contains("$internal.pipeline.job-id")) return std::string();
  const std::string id = conf["$internal.pipeline.job-id"].get<std::string>();
  trimtab::testing::FakeFlinkJob job{.id = id, .name = name};
  job.scheduler = conf.value("jobmanager.scheduler", "default");
  const std::string overrides = conf.value("pipeline.jobvertex-parallelism-overrides", "");
  const int parallelism = std::stoi(conf.value("parallelism.default", "1"));
  job.requirements = {{"vertex-a", {1, parallelism}}, {"vertex-b", {1, parallelism}}};
  jm_->RemoveJobs();
  jm_->AddJob(job);
  return id;
}

Status OperatorTestEnv::WriteHaCheckpoint(const std::string& name, const std::string& job_id,
                                          const std::string& checkpoint_path) {
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata",
              {{"name", name + "-" + job_id + "-config-map"},
               {"labels", {{"app", name}, {"type", "flink-native-kubernetes"},
                           {"configmap-type", "high-availability"}}}}},
             {"data", {{"counter", "2"}, {"checkpointID-0000000000000000001", checkpoint_path}}}};
  return client_->Create(kube::ConfigMapsResource(), "default", cm).status();
}

std::vector<std::string> OperatorTestEnv::Events(const std::string& name, const std::string& reason) {
  std::vector<std::string> out;
  StatusOr<std::vector<Json>> events = client_->List(kube::EventsResource(), "default", {});
  if (!events.ok()) return out;
  for (const Json& e : *events) {
    if (e["involvedObject"].value("name", "") == name && e.value("reason", "") == reason) {
      out.push_back(e.value("message", ""));
    }
  }
  return out;
}

}  // namespace trimtab::op::testing
