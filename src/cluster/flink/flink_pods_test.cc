// TaskManagerPod with a pod template: which fields Flink overwrites, merges or keeps (as its
// InitTaskManagerDecorator does), and ConfigMapFileForPath, which finds the template file.
#include "cluster/flink/flink_pods.h"

#include <gtest/gtest.h>

namespace trimtab::sim::flink {
namespace {

TaskManagerSettings Shape() {
  TaskManagerSettings tm;
  tm.cpu = 2;
  tm.process_bytes = int64_t{1728} << 20;
  return tm;
}

TaskManagerPodSpec Spec(const TaskManagerSettings& shape, Json tmpl) {
  return TaskManagerPodSpec{.name = "wc-taskmanager-1-1",
                            .namespace_name = "jobs",
                            .cluster_id = "wc",
                            .image = "flink:1.20",
                            .config_map = "flink-config-wc",
                            .service_account = "flink",
                            .owner = {{"kind", "Deployment"}, {"name", "wc"}, {"uid", "u1"}},
                            .shape = &shape,
                            .pod_template = std::move(tmpl)};
}

const Json kTemplate = Json::parse(R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "ignored", "namespace": "elsewhere", "uid": "x",
               "labels": {"team": "search", "app": "not-wc"},
               "annotations": {"scheduling.k8s.io/group-name": "podgroup-wc"}},
  "spec": {
    "schedulerName": "volcano", "priorityClassName": "high", "restartPolicy": "Always",
    "nodeSelector": {"disk": "ssd"},
    "tolerations": [{"key": "dedicated", "operator": "Exists"}],
    "affinity": {"nodeAffinity": {}},
    "serviceAccountName": "template-sa",
    "initContainers": [{"name": "fetch", "image": "busybox"}],
    "volumes": [{"name": "cache", "emptyDir": {}}],
    "containers": [
      {"name": "flink-main-container", "image": "my/flink:custom", "command": ["sleep"],
       "resources": {"requests": {"cpu": "100m", "ephemeral-storage": "1Gi"}},
       "env": [{"name": "TEAM", "value": "search"}],
       "ports": [{"name": "metrics", "containerPort": 9249}],
       "volumeMounts": [{"name": "cache", "mountPath": "/cache"}]},
      {"name": "sidecar", "image": "fluent-bit"}]}})");

TEST(TaskManagerPodTemplateTest, WithoutTemplateFlinkBuildsThePodAlone) {
  const TaskManagerSettings shape = Shape();
  Json pod = TaskManagerPod(Spec(shape, Json()));
  EXPECT_FALSE(pod["spec"].contains("schedulerName"));
  ASSERT_EQ(pod["spec"]["containers"].size(), 1u);
  EXPECT_EQ(pod["spec"]["serviceAccountName"], "flink");
}

TEST(TaskManagerPodTemplateTest, TemplateFieldsAreKeptMergedOrOverwrittenAsFlinkDoes) {
  const TaskManagerSettings shape = Shape();
  Json pod = TaskManagerPod(Spec(shape, kTemplate));
  // Kept as the template has them.
  EXPECT_EQ(pod["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(pod["spec"]["priorityClassName"], "high");
  EXPECT_EQ(pod["spec"]["nodeSelector"]["disk"], "ssd");
  EXPECT_EQ(pod["spec"]["tolerations"].size(), 1u);
  EXPECT_TRUE(pod["spec"].contains("affinity"));
  EXPECT_EQ(pod["spec"]["initContainers"][0]["name"], "fetch");
  EXPECT_EQ(pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"], "podgroup-wc");
  // Overwritten.
  EXPECT_EQ(pod["metadata"]["name"], "wc-taskmanager-1-1");
  EXPECT_EQ(pod["metadata"]["namespace"], "jobs");
  EXPECT_FALSE(pod["metadata"].contains("uid"));
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"], "u1");
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
  // Merged: Flink's labels win on the same key.
  EXPECT_EQ(pod["metadata"]["labels"]["team"], "search");
  EXPECT_EQ(pod["metadata"]["labels"]["app"], "wc");
  EXPECT_EQ(pod["metadata"]["labels"]["component"], "taskmanager");
  ASSERT_EQ(pod["spec"]["volumes"].size(), 2u);
  EXPECT_EQ(pod["spec"]["volumes"][0]["name"], "cache");
  EXPECT_EQ(pod["spec"]["volumes"][1]["name"], "flink-config-volume");

  // The sidecar keeps its place; the main container comes after it.
  ASSERT_EQ(pod["spec"]["containers"].size(), 2u);
  EXPECT_EQ(pod["spec"]["containers"][0]["name"], "sidecar");
  const Json& main = pod["spec"]["containers"][1];
  EXPECT_EQ(MainContainer(pod), &main);
  EXPECT_FALSE(main.contains("command"));
  EXPECT_NE(main["args"][2].get<std::string>().find("kubernetes-taskmanager.sh"), std::string::npos);
  EXPECT_EQ(main["resources"]["requests"],
            Json::parse(R"({"cpu": "2", "memory": "1728Mi", "ephemeral-storage": "1Gi"})"));
  EXPECT_EQ(main["resources"]["limits"], Json::parse(R"({"cpu": "2", "memory": "1728Mi"})"));
  ASSERT_EQ(main["ports"].size(), 2u);
  EXPECT_EQ(main["ports"][1]["name"], "rpc");
  EXPECT_EQ(ContainerEnv(main, "TEAM"), "search");
  EXPECT_NE(ContainerEnv(main, "FLINK_TM_JVM_MEM_OPTS"), "");
  ASSERT_EQ(main["volumeMounts"].size(), 2u);
  EXPECT_EQ(main["volumeMounts"][1]["mountPath"], "/opt/flink/conf");
  EXPECT_TRUE(IsTaskManagerPod(pod));
}

TEST(TaskManagerPodTemplateTest, ImageAndServiceAccountFollowFlinksPrecedence) {
  const TaskManagerSettings shape = Shape();
  // Not configured explicitly: the template's values.
  Json pod = TaskManagerPod(Spec(shape, kTemplate));
  EXPECT_EQ(MainContainer(pod)->value("image", ""), "my/flink:custom");
  EXPECT_EQ(pod["spec"]["serviceAccountName"], "template-sa");
  // Configured explicitly: Flink's.
  TaskManagerPodSpec spec = Spec(shape, kTemplate);
  spec.image_configured = true;
  spec.service_account_configured = true;
  pod = TaskManagerPod(spec);
  EXPECT_EQ(MainContainer(pod)->value("image", ""), "flink:1.20");
  EXPECT_EQ(pod["spec"]["serviceAccountName"], "flink");
  EXPECT_EQ(pod["spec"]["serviceAccount"], "flink");
  // A template without a main container gets Flink's.
  Json bare = {{"spec", {{"schedulerName", "volcano"}}}};
  pod = TaskManagerPod(Spec(shape, bare));
  ASSERT_EQ(pod["spec"]["containers"].size(), 1u);
  EXPECT_EQ(MainContainer(pod)->value("image", ""), "flink:1.20");
  EXPECT_EQ(pod["spec"]["schedulerName"], "volcano");
}

TEST(TaskManagerPodTemplateTest, FindsTheConfigMapFileOfAPath) {
  Json container = Json::parse(R"({"volumeMounts": [
      {"name": "conf", "mountPath": "/opt/flink/conf/"},
      {"name": "tmpl", "mountPath": "/templates/tm.yaml", "subPath": "tm"},
      {"name": "items", "mountPath": "/pick"},
      {"name": "empty", "mountPath": "/scratch"}]})");
  Json pod = {{"spec",
               {{"volumes", Json::parse(R"([
      {"name": "conf", "configMap": {"name": "flink-config-wc"}},
      {"name": "tmpl", "configMap": {"name": "templates"}},
      {"name": "items", "configMap": {"name": "picked", "items": [{"key": "k1", "path": "file.yaml"}]}},
      {"name": "empty", "emptyDir": {}}])")}}}};
  auto file = ConfigMapFileForPath(pod, container, "/opt/flink/conf/taskmanager-pod-template.yaml");
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->config_map, "flink-config-wc");
  EXPECT_EQ(file->key, "taskmanager-pod-template.yaml");
  file = ConfigMapFileForPath(pod, container, "/templates/tm.yaml");
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->config_map, "templates");
  EXPECT_EQ(file->key, "tm");
  file = ConfigMapFileForPath(pod, container, "/pick/file.yaml");
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->key, "k1");
  EXPECT_FALSE(ConfigMapFileForPath(pod, container, "/pick/other.yaml").has_value());
  EXPECT_FALSE(ConfigMapFileForPath(pod, container, "/scratch/x.yaml").has_value());
  EXPECT_FALSE(ConfigMapFileForPath(pod, container, "/nowhere/x.yaml").has_value());
}

}  // namespace
}  // namespace trimtab::sim::flink
