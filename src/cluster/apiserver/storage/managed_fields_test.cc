// managedFields and server-side apply (managed_fields.h): the pure field-set functions, then
// over HTTP what kubectl apply --server-side, --force-conflicts and --show-managed-fields meet.
#include "cluster/apiserver/storage/managed_fields.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/apiserver_test_util.h"
#include "cluster/apiserver/surface/crd.h"

namespace trimtab::cluster::testing {
namespace {

constexpr char kApply[] = "application/apply-patch+yaml";

ResourceType DeploymentType() {
  ResourceType t;
  t.group = "apps";
  t.version = "v1";
  t.kind = "Deployment";
  t.plural = "deployments";
  t.status_subresource = true;
  t.merge_keys["spec.template.spec.containers"] = "name";
  t.merge_keys["spec.template.spec.containers[].ports"] = "containerPort";
  t.merge_keys["metadata.finalizers"] = "";
  return t;
}

Json Deployment(const std::string& image, Json replicas = 2) {
  Json d = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", "web"}, {"labels", {{"app", "web"}}}}},
            {"spec",
             {{"selector", {{"matchLabels", {{"app", "web"}}}}},
              {"template",
               {{"metadata", {{"labels", {{"app", "web"}}}}},
                {"spec",
                 {{"containers",
                   Json::array({{{"name", "web"},
                                 {"image", image},
                                 {"ports", Json::array({{{"containerPort", 8080}}})}}})}}}}}}}};
  if (!replicas.is_null()) d["spec"]["replicas"] = replicas;
  return d;
}

TEST(ManagedFieldsTest, FieldSetsPathsAndFieldsV1) {
  const ResourceType type = DeploymentType();
  Json d = Deployment("nginx:1");
  d["metadata"]["finalizers"] = {"example.com/x"};
  d["status"] = {{"replicas", 1}};
  FieldSet set = ManagedFieldSet(type, d, "");
  const FieldPath image =
      "f:spec\nf:template\nf:spec\nf:containers\nk:{\"name\":\"web\"}\nf:image";
  EXPECT_TRUE(set.count(image));
  EXPECT_TRUE(set.count("f:spec\nf:template\nf:spec\nf:containers\nk:{\"name\":\"web\"}"));
  EXPECT_TRUE(set.count("f:spec\nf:template\nf:spec\nf:containers\nk:{\"name\":\"web\"}\n"
                        "f:ports\nk:{\"containerPort\":8080,\"protocol\":\"TCP\"}"));
  EXPECT_TRUE(set.count("f:metadata\nf:finalizers\nv:\"example.com/x\""));
  EXPECT_TRUE(set.count("f:spec\nf:selector"));  // atomic
  EXPECT_FALSE(set.count("f:spec\nf:selector\nf:matchLabels\nf:app"));
  EXPECT_FALSE(set.count("f:metadata\nf:name"));      // not managed
  EXPECT_FALSE(set.count("f:status\nf:replicas"));    // status has its own subresource
  EXPECT_TRUE(ManagedFieldSet(type, d, "status").count("f:status\nf:replicas"));
  EXPECT_EQ(PathString(image), ".spec.template.spec.containers[name=\"web\"].image");
  EXPECT_EQ(PathString("f:metadata\nf:finalizers\nv:\"example.com/x\""),
            ".metadata.finalizers[=\"example.com/x\"]");
  Json v1 = ToFieldsV1(set);
  EXPECT_TRUE(v1["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"web\"}"]
                  .contains("."));
  EXPECT_FALSE(v1["f:spec"].contains("."));
  EXPECT_EQ(FromFieldsV1(v1), set);
}

TEST(ManagedFieldsTest, UpdatesTakeWhatTheyChange) {
  const ResourceType type = DeploymentType();
  Json created = Deployment("nginx:1");
  TrackUpdate(type, nullptr, &created, {.manager = "alice", .time = "t1"});
  ASSERT_EQ(created["metadata"]["managedFields"].size(), 1u);
  EXPECT_EQ(created["metadata"]["managedFields"][0]["operation"], "Update");
  Json next = created;
  next["spec"]["replicas"] = 5;
  TrackUpdate(type, &created, &next, {.manager = "bob", .subresource = "scale", .time = "t2"});
  const Json& entries = next["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_FALSE(entries[0]["fieldsV1"]["f:spec"].contains("f:replicas"));
  EXPECT_EQ(entries[1]["manager"], "bob");
  EXPECT_EQ(entries[1]["subresource"], "scale");
  EXPECT_EQ(entries[1]["fieldsV1"], Json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  // Nothing changed: nothing recorded.
  Json same = next;
  TrackUpdate(type, &next, &same, {.manager = "carol", .time = "t3"});
  EXPECT_EQ(same["metadata"]["managedFields"], entries);
  // [{}] clears them.
  Json reset = next;
  TrackUpdate(type, &next, &reset, {.manager = "carol", .time = "t3"}, Json::parse("[{}]"));
  EXPECT_FALSE(reset["metadata"].contains("managedFields"));
}

// As structured-merge-diff records an Update: every map, struct and list the update added is a
// member ("."), except metadata and the struct fields every built-in object carries (spec,
// a Deployment's strategy and template, ...); a custom resource's spec is new like any map.
TEST(ManagedFieldsTest, UpdatesOwnTheNodesTheyAdd) {
  const ResourceType type = DeploymentType();
  Json created = Deployment("nginx:1");
  created["spec"]["strategy"] = {{"type", "RollingUpdate"},
                                 {"rollingUpdate", {{"maxSurge", "25%"}}}};
  created["metadata"]["finalizers"] = {"example.com/x"};
  TrackUpdate(type, nullptr, &created, {.manager = "kubectl-create", .time = "t1"});
  const Json f = created["metadata"]["managedFields"][0]["fieldsV1"];
  EXPECT_FALSE(f["f:metadata"].contains("."));
  EXPECT_TRUE(f["f:metadata"]["f:labels"].contains("."));
  EXPECT_TRUE(f["f:metadata"]["f:finalizers"].contains("."));
  EXPECT_FALSE(f["f:spec"].contains("."));
  EXPECT_FALSE(f["f:spec"]["f:strategy"].contains("."));
  EXPECT_TRUE(f["f:spec"]["f:strategy"]["f:rollingUpdate"].contains("."));
  EXPECT_FALSE(f["f:spec"]["f:template"].contains("."));
  EXPECT_FALSE(f["f:spec"]["f:template"]["f:spec"].contains("."));
  EXPECT_TRUE(f["f:spec"]["f:template"]["f:metadata"]["f:labels"].contains("."));
  const Json& containers = f["f:spec"]["f:template"]["f:spec"]["f:containers"];
  EXPECT_TRUE(containers.contains("."));
  EXPECT_TRUE(containers["k:{\"name\":\"web\"}"].contains("."));
  EXPECT_TRUE(containers["k:{\"name\":\"web\"}"]["f:ports"].contains("."));
  EXPECT_EQ(f["f:spec"]["f:selector"], Json::object());  // atomic: a leaf

  // Another manager adds annotations: a "." of its own; removing the labels map entirely takes
  // it (and its ".") from its owner.
  Json next = created;
  next["metadata"]["annotations"] = {{"note", "x"}};
  next["metadata"].erase("labels");
  TrackUpdate(type, &created, &next, {.manager = "kubectl-annotate", .time = "t2"});
  const Json& entries = next["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_FALSE(entries[0]["fieldsV1"]["f:metadata"].contains("f:labels")) << entries.dump();
  EXPECT_EQ(entries[1]["fieldsV1"],
            Json::parse(R"({"f:metadata":{"f:annotations":{".":{},"f:note":{}}}})"));

  ResourceType cr;
  cr.group = "flink.apache.org";
  cr.version = "v1beta1";
  cr.kind = "FlinkDeployment";
  cr.is_crd = true;
  cr.status_subresource = true;
  Json fd = {{"apiVersion", "flink.apache.org/v1beta1"},
             {"kind", "FlinkDeployment"},
             {"metadata", {{"name", "x"}}},
             {"spec", {{"image", "flink:1.20"}, {"job", {{"parallelism", 2}}}}}};
  TrackUpdate(cr, nullptr, &fd, {.manager = "kubectl-client-side-apply", .time = "t1"});
  EXPECT_EQ(fd["metadata"]["managedFields"][0]["fieldsV1"],
            Json::parse(R"({"f:spec":{".":{},"f:image":{},"f:job":{".":{},"f:parallelism":{}}}})"));
}

// x-kubernetes-list-type map / set in a CRD's schema: its lists merge by key under server-side
// apply and are tracked item by item; lists without a list type stay atomic.
TEST(ManagedFieldsTest, CustomResourceListTypesComeFromTheSchema) {
  Json crd = Json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
      "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
      "versions": [{"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
          "spec": {"type": "object", "properties": {
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["port", "protocol"],
                      "items": {"type": "object", "properties": {
                        "port": {"type": "integer"}, "protocol": {"type": "string"},
                        "name": {"type": "string"}}}},
            "tags": {"type": "array", "x-kubernetes-list-type": "set",
                     "items": {"type": "string"}},
            "args": {"type": "array", "items": {"type": "string"}}}}}}}}]}})");
  StatusOr<std::vector<ResourceType>> types = ResourceTypesFromCrd(crd);
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  const ResourceType& type = (*types)[0];
  Json w = {{"apiVersion", "example.com/v1"},
            {"kind", "Widget"},
            {"metadata", {{"name", "w"}}},
            {"spec",
             {{"ports", Json::array({{{"port", 80}, {"protocol", "TCP"}, {"name", "http"}}})},
              {"tags", {"a"}},
              {"args", {"x"}}}}};
  FieldSet set = ManagedFieldSet(type, w, "");
  EXPECT_TRUE(set.count("f:spec\nf:ports\nk:{\"port\":80,\"protocol\":\"TCP\"}\nf:name"));
  EXPECT_TRUE(set.count("f:spec\nf:tags\nv:\"a\""));
  EXPECT_TRUE(set.count("f:spec\nf:args"));  // atomic
  // A second applier adds a port and a tag: merged by key, nobody conflicts.
  Json mine = w;
  ApiResult<Json> first = ServerSideApply(type, nullptr, mine, {.manager = "a", .time = "t"}, false);
  ASSERT_TRUE(first.ok());
  Json theirs = {{"apiVersion", "example.com/v1"},
                 {"kind", "Widget"},
                 {"metadata", {{"name", "w"}}},
                 {"spec",
                  {{"ports", Json::array({{{"port", 443}, {"protocol", "TCP"}}})},
                   {"tags", {"b"}}}}};
  ApiResult<Json> second = ServerSideApply(type, &*first, theirs, {.manager = "b", .time = "t"}, false);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ((*second)["spec"]["ports"].size(), 2u) << second->dump();
  EXPECT_EQ((*second)["spec"]["tags"], Json({"a", "b"}));
  EXPECT_EQ((*second)["spec"]["args"], Json({"x"}));
}

class ServerSideApplyTest : public ApiServerTest {
 protected:
  static constexpr char kPath[] = "/apis/apps/v1/namespaces/default/deployments/web";

  Reply Apply(const Json& body, const std::string& manager, bool force = false) {
    return Call("PATCH", std::string(kPath) + "?fieldManager=" + manager +
                             (force ? "&force=true" : ""),
                body.dump(), kApply);
  }
  static Json Entry(const Json& object, const std::string& manager) {
    for (const Json& e : object["metadata"].value("managedFields", Json::array())) {
      if (e["manager"] == manager) return e;
    }
    return nullptr;
  }
};

TEST_F(ServerSideApplyTest, ConflictsForceAndGivingUpFields) {
  Reply created = Apply(Deployment("nginx:1"), "alice");
  ASSERT_EQ(created.status, 201) << created.raw;
  Json alice = Entry(created.body, "alice");
  ASSERT_TRUE(alice.is_object()) << created.raw;
  EXPECT_EQ(alice["operation"], "Apply");
  EXPECT_EQ(alice["apiVersion"], "apps/v1");
  EXPECT_EQ(alice["fieldsType"], "FieldsV1");
  EXPECT_TRUE(alice["fieldsV1"]["f:spec"].contains("f:replicas"));
  // Defaults are nobody's.
  EXPECT_FALSE(alice["fieldsV1"]["f:spec"].contains("f:strategy"));

  // Another applier changing alice's image and replicas: 409 with both paths.
  Reply conflict = Apply(Deployment("nginx:2", 3), "bob");
  ASSERT_EQ(conflict.status, 409) << conflict.raw;
  EXPECT_EQ(conflict.body["reason"], "Conflict");
  EXPECT_EQ(conflict.body["message"],
            "Apply failed with 2 conflicts: conflicts with \"alice\":\n"
            "- .spec.replicas\n"
            "- .spec.template.spec.containers[name=\"web\"].image");
  EXPECT_EQ(conflict.body["details"]["causes"][0]["type"], "FieldManagerConflict");
  EXPECT_EQ(conflict.body["details"]["causes"][0]["field"], ".spec.replicas");
  // The same values are no conflict: bob shares them.
  Reply shared = Apply(Deployment("nginx:1"), "bob");
  ASSERT_EQ(shared.status, 200) << shared.raw;
  // Forced: bob takes the image, alice keeps what she still shares.
  Reply forced = Apply(Deployment("nginx:2"), "bob", /*force=*/true);
  ASSERT_EQ(forced.status, 200) << forced.raw;
  EXPECT_EQ(forced.body["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:2");
  const Json alice_fields = Entry(forced.body, "alice")["fieldsV1"];
  EXPECT_FALSE(alice_fields["f:spec"]["f:template"]["f:spec"]["f:containers"]
                           ["k:{\"name\":\"web\"}"].contains("f:image"));

  // A field an updater changes through /scale conflicts with the next apply, naming it.
  Reply scaled = Call("PATCH", std::string(kPath) + "/scale?fieldManager=hpa",
                      Json{{"spec", {{"replicas", 7}}}}, "application/merge-patch+json");
  ASSERT_EQ(scaled.status, 200) << scaled.raw;
  Reply after_scale = Apply(Deployment("nginx:2"), "bob");
  ASSERT_EQ(after_scale.status, 409) << after_scale.raw;
  EXPECT_EQ(after_scale.body["message"],
            "Apply failed with 1 conflict: conflict with \"hpa\" with subresource \"scale\" "
            "using apps/v1: .spec.replicas");
  // Leaving replicas out of both configurations gives it up to the scaler.
  Json without = Deployment("nginx:2", nullptr);
  ASSERT_EQ(Apply(without, "bob").status, 200);
  Reply alice_without = Apply(without, "alice", /*force=*/true);
  ASSERT_EQ(alice_without.status, 200) << alice_without.raw;
  EXPECT_EQ(alice_without.body["spec"]["replicas"], 7);

  // A label only bob applied goes when bob's configuration drops it.
  Json labelled = without;
  labelled["metadata"]["labels"]["team"] = "b";
  ASSERT_EQ(Apply(labelled, "bob").status, 200);
  EXPECT_EQ(Get(kPath).body["metadata"]["labels"]["team"], "b");
  Reply dropped = Apply(without, "bob");
  ASSERT_EQ(dropped.status, 200) << dropped.raw;
  EXPECT_FALSE(dropped.body["metadata"]["labels"].contains("team")) << dropped.raw;
  EXPECT_EQ(dropped.body["metadata"]["labels"]["app"], "web");  // alice still applies it
}

// An apply to /status is an Apply with subresource "status" that owns status fields only and
// leaves the rest of the object alone.
TEST_F(ServerSideApplyTest, ApplyToTheStatusSubresourceIsAnApply) {
  ASSERT_EQ(Apply(Deployment("nginx:1"), "kubectl").status, 201);
  Json status = {{"apiVersion", "apps/v1"},
                 {"kind", "Deployment"},
                 {"metadata", {{"name", "web"}}},
                 {"spec", {{"replicas", 9}}},
                 {"status", {{"observedGeneration", 1}, {"replicas", 2}}}};
  Reply applied = Call("PATCH", std::string(kPath) + "/status?fieldManager=my-controller",
                       status.dump(), kApply);
  ASSERT_EQ(applied.status, 200) << applied.raw;
  EXPECT_EQ(applied.body["status"]["replicas"], 2);
  EXPECT_EQ(applied.body["spec"]["replicas"], 2);  // not the status' business
  Json e = Entry(applied.body, "my-controller");
  ASSERT_TRUE(e.is_object()) << applied.raw;
  EXPECT_EQ(e["operation"], "Apply");
  EXPECT_EQ(e["subresource"], "status");
  EXPECT_EQ(e["fieldsV1"],
            Json::parse(R"({"f:status":{"f:observedGeneration":{},"f:replicas":{}}})"));
  EXPECT_TRUE(Entry(applied.body, "kubectl").is_object());
  // Another status applier changing a field my-controller owns conflicts, naming the subresource.
  status["status"]["replicas"] = 3;
  Reply conflict = Call("PATCH", std::string(kPath) + "/status?fieldManager=other",
                        status.dump(), kApply);
  ASSERT_EQ(conflict.status, 409) << conflict.raw;
  EXPECT_EQ(conflict.body["message"],
            "Apply failed with 1 conflict: conflict with \"my-controller\" with subresource "
            "\"status\": .status.replicas");
}

TEST_F(ServerSideApplyTest, TheAppliersOwnUpdateIsAnotherManager) {
  ASSERT_EQ(Apply(Deployment("nginx:1"), "kubectl").status, 201);
  // `kubectl scale` writes through /scale as "kubectl" (its User-Agent).
  Reply scaled = Call("PATCH", std::string(kPath) + "/scale",
                      Json{{"spec", {{"replicas", 4}}}}, "application/merge-patch+json",
                      {"User-Agent: kubectl/v1.32.4 (linux/amd64) kubernetes/abc"});
  ASSERT_EQ(scaled.status, 200) << scaled.raw;
  Reply conflict = Apply(Deployment("nginx:1"), "kubectl");
  ASSERT_EQ(conflict.status, 409) << conflict.raw;
  EXPECT_EQ(conflict.body["message"],
            "Apply failed with 1 conflict: conflict with \"kubectl\" with subresource \"scale\" "
            "using apps/v1: .spec.replicas");
}

TEST_F(ServerSideApplyTest, EveryWriteIsRecorded) {
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "c"}}},
             {"data", {{"a", "1"}}}};
  Reply created = Call("POST", "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create",
                       cm);
  ASSERT_EQ(created.status, 201) << created.raw;
  ASSERT_EQ(created.body["metadata"]["managedFields"].size(), 1u);
  EXPECT_EQ(created.body["metadata"]["managedFields"][0]["manager"], "kubectl-create");
  EXPECT_EQ(created.body["metadata"]["managedFields"][0]["fieldsV1"],
            Json::parse(R"({"f:data":{".":{},"f:a":{}}})"));
  // Without fieldManager the User-Agent names the manager; an unchanged update writes nothing.
  Json body = created.body;
  Reply same = Call("PUT", "/api/v1/namespaces/default/configmaps/c", body, "application/json",
                    {"User-Agent: kubectl-edit/v1.32.4 (linux/amd64)"});
  ASSERT_EQ(same.status, 200) << same.raw;
  EXPECT_EQ(same.body["metadata"]["resourceVersion"], created.body["metadata"]["resourceVersion"]);
  body["data"]["b"] = "2";
  Reply edited = Call("PUT", "/api/v1/namespaces/default/configmaps/c", body, "application/json",
                      {"User-Agent: kubectl-edit/v1.32.4 (linux/amd64)"});
  ASSERT_EQ(edited.status, 200) << edited.raw;
  Json edit = Entry(edited.body, "kubectl-edit");
  ASSERT_TRUE(edit.is_object()) << edited.raw;
  EXPECT_EQ(edit["fieldsV1"], Json::parse(R"({"f:data":{"f:b":{}}})"));
  // Status writes are recorded with their subresource.
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}};
  ASSERT_EQ(Post("/api/v1/namespaces/default/pods?fieldManager=me", pod).status, 201);
  Reply status = Patch("/api/v1/namespaces/default/pods/p/status?fieldManager=kubelet",
                       Json{{"status", {{"phase", "Running"}}}}, "application/merge-patch+json");
  ASSERT_EQ(status.status, 200) << status.raw;
  Json kubelet = Entry(status.body, "kubelet");
  ASSERT_TRUE(kubelet.is_object()) << status.raw;
  EXPECT_EQ(kubelet["subresource"], "status");
  EXPECT_EQ(kubelet["fieldsV1"], Json::parse(R"({"f:status":{"f:phase":{}}})"));
}

}  // namespace
}  // namespace trimtab::cluster::testing
