// Integration tests of the local API server over HTTP: patches, subresources, generation,
// finalizers, garbage collection, namespace deletion and CRDs.
#include "cluster/apiserver/apiserver.h"

#include "cluster/apiserver/apiserver_test_util.h"

namespace trimtab::cluster::testing {
namespace {

using std::chrono::milliseconds;

constexpr char kCms[] = "/api/v1/namespaces/default/configmaps";
constexpr char kDeploys[] = "/apis/apps/v1/namespaces/default/deployments";

Json Deployment(const std::string& name, int replicas) {
  return Json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
                     R"("},"spec":{"replicas":)" + std::to_string(replicas) +
                     R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":
                     {"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx",
                     "image":"nginx:1.27"},{"name":"side","image":"busybox"}]}}}})");
}

Json OwnedConfigMap(const std::string& name, const Json& owner, bool block = false) {
  Json cm = ApiServerTest::ConfigMap(name);
  cm["metadata"]["ownerReferences"] = Json::array(
      {{{"apiVersion", owner["apiVersion"]}, {"kind", owner["kind"]},
        {"name", owner["metadata"]["name"]}, {"uid", owner["metadata"]["uid"]},
        {"blockOwnerDeletion", block}}});
  return cm;
}

TEST_F(ApiServerTest, PatchesOfEveryType) {
  ASSERT_EQ(Post(kCms, ConfigMap("p", {{"a", "1"}}, {{"x", "1"}, {"y", "2"}})).status, 201);
  std::string path = std::string(kCms) + "/p";
  Reply merge = Patch(path, Json{{"data", {{"x", nullptr}, {"z", "3"}}}},
                      "application/merge-patch+json");
  ASSERT_EQ(merge.status, 200) << merge.raw;
  EXPECT_EQ(merge.body["data"], (Json{{"y", "2"}, {"z", "3"}}));

  Reply json = Patch(path, Json::parse(R"([{"op":"replace","path":"/data/y","value":"22"},
                                           {"op":"add","path":"/metadata/labels/b","value":"2"}])"),
                     "application/json-patch+json");
  ASSERT_EQ(json.status, 200) << json.raw;
  EXPECT_EQ(json.body["data"]["y"], "22");
  EXPECT_EQ(json.body["metadata"]["labels"]["b"], "2");

  Reply failed = Patch(path, Json::parse(R"([{"op":"test","path":"/data/y","value":"no"}])"),
                       "application/json-patch+json");
  EXPECT_EQ(failed.status, 422);

  // A patch pinning an old resourceVersion conflicts.
  Reply pinned = Patch(path, Json{{"metadata", {{"resourceVersion", "1"}}}},
                       "application/merge-patch+json");
  EXPECT_EQ(pinned.status, 409);

  Reply smp = Patch(path, Json{{"data", {{"w", "4"}}}}, "application/strategic-merge-patch+json");
  EXPECT_EQ(smp.status, 200) << smp.raw;
  EXPECT_EQ(smp.body["data"]["w"], "4");

  // Server-side apply: creates when absent (201), merges when present.
  std::string apply = std::string(kCms) + "/applied?fieldManager=kubectl&force=false";
  Reply created = Call("PATCH", apply, Json("apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                            "  name: applied\ndata:\n  a: \"1\"\n"),
                       "application/apply-patch+yaml");
  ASSERT_EQ(created.status, 201) << created.raw;
  // Another manager's configuration merges in; the first manager's configuration without "a"
  // then removes it (nobody else owns it; managed_fields_test.cc has the details).
  Reply merged = Call("PATCH", std::string(kCms) + "/applied?fieldManager=other",
                      Json(R"({"data":{"b":"2"}})"), "application/apply-patch+yaml");
  ASSERT_EQ(merged.status, 200);
  EXPECT_EQ(merged.body["data"], (Json{{"a", "1"}, {"b", "2"}}));
  Reply dropped = Call("PATCH", apply, Json(R"({"data":{"b":"2"}})"), "application/apply-patch+yaml");
  ASSERT_EQ(dropped.status, 200);
  EXPECT_EQ(dropped.body["data"], (Json{{"b", "2"}}));
  Reply no_manager = Call("PATCH", std::string(kCms) + "/applied", Json(R"({"data":{}})"),
                          "application/apply-patch+yaml");
  EXPECT_EQ(no_manager.status, 422);
}

TEST_F(ApiServerTest, DeploymentGenerationStatusAndScale) {
  Reply created = Post(kDeploys, Deployment("web", 2));
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["metadata"]["generation"], 1);
  std::string path = std::string(kDeploys) + "/web";

  // Strategic merge: containers merge by name.
  Reply smp = Patch(path, Json::parse(R"({"spec":{"template":{"spec":{"containers":
                                          [{"name":"nginx","image":"nginx:1.28"}]}}}})"),
                    "application/strategic-merge-patch+json");
  ASSERT_EQ(smp.status, 200) << smp.raw;
  const Json& containers = smp.body["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["image"], "nginx:1.28");
  EXPECT_EQ(containers[1]["name"], "side");
  EXPECT_EQ(smp.body["metadata"]["generation"], 2);

  // Labels are metadata: no generation bump.
  Reply labeled = Patch(path, Json{{"metadata", {{"labels", {{"tier", "front"}}}}}},
                        "application/merge-patch+json");
  EXPECT_EQ(labeled.body["metadata"]["generation"], 2);

  // Status goes through /status only.
  Reply ignored = Patch(path, Json{{"status", {{"replicas", 7}}}}, "application/merge-patch+json");
  EXPECT_FALSE(ignored.body.contains("status") && ignored.body["status"].contains("replicas"));
  Reply status = Patch(path + "/status", Json{{"status", {{"replicas", 2}, {"readyReplicas", 1}}}},
                       "application/merge-patch+json");
  ASSERT_EQ(status.status, 200) << status.raw;
  EXPECT_EQ(status.body["status"]["replicas"], 2);
  EXPECT_EQ(status.body["metadata"]["generation"], 2);

  Reply scale = Get(path + "/scale");
  ASSERT_EQ(scale.status, 200);
  EXPECT_EQ(scale.body["kind"], "Scale");
  EXPECT_EQ(scale.body["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(scale.body["spec"]["replicas"], 2);
  EXPECT_EQ(scale.body["status"]["replicas"], 2);
  EXPECT_EQ(scale.body["status"]["selector"], "app=web");

  Reply scaled = Patch(path + "/scale", Json{{"spec", {{"replicas", 5}}}},
                       "application/merge-patch+json");
  ASSERT_EQ(scaled.status, 200) << scaled.raw;
  EXPECT_EQ(scaled.body["spec"]["replicas"], 5);
  Reply after = Get(path);
  EXPECT_EQ(after.body["spec"]["replicas"], 5);
  EXPECT_EQ(after.body["metadata"]["generation"], 3);
  EXPECT_EQ(scaled.body["metadata"]["resourceVersion"], after.body["metadata"]["resourceVersion"]);

  Json put = scale.body;  // read before the patch: stale
  put["spec"]["replicas"] = 1;
  EXPECT_EQ(Put(path + "/scale", put).status, 409);  // stale resourceVersion
  put["metadata"]["resourceVersion"] = after.body["metadata"]["resourceVersion"];
  EXPECT_EQ(Put(path + "/scale", put).body["spec"]["replicas"], 1);
  put["spec"]["replicas"] = -1;
  put["metadata"].erase("resourceVersion");
  EXPECT_EQ(Put(path + "/scale", put).status, 422);
}

TEST_F(ApiServerTest, FinalizersDelayDeletion) {
  Json cm = ConfigMap("fin");
  cm["metadata"]["finalizers"] = Json::array({"example.com/hold"});
  ASSERT_EQ(Post(kCms, cm).status, 201);
  std::string rv = Get(kCms).body["metadata"]["resourceVersion"];
  http::TestHttpStream watch(server_->url() + kCms + "?watch=1&resourceVersion=" + rv);
  Reply deleting = Delete(std::string(kCms) + "/fin");
  ASSERT_EQ(deleting.status, 200);
  EXPECT_TRUE(deleting.body["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(Get(std::string(kCms) + "/fin").status, 200);
  // Finalizers cannot be added to a deleting object; removing the last one deletes it.
  Reply add = Patch(std::string(kCms) + "/fin",
                    Json{{"metadata", {{"finalizers", {"example.com/hold", "new"}}}}},
                    "application/merge-patch+json");
  EXPECT_EQ(add.body["metadata"]["finalizers"], Json::array({"example.com/hold"}));
  Reply cleared = Patch(std::string(kCms) + "/fin", Json{{"metadata", {{"finalizers", nullptr}}}},
                        "application/merge-patch+json");
  EXPECT_EQ(cleared.status, 200);
  EXPECT_EQ(Get(std::string(kCms) + "/fin").status, 404);
  auto modified = watch.NextLine(milliseconds(5000));
  auto deleted = watch.NextLine(milliseconds(5000));
  ASSERT_TRUE(modified && deleted);
  EXPECT_EQ(Parse(*modified)["type"], "MODIFIED");
  EXPECT_EQ(Parse(*deleted)["type"], "DELETED");
}

TEST_F(ApiServerTest, GarbageCollectsDependentsInBackground) {
  Reply owner = Post(kCms, ConfigMap("owner"));
  ASSERT_EQ(Post(kCms, OwnedConfigMap("dep1", owner.body)).status, 201);
  ASSERT_EQ(Post(kCms, OwnedConfigMap("dep2", owner.body)).status, 201);
  Reply other = Post(kCms, ConfigMap("other"));
  // dep3 has two owners: it only loses the reference to the deleted one.
  Json dep3 = OwnedConfigMap("dep3", owner.body);
  dep3["metadata"]["ownerReferences"].push_back(
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "other"},
       {"uid", other.body["metadata"]["uid"]}});
  ASSERT_EQ(Post(kCms, dep3).status, 201);
  ASSERT_EQ(Delete(std::string(kCms) + "/owner", Json{{"propagationPolicy", "Background"}}).status,
            200);
  EXPECT_TRUE(Eventually([&] {
    return Get(std::string(kCms) + "/dep1").status == 404 &&
           Get(std::string(kCms) + "/dep2").status == 404;
  }));
  Reply kept = Get(std::string(kCms) + "/dep3");
  ASSERT_EQ(kept.status, 200);
  EXPECT_TRUE(Eventually([&] {
    return Get(std::string(kCms) + "/dep3").body["metadata"]["ownerReferences"].size() == 1;
  }));
  EXPECT_EQ(Get(std::string(kCms) + "/dep3").body["metadata"]["ownerReferences"][0]["name"],
            "other");
}

TEST_F(ApiServerTest, OrphanAndForegroundPropagation) {
  Reply owner = Post(kCms, ConfigMap("orphaner"));
  ASSERT_EQ(Post(kCms, OwnedConfigMap("orphan", owner.body)).status, 201);
  Reply orphaning = Delete(std::string(kCms) + "/orphaner", Json{{"propagationPolicy", "Orphan"}});
  ASSERT_EQ(orphaning.status, 200);
  EXPECT_EQ(orphaning.body["metadata"]["finalizers"], Json::array({"orphan"}));
  EXPECT_TRUE(Eventually([&] { return Get(std::string(kCms) + "/orphaner").status == 404; }));
  Reply orphan = Get(std::string(kCms) + "/orphan");
  ASSERT_EQ(orphan.status, 200);
  EXPECT_FALSE(orphan.body["metadata"].contains("ownerReferences"));

  Reply fg = Post(kCms, ConfigMap("fg"));
  Json blocker = OwnedConfigMap("blocker", fg.body, /*block=*/true);
  blocker["metadata"]["finalizers"] = Json::array({"example.com/slow"});
  ASSERT_EQ(Post(kCms, blocker).status, 201);
  Reply deleting = Delete(std::string(kCms) + "/fg", Json{{"propagationPolicy", "Foreground"}});
  EXPECT_EQ(deleting.body["metadata"]["finalizers"], Json::array({"foregroundDeletion"}));
  // The blocking dependent is being deleted but holds its finalizer: the owner waits.
  EXPECT_TRUE(Eventually([&] {
    return Get(std::string(kCms) + "/blocker").body["metadata"].contains("deletionTimestamp");
  }));
  server_->gc()->WaitForPassForTest();
  EXPECT_EQ(Get(std::string(kCms) + "/fg").status, 200);
  ASSERT_EQ(Patch(std::string(kCms) + "/blocker", Json{{"metadata", {{"finalizers", nullptr}}}},
                  "application/merge-patch+json").status, 200);
  EXPECT_TRUE(Eventually([&] { return Get(std::string(kCms) + "/fg").status == 404; }));
}

TEST_F(ApiServerTest, NamespaceDeletionRemovesContent) {
  ASSERT_EQ(Post("/api/v1/namespaces", Json{{"metadata", {{"name", "team"}}}}).status, 201);
  std::string cms = "/api/v1/namespaces/team/configmaps";
  ASSERT_EQ(Post(cms, ConfigMap("a")).status, 201);
  Json held = ConfigMap("held");
  held["metadata"]["finalizers"] = Json::array({"example.com/hold"});
  ASSERT_EQ(Post(cms, held).status, 201);
  Reply deleting = Delete("/api/v1/namespaces/team");
  ASSERT_EQ(deleting.status, 200);
  EXPECT_EQ(deleting.body["status"]["phase"], "Terminating");
  EXPECT_TRUE(deleting.body["metadata"].contains("deletionTimestamp"));
  Reply refused = Post(cms, ConfigMap("late"));
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body["reason"], "Forbidden");
  EXPECT_NE(refused.body["message"].get<std::string>().find(
                "unable to create new content in namespace team because it is being terminated"),
            std::string::npos);
  EXPECT_TRUE(Eventually([&] { return Get(cms + "/a").status == 404; }));
  server_->lifecycle()->WaitForPassForTest();
  EXPECT_EQ(Get("/api/v1/namespaces/team").status, 200);  // "held" still has its finalizer
  ASSERT_EQ(Patch(cms + "/held", Json{{"metadata", {{"finalizers", nullptr}}}},
                  "application/merge-patch+json").status, 200);
  EXPECT_TRUE(Eventually([&] { return Get("/api/v1/namespaces/team").status == 404; }));
}

TEST_F(ApiServerTest, GracefulPodDeletion) {
  std::string pods = "/api/v1/namespaces/default/pods";
  Json pod = Json::parse(R"({"metadata":{"name":"p"},"spec":{"nodeName":"node-1",
      "terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox"}]}})");
  Reply created = Post(pods, pod);
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["status"]["phase"], "Pending");
  Reply deleting = Delete(pods + "/p");
  ASSERT_EQ(deleting.status, 200);
  EXPECT_EQ(deleting.body["metadata"]["deletionGracePeriodSeconds"], 1);
  EXPECT_EQ(Get(pods + "/p").status, 200);
  EXPECT_TRUE(Eventually([&] { return Get(pods + "/p").status == 404; }));
  EXPECT_EQ(Get(pods + "/p/log").status, 404);
}

TEST_F(ApiServerTest, CustomResourceDefinitionsServeAndCleanUp) {
  Json crd = Json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced",
      "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"]},
      "versions":[{"name":"v1","served":true,"storage":true,
        "subresources":{"status":{},"scale":{"specReplicasPath":".spec.size",
                                             "statusReplicasPath":".status.size"}},
        "schema":{"openAPIV3Schema":{"type":"object","properties":{
          "spec":{"type":"object","properties":{"size":{"type":"integer","minimum":0},
                                                "color":{"type":"string","default":"blue"}}},
          "status":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]}})");
  Reply created = Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["status"]["conditions"][1]["type"], "Established");
  EXPECT_EQ(Get("/apis/example.com/v1").status, 200);

  std::string widgets = "/apis/example.com/v1/namespaces/default/widgets";
  Reply w = Post(widgets, Json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget",
      "metadata":{"name":"w1"},"spec":{"size":2,"unknown":true}})"));
  ASSERT_EQ(w.status, 201) << w.raw;
  EXPECT_EQ(w.body["spec"]["color"], "blue");     // defaulted
  EXPECT_FALSE(w.body["spec"].contains("unknown"));  // pruned
  EXPECT_EQ(w.body["metadata"]["generation"], 1);

  Reply invalid = Post(widgets, Json::parse(R"({"metadata":{"name":"w2"},"spec":{"size":-1}})"));
  EXPECT_EQ(invalid.status, 422);
  EXPECT_EQ(invalid.body["details"]["kind"], "Widget");

  Reply strict = Post(widgets + "?fieldValidation=Strict",
                      Json::parse(R"({"metadata":{"name":"w3"},"spec":{"bogus":1}})"));
  EXPECT_EQ(strict.status, 400);

  Reply smp = Patch(widgets + "/w1", Json{{"spec", {{"size", 3}}}},
                    "application/strategic-merge-patch+json");
  EXPECT_EQ(smp.status, 415);
  Reply scaled = Patch(widgets + "/w1/scale", Json{{"spec", {{"replicas", 4}}}},
                       "application/merge-patch+json");
  ASSERT_EQ(scaled.status, 200) << scaled.raw;
  EXPECT_EQ(Get(widgets + "/w1").body["spec"]["size"], 4);

  Reply deleting = Delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com");
  ASSERT_EQ(deleting.status, 200);
  EXPECT_TRUE(Eventually([&] {
    return Get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
               .status == 404;
  }));
  // The served type goes once the CRD's objects are cleaned up; like kube-apiserver this is
  // eventual (under load the CRD object can be gone a moment before its routes).
  EXPECT_TRUE(Eventually([&] { return Get(widgets).status == 404; }));
  EXPECT_EQ(server_->store()->Count("/registry/example.com/"), 0);
}

TEST_F(ApiServerTest, DeleteCollectionWithSelector) {
  ASSERT_EQ(Post(kCms, ConfigMap("x1", {{"del", "yes"}})).status, 201);
  ASSERT_EQ(Post(kCms, ConfigMap("x2", {{"del", "yes"}})).status, 201);
  ASSERT_EQ(Post(kCms, ConfigMap("x3", {{"del", "no"}})).status, 201);
  Reply gone = Delete(std::string(kCms) + "?labelSelector=del%3Dyes");
  ASSERT_EQ(gone.status, 200);
  EXPECT_EQ(gone.body["kind"], "ConfigMapList");
  EXPECT_EQ(gone.body["items"].size(), 2u);
  Reply left = Get(kCms);
  ASSERT_EQ(left.body["items"].size(), 1u);
  EXPECT_EQ(left.body["items"][0]["metadata"]["name"], "x3");
}

TEST_F(ApiServerTest, DeletePreconditions) {
  Reply cm = Post(kCms, ConfigMap("pre"));
  Reply wrong = Delete(std::string(kCms) + "/pre",
                       Json{{"preconditions", {{"uid", "not-the-uid"}}}});
  EXPECT_EQ(wrong.status, 409);
  EXPECT_EQ(wrong.body["reason"], "Conflict");
  Reply right = Delete(std::string(kCms) + "/pre",
                       Json{{"preconditions", {{"uid", cm.body["metadata"]["uid"]}}}});
  EXPECT_EQ(right.status, 200);
}

}  // namespace
}  // namespace trimtab::cluster::testing
