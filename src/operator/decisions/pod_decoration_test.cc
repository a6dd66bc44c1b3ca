#include "operator/decisions/pod_decoration.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "operator/decorators/builtin_decorators.h"
#include "operator/decisions/flink_config_builder.h"
#include "operator/decisions/operator_config.h"

namespace trimtab::op {
namespace {

api::FlinkDeploymentSpec App(int64_t parallelism) {
  api::FlinkDeploymentSpec spec;
  spec.image = "flink:1.20";
  spec.flink_version = api::FlinkVersion::kV1_20;
  spec.job = api::JobSpec{.jar_uri = "local:///a.jar", .parallelism = parallelism};
  spec.job_manager = api::JobManagerSpec{.resource = api::Resource{.cpu = 0.5, .memory = "1g"}};
  spec.task_manager = api::TaskManagerSpec{
      .resource = api::Resource{.cpu = 2, .memory = "4g"},
      .pod_template = Json::parse(R"({"metadata":{"labels":{"team":"x"}}})")};
  return spec;
}

TEST(PodDecorationTest, DesiredTaskManagers) {
  const api::FlinkConfiguration slots = {{"taskmanager.numberOfTaskSlots", "4"}};
  EXPECT_EQ(DesiredTaskManagers(App(10), slots, 0), 3);
  api::FlinkConfiguration conf = slots;
  conf["pipeline.jobvertex-parallelism-overrides"] = "a:2,b:16";
  EXPECT_EQ(DesiredTaskManagers(App(10), conf, 0), 4);  // the largest override wins
  conf["pipeline.jobvertex-parallelism-overrides"] = "a:2,b:3";
  EXPECT_EQ(DesiredTaskManagers(App(10), conf, 0), 3);  // user overrides: at least the job's
  conf["job.autoscaler.enabled"] = "true";
  EXPECT_EQ(DesiredTaskManagers(App(10), conf, 0), 1);  // the autoscaler wrote every vertex
  api::FlinkDeploymentSpec session = App(1);
  session.job.reset();
  EXPECT_EQ(DesiredTaskManagers(session, slots, 3), 3);  // what exists
  session.task_manager->replicas = 5;
  EXPECT_EQ(DesiredTaskManagers(session, slots, 3), 5);
}

TEST(PodDecorationTest, DecoratesTheUserTemplatesAndLabelsWhatItCreates) {
  decorators::DecoratorRegistry registry;
  ASSERT_TRUE(decorators::RegisterBuiltinDecorators(registry).ok());
  api::FlinkDeploymentSpec spec = App(8);
  api::ObjectMeta meta(Json{{"name", "wc"}, {"namespace", "prod"}, {"uid", "u"}, {"generation", 1}});
  const api::FlinkConfiguration effective = EffectiveConfig(
      {}, "prod", spec.flink_version,
      {{"taskmanager.numberOfTaskSlots", "4"}, {"kubernetes.scheduler-name", "volcano"}});
  spec.flink_configuration = effective;
  StatusOr<api::FlinkConfiguration> deploy = BuildDeployConfig(meta, spec, effective, {});
  ASSERT_TRUE(deploy.ok()) << deploy.status().ToString();
  StatusOr<PodDecoration> d = DecoratePods(registry, meta, spec, *deploy, effective, 1, 1);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->templates.task_manager["metadata"]["labels"]["team"], "x");
  EXPECT_EQ(d->templates.task_manager["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(d->templates.job_manager["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(d->volcano_queue, "default");
  ASSERT_EQ(d->pre_creation.size(), 1u);
  const Json& group = d->pre_creation[0].object;
  EXPECT_EQ(group["metadata"]["labels"],
            Json::parse(R"({"app":"wc","type":"flink-native-kubernetes",
                            "app.kubernetes.io/managed-by":"trimtab-operator"})"));
  // 8 slots / 4 per TaskManager = 2 TaskManagers of 2 cpu / 4 GiB, one exists.
  EXPECT_EQ(group["spec"]["minMember"], 2);
  EXPECT_EQ(group["spec"]["minResources"], Json::parse(R"({"cpu":"4500m","memory":"9Gi"})"));

  // The TaskManager template reaches the ConfigMap.
  StatusOr<ClusterObjects> objs = BuildClusterObjects(meta, spec, *deploy, d->templates);
  ASSERT_TRUE(objs.ok());
  EXPECT_NE(objs->config_map["data"].value("taskmanager-pod-template.yaml", "").find(
                "schedulerName: volcano"),
            std::string::npos);
  EXPECT_EQ(objs->deployment["spec"]["template"]["spec"]["schedulerName"], "volcano");
}

}  // namespace
}  // namespace trimtab::op
