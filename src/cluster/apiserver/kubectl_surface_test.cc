// What kubectl meets on the local API server beyond plain CRUD, over HTTP: the workload kinds of
// workload_types.h (defaults, Table columns), events.k8s.io/v1 as a view of core Events, unknown
// fields pruned from built-in objects, the connect subresources' "not supported" status, pod logs
// with --previous, PodDisruptionBudgets checked by evictions, and the protobuf field table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/apiserver_test_util.h"
#include "cluster/apiserver/handlers/protobuf_messages.h"

namespace trimtab::cluster::testing {
namespace {

constexpr char kTableAccept[] = "Accept: application/json;as=Table;v=v1;g=meta.k8s.io";

Json Job(const std::string& name) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"template",
             {{"spec",
               {{"restartPolicy", "Never"},
                {"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}}}}}};
}

TEST(ProtoMessageTableTest, ParsesAndResolvesEveryMessage) {
  ASSERT_TRUE(CheckProtoMessageTable().ok()) << CheckProtoMessageTable().ToString();
  const ProtoMessageSpec* deployment = FindProtoMessageForKind("apps/v1", "Deployment");
  ASSERT_NE(deployment, nullptr);
  const ProtoFieldSpec* replicas = FindProtoMessage("apps.v1.DeploymentSpec")->Find(1);
  ASSERT_NE(replicas, nullptr);
  EXPECT_EQ(replicas->json_name, "replicas");
  EXPECT_TRUE(replicas->keep_zero);  // *int32: replicas 0 is meaningful
  const ProtoFieldSpec* volume_source = FindProtoMessage("core.v1.Volume")->Find(2);
  ASSERT_NE(volume_source, nullptr);
  EXPECT_TRUE(volume_source->inlined);
  for (const char* kind : {"Service", "ServiceAccount", "Pod", "PersistentVolumeClaim"}) {
    EXPECT_NE(FindProtoMessageForKind("v1", kind), nullptr) << kind;
  }
  EXPECT_NE(FindProtoMessageForKind("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), nullptr);
  EXPECT_NE(FindProtoMessageForKind("batch/v1", "CronJob"), nullptr);
  EXPECT_NE(FindProtoMessageForKind("networking.k8s.io/v1", "Ingress"), nullptr);
  EXPECT_EQ(FindProtoMessageForKind("apps.example.com/v1", "Deployment"), nullptr);
  EXPECT_EQ(FindProtoMessageForKind("flink.apache.org/v1beta1", "FlinkDeployment"), nullptr);
}

TEST_F(ApiServerTest, JobsGetTheirSelectorAndDefaults) {
  Reply job = Post("/apis/batch/v1/namespaces/default/jobs", Job("pi"));
  ASSERT_EQ(job.status, 201) << job.raw;
  const std::string uid = job.body["metadata"]["uid"];
  EXPECT_EQ(job.body["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"], uid);
  EXPECT_EQ(job.body["spec"]["template"]["metadata"]["labels"]["job-name"], "pi");
  EXPECT_EQ(job.body["spec"]["completions"], 1);
  EXPECT_EQ(job.body["spec"]["parallelism"], 1);
  EXPECT_EQ(job.body["spec"]["backoffLimit"], 6);
  Reply table = Call("GET", "/apis/batch/v1/namespaces/default/jobs", nullptr, "",
                     {kTableAccept});
  ASSERT_EQ(table.status, 200) << table.raw;
  std::vector<std::string> columns;
  for (const Json& c : table.body["columnDefinitions"]) {
    if (c["priority"] == 0) columns.push_back(c["name"]);
  }
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Status", "Completions", "Duration", "Age"}));
  EXPECT_EQ(table.body["rows"][0]["cells"][1], "Running");
  EXPECT_EQ(table.body["rows"][0]["cells"][2], "0/1");
}

TEST_F(ApiServerTest, WorkloadKindsAreServedWithDiscoveryNames) {
  Reply apis = Get("/apis/batch/v1");
  ASSERT_EQ(apis.status, 200);
  std::set<std::string> names;
  for (const Json& r : apis.body["resources"]) names.insert(r["name"].get<std::string>());
  EXPECT_TRUE(names.count("jobs") && names.count("cronjobs") && names.count("jobs/status"));
  Reply networking = Get("/apis/networking.k8s.io/v1");  // the loop reads into its body
  for (const Json& r : networking.body["resources"]) {
    if (r["name"] == "ingresses") {
      EXPECT_EQ(r["singularName"], "ingress");
    }
  }
  Json pvc = {{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata", {{"name", "data"}}},
              {"spec",
               {{"accessModes", Json::array({"ReadWriteOnce"})},
                {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  Reply created = Post("/api/v1/namespaces/default/persistentvolumeclaims", pvc);
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["status"]["phase"], "Pending");
  EXPECT_EQ(created.body["spec"]["volumeMode"], "Filesystem");
  Json sc = {{"apiVersion", "storage.k8s.io/v1"},
             {"kind", "StorageClass"},
             {"metadata", {{"name", "fast"}}},
             {"provisioner", "example.com/fast"}};
  Reply stored = Post("/apis/storage.k8s.io/v1/storageclasses", sc);
  ASSERT_EQ(stored.status, 201) << stored.raw;
  EXPECT_EQ(stored.body["reclaimPolicy"], "Delete");
  EXPECT_FALSE(stored.body.contains("spec"));
  Json pdb = {{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", {{"name", "web"}}},
              {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
  EXPECT_EQ(Post("/apis/policy/v1/namespaces/default/poddisruptionbudgets", pdb).status, 201);
}

TEST_F(ApiServerTest, EventsV1IsAViewOfCoreEvents) {
  Json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", "e1"}}},
                {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
                {"reason", "Started"},
                {"message", "Started container c"},
                {"type", "Normal"},
                {"count", 2},
                {"source", {{"component", "kubelet"}}}};
  ASSERT_EQ(Post("/api/v1/namespaces/default/events", event).status, 201);
  Reply v1 = Get("/apis/events.k8s.io/v1/namespaces/default/events/e1");
  ASSERT_EQ(v1.status, 200) << v1.raw;
  EXPECT_EQ(v1.body["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(v1.body["note"], "Started container c");
  EXPECT_EQ(v1.body["regarding"]["name"], "p");
  EXPECT_EQ(v1.body["deprecatedCount"], 2);
  EXPECT_EQ(v1.body["deprecatedSource"]["component"], "kubelet");
  EXPECT_FALSE(v1.body.contains("message"));
  // Written through events.k8s.io, read as a core Event.
  Json written = {{"apiVersion", "events.k8s.io/v1"},
                  {"kind", "Event"},
                  {"metadata", {{"name", "e2"}}},
                  {"eventTime", "2026-01-01T00:00:00.000000Z"},
                  {"reportingController", "me"},
                  {"reportingInstance", "me-1"},
                  {"action", "Test"},
                  {"regarding", {{"kind", "Pod"}, {"name", "q"}}},
                  {"reason", "Tested"},
                  {"note", "hello"},
                  {"type", "Normal"}};
  Reply posted = Post("/apis/events.k8s.io/v1/namespaces/default/events", written);
  ASSERT_EQ(posted.status, 201) << posted.raw;
  Reply core = Get("/api/v1/namespaces/default/events/e2");
  ASSERT_EQ(core.status, 200) << core.raw;
  EXPECT_EQ(core.body["message"], "hello");
  EXPECT_EQ(core.body["involvedObject"]["name"], "q");
  EXPECT_EQ(core.body["reportingComponent"], "me");
  Reply list = Get("/apis/events.k8s.io/v1/namespaces/default/events");
  EXPECT_EQ(list.body["items"].size(), 2u);
}

TEST_F(ApiServerTest, UnknownFieldsOfBuiltinKindsArePrunedWithAWarning) {
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "c"}}},
             {"data", {{"a", "b"}}},
             {"bogus", 1}};
  Reply strict = Call("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", cm);
  EXPECT_EQ(strict.status, 400) << strict.raw;
  Reply warned = Post("/api/v1/namespaces/default/configmaps", cm);
  ASSERT_EQ(warned.status, 201) << warned.raw;
  EXPECT_FALSE(warned.body.contains("bogus"));
  EXPECT_NE(warned.headers["Warning"].find("unknown field"), std::string::npos);
  EXPECT_NE(warned.headers["Warning"].find("bogus"), std::string::npos);
  EXPECT_FALSE(Get("/api/v1/namespaces/default/configmaps/c").body.contains("bogus"));
  // A patch cannot smuggle one in either.
  Reply patched = Patch("/api/v1/namespaces/default/configmaps/c", Json{{"extra", {{"x", 1}}}},
                        "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.raw;
  EXPECT_FALSE(patched.body.contains("extra"));
}

TEST_F(ApiServerTest, ConnectSubresourcesSayWhatTheyCannotDo) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
  ASSERT_EQ(Post("/api/v1/namespaces/default/pods", pod).status, 201);
  Reply attach = Call("POST", "/api/v1/namespaces/default/pods/p/attach", nullptr);
  EXPECT_EQ(attach.status, 400) << attach.raw;
  EXPECT_NE(attach.body["message"].get<std::string>().find("not supported"), std::string::npos);
  // exec is served (exec/pod_exec.h) once the pod runs; this one is not even scheduled.
  Reply exec = Call("POST", "/api/v1/namespaces/default/pods/p/exec?command=ls&stdout=true",
                    nullptr);
  EXPECT_EQ(exec.status, 400) << exec.raw;
  EXPECT_EQ(exec.body["message"], "pod p does not have a host assigned");
  // port-forward and the proxy are served (port_forward_test.cc); this pod has no IP yet.
  Reply forward = Call("POST", "/api/v1/namespaces/default/pods/p/portforward", nullptr);
  EXPECT_EQ(forward.status, 400) << forward.raw;
  Reply proxy = Get("/api/v1/namespaces/default/pods/p/proxy/some/path");
  EXPECT_EQ(proxy.status, 503) << proxy.raw;
  EXPECT_EQ(Get("/api/v1/namespaces/default/pods/nosuch/exec").status, 404);
  Reply previous = Get("/api/v1/namespaces/default/pods/p/log?previous=true");
  EXPECT_EQ(previous.status, 400);
  EXPECT_NE(previous.body["message"].get<std::string>().find(
                "previous terminated container \"c\" in pod \"p\" not found"),
            std::string::npos);
  EXPECT_EQ(Get("/api/v1/namespaces/default/pods/p/log?container=x").status, 400);
}

TEST_F(ApiServerTest, EvictionsRespectPodDisruptionBudgets) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"labels", {{"app", "web"}}}}},
              {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
  ASSERT_EQ(Post("/api/v1/namespaces/default/pods", pod).status, 201);
  Reply running = Patch("/api/v1/namespaces/default/pods/p/status",
                        Json{{"status", {{"phase", "Running"}}}}, "application/merge-patch+json");
  ASSERT_EQ(running.status, 200) << running.raw;
  Json pdb = {{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", {{"name", "web"}}},
              {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
  ASSERT_EQ(Post("/apis/policy/v1/namespaces/default/poddisruptionbudgets", pdb).status, 201);
  Json eviction = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", {{"name", "p"}}}};
  // Not processed by the disruption controller yet (no status): refused.
  Reply refused = Post("/api/v1/namespaces/default/pods/p/eviction", eviction);
  EXPECT_EQ(refused.status, 429) << refused.raw;
  EXPECT_EQ(refused.body["details"]["causes"][0]["reason"], "DisruptionBudget");
  // The controller's count: one disruption allowed.
  Reply status = Patch("/apis/policy/v1/namespaces/default/poddisruptionbudgets/web/status",
                       Json{{"status",
                             {{"observedGeneration", 1},
                              {"disruptionsAllowed", 1},
                              {"currentHealthy", 2},
                              {"desiredHealthy", 1},
                              {"expectedPods", 2}}}},
                       "application/merge-patch+json");
  ASSERT_EQ(status.status, 200) << status.raw;
  Reply allowed = Post("/api/v1/namespaces/default/pods/p/eviction", eviction);
  EXPECT_EQ(allowed.status, 201) << allowed.raw;
  Reply budget = Get("/apis/policy/v1/namespaces/default/poddisruptionbudgets/web");
  EXPECT_EQ(budget.body["status"]["disruptionsAllowed"], 0);
  EXPECT_TRUE(budget.body["status"]["disruptedPods"].contains("p"));
}

}  // namespace
}  // namespace trimtab::cluster::testing
