// The dashboard's JSON model (dashboard_model.h) from hand-built ClusterViews.
#include "dashboard/dashboard_model.h"

#include <gtest/gtest.h>

#include "adapters/state/configmap_state_store.h"
#include "core/chain/state_store.h"

namespace trimtab::dashboard {
namespace {

const char kEvil[] = "<img src=x onerror=\"window.__pwned=1\">";

Json Deployment(const std::string& name, bool autoscaler = true) {
  Json conf = Json::object();
  if (autoscaler) conf["job.autoscaler.enabled"] = "true";
  return {{"apiVersion", "flink.apache.org/v1beta1"},
          {"kind", "FlinkDeployment"},
          {"metadata", {{"namespace", "ns"}, {"name", name}, {"uid", "u-" + name}}},
          {"spec", {{"flinkConfiguration", conf}, {"job", {{"parallelism", 2}}}}},
          {"status",
           {{"lifecycleState", "STABLE"},
            {"jobManagerDeploymentStatus", "READY"},
            {"jobStatus", {{"state", "RUNNING"}}},
            {"error", kEvil}}}};
}

Json History() {
  Json log = {{"time", "2026-01-01T00:02:00Z"},
              {"outcome", "Scale"},
              {"decision", "Vetoed"},
              {"stages", {{"collect", Json::array()}, {"decide", {"wants 4"}}}},
              {"vertices", {{"a1", {{"currentParallelism", 2}, {"finalParallelism", 4},
                                   {"reasons", {kEvil}}}}}},
              {"chain", {{"vetoed", true}, {"vetoedBy", "budget-cap"}, {"reason", kEvil},
                         {"steps", Json::array()}}}};
  return {{"vertexNames", {{"a1", std::string("Source: ") + kEvil}}},
          {"points",
           {{{"time", "2026-01-01T00:01:00Z"},
             {"outcome", "NoChange"},
             {"vertices", {{"a1", {{"parallelism", 2}, {"inputRate", 10.0}, {"capacity", 12.0}}},
                           {"zz", {{"parallelism", 1}}}}}}}},
          {"decisions", {log}}};
}

Json StateConfigMap(const std::string& job, const std::string& owner_kind) {
  Json data = Json::object();
  auto history = adapters::EncodeStateValue(core::StateType::kDecisionHistory, History());
  EXPECT_TRUE(history.ok());
  data["decisionHistory"] = *history;
  data["decisionLog"] = Json{{"time", "2026-01-01T00:02:00Z"}, {"outcome", "NoChange"}}.dump();
  return {{"metadata",
           {{"namespace", "ns"},
            {"name", "autoscaler-" + job},
            {"labels", {{"component", "autoscaler"}}},
            {"ownerReferences", {{{"kind", owner_kind}, {"name", job}}}}}},
          {"data", data}};
}

TEST(DashboardModelTest, OverviewListsJobsWithStateAndDecisionCounts) {
  ClusterView view;
  view.flink_deployments = {Deployment("orders"), Deployment("plain", false)};
  view.session_jobs = {{{"metadata", {{"namespace", "ns"}, {"name", "sj"}}},
                        {"spec", {{"deploymentName", "session"}}},
                        {"status", {{"lifecycleState", "DEPLOYED"}}}}};
  view.state_configmaps = {StateConfigMap("orders", "FlinkDeployment")};
  view.readable = {{"podgroups", false}};
  Json o = BuildOverview(view, FromUnixMillis(0));
  ASSERT_EQ(o["jobs"].size(), 3u);
  const Json& orders = o["jobs"][0];
  EXPECT_EQ(orders["kind"], "FlinkDeployment");
  EXPECT_EQ(orders["name"], "orders");
  EXPECT_EQ(orders["jobState"], "RUNNING");
  EXPECT_EQ(orders["lifecycleState"], "STABLE");
  EXPECT_EQ(orders["error"], kEvil);  // data, as it is: the page puts it in as text
  EXPECT_TRUE(orders["autoscalerEnabled"]);
  EXPECT_EQ(orders["lastDecision"]["outcome"], "NoChange");
  EXPECT_EQ(orders["decisionCounts"]["Vetoed"], 1);
  EXPECT_FALSE(o["jobs"][1]["autoscalerEnabled"]);
  EXPECT_FALSE(o["jobs"][1].contains("lastDecision"));
  EXPECT_EQ(o["jobs"][2]["kind"], "FlinkSessionJob");
  EXPECT_EQ(o["jobs"][2]["deploymentName"], "session");
  EXPECT_FALSE(o["readable"]["podgroups"]);
}

TEST(DashboardModelTest, JobDetailHasPointsNamesAndDecisionLogs) {
  ClusterView view;
  view.flink_deployments = {Deployment("orders")};
  view.state_configmaps = {StateConfigMap("orders", "FlinkDeployment")};
  StatusOr<Json> d = BuildJobDetail(view, "FlinkDeployment", "ns", "orders");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)["stateConfigMap"], "autoscaler-orders");
  EXPECT_EQ((*d)["vertexNames"]["a1"], std::string("Source: ") + kEvil);
  EXPECT_EQ((*d)["vertexNames"]["zz"], "zz");  // a vertex without a stored name: its id
  ASSERT_EQ((*d)["points"].size(), 1u);
  EXPECT_EQ((*d)["points"][0]["vertices"]["a1"]["capacity"], 12.0);
  ASSERT_EQ((*d)["decisions"].size(), 1u);
  EXPECT_EQ((*d)["decisions"][0]["chain"]["vetoedBy"], "budget-cap");
  EXPECT_EQ((*d)["latestDecision"]["outcome"], "NoChange");
}

TEST(DashboardModelTest, StateOfAnotherKindWithTheSameNameIsNotUsed) {
  ClusterView view;
  view.flink_deployments = {Deployment("orders")};
  view.state_configmaps = {StateConfigMap("orders", "FlinkSessionJob")};
  StatusOr<Json> d = BuildJobDetail(view, "FlinkDeployment", "ns", "orders");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)["stateConfigMap"], "");
  EXPECT_TRUE((*d)["points"].empty());
}

TEST(DashboardModelTest, UndecodableHistoryIsReportedNotFatal) {
  ClusterView view;
  view.flink_deployments = {Deployment("orders")};
  Json cm = StateConfigMap("orders", "FlinkDeployment");
  cm["data"]["decisionHistory"] = "not base64 gzip";
  view.state_configmaps = {cm};
  StatusOr<Json> d = BuildJobDetail(view, "FlinkDeployment", "ns", "orders");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE((*d).contains("historyError"));
  EXPECT_TRUE((*d)["points"].empty());
}

TEST(DashboardModelTest, UnknownJobsAndKinds) {
  ClusterView view;
  view.flink_deployments = {Deployment("orders")};
  EXPECT_EQ(BuildJobDetail(view, "FlinkDeployment", "ns", "nope").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(BuildJobDetail(view, "FlinkDeployment", "other", "orders").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(BuildJobDetail(view, "Pod", "ns", "orders").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(DashboardModelTest, SchedulingObjects) {
  ClusterView view;
  view.pod_groups = {{{"metadata", {{"namespace", "ns"}, {"name", "podgroup-orders"}}},
                      {"spec", {{"queue", "q1"}, {"minMember", 3}}},
                      {"status", {{"phase", "Running"}, {"running", 3}}}}};
  view.queues = {{{"metadata", {{"name", "q1"}}},
                  {"spec", {{"weight", 2}}},
                  {"status", {{"state", "Open"}}}}};
  view.hpas = {{{"metadata", {{"namespace", "ns"}, {"name", "web"}}},
                {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}},
                          {"maxReplicas", 5}}},
                {"status", {{"currentReplicas", 2}, {"desiredReplicas", 3},
                            {"conditions", {{{"type", "ScalingLimited"}, {"status", "False"},
                                             {"reason", "DesiredWithinRange"}}}}}}}};
  Json o = BuildOverview(view, FromUnixMillis(0));
  EXPECT_EQ(o["podGroups"][0]["queue"], "q1");
  EXPECT_EQ(o["podGroups"][0]["minMember"], 3);
  EXPECT_EQ(o["queues"][0]["state"], "Open");
  EXPECT_EQ(o["hpas"][0]["target"], "Deployment/web");
  EXPECT_EQ(o["hpas"][0]["desiredReplicas"], 3);
  EXPECT_EQ(o["hpas"][0]["conditions"][0]["reason"], "DesiredWithinRange");
}

}  // namespace
}  // namespace trimtab::dashboard
