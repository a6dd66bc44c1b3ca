#include "operator/decisions/flink_config_builder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "operator/decisions/operator_config.h"
#include "operator/decisions/process_resources.h"

namespace trimtab::op {
namespace {

api::FlinkDeployment Deployment() {
  api::FlinkDeployment d;
  d.metadata = api::ObjectMeta(Json{{"name", "sm"}, {"namespace", "prod"}, {"generation", 3}});
  d.spec.image = "flink:1.20";
  d.spec.flink_version = api::FlinkVersion::kV1_20;
  d.spec.service_account = "flink";
  d.spec.job_manager = api::JobManagerSpec{
      .resources = Json{{"requests", {{"cpu", "500m"}, {"memory", "2048m"}}},
                        {"limits", {{"cpu", "1"}, {"memory", "4096m"}}}}};
  d.spec.task_manager = api::TaskManagerSpec{.resource = api::Resource{.cpu = 2, .memory = "2Gi"}};
  d.spec.job = api::JobSpec{.jar_uri = "local:///opt/flink/a.jar",
                            .parallelism = 4,
                            .entry_class = "org.Main",
                            .args = {"--x", "1"},
                            .upgrade_mode = api::UpgradeMode::kLastState};
  d.spec.flink_configuration = {{"taskmanager.numberOfTaskSlots", "2"},
                                {"high-availability.type", "kubernetes"},
                                {"high-availability.storageDir", "s3://b/ha/"},
                                {"kubernetes.operator.reconcile.interval", "5 s"},
                                {"job.autoscaler.enabled", "true"}};
  return d;
}

TEST(FlinkConfigBuilderTest, DeployConfig) {
  api::FlinkDeployment d = Deployment();
  api::FlinkConfiguration defaults = {
      {"kubernetes.operator.default-configuration.namespace.prod.pipeline.name", "ignored-by-default"},
      {"kubernetes.operator.default-configuration.flink-version.v1_18+.foo", "new"},
      {"kubernetes.operator.default-configuration.flink-version.v1_20.bar", "exact"},
      {"kubernetes.operator.default-configuration.flink-version.v2_0+.baz", "future"},
      {"web.cancel.enable", "true"}};
  api::FlinkConfiguration effective =
      EffectiveConfig(defaults, "prod", d.spec.flink_version, d.spec.flink_configuration);
  EXPECT_EQ(effective.at("foo"), "new");
  EXPECT_EQ(effective.at("bar"), "exact");
  EXPECT_EQ(effective.count("baz"), 0u);
  StatusOr<api::FlinkConfiguration> conf = BuildDeployConfig(
      d.metadata, d.spec, effective,
      {.job_id = "00000000000000000000000000000abc", .restore_path = "s3://b/sp/1",
       .job_result_store_id = "jrs"});
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  const api::FlinkConfiguration& c = *conf;
  EXPECT_EQ(c.at("kubernetes.cluster-id"), "sm");
  EXPECT_EQ(c.at("kubernetes.namespace"), "prod");
  EXPECT_EQ(c.at("high-availability.cluster-id"), "sm");
  EXPECT_EQ(c.at("execution.target"), "kubernetes-application");
  EXPECT_EQ(c.at("$internal.pipeline.job-id"), "00000000000000000000000000000abc");
  EXPECT_EQ(c.at("execution.savepoint.path"), "s3://b/sp/1");
  EXPECT_EQ(c.at("job-result-store.storage-path"), "s3://b/ha/job-result-store/sm/jrs");
  EXPECT_EQ(c.at("job-result-store.delete-on-commit"), "false");
  EXPECT_EQ(c.at("parallelism.default"), "4");
  EXPECT_EQ(c.at("pipeline.jars"), "local:///opt/flink/a.jar");
  EXPECT_EQ(c.at("$internal.application.main"), "org.Main");
  EXPECT_EQ(c.at("$internal.application.program-args"), "--x;1");
  EXPECT_EQ(c.at("pipeline.name"), "ignored-by-default");  // namespace default wins over CR name
  EXPECT_EQ(c.at("execution.checkpointing.interval"), "5 min");
  EXPECT_EQ(c.at("web.cancel.enable"), "true");  // a user value is kept
  EXPECT_EQ(c.at("jobmanager.memory.process.size"), "2g");
  EXPECT_EQ(c.at("kubernetes.jobmanager.cpu"), "0.5");
  EXPECT_EQ(c.at("kubernetes.jobmanager.cpu.limit-factor"), "2.0");
  EXPECT_EQ(c.at("kubernetes.jobmanager.memory.limit-factor"), "2.0");
  EXPECT_EQ(c.at("taskmanager.memory.process.size"), "2g");
  EXPECT_EQ(c.at("kubernetes.taskmanager.cpu"), "2.0");
  EXPECT_EQ(c.at("kubernetes.container.image.ref"), "flink:1.20");
  EXPECT_EQ(c.count("kubernetes.operator.reconcile.interval"), 0u);
  EXPECT_EQ(c.count("job.autoscaler.enabled"), 0u);

  // Stateless start: no restore path; replicas decide the parallelism.
  d.spec.task_manager->replicas = 3;
  conf = BuildDeployConfig(d.metadata, d.spec, effective, {});
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ(conf->count("execution.savepoint.path"), 0u);
  EXPECT_EQ(conf->at("parallelism.default"), "6");
  EXPECT_EQ(conf->count("job-result-store.storage-path"), 0u);
  EXPECT_EQ(conf->at("kubernetes.internal.taskmanager.replicas"), "3");

  // Standalone mode (upstream FlinkConfigBuilderTest): target remote, the cluster mode, and the
  // TaskManager count from the replicas, else from parallelism / slots.
  d.spec.mode = api::DeploymentMode::kStandalone;
  conf = BuildDeployConfig(d.metadata, d.spec, effective, {});
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ(conf->at("execution.target"), "remote");
  EXPECT_EQ(conf->at("kubernetes.internal.cluster-mode"), "APPLICATION");
  EXPECT_EQ(conf->at("parallelism.default"), "6");
  EXPECT_EQ(conf->at("kubernetes.internal.taskmanager.replicas"), "3");
  d.spec.task_manager->replicas.reset();
  d.spec.job->parallelism = 10;
  conf = BuildDeployConfig(d.metadata, d.spec, effective, {});
  ASSERT_TRUE(conf.ok());
  EXPECT_EQ(conf->at("kubernetes.internal.taskmanager.replicas"),
            std::to_string((10 + TaskSlots(*conf) - 1) / TaskSlots(*conf)));
}

TEST(FlinkConfigBuilderTest, ConfigFileText) {
  api::FlinkConfiguration c = {{"a.b", "it's"}, {"$internal.pipeline.job-id", "0001"}};
  EXPECT_EQ(RenderConfigFile(c, true), "$internal.pipeline.job-id: '0001'\na.b: 'it''s'\n");
  EXPECT_EQ(RenderConfigFile(c, false), "$internal.pipeline.job-id: 0001\na.b: it's\n");
  StatusOr<Json> parsed = ParseYaml(RenderConfigFile(c, true), "config.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ((*parsed)["$internal.pipeline.job-id"], "0001");
  EXPECT_EQ(ConfigFileName(api::FlinkVersion::kV1_18), "flink-conf.yaml");
  EXPECT_EQ(ConfigFileName(api::FlinkVersion::kV1_19), "config.yaml");
  EXPECT_EQ(RandomHexId().size(), 32u);
  EXPECT_NE(RandomHexId(), RandomHexId());
}

TEST(FlinkConfigBuilderTest, OperatorConfigDefaultsAndErrors) {
  StatusOr<OperatorConfig> oc = ParseOperatorConfig({});
  ASSERT_TRUE(oc.ok());
  EXPECT_EQ(oc->reconcile_interval, std::chrono::minutes(1));
  EXPECT_EQ(oc->resource_cleanup_timeout, std::chrono::minutes(5));
  EXPECT_EQ(oc->EffectiveSavepointMaxCount(), 10);
  oc = ParseOperatorConfig({{"kubernetes.operator.savepoint.history.max.count", "20"},
                            {"kubernetes.operator.savepoint.history.max.count.threshold", "0"},
                            {"kubernetes.operator.periodic.savepoint.interval", "1 h"}});
  ASSERT_TRUE(oc.ok());
  EXPECT_EQ(oc->EffectiveSavepointMaxCount(), 1);
  EXPECT_EQ(oc->periodic_savepoint_interval, std::chrono::hours(1));
  EXPECT_FALSE(ParseOperatorConfig({{"kubernetes.operator.job.restart.failed", "maybe"}}).ok());
  EXPECT_FALSE(
      ParseOperatorConfig({{"kubernetes.operator.periodic.savepoint.interval", "0 0 * * * ?"}}).ok());
}

// Issue 23: memory tuning's overrides land in the spec as upstream's KubernetesScalingRealizer
// writes them: configuration first, then the TaskManager memory field that is in effect.
TEST(FlinkConfigBuilderTest, MemoryTuningOverridesRewriteTheTaskManagerMemory) {
  const std::map<std::string, std::string> overrides = {
      {"taskmanager.memory.process.size", "1073741824 bytes"},
      {"taskmanager.memory.managed.fraction", "0.0"}};
  const std::set<std::string> removals = {"taskmanager.memory.task.heap.size"};
  // Legacy resource.memory: replaced by the tuned bytes.
  api::FlinkDeployment d = Deployment();
  d.spec.flink_configuration["taskmanager.memory.task.heap.size"] = "1g";
  EXPECT_EQ(RealizeMemoryOverrides(overrides, removals, 2LL << 30, &d.spec), "");
  EXPECT_EQ(d.spec.task_manager->resource->memory, "1073741824");
  EXPECT_EQ(d.spec.flink_configuration.count("taskmanager.memory.task.heap.size"), 0u);
  EXPECT_EQ(d.spec.flink_configuration.at("taskmanager.memory.managed.fraction"), "0.0");
  // resources with requests and limits: the request is tuned, the limit keeps its factor (x2).
  d = Deployment();
  d.spec.task_manager =
      api::TaskManagerSpec{.resources = Json{{"requests", {{"memory", "2Gi"}}},
                                             {"limits", {{"memory", "4Gi"}}}}};
  EXPECT_EQ(RealizeMemoryOverrides(overrides, removals, 2LL << 30, &d.spec), "");
  EXPECT_EQ(d.spec.task_manager->resources["requests"]["memory"], "1073741824");
  EXPECT_EQ(d.spec.task_manager->resources["limits"]["memory"], "2147483648");
  // Only a limit: the limit is tuned.
  d.spec.task_manager = api::TaskManagerSpec{.resources = Json{{"limits", {{"memory", "2Gi"}}}}};
  EXPECT_EQ(RealizeMemoryOverrides(overrides, removals, 2LL << 30, &d.spec), "");
  EXPECT_EQ(d.spec.task_manager->resources["limits"]["memory"], "1073741824");
  // No TaskManager memory in the spec: the configuration changes, the resources do not.
  d.spec.task_manager = api::TaskManagerSpec{};
  EXPECT_EQ(RealizeMemoryOverrides(overrides, removals, 2LL << 30, &d.spec),
            "the spec sets no TaskManager memory");
}

}  // namespace
}  // namespace trimtab::op
