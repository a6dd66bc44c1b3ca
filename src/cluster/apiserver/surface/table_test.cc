#include "cluster/apiserver/surface/table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_types.h"
#include "cluster/apiserver/surface/crd.h"
#include "cluster/apiserver/surface/jsonpath.h"

namespace trimtab::cluster {
namespace {

using ::testing::ElementsAre;

const TimePoint kNow = *ParseRfc3339("2025-01-01T12:00:00Z");

ResourceType Builtin(const std::string& kind) {
  for (const ResourceType& t : BuiltinTypes()) {
    if (t.kind == kind && t.group != "events.k8s.io") return t;
  }
  return {};
}

std::vector<std::string> Headers(const Json& table, bool wide = false) {
  std::vector<std::string> out;
  for (const Json& c : table["columnDefinitions"]) {
    if (wide || c["priority"] == 0) out.push_back(c["name"]);
  }
  return out;
}

TEST(HumanDuration, MatchesKubectl) {
  struct Case {
    int64_t seconds;
    const char* want;
  };
  for (const Case& c : std::vector<Case>{{-5, "<invalid>"},
                                         {-1, "0s"},
                                         {0, "0s"},
                                         {45, "45s"},
                                         {119, "119s"},
                                         {192, "3m12s"},
                                         {300, "5m"},
                                         {3000, "50m"},
                                         {9000, "150m"},
                                         {3 * 3600 + 1800, "3h30m"},
                                         {5 * 3600, "5h"},
                                         {30 * 3600, "30h"},
                                         {3 * 86400 + 4 * 3600, "3d4h"},
                                         {100 * 86400, "100d"},
                                         {(365 * 3 + 20) * 86400LL, "3y20d"},
                                         {365 * 10 * 86400LL, "10y"}}) {
    EXPECT_EQ(HumanDuration(Seconds(c.seconds)), c.want) << c.seconds;
  }
  EXPECT_EQ(HumanAge(Json(), kNow), "<unknown>");
  EXPECT_EQ(HumanAge(Json("2025-01-01T11:55:00Z"), kNow), "5m");
}

TEST(ToTable, PodsAsKubectlShowsThem) {
  Json running = Json::parse(R"({"metadata":{"name":"web-1","namespace":"default",
      "creationTimestamp":"2025-01-01T11:55:00Z","labels":{"app":"web"}},
    "spec":{"containers":[{"name":"a"},{"name":"b"}],"nodeName":"node-1"},
    "status":{"phase":"Running","podIP":"10.0.0.5","containerStatuses":[
      {"name":"a","ready":true,"restartCount":1,"state":{"running":{}},
       "lastState":{"terminated":{"finishedAt":"2025-01-01T11:58:00Z"}}},
      {"name":"b","ready":false,"restartCount":2,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})");
  Json pending = Json::parse(R"({"metadata":{"name":"web-2","creationTimestamp":"2025-01-01T10:00:00Z",
      "deletionTimestamp":"2025-01-01T11:59:00Z"},
    "spec":{"containers":[{"name":"a"}]},"status":{"phase":"Pending"}})");
  Json table = ToTable(Builtin("Pod"), {running, pending}, TableRowObject::kMetadata, kNow);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["apiVersion"], "meta.k8s.io/v1");
  EXPECT_THAT(Headers(table), ElementsAre("Name", "Ready", "Status", "Restarts", "Age"));
  EXPECT_THAT(Headers(table, true),
              ElementsAre("Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                          "Nominated Node", "Readiness Gates"));
  EXPECT_EQ(table["columnDefinitions"][0]["format"], "name");
  EXPECT_EQ(table["rows"][0]["cells"],
            Json::parse(R"j(["web-1","1/2","CrashLoopBackOff","3 (2m ago)","5m","10.0.0.5",
                            "node-1","<none>","<none>"])j"));
  EXPECT_EQ(table["rows"][1]["cells"],
            Json::parse(R"(["web-2","0/1","Terminating","0","120m","<none>","<none>","<none>",
                            "<none>"])"));
  EXPECT_EQ(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(table["rows"][0]["object"]["metadata"]["labels"]["app"], "web");
  EXPECT_FALSE(table["rows"][0]["object"].contains("spec"));

  Json none = ToTable(Builtin("Pod"), {running}, false);
  EXPECT_FALSE(none["rows"][0].contains("object"));
  Json full = ToTable(Builtin("Pod"), {running}, TableRowObject::kObject, kNow);
  EXPECT_EQ(full["rows"][0]["object"]["kind"], "Pod");
  EXPECT_EQ(full["rows"][0]["object"]["spec"]["nodeName"], "node-1");
}

TEST(ToTable, DeploymentsServicesConfigMapsNamespaces) {
  Json deploy = Json::parse(R"({"metadata":{"name":"web","creationTimestamp":"2025-01-01T11:59:30Z"},
    "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
      "template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}},
    "status":{"readyReplicas":2,"updatedReplicas":3,"availableReplicas":2}})");
  Json t = ToTable(Builtin("Deployment"), {deploy}, TableRowObject::kNone, kNow);
  EXPECT_THAT(Headers(t), ElementsAre("Name", "Ready", "Up-to-date", "Available", "Age"));
  EXPECT_EQ(t["rows"][0]["cells"],
            Json::parse(R"(["web","2/3",3,2,"30s","nginx","nginx:1.27","app=web"])"));

  Json fresh = Json::parse(R"({"metadata":{"name":"new"},"spec":{"replicas":1}})");
  t = ToTable(Builtin("Deployment"), {fresh}, TableRowObject::kNone, kNow);
  EXPECT_EQ(t["rows"][0]["cells"][1], "0/1");
  EXPECT_EQ(t["rows"][0]["cells"][2], 0);
  EXPECT_EQ(t["rows"][0]["cells"][4], "<unknown>");

  Json svc = Json::parse(R"({"metadata":{"name":"web"},"spec":{"type":"NodePort",
    "clusterIP":"10.96.0.10","ports":[{"port":80,"nodePort":30080,"protocol":"TCP"},
    {"port":53,"protocol":"UDP"}],"selector":{"app":"web"}}})");
  t = ToTable(Builtin("Service"), {svc}, TableRowObject::kNone, kNow);
  EXPECT_THAT(Headers(t), ElementsAre("Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age"));
  EXPECT_EQ(t["rows"][0]["cells"],
            Json::parse(R"(["web","NodePort","10.96.0.10","<none>","80:30080/TCP,53/UDP",
                            "<unknown>","app=web"])"));

  Json cm = Json::parse(R"({"metadata":{"name":"cfg"},"data":{"a":"1","b":"2"}})");
  t = ToTable(Builtin("ConfigMap"), {cm}, TableRowObject::kNone, kNow);
  EXPECT_THAT(Headers(t), ElementsAre("Name", "Data", "Age"));
  EXPECT_EQ(t["rows"][0]["cells"][1], 2);

  Json ns = Json::parse(R"({"metadata":{"name":"dev"},"status":{"phase":"Active"}})");
  t = ToTable(Builtin("Namespace"), {ns}, TableRowObject::kNone, kNow);
  EXPECT_EQ(t["rows"][0]["cells"], Json::parse(R"(["dev","Active","<unknown>"])"));

  Json crd = Json::parse(R"({"metadata":{"name":"a.b.c","creationTimestamp":"2025-01-01T00:00:00Z"}})");
  t = ToTable(Builtin("CustomResourceDefinition"), {crd}, TableRowObject::kNone, kNow);
  EXPECT_THAT(Headers(t), ElementsAre("Name", "Created At"));
  EXPECT_EQ(t["columnDefinitions"][1]["type"], "date");
  EXPECT_EQ(t["rows"][0]["cells"][1], "2025-01-01T00:00:00Z");
}

TEST(ToTable, EventsPutNameLast) {
  Json ev = Json::parse(R"({"metadata":{"name":"web.123"},"type":"Normal","reason":"Scheduled",
    "message":"Successfully assigned","involvedObject":{"kind":"Pod","name":"web-1"},
    "lastTimestamp":"2025-01-01T11:59:00Z","count":1,"source":{"component":"scheduler"}})");
  Json t = ToTable(Builtin("Event"), {ev}, TableRowObject::kNone, kNow);
  EXPECT_THAT(Headers(t), ElementsAre("Last Seen", "Type", "Reason", "Object", "Message"));
  EXPECT_EQ(t["rows"][0]["cells"],
            Json::parse(R"(["60s","Normal","Scheduled","pod/web-1","","scheduler",
                            "Successfully assigned","60s","1","web.123"])"));
}

TEST(ToTable, CrdPrinterColumnsUseJsonPath) {
  Json crd = Json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
      "versions":[{"name":"v1","served":true,"storage":true,
        "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
        "additionalPrinterColumns":[
          {"name":"State","type":"string","jsonPath":".status.jobStatus.state"},
          {"name":"Replicas","type":"integer","jsonPath":".spec.replicas"},
          {"name":"Ratio","type":"number","jsonPath":".spec.ratio"},
          {"name":"Ready","type":"boolean","jsonPath":".status.ready"},
          {"name":"First","type":"string","jsonPath":".spec.items[0].name","priority":1},
          {"name":"Started","type":"date","jsonPath":".status.startTime"}]}]}})");
  auto types = ResourceTypesFromCrd(crd);
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  Json obj = Json::parse(R"({"metadata":{"name":"w1"},"spec":{"replicas":3.0,"ratio":2,
    "items":[{"name":"x"}]},"status":{"jobStatus":{"state":"RUNNING"},"ready":true,
    "startTime":"2025-01-01T11:00:00Z"}})");
  Json empty = Json::parse(R"({"metadata":{"name":"w2"}})");
  Json t = ToTable((*types)[0], {obj, empty}, TableRowObject::kMetadata, kNow);
  EXPECT_THAT(Headers(t), ElementsAre("Name", "State", "Replicas", "Ratio", "Ready", "Started"));
  EXPECT_EQ(t["rows"][0]["cells"], Json::parse(R"(["w1","RUNNING",3,2.0,true,"x","60m"])"));
  EXPECT_EQ(t["rows"][1]["cells"], Json::parse(R"(["w2",null,null,null,null,null,null])"));

  auto plain = ResourceTypesFromCrd([&] {
    Json c = crd;
    c["spec"]["versions"][0].erase("additionalPrinterColumns");
    return c;
  }());
  ASSERT_TRUE(plain.ok());
  Json aged = ToTable((*plain)[0], {Json::parse(R"({"metadata":{"name":"w",
    "creationTimestamp":"2025-01-01T11:59:50Z"}})")}, TableRowObject::kNone, kNow);
  EXPECT_THAT(Headers(aged), ElementsAre("Name", "Age"));
  EXPECT_EQ(aged["rows"][0]["cells"], Json::parse(R"(["w","10s"])"));
}

TEST(JsonPath, SimplePaths) {
  Json doc = Json::parse(R"({"a":{"b":[{"c":1},{"c":2}],"d.e":"dot"}})");
  EXPECT_EQ(JsonPathFirst(doc, ".a.b[1].c"), 2);
  EXPECT_EQ(JsonPathFirst(doc, "{.a.b[0].c}"), 1);
  EXPECT_EQ(JsonPathFirst(doc, ".a['d.e']"), "dot");
  EXPECT_EQ(JsonPathFirst(doc, ".a.b[-1].c"), 2);
  EXPECT_TRUE(JsonPathFirst(doc, ".a.x.y").is_null());
  auto all = EvaluateJsonPath(doc, ".a.b[*].c");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Json(*all), Json::parse("[1,2]"));
  EXPECT_FALSE(EvaluateJsonPath(doc, ".a[").ok());
}

}  // namespace
}  // namespace trimtab::cluster
