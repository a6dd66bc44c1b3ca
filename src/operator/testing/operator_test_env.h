// OperatorTestEnv (test only): an in-process local API server (port 0, in-memory) with the
// upstream Flink operator CRDs applied, a FakeFlinkRestServer standing in for every Flink cluster's
// REST API, a ManualClock and the controller dependencies wired to them. There is no kubelet:
// StartCluster() plays the part of the JobManager coming up (Deployment status ready, the job of
// the ConfigMap's $internal.pipeline.job-id RUNNING in the fake).
//
// Thread-safety: used by one test thread (the fake JobManager serves on its own threads).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/fake_flink_rest.h"
#include "adapters/kube/kube_client.h"
#include "api/flink_resources.h"
#include "cluster/apiserver/apiserver.h"
#include "operator/controller_shared/controller_deps.h"

namespace trimtab::op::testing {

// The reference checkout's upstream CRDs and examples.
std::string ReferenceDir();

class OperatorTestEnv {
 public:
  // Starts everything; failures are reported through `status()`.
  OperatorTestEnv();
  ~OperatorTestEnv();

  const Status& status() const { return status_; }
  kube::KubeClient* client() { return client_.get(); }
  cluster::ApiServer* apiserver() { return apiserver_.get(); }
  trimtab::testing::FakeFlinkRestServer* jm() { return jm_.get(); }
  ManualClock* clock() { return &clock_; }
  EventRecorder* events() { return events_.get(); }
  // Dependencies for a controller: resolver -> the fake JobManager, real TCP probe.
  ControllerDeps Deps();

  // Creates a resource from YAML (namespace "default" unless set).
  StatusOr<Json> Apply(const std::string& yaml);
  StatusOr<Json> Get(const kube::GroupVersionResource& gvr, const std::string& name);
  StatusOr<api::FlinkDeployment> GetDeployment(const std::string& name);
  StatusOr<api::FlinkSessionJob> GetSessionJob(const std::string& name);
  // Read-modify-write of a resource's spec (retries conflicts).
  Status UpdateSpec(const kube::GroupVersionResource& gvr, const std::string& name,
                    const std::function<void(Json& spec)>& change);

  // The Flink configuration deployed for cluster `name` (its ConfigMap's config file).
  StatusOr<Json> DeployedConfig(const std::string& name);
  // Marks the JobManager Deployment available and starts the configured job in the fake
  // (RUNNING); returns the job id ("" for a session cluster).
  StatusOr<std::string> StartCluster(const std::string& name);
  // Writes an HA job ConfigMap with one checkpoint, as a JobManager with Kubernetes HA does.
  Status WriteHaCheckpoint(const std::string& name, const std::string& job_id,
                           const std::string& checkpoint_path);
  // Events recorded on `name` with `reason` (their messages).
  std::vector<std::string> Events(const std::string& name, const std::string& reason);

 private:
  Status status_;
  std::unique_ptr<cluster::ApiServer> apiserver_;
  std::unique_ptr<kube::KubeClient> client_;
  std::unique_ptr<trimtab::testing::FakeFlinkRestServer> jm_;
  std::shared_ptr<const http::HttpClient> http_;
  ManualClock clock_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<RestEndpointResolver> resolver_;
};

}  // namespace trimtab::op::testing
