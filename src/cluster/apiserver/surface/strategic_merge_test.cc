#include "cluster/apiserver/surface/strategic_merge.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_types.h"

namespace trimtab::cluster {
namespace {

ResourceType Deployment() {
  for (const ResourceType& t : BuiltinTypes()) {
    if (t.kind == "Deployment") return t;
  }
  return {};
}

Json Patch(const std::string& original, const std::string& patch) {
  StatusOr<Json> out = StrategicMergePatch(Deployment(), Json::parse(original), Json::parse(patch));
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.value_or(Json());
}

constexpr const char* kDeploy = R"({
  "metadata": {"name": "web", "labels": {"app": "web", "tier": "fe"}, "finalizers": ["a", "b"]},
  "spec": {"replicas": 1, "template": {"spec": {"containers": [
    {"name": "nginx", "image": "nginx:1.25", "args": ["-v"],
     "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
     "ports": [{"containerPort": 80}]},
    {"name": "sidecar", "image": "busybox"}]}}}})";

TEST(StrategicMergePatch, MapsMergeAndNullDeletes) {
  Json out = Patch(kDeploy, R"({"metadata":{"labels":{"tier":null,"env":"prod"}},"spec":{"replicas":3}})");
  EXPECT_EQ(out["metadata"]["labels"], Json::parse(R"({"app":"web","env":"prod"})"));
  EXPECT_EQ(out["spec"]["replicas"], 3);
  EXPECT_EQ(out["spec"]["template"]["spec"]["containers"].size(), 2u);
}

TEST(StrategicMergePatch, ContainersMergeByNameAndNestedListsByTheirKeys) {
  Json out = Patch(kDeploy, R"({"spec":{"template":{"spec":{"containers":[
    {"name":"nginx","image":"nginx:1.27","env":[{"name":"B","value":"3"},{"name":"C","value":"4"}],
     "args":["-q"]},
    {"name":"new","image":"redis"}]}}}})");
  const Json& c = out["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0]["name"], "nginx");
  EXPECT_EQ(c[0]["image"], "nginx:1.27");
  EXPECT_EQ(c[0]["args"], Json::parse(R"(["-q"])"));  // no merge key: replaced
  EXPECT_EQ(c[0]["env"], Json::parse(R"([{"name":"A","value":"1"},{"name":"B","value":"3"},
                                         {"name":"C","value":"4"}])"));
  EXPECT_EQ(c[0]["ports"], Json::parse(R"([{"containerPort":80}])"));
  EXPECT_EQ(c[1]["name"], "sidecar");
  EXPECT_EQ(c[2], Json::parse(R"({"name":"new","image":"redis"})"));
}

TEST(StrategicMergePatch, SetElementOrderAsKubectlApplySendsIt) {
  Json out = Patch(kDeploy, R"({"spec":{"template":{"spec":{
    "$setElementOrder/containers":[{"name":"sidecar"},{"name":"nginx"}],
    "containers":[{"name":"nginx","image":"nginx:1.27"}]}}}})");
  const Json& c = out["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0]["name"], "sidecar");
  EXPECT_EQ(c[1]["name"], "nginx");
  EXPECT_EQ(c[1]["image"], "nginx:1.27");
  EXPECT_FALSE(out["spec"]["template"]["spec"].contains("$setElementOrder/containers"));

  Json env = Patch(kDeploy, R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx",
    "$setElementOrder/env":[{"name":"B"},{"name":"A"}]}]}}}})");
  EXPECT_EQ(env["spec"]["template"]["spec"]["containers"][0]["env"][0]["name"], "B");
}

TEST(StrategicMergePatch, PatchDeleteAndReplaceDirectives) {
  Json out = Patch(kDeploy, R"({"spec":{"template":{"spec":{"containers":[
    {"name":"sidecar","$patch":"delete"}]}}}})");
  ASSERT_EQ(out["spec"]["template"]["spec"]["containers"].size(), 1u);
  EXPECT_EQ(out["spec"]["template"]["spec"]["containers"][0]["name"], "nginx");

  out = Patch(kDeploy, R"({"spec":{"template":{"spec":{"containers":[
    {"name":"only","image":"x"},{"$patch":"replace"}]}}}})");
  EXPECT_EQ(out["spec"]["template"]["spec"]["containers"],
            Json::parse(R"([{"name":"only","image":"x"}])"));

  out = Patch(kDeploy, R"({"metadata":{"labels":{"$patch":"replace","fresh":"yes"}}})");
  EXPECT_EQ(out["metadata"]["labels"], Json::parse(R"({"fresh":"yes"})"));

  out = Patch(kDeploy, R"({"metadata":{"labels":{"$patch":"delete"}}})");
  EXPECT_FALSE(out["metadata"].contains("labels"));
}

TEST(StrategicMergePatch, PrimitiveSetsAndDeleteFromPrimitiveList) {
  Json out = Patch(kDeploy, R"({"metadata":{"finalizers":["c","a"]}})");
  EXPECT_EQ(out["metadata"]["finalizers"], Json::parse(R"(["a","b","c"])"));
  out = Patch(kDeploy, R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})");
  EXPECT_EQ(out["metadata"]["finalizers"], Json::parse(R"(["b"])"));
  out = Patch(kDeploy, R"({"metadata":{"$setElementOrder/finalizers":["b","a"]}})");
  EXPECT_EQ(out["metadata"]["finalizers"], Json::parse(R"(["b","a"])"));
}

TEST(StrategicMergePatch, RetainKeysClearsUnlistedFields) {
  Json original = Json::parse(R"({"spec":{"strategy":{"type":"RollingUpdate",
    "rollingUpdate":{"maxSurge":1}}}})");
  StatusOr<Json> out = StrategicMergePatch(
      Deployment(), original,
      Json::parse(R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})"));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)["spec"]["strategy"], Json::parse(R"({"type":"Recreate"})"));
}

TEST(StrategicMergePatch, MalformedPatchesAreRejected) {
  const ResourceType t = Deployment();
  Json orig = Json::parse(kDeploy);
  EXPECT_FALSE(StrategicMergePatch(t, orig, Json::parse("[1]")).ok());
  StatusOr<Json> r = StrategicMergePatch(
      t, orig, Json::parse(R"({"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}})"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "map: {\"image\":\"x\"} does not contain declared merge key: name");
  EXPECT_FALSE(StrategicMergePatch(t, orig, Json::parse(R"({"metadata":{"$patch":"bogus"}})")).ok());
}

}  // namespace
}  // namespace trimtab::cluster
