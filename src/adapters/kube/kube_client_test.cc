#include "adapters/kube/kube_client.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/kube/api_errors.h"
#include "adapters/kube/client_metrics.h"
#include "tests/support/fake_kube_server.h"

namespace trimtab::kube {
namespace {

using testing::FakeKubeServer;

TEST(ResourcePathTest, CoreGroupAndNamedGroups) {
  EXPECT_EQ(CollectionPath(PodsResource(), "ns1"), "/api/v1/namespaces/ns1/pods");
  EXPECT_EQ(CollectionPath(PodsResource(), ""), "/api/v1/pods");
  EXPECT_EQ(ItemPath(PodsResource(), "ns1", "web-0", "status"),
            "/api/v1/namespaces/ns1/pods/web-0/status");
  EXPECT_EQ(ItemPath(LeasesResource(), "kube-system", "lock"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/lock");
  const GroupVersionResource nodes{.version = "v1", .resource = "nodes", .namespaced = false};
  EXPECT_EQ(ItemPath(nodes, "ignored", "n1"), "/api/v1/nodes/n1");
  const GroupVersionResource fd{.group = "flink.apache.org", .version = "v1beta1",
                                .resource = "flinkdeployments"};
  EXPECT_EQ(fd.ApiVersion(), "flink.apache.org/v1beta1");
  EXPECT_EQ(fd.String(), "flinkdeployments.flink.apache.org");
  EXPECT_EQ(ObjectKey("ns", "n"), "ns/n");
  EXPECT_EQ(ObjectKey("", "n"), "n");
  EXPECT_EQ(SplitObjectKey("ns/n"), std::make_pair(std::string("ns"), std::string("n")));
  EXPECT_EQ(SplitObjectKey("n"), std::make_pair(std::string(""), std::string("n")));
}

TEST(ListQueryTest, SelectorsPagingAndWatchParameters) {
  EXPECT_EQ(KubeClient::ListQuery({}, false), "");
  EXPECT_EQ(KubeClient::ListQuery({.label_selector = "app=web,tier in (a,b)",
                                   .field_selector = "metadata.name=x",
                                   .limit = 50,
                                   .continue_token = "tok/en="},
                                  false),
            "?labelSelector=app%3Dweb%2Ctier%20in%20%28a%2Cb%29&fieldSelector=metadata.name%3Dx"
            "&limit=50&continue=tok%2Fen%3D");
  EXPECT_EQ(KubeClient::ListQuery({.limit = 50,
                                   .resource_version = "123",
                                   .timeout_seconds = 300,
                                   .allow_watch_bookmarks = true},
                                  true),
            "?watch=true&resourceVersion=123&timeoutSeconds=300&allowWatchBookmarks=true");
}

TEST(ApiErrorsTest, MapsStatusBodies) {
  auto status = [](int code, const char* reason, const char* message) {
    return Json({{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                 {"message", message}, {"reason", reason}, {"code", code}})
        .dump();
  };
  Status nf = StatusFromResponse(404, status(404, "NotFound", "pods \"x\" not found"), "GET /p");
  EXPECT_EQ(nf.code(), StatusCode::kNotFound);
  EXPECT_EQ(nf.message(), "GET /p: pods \"x\" not found (NotFound, HTTP 404)");
  EXPECT_EQ(StatusFromResponse(409, status(409, "AlreadyExists", "exists"), "op").code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(StatusFromResponse(409, status(409, "Conflict", "modified"), "op").code(),
            StatusCode::kConflict);
  EXPECT_EQ(StatusFromResponse(422, status(422, "Invalid", "bad"), "op").code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusFromResponse(403, status(403, "Forbidden", "no"), "op").code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(StatusFromResponse(503, "upstream connect error", "op").code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(StatusFromResponse(429, status(429, "TooManyRequests", "slow down"), "op").code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(StatusFromResponse(504, status(504, "Timeout", "timed out"), "op").code(),
            StatusCode::kDeadlineExceeded);
  EXPECT_EQ(StatusFromResponse(500, status(500, "ServerTimeout", "later"), "op").code(),
            StatusCode::kDeadlineExceeded);
  const Status gone = StatusFromResponse(410, status(410, "Expired", "too old"), "op");
  EXPECT_EQ(gone.code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(IsExpired(gone));
  EXPECT_FALSE(IsExpired(nf));
  const ApiStatus raw = ParseApiStatus(502, "Bad Gateway\n");
  EXPECT_EQ(raw.code, 502);
  EXPECT_EQ(raw.message, "Bad Gateway");
}

class KubeClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = FakeKubeServer::Create();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = KubeClient::Create({.server = server_->base_url(), .bearer_token = "t0k"}, {});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }

  static Json Pod(const std::string& name, const std::string& app) {
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
            {"spec", {{"nodeName", "n1"}}}};
  }

  std::unique_ptr<FakeKubeServer> server_;
  std::unique_ptr<KubeClient> client_;
};

TEST_F(KubeClientTest, CreateGetUpdateConflictDelete) {
  StatusOr<Json> created = client_->Create(PodsResource(), "ns1", Pod("web-0", "web"),
                                           {.field_manager = "trimtab"});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(ObjectNamespace(*created), "ns1");
  const std::string rv1 = ObjectResourceVersion(*created);
  EXPECT_FALSE(rv1.empty());

  StatusOr<Json> dup = client_->Create(PodsResource(), "ns1", Pod("web-0", "web"));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);

  StatusOr<Json> got = client_->Get(PodsResource(), "ns1", "web-0");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["spec"]["nodeName"], "n1");

  Json changed = *got;
  changed["spec"]["nodeName"] = "n2";
  StatusOr<Json> updated = client_->Update(PodsResource(), changed);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_NE(ObjectResourceVersion(*updated), rv1);

  StatusOr<Json> stale = client_->Update(PodsResource(), changed);  // rv1 again
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);
  EXPECT_NE(stale.status().message().find("the object has been modified"), std::string::npos);

  Json with_status = *updated;
  with_status["status"] = {{"phase", "Running"}};
  StatusOr<Json> status_updated = client_->UpdateStatus(PodsResource(), with_status);
  ASSERT_TRUE(status_updated.ok()) << status_updated.status().ToString();
  EXPECT_EQ((*status_updated)["status"]["phase"], "Running");

  EXPECT_EQ(client_->Delete(PodsResource(), "ns1", "web-0",
                            {.precondition_resource_version = "1"})
                .code(),
            StatusCode::kConflict);
  EXPECT_TRUE(client_->Delete(PodsResource(), "ns1", "web-0",
                              {.propagation = PropagationPolicy::kBackground})
                  .ok());
  StatusOr<Json> missing = client_->Get(PodsResource(), "ns1", "web-0");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "GET /api/v1/namespaces/ns1/pods/web-0: pods \"web-0\" not found (NotFound, HTTP 404)");

  const std::vector<std::string> requests = server_->Requests();
  EXPECT_EQ(requests.front(), "POST /api/v1/namespaces/ns1/pods?fieldManager=trimtab");
  EXPECT_NE(std::find(requests.begin(), requests.end(),
                      "PUT /api/v1/namespaces/ns1/pods/web-0/status"),
            requests.end());
}

TEST_F(KubeClientTest, MetricsHookCountsVerbsCodesAndFailures) {
  MetricsRegistry metrics;
  auto client = KubeClient::Create({.server = server_->base_url()},
                                   {.on_request = KubeClientMetricsHook(&metrics)});
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Create(PodsResource(), "ns1", Pod("m", "web")).ok());
  ASSERT_TRUE((*client)->Get(PodsResource(), "ns1", "m").ok());
  ASSERT_FALSE((*client)->Get(PodsResource(), "ns1", "absent").ok());
  ASSERT_TRUE((*client)->List(PodsResource(), "ns1", {}).ok());
  const MetricFamily* responses = metrics.Find("flink_k8soperator_KubeClient_HttpResponse_Count");
  ASSERT_NE(responses, nullptr);
  EXPECT_EQ(responses->Value({"create", "201"}), 1);
  EXPECT_EQ(responses->Value({"get", "200"}), 1);
  EXPECT_EQ(responses->Value({"get", "404"}), 1);
  EXPECT_EQ(responses->Value({"list", "200"}), 1);
  EXPECT_EQ(metrics.Find("flink_k8soperator_KubeClient_HttpRequest_Count")->Value({"get"}), 2);
  EXPECT_EQ(
      metrics.Find("flink_k8soperator_KubeClient_HttpResponse_TimeSeconds")->Count({"get"}), 2u);

  // Nobody listens on the port of a stopped server: a request without a response.
  const std::string url = server_->base_url();
  server_.reset();
  auto gone = KubeClient::Create({.server = url}, {.request_timeout = std::chrono::milliseconds(500),
                                                   .on_request = KubeClientMetricsHook(&metrics)});
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE((*gone)->Get(PodsResource(), "ns1", "m").ok());
  EXPECT_EQ(
      metrics.Find("flink_k8soperator_KubeClient_HttpRequest_Failed_Count")->Value({"get"}), 1);
}

// Issue 26: the client's series carry only verbs and codes, never the credentials, the server's
// address, a namespace or a name from the requests.
TEST_F(KubeClientTest, MetricsExposeNoSecretsOrNames) {
  MetricsRegistry metrics;
  auto client = KubeClient::Create(
      {.server = server_->base_url(), .bearer_token = "s3cr3t-t0ken"},
      {.on_request = KubeClientMetricsHook(&metrics)});
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Create(PodsResource(), "ns-private", Pod("pod-private", "web")).ok());
  ASSERT_FALSE((*client)->Get(PodsResource(), "ns-private", "absent-private").ok());
  const std::string text = metrics.Render();
  ASSERT_NE(text.find("flink_k8soperator_KubeClient_HttpResponse_Count"), std::string::npos);
  for (const std::string& secret : {std::string("s3cr3t"), std::string("private"),
                                     std::string("Bearer"), server_->base_url()}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in\n" << text;
  }
}

TEST_F(KubeClientTest, PatchTypes) {
  ASSERT_TRUE(client_->Create(PodsResource(), "ns1", Pod("p", "web")).ok());
  StatusOr<Json> merged = client_->Patch(PodsResource(), "ns1", "p", PatchType::kMerge,
                                         R"({"metadata":{"labels":{"tier":"a","app":null}}})");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ((*merged)["metadata"]["labels"], Json({{"tier", "a"}}));

  StatusOr<Json> jp = client_->Patch(PodsResource(), "ns1", "p", PatchType::kJson,
                                     R"([{"op":"replace","path":"/spec/nodeName","value":"n9"}])");
  ASSERT_TRUE(jp.ok()) << jp.status().ToString();
  EXPECT_EQ((*jp)["spec"]["nodeName"], "n9");

  StatusOr<Json> failed_test = client_->Patch(
      PodsResource(), "ns1", "p", PatchType::kJson,
      R"([{"op":"test","path":"/spec/nodeName","value":"other"}])");
  ASSERT_FALSE(failed_test.ok());
  EXPECT_EQ(failed_test.status().code(), StatusCode::kInvalidArgument);

  StatusOr<Json> apply_without_manager =
      client_->Patch(PodsResource(), "ns1", "p", PatchType::kApply, "{}");
  EXPECT_EQ(apply_without_manager.status().code(), StatusCode::kInvalidArgument);
  StatusOr<Json> apply = client_->Patch(PodsResource(), "ns1", "p", PatchType::kApply, "{}",
                                        {.field_manager = "trimtab", .force = true});
  EXPECT_EQ(apply.status().code(), StatusCode::kInvalidArgument);  // the fake answers 415
  const std::vector<std::string> requests = server_->Requests();
  EXPECT_EQ(requests.back(),
            "PATCH /api/v1/namespaces/ns1/pods/p?fieldManager=trimtab&force=true");
}

TEST_F(KubeClientTest, ListPagesAndSelectors) {
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(
        client_->Create(PodsResource(), "ns1", Pod("p" + std::to_string(i), i % 2 ? "a" : "b"))
            .ok());
  }
  ASSERT_TRUE(client_->Create(PodsResource(), "ns2", Pod("other", "a")).ok());

  StatusOr<Json> page = client_->ListPage(PodsResource(), "ns1", {.limit = 3});
  ASSERT_TRUE(page.ok());
  EXPECT_EQ((*page)["items"].size(), 3u);
  EXPECT_FALSE((*page)["metadata"].value("continue", "").empty());

  StatusOr<std::vector<Json>> all = client_->List(PodsResource(), "ns1", {});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 7u);

  StatusOr<std::vector<Json>> everywhere = client_->List(PodsResource(), "", {});
  ASSERT_TRUE(everywhere.ok());
  EXPECT_EQ(everywhere->size(), 8u);
  EXPECT_EQ(ObjectKey(everywhere->front()), "ns1/p0");
  EXPECT_EQ(ObjectKey(everywhere->back()), "ns2/other");

  StatusOr<std::vector<Json>> app_a = client_->List(
      PodsResource(), "", {.labels = *LabelSelector::Parse("app=a"),
                           .fields = *FieldSelector::Parse("metadata.name!=other")});
  ASSERT_TRUE(app_a.ok());
  ASSERT_EQ(app_a->size(), 3u);
  for (const Json& p : *app_a) EXPECT_EQ(ObjectLabels(p).at("app"), "a");

  bool saw_selector_query = false;
  for (const std::string& r : server_->Requests()) {
    if (r == "GET /api/v1/pods?labelSelector=app%3Da&fieldSelector=metadata.name%21%3Dother&"
             "limit=500") {
      saw_selector_query = true;
    }
  }
  EXPECT_TRUE(saw_selector_query);
  EXPECT_TRUE(client_->List(PodsResource(), "", {.labels = LabelSelector::Nothing()})->empty());
}

TEST_F(KubeClientTest, WatchDeliversEventsAndErrors) {
  ASSERT_TRUE(client_->Create(PodsResource(), "ns1", Pod("a", "x")).ok());
  StatusOr<Json> list = client_->ListPage(PodsResource(), "ns1", {});
  ASSERT_TRUE(list.ok());
  const std::string rv = (*list)["metadata"]["resourceVersion"];
  ASSERT_TRUE(client_->Create(PodsResource(), "ns1", Pod("b", "x")).ok());
  ASSERT_TRUE(client_->Delete(PodsResource(), "ns1", "a").ok());

  std::vector<std::string> seen;
  const Status s = client_->Watch(PodsResource(), "ns1", {.resource_version = rv},
                                  [&](const WatchEvent& e) {
                                    seen.push_back(e.type + " " + ObjectName(*e.object));
                                    return seen.size() < 2;
                                  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED b", "DELETED a"}));

  server_->FailNext("GET", "/api/v1/namespaces/ns1/pods", 410, "Gone");
  const Status gone = client_->Watch(PodsResource(), "ns1", {.resource_version = rv},
                                     [](const WatchEvent&) { return true; });
  EXPECT_TRUE(IsExpired(gone)) << gone.ToString();

  server_->CompactHistory();
  std::string error_reason;
  const Status expired = client_->Watch(PodsResource(), "ns1", {.resource_version = rv},
                                        [&](const WatchEvent& e) {
                                          if (e.type == "ERROR") {
                                            error_reason = (*e.object)["reason"];
                                          }
                                          return true;
                                        });
  EXPECT_TRUE(expired.ok()) << expired.ToString();  // the stream ended after the ERROR event
  EXPECT_EQ(error_reason, "Expired");
}

TEST_F(KubeClientTest, TransportAndServerErrors) {
  server_->FailNext("GET", "/api/v1", 503, "ServiceUnavailable");
  StatusOr<Json> unavailable = client_->Get(PodsResource(), "ns1", "x");
  EXPECT_EQ(unavailable.status().code(), StatusCode::kUnavailable);

  auto dead = KubeClient::Create({.server = "http://127.0.0.1:1"}, {});
  ASSERT_TRUE(dead.ok());
  EXPECT_EQ((*dead)->Get(PodsResource(), "ns1", "x").status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(KubeClient::Create({}, {}).ok());
}

TEST(KubeClientTokenTest, ReloadsTokenFile) {
  auto server = FakeKubeServer::Create();
  ASSERT_TRUE(server.ok());
  const std::string token_file =
      (std::filesystem::temp_directory_path() / "trimtab-kube-client-token").string();
  std::ofstream(token_file) << "first";
  ManualClock clock(TimePoint{} + std::chrono::hours(1));
  auto client = KubeClient::Create({.server = (*server)->base_url(), .bearer_token = "first",
                                    .bearer_token_file = token_file},
                                   {.clock = &clock});
  ASSERT_TRUE(client.ok());
  std::ofstream(token_file) << "second";
  ASSERT_TRUE((*client)->Raw({.url = "/version"}).ok());
  EXPECT_EQ((*server)->LastAuthorization(), "Bearer first");  // not re-read yet
  clock.Advance(std::chrono::seconds(61));
  ASSERT_TRUE((*client)->Get(PodsResource(), "ns", "x").status().code() == StatusCode::kNotFound);
  EXPECT_EQ((*server)->LastAuthorization(), "Bearer second");
  ASSERT_TRUE((*client)->Raw({.url = "/version", .headers = {{"Authorization", "Basic x"}}}).ok());
  EXPECT_EQ((*server)->LastAuthorization(), "Basic x");
  std::filesystem::remove(token_file);
}

}  // namespace
}  // namespace trimtab::kube
