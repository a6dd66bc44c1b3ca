// Test fixture shared by the controller tests: an OperatorTestEnv, a FlinkDeploymentController
// and a FlinkSessionJobController on it, and helpers that drive reconcile passes by hand.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/lifecycle.h"
#include "api/reconciled_spec.h"
#include "operator/deployment/flink_deployment_controller.h"
#include "operator/session_job/flink_session_job_controller.h"
#include "operator/controller_shared/kube_resources.h"
#include "operator/testing/operator_test_env.h"

namespace trimtab::op::testing {

// An application cluster with savepoints and checkpoints configured; `extra` is appended to the
// spec (YAML, two-space indented under `spec:`), `config` to flinkConfiguration.
inline std::string AppYaml(const std::string& name, const std::string& upgrade_mode,
                           const std::string& config = "", const std::string& extra = "") {
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
         "    taskmanager.numberOfTaskSlots: \"2\"\n"
         "    state.savepoints.dir: file:///flink-data/savepoints\n"
         "    state.checkpoints.dir: file:///flink-data/checkpoints\n" + config +
         "  jobManager:\n"
         "    resource: {memory: 1g, cpu: 1}\n"
         "  taskManager:\n"
         "    resource: {memory: 1g, cpu: 1}\n"
         "  job:\n"
         "    jarURI: local:///opt/flink/examples/streaming/StateMachineExample.jar\n"
         "    parallelism: 2\n"
         "    upgradeMode: " + upgrade_mode + "\n" + extra;
}

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(env_.status().ok()) << env_.status().ToString();
    NewControllers();
  }

  // A fresh controller instance: an operator restart (no memory, no status cache).
  void NewControllers(JobAutoscaler* autoscaler = nullptr) {
    ControllerDeps deps = env_.Deps();
    deps.autoscaler = autoscaler;
    deps.default_config = default_config_;
    deployments_ = std::make_unique<FlinkDeploymentController>(deps);
    session_jobs_ = std::make_unique<FlinkSessionJobController>(deps);
  }

  StatusOr<ReconcileResult> TryPass(const std::string& name) {
    return deployments_->Reconcile("default", name);
  }
  ReconcileResult Pass(const std::string& name) {
    StatusOr<ReconcileResult> r = TryPass(name);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ReconcileResult{};
  }
  ReconcileResult JobPass(const std::string& name) {
    StatusOr<ReconcileResult> r = session_jobs_->Reconcile("default", name);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ReconcileResult{};
  }

  api::FlinkDeployment Get(const std::string& name) {
    StatusOr<api::FlinkDeployment> fd = env_.GetDeployment(name);
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    return fd.ok() ? *fd : api::FlinkDeployment{};
  }

  // Passes until `done` holds (the API server deletes and collects garbage asynchronously).
  bool PassUntil(const std::string& name, const std::function<bool(const api::FlinkDeployment&)>& done,
                 int max_passes = 300) {
    for (int i = 0; i < max_passes; ++i) {
      StatusOr<ReconcileResult> r = TryPass(name);
      if (!r.ok()) ADD_FAILURE() << r.status().ToString();
      if (done(Get(name))) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  static std::string Lifecycle(const api::FlinkDeployment& fd) {
    return std::string(api::Name(api::DeriveLifecycleState(fd.status)));
  }

  // Applies `yaml`, deploys, starts the cluster and passes until STABLE; returns the job id.
  std::string DeployToStable(const std::string& yaml, const std::string& name) {
    StatusOr<Json> created = env_.Apply(yaml);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    EXPECT_TRUE(PassUntil(name, [](const api::FlinkDeployment& fd) {
      return fd.status.reconciliation_status.state == api::ReconciliationState::kDeployed &&
             fd.status.job_manager_deployment_status == api::JobManagerDeploymentStatus::kDeploying;
    }));
    return StartAndStabilize(name);
  }

  std::string StartAndStabilize(const std::string& name) {
    StatusOr<std::string> id = env_.StartCluster(name);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    EXPECT_TRUE(PassUntil(name, [](const api::FlinkDeployment& fd) {
      return Lifecycle(fd) == "STABLE" &&
             fd.status.job_manager_deployment_status == api::JobManagerDeploymentStatus::kReady;
    }, 10)) << Lifecycle(Get(name));
    return id.ok() ? *id : "";
  }

  Json Recorded(const api::FlinkDeployment& fd) {
    StatusOr<api::SpecWithMeta> s =
        api::ParseSpecWithMeta(fd.status.reconciliation_status.last_reconciled_spec);
    return s.ok() ? s->spec : Json();
  }

  std::string DeploymentAnnotation(const std::string& name) {
    StatusOr<Json> dep = env_.client()->Get(DeploymentsResource(), "default", name);
    if (!dep.ok()) return "";
    return (*dep)["metadata"]["annotations"].value("flinkdeployment.flink.apache.org/generation", "");
  }

  api::FlinkConfiguration default_config_;
  OperatorTestEnv env_;
  std::unique_ptr<FlinkDeploymentController> deployments_;
  std::unique_ptr<FlinkSessionJobController> session_jobs_;
};

}  // namespace trimtab::op::testing
