#include "operator/decisions/validator.h"

#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/reconciled_spec.h"
#include "common/json.h"
#include "operator/decisions/operator_config.h"

namespace trimtab::op {
namespace {

api::FlinkDeployment Valid() {
  api::FlinkDeployment d;
  d.metadata = api::ObjectMeta(Json{{"name", "basic"}, {"namespace", "ns"}});
  d.spec.image = "flink:1.20";
  d.spec.flink_version = api::FlinkVersion::kV1_20;
  d.spec.service_account = "flink";
  d.spec.job_manager = api::JobManagerSpec{.resource = api::Resource{.cpu = 1, .memory = "2048m"}};
  d.spec.task_manager = api::TaskManagerSpec{
      .resources = Json{{"requests", {{"cpu", "1"}, {"memory", "2Gi"}}}}};
  d.spec.job = api::JobSpec{.jar_uri = "local:///a.jar", .parallelism = 2};
  d.spec.flink_configuration = {{"state.checkpoints.dir", "file:///c"},
                                {"state.savepoints.dir", "file:///s"}};
  return d;
}

std::optional<std::string> Check(const api::FlinkDeployment& d) {
  return ValidateDeployment(d, d.spec.flink_configuration);
}

struct Case {
  const char* error;  // expected message prefix; nullptr = valid
  std::function<void(api::FlinkDeployment*)> change;
};

TEST(ValidatorTest, DeploymentChecksFirstFailureWins) {
  const Case cases[] = {
      {nullptr, [](api::FlinkDeployment*) {}},
      {"The FlinkDeployment name: Bad_Name is invalid",
       [](api::FlinkDeployment* d) { d->metadata.mutable_raw()["name"] = "Bad_Name"; }},
      {"Flink Version must be defined.", [](api::FlinkDeployment* d) { d->spec.flink_version.reset(); }},
      {"Flink version v1_14 is not supported by this operator version",
       [](api::FlinkDeployment* d) { d->spec.flink_version = api::FlinkVersion::kV1_14; }},
      {"Forbidden Flink config key: kubernetes.cluster-id",
       [](api::FlinkDeployment* d) { d->spec.flink_configuration["kubernetes.cluster-id"] = "x"; }},
      {"HA must be enabled for rollback support.",
       [](api::FlinkDeployment* d) {
         d->spec.flink_configuration["kubernetes.operator.deployment.rollback.enabled"] = "true";
       }},
      {"Invalid operator configuration: kubernetes.operator.reconcile.interval",
       [](api::FlinkDeployment* d) {
         d->spec.flink_configuration["kubernetes.operator.reconcile.interval"] = "soon";
       }},
      {"Ingress template must be defined",
       [](api::FlinkDeployment* d) { d->spec.ingress = api::IngressSpec{}; }},
      {"Invalid log config key: log4j.properties. Allowed keys are",
       [](api::FlinkDeployment* d) { d->spec.log_configuration["log4j.properties"] = "x"; }},
      {"Checkpoint directory[execution.checkpointing.dir] must be defined",
       [](api::FlinkDeployment* d) {
         d->spec.job->upgrade_mode = api::UpgradeMode::kLastState;
         d->spec.flink_configuration.erase("state.checkpoints.dir");
       }},
      {"Job could not be upgraded with savepoint while config key[execution.checkpointing.savepoint-dir] is not set",
       [](api::FlinkDeployment* d) {
         d->spec.job->upgrade_mode = api::UpgradeMode::kSavepoint;
         d->spec.flink_configuration.erase("state.savepoints.dir");
       }},
      {"Savepoint could not be manually triggered",
       [](api::FlinkDeployment* d) {
         d->spec.job->savepoint_trigger_nonce = 1;
         d->spec.flink_configuration.erase("state.savepoints.dir");
       }},
      {"Job parallelism must be larger than 0",
       [](api::FlinkDeployment* d) { d->spec.job->parallelism.reset(); }},
      {nullptr,
       [](api::FlinkDeployment* d) {
         d->spec.job->parallelism.reset();
         d->spec.task_manager->replicas = 2;
       }},
      {"JobManager resource memory must be defined using `spec.jobManager.resource.memory`",
       [](api::FlinkDeployment* d) { d->spec.job_manager->resource->memory.clear(); }},
      {nullptr,
       [](api::FlinkDeployment* d) {
         d->spec.job_manager->resource->memory.clear();
         d->spec.flink_configuration["jobmanager.memory.process.size"] = "1g";
       }},
      {"JobManager resource memory parse error",
       [](api::FlinkDeployment* d) { d->spec.job_manager->resource->memory = "lots"; }},
      {"High availability should be enabled when starting standby JobManagers.",
       [](api::FlinkDeployment* d) { d->spec.job_manager->replicas = 2; }},
      {"TaskManager resources: requests.memory (2Gi) must not exceed limits.memory (1Gi)",
       [](api::FlinkDeployment* d) { d->spec.task_manager->resources["limits"] = {{"memory", "1Gi"}}; }},
      {"TaskManager replicas must be larger than 0",
       [](api::FlinkDeployment* d) { d->spec.task_manager->replicas = 0; }},
      {"spec.serviceAccount must be defined.",
       [](api::FlinkDeployment* d) { d->spec.service_account.clear(); }},
      {"pipeline.jobvertex-parallelism-overrides: entry \"bad\" is not <vertex id>:<parallelism >= 1>",
       [](api::FlinkDeployment* d) {
         d->spec.flink_configuration["pipeline.jobvertex-parallelism-overrides"] = "a:2,bad";
       }},
      {"scale-down.max-factor",
       [](api::FlinkDeployment* d) {
         d->spec.flink_configuration["job.autoscaler.enabled"] = "true";
         d->spec.flink_configuration["job.autoscaler.metrics.window"] = "10 min";
         d->spec.flink_configuration["job.autoscaler.scale-down.max-factor"] = "-1";
       }},
      {"job.autoscaler.metrics.window (30 s) must not be smaller than kubernetes.operator.reconcile.interval (1 min)",
       [](api::FlinkDeployment* d) {
         d->spec.flink_configuration["job.autoscaler.enabled"] = "true";
         d->spec.flink_configuration["job.autoscaler.metrics.window"] = "30 s";
       }},
  };
  for (const Case& c : cases) {
    api::FlinkDeployment d = Valid();
    c.change(&d);
    std::optional<std::string> err = Check(d);
    if (!c.error) {
      EXPECT_FALSE(err.has_value()) << *err;
      continue;
    }
    ASSERT_TRUE(err.has_value()) << "expected: " << c.error;
    EXPECT_TRUE(err->starts_with(c.error) || err->find(c.error) != std::string::npos)
        << "got: " << *err << "\nwant: " << c.error;
  }
}

TEST(ValidatorTest, SpecChangeRules) {
  api::FlinkDeployment d = Valid();
  api::FlinkDeploymentSpec old = d.spec;
  old.job.reset();
  d.status.reconciliation_status.last_reconciled_spec =
      api::SerializeSpecWithMeta(api::EncodeFlinkDeploymentSpec(old), {});
  EXPECT_EQ(Check(d), "Cannot switch from session to job cluster");

  old = d.spec;
  old.mode = api::DeploymentMode::kStandalone;
  d.status.reconciliation_status.last_reconciled_spec =
      api::SerializeSpecWithMeta(api::EncodeFlinkDeploymentSpec(old), {});
  EXPECT_EQ(Check(d), "Cannot switch from standalone kubernetes to native kubernetes cluster");

  old = d.spec;
  d.status.reconciliation_status.last_reconciled_spec =
      api::SerializeSpecWithMeta(api::EncodeFlinkDeploymentSpec(old), {});
  d.spec.job->savepoint_redeploy_nonce = 1;
  EXPECT_EQ(Check(d), "InitialSavepointPath must not be empty for savepoint redeployment");

  // Flink version change after a last-state suspend.
  old = Valid().spec;
  old.job->upgrade_mode = api::UpgradeMode::kLastState;
  old.job->state = api::JobState::kSuspended;
  d = Valid();
  d.spec.job->upgrade_mode = api::UpgradeMode::kLastState;
  d.spec.flink_version = api::FlinkVersion::kV2_0;
  d.status.reconciliation_status.last_reconciled_spec =
      api::SerializeSpecWithMeta(api::EncodeFlinkDeploymentSpec(old), {});
  ASSERT_TRUE(Check(d).has_value());
  EXPECT_TRUE(Check(d)->starts_with("Changing flinkVersion after last-state suspend"));
}

TEST(ValidatorTest, SessionJob) {
  api::FlinkSessionJob job;
  job.metadata = api::ObjectMeta(Json{{"name", "j"}, {"namespace", "ns"}});
  job.spec.deployment_name = "session";
  api::FlinkConfiguration conf;
  EXPECT_EQ(ValidateSessionJob(job, nullptr, conf), "The job spec should not be empty");
  job.spec.job = api::JobSpec{.jar_uri = "local:///a.jar", .parallelism = 1};
  ASSERT_TRUE(ValidateSessionJob(job, nullptr, conf).has_value());
  EXPECT_NE(ValidateSessionJob(job, nullptr, conf)->find("scheme \"local\" is not allowed"),
            std::string::npos);
  job.spec.job->jar_uri = "https://127.0.0.1:9/a.jar";
  EXPECT_NE(ValidateSessionJob(job, nullptr, conf)->find("restricted address"), std::string::npos);
  conf["kubernetes.operator.user.artifacts.disallow-restricted-hosts"] = "false";
  EXPECT_EQ(ValidateSessionJob(job, nullptr, conf), std::nullopt);

  api::FlinkDeployment app = Valid();
  app.metadata.mutable_raw()["name"] = "session";
  EXPECT_EQ(ValidateSessionJob(job, &app, conf), "Can not submit session job to application cluster");
  app.spec.job.reset();
  EXPECT_EQ(ValidateSessionJob(job, &app, conf), std::nullopt);
  app.metadata.mutable_raw()["name"] = "other";
  EXPECT_EQ(ValidateSessionJob(job, &app, conf),
            "The session job's cluster id is not match with the session cluster");

  job.status.reconciliation_status.last_reconciled_spec =
      R"({"spec":{"deploymentName":"before","job":{}},"resource_metadata":{}})";
  EXPECT_EQ(ValidateSessionJob(job, nullptr, conf), "The deploymentName can't be changed");
}

TEST(ValidatorTest, TheRepositorysExampleDeploymentsAreValid) {
  // The README tour and `make demo` apply these; a spec change that broke them would fail here
  // before it failed a user.
  for (const char* file : {"examples/operator/basic.yaml", "examples/demo/autoscaling.yaml"}) {
    SCOPED_TRACE(file);
    StatusOr<std::string> text = ReadFile(std::string(TRIMTAB_SOURCE_DIR) + "/" + file);
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    StatusOr<Json> doc = ParseYaml(*text, file);
    ASSERT_TRUE(doc.ok()) << doc.status().ToString();
    StatusOr<api::FlinkDeployment> d = api::DecodeFlinkDeployment(*doc);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    const api::FlinkConfiguration conf =
        EffectiveConfig({}, "default", d->spec.flink_version, d->spec.flink_configuration);
    EXPECT_EQ(ValidateDeployment(*d, conf), std::nullopt);
  }
}

TEST(ValidatorTest, IngressTemplate) {
  EXPECT_EQ(*RenderIngressTemplate("{{name}}.{{NAMESPACE}}.example.com", "a", "b"),
            "a.b.example.com");
  EXPECT_EQ(*RenderIngressTemplate("example.com/{{namespace}}/{{name}}(/|$)(.*)", "a", "b"),
            "example.com/b/a(/|$)(.*)");
  EXPECT_FALSE(RenderIngressTemplate("{{nam}}.x", "a", "b").ok());
  EXPECT_FALSE(RenderIngressTemplate("bad host/x", "a", "b").ok());
}

// Issue 27: a 50,000-character spec.ingress.template overflowed std::regex's recursion and
// crashed the operator on every restart. Long input is now just valid or invalid.
TEST(ValidatorTest, Issue27LongIngressTemplateAndNameDoNotCrash) {
  const std::string host(50000, 'a');
  auto ok = RenderIngressTemplate(host + ".{{name}}/x", "n", "ns");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->size(), 50000u + 4);
  std::string dotted;
  for (int i = 0; i < 20000; ++i) dotted += "ab.";
  EXPECT_TRUE(RenderIngressTemplate(dotted + "c", "n", "ns").ok());
  EXPECT_FALSE(RenderIngressTemplate(host + "-", "n", "ns").ok());
  std::string placeholders;
  for (int i = 0; i < 10000; ++i) placeholders += "{{NAME}}";
  EXPECT_EQ(RenderIngressTemplate(placeholders, "x", "ns")->size(), 10000u);
  EXPECT_TRUE(ValidateDeploymentName(std::string(100000, 'a')).has_value());
  EXPECT_FALSE(ValidateDeploymentName("abc-123").has_value());
}

}  // namespace
}  // namespace trimtab::op
