#include "operator/decisions/jm_resources.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "operator/decisions/flink_config_builder.h"
#include "operator/decisions/operator_config.h"

namespace trimtab::op {
namespace {

TEST(JmResourcesTest, ObjectsFollowTheContract) {
  api::FlinkDeployment d;
  d.metadata = api::ObjectMeta(
      Json{{"name", "sm"}, {"namespace", "prod"}, {"uid", "u-1"}, {"generation", 7}});
  d.spec.image = "flink:1.20";
  d.spec.flink_version = api::FlinkVersion::kV1_20;
  d.spec.service_account = "flink";
  d.spec.job = api::JobSpec{.jar_uri = "local:///a.jar", .parallelism = 2};
  d.spec.job_manager = api::JobManagerSpec{.resource = api::Resource{.cpu = 0.5, .memory = "1g"}};
  d.spec.pod_template = Json::parse(R"({"metadata":{"labels":{"team":"x"}},
      "spec":{"containers":[{"name":"flink-main-container","volumeMounts":[{"name":"data","mountPath":"/data"}]},
                            {"name":"sidecar","image":"busybox"}],
              "volumes":[{"name":"data","emptyDir":{}}]}})");
  d.spec.task_manager = api::TaskManagerSpec{
      .pod_template = Json::parse(R"({"spec":{"containers":[{"name":"sidecar","image":"tm-sidecar"}]}})")};
  StatusOr<api::FlinkConfiguration> conf = BuildDeployConfig(
      d.metadata, d.spec, EffectiveConfig({}, "prod", d.spec.flink_version, {}),
      {.job_id = "0123456789abcdef0123456789abcdef"});
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  StatusOr<ClusterObjects> objs = BuildClusterObjects(d.metadata, d.spec, *conf);
  ASSERT_TRUE(objs.ok()) << objs.status().ToString();

  const Json& dep = objs->deployment;
  EXPECT_EQ(dep["metadata"]["name"], "sm");
  EXPECT_EQ(dep["metadata"]["labels"],
            Json::parse(R"({"app":"sm","component":"jobmanager","type":"flink-native-kubernetes"})"));
  EXPECT_EQ(dep["metadata"]["annotations"]["flinkdeployment.flink.apache.org/generation"], "7");
  const Json& owner = dep["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "FlinkDeployment");
  EXPECT_EQ(owner["uid"], "u-1");
  EXPECT_EQ(owner["controller"], false);
  EXPECT_EQ(owner["blockOwnerDeletion"], true);
  EXPECT_EQ(dep["spec"]["strategy"]["type"], "Recreate");
  const Json& pod = dep["spec"]["template"];
  EXPECT_EQ(pod["metadata"]["labels"]["team"], "x");
  EXPECT_EQ(pod["metadata"]["labels"]["component"], "jobmanager");
  EXPECT_EQ(pod["spec"]["serviceAccountName"], "flink");
  const Json& main = pod["spec"]["containers"][0];
  EXPECT_EQ(main["name"], "flink-main-container");
  EXPECT_EQ(main["image"], "flink:1.20");
  EXPECT_EQ(main["args"], Json::parse(R"(["bash","-c","kubernetes-jobmanager.sh kubernetes-application"])"));
  EXPECT_EQ(main["resources"]["requests"]["cpu"], "500m");
  EXPECT_EQ(main["resources"]["requests"]["memory"], "1024Mi");
  EXPECT_EQ(main["volumeMounts"].size(), 2u);  // the user's and /opt/flink/conf
  EXPECT_EQ(pod["spec"]["containers"][1]["name"], "sidecar");
  bool config_volume = false;
  for (const Json& v : pod["spec"]["volumes"]) {
    if (v["name"] == "flink-config-volume") {
      config_volume = true;
      EXPECT_EQ(v["configMap"]["name"], "flink-config-sm");
    }
  }
  EXPECT_TRUE(config_volume);

  const Json& cm = objs->config_map;
  EXPECT_EQ(cm["metadata"]["name"], "flink-config-sm");
  ASSERT_TRUE(cm["data"].contains("config.yaml"));
  StatusOr<Json> parsed = ParseYaml(cm["data"]["config.yaml"].get<std::string>(), "config.yaml");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ((*parsed)["$internal.pipeline.job-id"], "0123456789abcdef0123456789abcdef");
  EXPECT_EQ((*parsed)["kubernetes.pod-template-file.taskmanager"],
            "/opt/flink/conf/taskmanager-pod-template.yaml");
  EXPECT_TRUE(cm["data"].contains("log4j-console.properties"));
  StatusOr<Json> tm = ParseYaml(cm["data"]["taskmanager-pod-template.yaml"].get<std::string>(), "tm");
  ASSERT_TRUE(tm.ok());
  EXPECT_EQ((*tm)["spec"]["containers"][1]["image"], "tm-sidecar");

  EXPECT_EQ(objs->internal_service["spec"]["clusterIP"], "None");
  EXPECT_EQ(objs->internal_service["spec"]["ports"][0]["port"], 6123);
  EXPECT_EQ(objs->rest_service["metadata"]["name"], "sm-rest");
  EXPECT_EQ(objs->rest_service["spec"]["ports"][0]["name"], "rest");
  EXPECT_EQ(objs->rest_service["spec"]["ports"][0]["port"], 8081);

  WithDeploymentOwner(&*objs, "sm", "dep-uid");
  EXPECT_EQ(objs->rest_service["metadata"]["ownerReferences"][0]["uid"], "dep-uid");
  EXPECT_EQ(objs->config_map["metadata"]["ownerReferences"][0]["kind"], "Deployment");

  // Session clusters run kubernetes-session; pre-1.19 uses flink-conf.yaml.
  d.spec.job.reset();
  d.spec.flink_version = api::FlinkVersion::kV1_18;
  objs = BuildClusterObjects(d.metadata, d.spec, {});
  ASSERT_TRUE(objs.ok());
  EXPECT_EQ(objs->deployment["spec"]["template"]["spec"]["containers"][0]["args"][2],
            "kubernetes-jobmanager.sh kubernetes-session");
  EXPECT_TRUE(objs->config_map["data"].contains("flink-conf.yaml"));
}

}  // namespace
}  // namespace trimtab::op
