// The dashboard's HTTP side (dashboard.h) mounted on an in-process local API server: the page's
// files, the JSON endpoints following the API server through list + watch, the live event
// stream, the security headers and read-only methods.
#include "dashboard/dashboard.h"

#include <gtest/gtest.h>

#include "adapters/http/test_client.h"
#include "adapters/state/configmap_state_store.h"
#include "cluster/apiserver/apiserver_test_util.h"
#include "operator/wiring/bundled_crds.h"

namespace trimtab::dashboard {
namespace {

using namespace std::chrono_literals;
using cluster::testing::Eventually;

class DashboardTest : public cluster::testing::ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    auto kube = kube::KubeClient::Create({.server = server_->url()}, {});
    ASSERT_TRUE(kube.ok());
    kube_ = std::move(kube).value();
    ASSERT_TRUE(op::InstallBundledCrds(*kube_).ok());
    auto dash = Dashboard::Create({.client = kube_.get(),
                                   .min_event_interval = 50ms,
                                   .heartbeat = 1s});
    ASSERT_TRUE(dash.ok()) << dash.status().ToString();
    dash_ = std::move(dash).value();
    server_->Mount("/dashboard",
                   [d = dash_.get()](const http::HttpRequest& r) { return d->Handle(r); });
  }
  void TearDown() override {
    if (dash_) dash_->Stop();
    ApiServerTest::TearDown();
  }

  Json Deployment(const std::string& name) {
    return {{"apiVersion", "flink.apache.org/v1beta1"},
            {"kind", "FlinkDeployment"},
            {"metadata", {{"name", name}}},
            {"spec",
             {{"image", "flink:1.20"},
              {"flinkVersion", "v1_20"},
              {"flinkConfiguration", {{"job.autoscaler.enabled", "true"}}},
              {"jobManager", {{"resources", {{"cpu", 1}, {"memory", "1g"}}}}},
              {"taskManager", {{"resources", {{"cpu", 1}, {"memory", "1g"}}}}},
              {"job", {{"jarURI", "local:///x.jar"}, {"parallelism", 2}}}}}};
  }

  std::unique_ptr<kube::KubeClient> kube_;
  std::unique_ptr<Dashboard> dash_;
};

TEST_F(DashboardTest, ServesThePageWithAStrictContentSecurityPolicy) {
  Reply page = Get("/dashboard/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.headers["Content-Type"], "text/html; charset=utf-8");
  EXPECT_EQ(page.headers["Content-Security-Policy"], kContentSecurityPolicy);
  EXPECT_EQ(page.headers["X-Content-Type-Options"], "nosniff");
  EXPECT_NE(page.raw.find("<script src=\"app.js\""), std::string::npos);
  // No inline script or style in the page: the policy would refuse it.
  EXPECT_EQ(page.raw.find("<script>"), std::string::npos);
  EXPECT_EQ(page.raw.find("style="), std::string::npos);
  Reply js = Get("/dashboard/app.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.headers["Content-Type"], "text/javascript; charset=utf-8");
  // The script never hands data to the HTML parser.
  EXPECT_EQ(js.raw.find("innerHTML"), std::string::npos);
  EXPECT_EQ(js.raw.find("insertAdjacentHTML"), std::string::npos);
  EXPECT_EQ(js.raw.find("document.write"), std::string::npos);
  EXPECT_EQ(Get("/dashboard/app.css").status, 200);
  EXPECT_EQ(Get("/dashboard").status, 301);
  EXPECT_EQ(Get("/dashboard/nope.js").status, 404);
  EXPECT_EQ(Get("/dashboard/%2e%2e/api/v1/pods").status, 404);  // no way out of the prefix
}

TEST_F(DashboardTest, IsReadOnly) {
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
    Reply r = Call(method, "/dashboard/api/overview", Json::object());
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_EQ(r.headers["Allow"], "GET, HEAD");
  }
}

TEST_F(DashboardTest, FollowsTheApiServer) {
  ASSERT_EQ(Post("/apis/flink.apache.org/v1beta1/namespaces/default/flinkdeployments",
                 Deployment("orders")).status, 201);
  Json history = {{"vertexNames", {{"a1", "Source: <b>orders</b>"}}},
                  {"points", {{{"time", "2026-01-01T00:00:00Z"},
                               {"outcome", "NoChange"},
                               {"vertices", {{"a1", {{"parallelism", 2}}}}}}}},
                  {"decisions", Json::array()}};
  auto encoded = adapters::EncodeStateValue(core::StateType::kDecisionHistory, history);
  ASSERT_TRUE(encoded.ok());
  ASSERT_EQ(Post("/api/v1/namespaces/default/configmaps",
                 ConfigMap("autoscaler-orders", {{"component", "autoscaler"}},
                           {{"decisionHistory", *encoded}})).status, 201);
  ASSERT_TRUE(Eventually([&] {
    Reply o = Get("/dashboard/api/overview");
    return o.status == 200 && o.body["jobs"].size() == 1 && o.body["jobs"][0]["name"] == "orders";
  }));
  Reply o = Get("/dashboard/api/overview");
  EXPECT_EQ(o.headers["Cache-Control"], "no-store");
  EXPECT_TRUE(o.body["readable"]["flinkdeployments"]);
  ASSERT_TRUE(Eventually([&] {
    Reply d = Get("/dashboard/api/job?kind=FlinkDeployment&namespace=default&name=orders");
    return d.status == 200 && d.body["points"].size() == 1;
  }));
  Reply d = Get("/dashboard/api/job?kind=FlinkDeployment&namespace=default&name=orders");
  EXPECT_EQ(d.body["vertexNames"]["a1"], "Source: <b>orders</b>");
  EXPECT_EQ(Get("/dashboard/api/job?kind=FlinkDeployment&namespace=default&name=x").status, 404);
  EXPECT_EQ(Get("/dashboard/api/job?kind=Secret&namespace=default&name=x").status, 400);

  // Deleted: gone from the overview.
  ASSERT_EQ(Delete("/apis/flink.apache.org/v1beta1/namespaces/default/flinkdeployments/orders")
                .status / 100, 2);
  EXPECT_TRUE(Eventually([&] {
    Reply o = Get("/dashboard/api/overview");
    for (const Json& j : o.body["jobs"]) {
      if (j["name"] == "orders") return false;
    }
    return o.status == 200;
  }, 20s));
}

TEST_F(DashboardTest, StreamsChanges) {
  http::TestHttpStream events(server_->url() + "/dashboard/api/events");
  ASSERT_EQ(events.status(), 200);
  EXPECT_EQ(events.header("Content-Type"), "text/event-stream");
  auto next_change = [&]() -> std::optional<uint64_t> {
    for (int i = 0; i < 50; ++i) {
      std::optional<std::string> line = events.NextLine(5s);
      if (!line) return std::nullopt;
      if (line->rfind("data: ", 0) == 0) return std::stoull(line->substr(6));
    }
    return std::nullopt;
  };
  std::optional<uint64_t> first = next_change();
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(Post("/apis/flink.apache.org/v1beta1/namespaces/default/flinkdeployments",
                 Deployment("live")).status, 201);
  std::optional<uint64_t> later;
  do {
    later = next_change();
  } while (later && *later == *first);
  ASSERT_TRUE(later.has_value());
  EXPECT_GT(*later, *first);
  events.Abort();
}

}  // namespace
}  // namespace trimtab::dashboard
