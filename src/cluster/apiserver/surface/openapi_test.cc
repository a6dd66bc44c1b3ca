#include "cluster/apiserver/surface/openapi.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_types.h"
#include "cluster/apiserver/surface/crd.h"

namespace trimtab::cluster {
namespace {

class OpenApiTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterBuiltinTypes(registry_); }

  Json Get(std::string_view path) {
    auto r = ServeOpenApi(registry_, path);
    EXPECT_TRUE(r.has_value()) << path;
    if (!r) return Json();
    EXPECT_EQ(r->first, "application/json");
    return Json::parse(r->second);
  }

  // What kubectl's query-param verifier does: a PATCH operation for the GVK with an in:query
  // fieldValidation parameter.
  static bool SupportsFieldValidation(const Json& doc, const Json& gvk) {
    for (const auto& [path, item] : doc["paths"].items()) {
      if (!item.contains("patch")) continue;
      const Json& op = item["patch"];
      if (op.value("x-kubernetes-group-version-kind", Json()) != gvk) continue;
      for (const Json& p : op["parameters"]) {
        if (p["name"] == "fieldValidation" && p["in"] == "query") return true;
      }
    }
    return false;
  }

  ResourceRegistry registry_;
};

TEST_F(OpenApiTest, IndexListsEveryGroupVersionWithHash) {
  Json index = Get("/openapi/v3?timeout=32s");
  const Json& paths = index["paths"];
  ASSERT_TRUE(paths.contains("api/v1"));
  ASSERT_TRUE(paths.contains("apis/apps/v1"));
  ASSERT_TRUE(paths.contains("apis/autoscaling/v2"));
  ASSERT_TRUE(paths.contains("apis/apiextensions.k8s.io/v1"));
  const std::string url = paths["apis/apps/v1"]["serverRelativeURL"];
  EXPECT_EQ(url.rfind("/openapi/v3/apis/apps/v1?hash=", 0), 0u) << url;
  EXPECT_EQ(url.size(), std::string("/openapi/v3/apis/apps/v1?hash=").size() + 32);
  // The hash is stable while nothing changes.
  EXPECT_EQ(Get("/openapi/v3")["paths"]["apis/apps/v1"]["serverRelativeURL"], url);
}

TEST_F(OpenApiTest, DeploymentDocumentEnablesServerSideFieldValidation) {
  Json doc = Get("/openapi/v3/apis/apps/v1?hash=ABC&timeout=32s");
  EXPECT_EQ(doc["openapi"], "3.0.0");
  const Json gvk = {{"group", "apps"}, {"version", "v1"}, {"kind", "Deployment"}};
  EXPECT_TRUE(SupportsFieldValidation(doc, gvk));
  const Json& item = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"];
  ASSERT_TRUE(item.contains("patch"));
  ASSERT_TRUE(item.contains("put"));
  const Json& content = item["patch"]["requestBody"]["content"];
  EXPECT_TRUE(content.contains("application/merge-patch+json"));
  EXPECT_TRUE(content.contains("application/apply-patch+yaml"));
  EXPECT_FALSE(content.contains("application/strategic-merge-patch+json"));
  const Json& post = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments"]["post"];
  EXPECT_EQ(post["x-kubernetes-group-version-kind"], gvk);
  EXPECT_EQ(post["operationId"], "createAppsV1NamespacedDeployment");
  const Json& scale =
      doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["patch"];
  EXPECT_EQ(scale["x-kubernetes-group-version-kind"]["kind"], "Scale");
  EXPECT_TRUE(doc["paths"].contains("/apis/apps/v1/deployments"));

  const Json& schemas = doc["components"]["schemas"];
  const Json& deploy = schemas["io.k8s.api.apps.v1.Deployment"];
  EXPECT_EQ(deploy["x-kubernetes-group-version-kind"], Json::array({gvk}));
  EXPECT_EQ(deploy["properties"]["metadata"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_TRUE(schemas.contains("io.k8s.api.apps.v1.DeploymentList"));
  EXPECT_TRUE(schemas.contains("io.k8s.api.autoscaling.v1.Scale"));
  EXPECT_TRUE(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
}

TEST_F(OpenApiTest, CoreDocumentCoversClusterScopedAndLogPaths) {
  Json doc = Get("/openapi/v3/api/v1");
  EXPECT_TRUE(SupportsFieldValidation(doc, {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}));
  EXPECT_TRUE(
      SupportsFieldValidation(doc, {{"group", ""}, {"version", "v1"}, {"kind", "Namespace"}}));
  EXPECT_TRUE(doc["paths"].contains("/api/v1/namespaces/{name}"));
  EXPECT_TRUE(doc["paths"].contains("/api/v1/namespaces/{namespace}/pods/{name}/log"));
  EXPECT_TRUE(doc["components"]["schemas"].contains("io.k8s.api.core.v1.ConfigMap"));
  EXPECT_FALSE(ServeOpenApi(registry_, "/openapi/v3/apis/nope.example.com/v1").has_value());
  EXPECT_FALSE(ServeOpenApi(registry_, "/openapi/v2").has_value());
}

// The protobuf form is checked over HTTP, decoded with ProtoReader: apiserver_test.cc,
// ServesOpenApiV2AsKubectlAsksForIt.
TEST(OpenApiV2Test, JsonDocumentOtherwise) {
  auto [type, body] = ServeOpenApiV2("application/json", "v1.32.0");
  EXPECT_EQ(type, "application/json");
  Json doc = Json::parse(body);
  EXPECT_EQ(doc["swagger"], "2.0");
  EXPECT_EQ(doc["info"]["version"], "v1.32.0");
  EXPECT_EQ(doc["definitions"], Json::object());
  EXPECT_EQ(doc["paths"], Json::object());
}

TEST_F(OpenApiTest, CrdDocumentAppearsWithReversedGroupName) {
  Json crd = Json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
      "names": {"plural": "widgets", "kind": "Widget"},
      "versions": [{"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
          "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}}}]}})");
  auto types = ResourceTypesFromCrd(crd);
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  const std::string before = Get("/openapi/v3").dump();
  registry_.Put((*types)[0]);
  Json index = Get("/openapi/v3");
  EXPECT_NE(index.dump(), before);
  ASSERT_TRUE(index["paths"].contains("apis/example.com/v1"));
  Json doc = Get("/openapi/v3/apis/example.com/v1");
  const Json gvk = {{"group", "example.com"}, {"version", "v1"}, {"kind", "Widget"}};
  EXPECT_TRUE(SupportsFieldValidation(doc, gvk));
  const Json& schema = doc["components"]["schemas"]["com.example.v1.Widget"];
  EXPECT_EQ(schema["x-kubernetes-group-version-kind"][0], gvk);
  EXPECT_EQ(schema["properties"]["spec"]["properties"]["size"]["type"], "integer");
  EXPECT_TRUE(doc["components"]["schemas"].contains("com.example.v1.WidgetList"));
}

}  // namespace
}  // namespace trimtab::cluster
