// The API server's /metrics (request_metrics.h) and Mount(), over real HTTP.
#include "cluster/apiserver/handlers/request_metrics.h"

#include <gtest/gtest.h>

#include "cluster/apiserver/apiserver_test_util.h"

namespace trimtab::cluster::testing {
namespace {

using namespace std::chrono_literals;

class RequestMetricsTest : public ApiServerTest {
 protected:
  double Value(const std::string& family, const LabelValues& labels) {
    const MetricFamily* f = server_->metrics_registry()->Find(family);
    return f && f->Value(labels) ? *f->Value(labels) : -1;
  }
};

TEST_F(RequestMetricsTest, CountsRequestsByVerbResourceAndCode) {
  ASSERT_EQ(Post("/api/v1/namespaces/default/configmaps", ConfigMap("a")).status, 201);
  ASSERT_EQ(Post("/api/v1/namespaces/default/configmaps", ConfigMap("a")).status, 409);
  ASSERT_EQ(Get("/api/v1/namespaces/default/configmaps/a").status, 200);
  ASSERT_EQ(Get("/api/v1/namespaces/default/configmaps/b").status, 404);
  ASSERT_EQ(Get("/api/v1/namespaces/default/configmaps").status, 200);
  ASSERT_EQ(Get("/apis/apps/v1/deployments").status, 200);
  ASSERT_EQ(Delete("/api/v1/namespaces/default/configmaps").status, 200);

  EXPECT_EQ(Value("apiserver_request_total", {"POST", "", "v1", "configmaps", "", "201"}), 1);
  EXPECT_EQ(Value("apiserver_request_total", {"POST", "", "v1", "configmaps", "", "409"}), 1);
  EXPECT_EQ(Value("apiserver_request_total", {"GET", "", "v1", "configmaps", "", "404"}), 1);
  EXPECT_EQ(Value("apiserver_request_total", {"LIST", "", "v1", "configmaps", "", "200"}), 1);
  EXPECT_EQ(Value("apiserver_request_total", {"LIST", "apps", "v1", "deployments", "", "200"}), 1);
  EXPECT_EQ(
      Value("apiserver_request_total", {"DELETECOLLECTION", "", "v1", "configmaps", "", "200"}),
      1);
  EXPECT_EQ(server_->metrics_registry()
                ->Find("apiserver_request_duration_seconds")
                ->Count({"POST", "", "v1", "configmaps", ""}),
            2u);
  EXPECT_GE(server_->metrics_registry()
                ->Find("etcd_request_duration_seconds")
                ->Count({"create", "configmaps"}),
            1u);

  Reply scraped = Get("/metrics");
  EXPECT_EQ(scraped.status, 200);
  EXPECT_EQ(scraped.headers["Content-Type"], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(scraped.raw.find("apiserver_request_total{verb=\"POST\",group=\"\",version=\"v1\","
                             "resource=\"configmaps\",subresource=\"\",code=\"201\"} 1\n"),
            std::string::npos);
  EXPECT_NE(scraped.raw.find("etcd_request_duration_seconds_bucket{operation=\"create\","
                             "type=\"configmaps\",le=\"+Inf\"}"),
            std::string::npos);
  // No names, namespaces or users in any label.
  EXPECT_EQ(scraped.raw.find("default"), std::string::npos);
}

TEST_F(RequestMetricsTest, WatchesAreOpenWhileTheyStreamAndCountTheirEvents) {
  const LabelValues open = {"WATCH", "", "v1", "configmaps"};
  {
    http::TestHttpStream watch(server_->url() +
                               "/api/v1/namespaces/default/configmaps?watch=true");
    ASSERT_EQ(watch.status(), 200);
    EXPECT_TRUE(Eventually([&] { return Value("apiserver_longrunning_requests", open) == 1; }));
    ASSERT_EQ(Post("/api/v1/namespaces/default/configmaps", ConfigMap("w")).status, 201);
    ASSERT_TRUE(watch.NextLine(5s));
    EXPECT_GE(Value("apiserver_watch_events_total", {"", "v1", "configmaps"}), 1);
    watch.Abort();
  }
  EXPECT_TRUE(Eventually([&] { return Value("apiserver_longrunning_requests", open) == 0; }));
  EXPECT_EQ(Value("apiserver_request_total", {"WATCH", "", "v1", "configmaps", "", "200"}), 1);
}

TEST_F(RequestMetricsTest, MountedPrefixesServeInsteadOfTheApi) {
  server_->Mount("/dashboard/", [](const http::HttpRequest& r) {
    return http::HttpResponse::Text(200, "dash " + r.path);
  });
  EXPECT_EQ(Get("/dashboard/").raw, "dash /dashboard/");
  EXPECT_EQ(Get("/dashboard/app.js").raw, "dash /dashboard/app.js");
  EXPECT_EQ(Get("/dashboard").raw, "dash /dashboard");
  EXPECT_EQ(Get("/dashboardx").status, 404);
  EXPECT_EQ(Value("apiserver_request_total", {"GET", "", "", "", "", "200"}), 3);
}

TEST(RequestMetricsNamesTest, StorageTypes) {
  EXPECT_EQ(ApiServerMetrics::StorageType("/registry/core/pods/ns/p"), "pods");
  EXPECT_EQ(ApiServerMetrics::StorageType("/registry/apps/deployments/ns/d"), "deployments.apps");
  EXPECT_EQ(ApiServerMetrics::StorageType("/registry/apps/deployments/"), "deployments.apps");
  EXPECT_EQ(ApiServerMetrics::StorageType("other"), "");
}

}  // namespace
}  // namespace trimtab::cluster::testing
