// The API server additions the local cluster runtime relies on, over HTTP: built-in defaults,
// Service clusterIP allocation (and its survival across restarts), pods/binding,
// pods/eviction, ReplicaSets with scale and Table columns, Endpoints/EndpointSlices and
// ServiceAccounts.
#include <nlohmann/json.hpp>

#include "cluster/apiserver/apiserver_test_util.h"
#include "cluster/apiserver/admission/service_ips.h"

namespace trimtab::cluster::testing {
namespace {

constexpr char kPods[] = "/api/v1/namespaces/default/pods";
constexpr char kServices[] = "/api/v1/namespaces/default/services";
constexpr char kReplicaSets[] = "/apis/apps/v1/namespaces/default/replicasets";
constexpr char kTableAccept[] = "Accept: application/json;as=Table;v=v1;g=meta.k8s.io";

Json Pod(const std::string& name, Json resources = Json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"labels", {{"app", "web"}}}}},
          {"spec",
           {{"containers",
             Json::array({{{"name", "c"}, {"image", "nginx:1.27"}, {"resources", resources}}})}}}};
}

Json Service(const std::string& name, const std::string& cluster_ip = "") {
  Json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"name", name}}},
              {"spec", {{"selector", {{"app", "web"}}}, {"ports", Json::array({{{"port", 80}}})}}}};
  if (!cluster_ip.empty()) svc["spec"]["clusterIP"] = cluster_ip;
  return svc;
}

Json Binding(const std::string& pod, const std::string& node) {
  return {{"apiVersion", "v1"},
          {"kind", "Binding"},
          {"metadata", {{"name", pod}}},
          {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
}

std::string Condition(const Json& pod, const std::string& type) {
  for (const auto& c : pod["status"]["conditions"]) {
    if (c["type"] == type) return c["status"];
  }
  return "";
}

TEST_F(ApiServerTest, PodsGetDefaultsAndQosClass) {
  Reply best_effort = Post(kPods, Pod("be"));
  ASSERT_EQ(best_effort.status, 201) << best_effort.raw;
  const Json& spec = best_effort.body["spec"];
  EXPECT_EQ(spec["restartPolicy"], "Always");
  EXPECT_EQ(spec["schedulerName"], "default-scheduler");
  EXPECT_EQ(spec["terminationGracePeriodSeconds"], 30);
  EXPECT_EQ(spec["serviceAccountName"], "default");
  EXPECT_EQ(spec["containers"][0]["imagePullPolicy"], "IfNotPresent");
  EXPECT_EQ(spec["tolerations"].size(), 2u);
  EXPECT_EQ(best_effort.body["status"]["qosClass"], "BestEffort");

  Json guaranteed = {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}}};
  EXPECT_EQ(Post(kPods, Pod("g", guaranteed)).body["status"]["qosClass"], "Guaranteed");
  Json burstable = {{"requests", {{"cpu", "100m"}}}};
  EXPECT_EQ(Post(kPods, Pod("b", burstable)).body["status"]["qosClass"], "Burstable");
}

TEST_F(ApiServerTest, ServicesGetUniqueClusterIpsFromTheRange) {
  Reply a = Post(kServices, Service("a"));
  Reply b = Post(kServices, Service("b"));
  ASSERT_EQ(a.status, 201) << a.raw;
  ASSERT_EQ(b.status, 201) << b.raw;
  std::string ip_a = a.body["spec"]["clusterIP"];
  std::string ip_b = b.body["spec"]["clusterIP"];
  EXPECT_NE(ip_a, ip_b);
  EXPECT_EQ(ip_a.rfind("127.10.", 0), 0u) << ip_a;
  EXPECT_EQ(a.body["spec"]["clusterIPs"], Json::array({ip_a}));
  EXPECT_EQ(a.body["spec"]["type"], "ClusterIP");
  EXPECT_EQ(a.body["spec"]["ports"][0]["targetPort"], 80);
  EXPECT_EQ(a.body["spec"]["ports"][0]["protocol"], "TCP");

  Reply headless = Post(kServices, Service("h", "None"));
  ASSERT_EQ(headless.status, 201);
  EXPECT_EQ(headless.body["spec"]["clusterIP"], "None");

  Reply taken = Post(kServices, Service("c", ip_a));
  ASSERT_EQ(taken.status, 422) << taken.raw;
  EXPECT_NE(taken.body["message"].get<std::string>().find("spec.clusterIPs"), std::string::npos);
  EXPECT_NE(taken.body["message"].get<std::string>().find("already allocated"), std::string::npos);
  Reply outside = Post(kServices, Service("d", "10.0.0.1"));
  ASSERT_EQ(outside.status, 422) << outside.raw;
  EXPECT_NE(outside.body["message"].get<std::string>().find("not in the valid range"),
            std::string::npos);
  Reply chosen = Post(kServices, Service("e", "127.10.200.7"));
  ASSERT_EQ(chosen.status, 201) << chosen.raw;
  EXPECT_EQ(chosen.body["spec"]["clusterIP"], "127.10.200.7");

  // Updates keep the address; changing it is refused.
  Json update = a.body;
  update["spec"].erase("clusterIP");
  update["spec"].erase("clusterIPs");
  update["metadata"]["labels"]["x"] = "y";
  Reply kept = Put(std::string(kServices) + "/a", update);
  ASSERT_EQ(kept.status, 200) << kept.raw;
  EXPECT_EQ(kept.body["spec"]["clusterIP"], ip_a);
  update = kept.body;
  update["spec"]["clusterIP"] = "127.10.9.9";
  update["spec"].erase("clusterIPs");
  Reply changed = Put(std::string(kServices) + "/a", update);
  EXPECT_EQ(changed.status, 422) << changed.raw;
  EXPECT_NE(changed.raw.find("may not change once set"), std::string::npos) << changed.raw;

  // Deleting frees the address.
  ASSERT_EQ(Delete(std::string(kServices) + "/a").status, 200);
  EXPECT_FALSE(server_->cluster_ips()->IsAllocatedForTest(ip_a));
  EXPECT_EQ(Post(kServices, Service("f", ip_a)).status, 201);
}

TEST_F(ApiServerTest, ClusterIpAllocationsSurviveRestarts) {
  TempDataDir dir;
  TearDown();
  StartServer(dir.path());
  Reply a = Post(kServices, Service("a"));
  ASSERT_EQ(a.status, 201) << a.raw;
  std::string ip = a.body["spec"]["clusterIP"];
  TearDown();
  StartServer(dir.path());
  EXPECT_TRUE(server_->cluster_ips()->IsAllocatedForTest(ip));
  EXPECT_EQ(Post(kServices, Service("b", ip)).status, 422);
  Reply b = Post(kServices, Service("b"));
  ASSERT_EQ(b.status, 201);
  EXPECT_NE(b.body["spec"]["clusterIP"], ip);
}

TEST_F(ApiServerTest, BindingAssignsANodeOnce) {
  ASSERT_EQ(Post(kPods, Pod("p")).status, 201);
  std::string binding = std::string(kPods) + "/p/binding";
  Reply bound = Post(binding, Binding("p", "node-1"));
  ASSERT_EQ(bound.status, 201) << bound.raw;
  EXPECT_EQ(bound.body["status"], "Success");
  Json pod = Get(std::string(kPods) + "/p").body;
  EXPECT_EQ(pod["spec"]["nodeName"], "node-1");
  EXPECT_EQ(Condition(pod, "PodScheduled"), "True");

  Reply again = Post(binding, Binding("p", "node-2"));
  ASSERT_EQ(again.status, 409) << again.raw;
  EXPECT_NE(again.raw.find("already assigned to node \\\"node-1\\\""), std::string::npos)
      << again.raw;
  EXPECT_EQ(Post(std::string(kPods) + "/nope/binding", Binding("nope", "node-1")).status, 404);
  Json no_target = Binding("p", "");
  EXPECT_EQ(Post(binding, no_target).status, 422);
  EXPECT_EQ(Post(binding, Binding("other", "node-1")).status, 400);
}

TEST_F(ApiServerTest, EvictionDeletesThePod) {
  ASSERT_EQ(Post(kPods, Pod("p")).status, 201);
  Json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", "p"}}},
                   {"deleteOptions", {{"gracePeriodSeconds", 0}}}};
  Reply r = Post(std::string(kPods) + "/p/eviction", eviction);
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(Get(std::string(kPods) + "/p").status, 404);
}

TEST_F(ApiServerTest, ReplicaSetsHaveScaleAndColumns) {
  Json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata", {{"name", "web-1"}}},
             {"spec",
              {{"selector", {{"matchLabels", {{"app", "web"}}}}},
               {"template",
                {{"metadata", {{"labels", {{"app", "web"}}}}},
                 {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "nginx"}}})}}}}}}}};
  Reply created = Post(kReplicaSets, rs);
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["spec"]["replicas"], 1);
  EXPECT_EQ(created.body["metadata"]["generation"], 1);
  Reply scale = Patch(std::string(kReplicaSets) + "/web-1/scale", Json{{"spec", {{"replicas", 3}}}},
                      "application/merge-patch+json");
  ASSERT_EQ(scale.status, 200) << scale.raw;
  EXPECT_EQ(scale.body["status"]["selector"], "app=web");
  Reply table = Call("GET", kReplicaSets, nullptr, "application/json", {kTableAccept});
  ASSERT_EQ(table.status, 200);
  std::vector<std::string> names;
  for (const auto& c : table.body["columnDefinitions"]) names.push_back(c["name"]);
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ((std::vector<std::string>(names.begin(), names.begin() + 4)),
            (std::vector<std::string>{"Name", "Desired", "Current", "Ready"}));
  EXPECT_EQ(table.body["rows"][0]["cells"][1], 3);
  EXPECT_EQ(table.body["rows"][0]["cells"][2], 0);
}

TEST_F(ApiServerTest, EndpointsAndServiceAccountsAreServed) {
  Json ep = {{"apiVersion", "v1"},
             {"kind", "Endpoints"},
             {"metadata", {{"name", "web"}}},
             {"subsets",
              Json::array({{{"addresses", Json::array({{{"ip", "127.20.0.2"}}, {{"ip", "127.20.0.3"}}})},
                            {"ports", Json::array({{{"port", 8080}}})}}})}};
  ASSERT_EQ(Post("/api/v1/namespaces/default/endpoints", ep).status, 201);
  Reply table =
      Call("GET", "/api/v1/namespaces/default/endpoints", nullptr, "application/json", {kTableAccept});
  ASSERT_EQ(table.status, 200);
  EXPECT_EQ(table.body["rows"][0]["cells"][1], "127.20.0.2:8080,127.20.0.3:8080");
  Json sa = {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "runner"}}}};
  EXPECT_EQ(Post("/api/v1/namespaces/default/serviceaccounts", sa).status, 201);
  Json slice = {{"apiVersion", "discovery.k8s.io/v1"},
                {"kind", "EndpointSlice"},
                {"metadata", {{"name", "web-abc"}}},
                {"addressType", "IPv4"},
                {"endpoints", Json::array({{{"addresses", Json::array({"127.20.0.2"})}}})}};
  EXPECT_EQ(Post("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", slice).status, 201);
  Reply discovery = Get("/api/v1");
  std::string text = discovery.raw;
  for (const char* r : {"\"endpoints\"", "\"serviceaccounts\"", "\"pods/binding\"",
                        "\"pods/eviction\""}) {
    EXPECT_NE(text.find(r), std::string::npos) << r;
  }
}

}  // namespace
}  // namespace trimtab::cluster::testing
