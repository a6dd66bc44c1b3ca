#include "cluster/apiserver/surface/builtin_types.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/crd.h"
#include "cluster/apiserver/surface/structural_schema.h"

namespace trimtab::cluster {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> ColumnNames(const ResourceType& t) {
  std::vector<std::string> out;
  for (const PrinterColumn& c : t.printer_columns) {
    if (c.priority == 0) out.push_back(c.name);
  }
  return out;
}

TEST(BuiltinTypes, RegistersTheKindsKubectlNeeds) {
  ResourceRegistry registry;
  RegisterBuiltinTypes(registry);
  auto pods = registry.Find("", "v1", "pods");
  ASSERT_TRUE(pods.has_value());
  EXPECT_EQ(pods->kind, "Pod");
  EXPECT_EQ(pods->singular, "pod");
  EXPECT_THAT(pods->short_names, ElementsAre("po"));
  EXPECT_THAT(pods->categories, ElementsAre("all"));
  EXPECT_TRUE(pods->status_subresource);
  EXPECT_THAT(ColumnNames(*pods), ElementsAre("Ready", "Status", "Restarts", "Age"));

  auto deploy = registry.Find("apps", "v1", "deployments");
  ASSERT_TRUE(deploy.has_value());
  EXPECT_THAT(deploy->short_names, ElementsAre("deploy"));
  ASSERT_TRUE(deploy->scale_subresource.has_value());
  EXPECT_EQ(deploy->scale_subresource->spec_replicas_path, ".spec.replicas");
  EXPECT_THAT(ColumnNames(*deploy), ElementsAre("Ready", "Up-to-date", "Available", "Age"));
  EXPECT_EQ(deploy->merge_keys.at("spec.template.spec.containers"), "name");
  EXPECT_EQ(deploy->merge_keys.at("spec.template.spec.containers[].env"), "name");
  EXPECT_EQ(deploy->merge_keys.at("spec.template.spec.containers[].volumeMounts"), "mountPath");
  EXPECT_EQ(deploy->merge_keys.at("metadata.ownerReferences"), "uid");

  auto ns = registry.Find("", "v1", "namespaces");
  ASSERT_TRUE(ns.has_value());
  EXPECT_FALSE(ns->namespaced);
  EXPECT_THAT(ns->short_names, ElementsAre("ns"));

  auto crds = registry.Find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  ASSERT_TRUE(crds.has_value());
  EXPECT_THAT(crds->short_names, ElementsAre("crd", "crds"));
  EXPECT_THAT(ColumnNames(*crds), ElementsAre("Created At"));

  EXPECT_TRUE(registry.Find("events.k8s.io", "v1", "events").has_value());
  EXPECT_TRUE(registry.Find("coordination.k8s.io", "v1", "leases").has_value());
  EXPECT_EQ(registry.Find("scheduling.k8s.io", "v1", "priorityclasses")->singular,
            "priorityclass");
  EXPECT_EQ(registry.Find("autoscaling", "v2", "horizontalpodautoscalers")->short_names[0], "hpa");
  auto rs = registry.Find("apps", "v1", "replicasets");
  ASSERT_TRUE(rs.has_value());
  EXPECT_THAT(ColumnNames(*rs), ElementsAre("Desired", "Current", "Ready", "Age"));
  EXPECT_TRUE(registry.Find("", "v1", "endpoints").has_value());
  EXPECT_TRUE(registry.Find("", "v1", "serviceaccounts").has_value());
  EXPECT_TRUE(registry.Find("discovery.k8s.io", "v1", "endpointslices").has_value());
  // 18 workload and API kinds (HPAs in autoscaling/v2 and v1), 4 RBAC kinds, 6
  // authentication/authorization reviews and the 11 kinds of workload_types.h.
  EXPECT_TRUE(registry.Find("rbac.authorization.k8s.io", "v1", "clusterrolebindings").has_value());
  EXPECT_TRUE(registry.Find("autoscaling", "v1", "horizontalpodautoscalers").has_value());
  EXPECT_TRUE(registry.Find("batch", "v1", "cronjobs").has_value());
  EXPECT_EQ(registry.List().size(), 39u);
}

TEST(BuiltinTypes, EverySchemaIsStructural) {
  for (const ResourceType& t : BuiltinTypes()) {
    // ObjectMeta is the apiserver's own; the CRD rule restricting root metadata to
    // name/generateName does not apply to it, so check it as an ordinary property.
    Json schema = t.schema;
    Json meta = schema["properties"]["metadata"];
    ASSERT_TRUE(meta.is_object()) << t.kind;
    schema["properties"].erase("metadata");
    schema["properties"]["objectMeta"] = meta;
    std::vector<Json> causes;
    CheckStructural(schema, t.kind, &causes);
    EXPECT_TRUE(causes.empty()) << t.kind << ": " << Json(causes).dump();
  }
}

ResourceType Find(const std::string& kind) {
  for (const ResourceType& t : BuiltinTypes()) {
    if (t.kind == kind && t.group != "events.k8s.io") return t;
  }
  return {};
}

TEST(BuiltinTypes, DeploymentManifestValidatesAndTyposAreUnknownFields) {
  Json deploy = Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
      "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
          "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": "1", "memory": 1024}},
          "securityContext": {"runAsUser": 1000}}]}},
      "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
      "replicsa": 3}})");
  std::vector<Json> causes;
  std::vector<std::string> unknown;
  Status s = ValidateAndDefault(Find("Deployment"), &deploy, &causes, &unknown);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_THAT(unknown, ElementsAre("spec.replicsa"));
  EXPECT_FALSE(deploy["spec"].contains("replicsa"));
  EXPECT_EQ(deploy["spec"]["template"]["spec"]["containers"][0]["securityContext"]["runAsUser"],
            1000);
}

TEST(BuiltinTypes, PodWithoutContainerNameIsInvalid) {
  Json pod = Json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
    "spec":{"containers":[{"image":"busybox"}],"restartPolicy":"Sometimes"}})");
  std::vector<Json> causes;
  Status s = ValidateAndDefault(Find("Pod"), &pod, &causes);
  EXPECT_EQ(s.message(),
            "Pod \"p\" is invalid: [spec.containers[0].name: Required value, spec.restartPolicy: "
            "Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", "
            "\"Never\"]");
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0]["reason"], "FieldValueRequired");
  EXPECT_EQ(causes[1]["reason"], "FieldValueNotSupported");
}

}  // namespace
}  // namespace trimtab::cluster
