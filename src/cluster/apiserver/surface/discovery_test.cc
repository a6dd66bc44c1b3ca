#include "cluster/apiserver/surface/discovery.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_types.h"

namespace trimtab::cluster {
namespace {

using ::testing::ElementsAre;

constexpr const char* kKubectlAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"
    "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

class DiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterBuiltinTypes(registry_); }

  Json Get(std::string_view path, std::string_view accept, std::string* content_type = nullptr) {
    auto r = ServeDiscovery(registry_, path, accept);
    EXPECT_TRUE(r.has_value()) << path;
    if (!r) return Json();
    if (content_type) *content_type = r->first;
    return Json::parse(r->second);
  }

  static const Json* FindResource(const Json& list, const std::string& name) {
    for (const Json& r : list["resources"]) {
      if (r["name"] == name) return &r;
    }
    return nullptr;
  }

  ResourceRegistry registry_;
};

TEST_F(DiscoveryTest, LegacyApiVersions) {
  std::string ct;
  Json doc = Get("/api?timeout=32s", "application/json", &ct);
  EXPECT_EQ(ct, "application/json");
  EXPECT_EQ(doc["kind"], "APIVersions");
  EXPECT_EQ(doc["versions"], Json::array({"v1"}));
  EXPECT_EQ(doc["serverAddressByClientCIDRs"][0]["clientCIDR"], "0.0.0.0/0");
}

TEST_F(DiscoveryTest, CoreResourceListHasSubresources) {
  Json doc = Get("/api/v1", "application/json");
  EXPECT_EQ(doc["kind"], "APIResourceList");
  EXPECT_EQ(doc["groupVersion"], "v1");
  const Json* pods = FindResource(doc, "pods");
  ASSERT_NE(pods, nullptr);
  EXPECT_EQ((*pods)["singularName"], "pod");
  EXPECT_EQ((*pods)["namespaced"], true);
  EXPECT_EQ((*pods)["kind"], "Pod");
  EXPECT_EQ((*pods)["shortNames"], Json::array({"po"}));
  EXPECT_EQ((*pods)["categories"], Json::array({"all"}));
  EXPECT_EQ((*pods)["verbs"], Json::array({"create", "delete", "deletecollection", "get", "list",
                                           "patch", "update", "watch"}));
  const Json* log = FindResource(doc, "pods/log");
  ASSERT_NE(log, nullptr);
  EXPECT_EQ((*log)["verbs"], Json::array({"get"}));
  EXPECT_EQ((*log)["singularName"], "");
  ASSERT_NE(FindResource(doc, "pods/status"), nullptr);
  ASSERT_NE(FindResource(doc, "namespaces/finalize"), nullptr);
  EXPECT_EQ((*FindResource(doc, "namespaces"))["namespaced"], false);
  EXPECT_EQ((*FindResource(doc, "configmaps"))["shortNames"], Json::array({"cm"}));
}

TEST_F(DiscoveryTest, AppsResourceListHasScaleFromAutoscaling) {
  Json doc = Get("/apis/apps/v1", "application/json");
  EXPECT_EQ(doc["groupVersion"], "apps/v1");
  const Json* scale = FindResource(doc, "deployments/scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ((*scale)["group"], "autoscaling");
  EXPECT_EQ((*scale)["version"], "v1");
  EXPECT_EQ((*scale)["kind"], "Scale");
  EXPECT_EQ((*scale)["verbs"], Json::array({"get", "patch", "update"}));
}

TEST_F(DiscoveryTest, LegacyGroupListInApiserverOrder) {
  Json doc = Get("/apis", "application/json, */*");
  EXPECT_EQ(doc["kind"], "APIGroupList");
  std::vector<std::string> names;
  for (const Json& g : doc["groups"]) names.push_back(g["name"]);
  EXPECT_THAT(names, ElementsAre("apps", "events.k8s.io", "authentication.k8s.io",
                                 "authorization.k8s.io", "autoscaling", "batch",
                                 "networking.k8s.io", "policy", "rbac.authorization.k8s.io",
                                 "storage.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
                                 "coordination.k8s.io", "discovery.k8s.io"));
  EXPECT_EQ(doc["groups"][0]["preferredVersion"]["groupVersion"], "apps/v1");
  Json group = Get("/apis/apps", "application/json");
  EXPECT_EQ(group["kind"], "APIGroup");
  EXPECT_EQ(group["versions"][0]["version"], "v1");
}

TEST_F(DiscoveryTest, AggregatedWhenKubectlAsksForIt) {
  std::string ct;
  Json doc = Get("/apis", kKubectlAccept, &ct);
  EXPECT_EQ(ct, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  EXPECT_EQ(doc["kind"], "APIGroupDiscoveryList");
  EXPECT_EQ(doc["apiVersion"], "apidiscovery.k8s.io/v2");
  const Json& apps = doc["items"][0];
  EXPECT_EQ(apps["metadata"]["name"], "apps");
  const Json& version = apps["versions"][0];
  EXPECT_EQ(version["version"], "v1");
  EXPECT_EQ(version["freshness"], "Current");
  // Resources sorted by name: daemonsets, deployments, replicasets, statefulsets.
  const Json& deploy = version["resources"][1];
  EXPECT_EQ(deploy["resource"], "deployments");
  EXPECT_EQ(deploy["responseKind"], Json({{"group", ""}, {"version", ""}, {"kind", "Deployment"}}));
  EXPECT_EQ(deploy["scope"], "Namespaced");
  EXPECT_EQ(deploy["singularResource"], "deployment");
  EXPECT_EQ(deploy["subresources"][0]["subresource"], "scale");
  EXPECT_EQ(deploy["subresources"][0]["responseKind"]["group"], "autoscaling");
  EXPECT_EQ(deploy["subresources"][1]["subresource"], "status");

  Json core = Get("/api", kKubectlAccept, &ct);
  ASSERT_EQ(core["items"].size(), 1u);
  EXPECT_EQ(core["items"][0]["metadata"]["name"], "");
}

TEST_F(DiscoveryTest, AggregatedV2Beta1AndPlainJsonFirst) {
  std::string ct;
  Get("/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", &ct);
  EXPECT_EQ(ct, "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
  Json doc = Get("/apis",
                 "application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
                 &ct);
  EXPECT_EQ(ct, "application/json");
  EXPECT_EQ(doc["kind"], "APIGroupList");
}

TEST_F(DiscoveryTest, NewTypesAppearImmediatelyAndUnknownPathsAreNotDiscovery) {
  EXPECT_FALSE(ServeDiscovery(registry_, "/apis/flink.apache.org/v1beta1", "").has_value());
  ResourceType t;
  t.group = "flink.apache.org";
  t.version = "v1beta1";
  t.kind = "FlinkDeployment";
  t.list_kind = "FlinkDeploymentList";
  t.plural = "flinkdeployments";
  t.singular = "flinkdeployment";
  t.short_names = {"flinkdep"};
  t.is_crd = true;
  t.status_subresource = true;
  registry_.Put(t);
  Json doc = Get("/apis/flink.apache.org/v1beta1", "application/json");
  EXPECT_EQ(doc["resources"][0]["name"], "flinkdeployments");
  EXPECT_EQ(doc["resources"][1]["name"], "flinkdeployments/status");
  Json groups = Get("/apis", "application/json");
  EXPECT_EQ(groups["groups"].back()["name"], "flink.apache.org");
  EXPECT_FALSE(ServeDiscovery(registry_, "/api/v1/pods", "").has_value());
  EXPECT_FALSE(ServeDiscovery(registry_, "/apis/apps/v1/deployments", "").has_value());
  EXPECT_FALSE(ServeDiscovery(registry_, "/healthz", "").has_value());
}

TEST(KubeVersionLess, SortsLikeKubernetes) {
  std::vector<std::string> v = {"v1alpha1", "foo", "v1", "v2beta1", "v1beta2", "v2", "v1beta1",
                                "v10", "bar"};
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    return KubeVersionLess(a, b);
  });
  EXPECT_THAT(v, ElementsAre("v10", "v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1", "bar",
                             "foo"));
}

}  // namespace
}  // namespace trimtab::cluster
