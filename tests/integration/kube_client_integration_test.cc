// The Kubernetes client stack (KubeClient, Informer, LeaderElector) against the real local API
// server (in-memory store, loopback port 0), as controller-runtime's envtest runs controllers
// against a real control plane.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/kube/api_errors.h"
#include "adapters/kube/informer.h"
#include "adapters/kube/kube_client.h"
#include "adapters/kube/leader_election.h"
#include "cluster/apiserver/apiserver.h"

namespace trimtab::kube {
namespace {

using namespace std::chrono_literals;

template <typename Pred>
bool Eventually(Pred pred, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return pred();
}

Json ConfigMap(const std::string& name, const std::string& app) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
          {"data", {{"k", "v"}}}};
}

class KubeClientIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = cluster::ApiServer::Create({.port = 0});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = KubeClient::Create({.server = server_->url()}, {});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
  }

  std::unique_ptr<cluster::ApiServer> server_;
  std::unique_ptr<KubeClient> client_;
};

TEST_F(KubeClientIntegrationTest, CrudConflictsAndErrors) {
  StatusOr<Json> created = client_->Create(ConfigMapsResource(), "default", ConfigMap("a", "x"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_FALSE(ObjectUid(*created).empty());

  StatusOr<Json> dup = client_->Create(ConfigMapsResource(), "default", ConfigMap("a", "x"));
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists) << dup.status().ToString();

  Json changed = *created;
  changed["data"]["k"] = "v2";
  StatusOr<Json> updated = client_->Update(ConfigMapsResource(), changed);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  StatusOr<Json> stale = client_->Update(ConfigMapsResource(), changed);
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict) << stale.status().ToString();

  StatusOr<Json> patched = client_->Patch(ConfigMapsResource(), "default", "a", PatchType::kMerge,
                                          R"({"data":{"extra":"1"}})");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((*patched)["data"]["extra"], "1");
  StatusOr<Json> smp = client_->Patch(ConfigMapsResource(), "default", "a",
                                      PatchType::kStrategic, R"({"data":{"smp":"2"}})");
  ASSERT_TRUE(smp.ok()) << smp.status().ToString();
  EXPECT_EQ((*smp)["data"]["smp"], "2");

  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(client_->Create(ConfigMapsResource(), "default",
                                ConfigMap("p" + std::to_string(i), i % 2 ? "odd" : "even"))
                    .ok());
  }
  StatusOr<Json> page = client_->ListPage(ConfigMapsResource(), "default", {.limit = 2});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ((*page)["items"].size(), 2u);
  EXPECT_FALSE((*page)["metadata"].value("continue", "").empty());
  StatusOr<std::vector<Json>> odd = client_->List(
      ConfigMapsResource(), "default", {.labels = *LabelSelector::Parse("app in (odd)")});
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_EQ(odd->size(), 2u);
  StatusOr<std::vector<Json>> by_name = client_->List(
      ConfigMapsResource(), "default", {.fields = *FieldSelector::Parse("metadata.name=p3")});
  ASSERT_TRUE(by_name.ok()) << by_name.status().ToString();
  ASSERT_EQ(by_name->size(), 1u);
  EXPECT_EQ(ObjectName(by_name->front()), "p3");

  EXPECT_TRUE(client_->Delete(ConfigMapsResource(), "default", "a",
                              {.propagation = PropagationPolicy::kBackground})
                  .ok());
  StatusOr<Json> gone = client_->Get(ConfigMapsResource(), "default", "a");
  EXPECT_EQ(gone.status().code(), StatusCode::kNotFound) << gone.status().ToString();
  StatusOr<Json> no_ns = client_->Create(ConfigMapsResource(), "missing-ns", ConfigMap("z", "x"));
  EXPECT_EQ(no_ns.status().code(), StatusCode::kNotFound) << no_ns.status().ToString();
}

TEST_F(KubeClientIntegrationTest, InformerFollowsTheServer) {
  ASSERT_TRUE(client_->Create(ConfigMapsResource(), "default", ConfigMap("seed", "x")).ok());
  std::mutex mu;
  std::vector<std::string> events;
  auto informer = Informer::Create(client_.get(), {.gvr = ConfigMapsResource(),
                                                   .namespace_name = "default",
                                                   .page_size = 1,
                                                   .jitter = false});
  ASSERT_TRUE(informer.ok()) << informer.status().ToString();
  (*informer)->AddEventHandler(
      {.on_add = [&](const Json& o) {
         std::lock_guard<std::mutex> lock(mu);
         events.push_back("add " + ObjectName(o));
       },
       .on_update = [&](const Json&, const Json& o) {
         std::lock_guard<std::mutex> lock(mu);
         events.push_back("update " + ObjectName(o));
       },
       .on_delete = [&](const Json& o) {
         std::lock_guard<std::mutex> lock(mu);
         events.push_back("delete " + ObjectName(o));
       }});
  std::thread runner([&] { (*informer)->Run(); });
  EXPECT_TRUE((*informer)->WaitForSync(10s));
  ASSERT_TRUE(client_->Create(ConfigMapsResource(), "default", ConfigMap("live", "x")).ok());
  ASSERT_TRUE(client_->Patch(ConfigMapsResource(), "default", "seed", PatchType::kMerge,
                             R"({"data":{"k":"changed"}})")
                  .ok());
  ASSERT_TRUE(client_->Delete(ConfigMapsResource(), "default", "live").ok());
  const bool saw_all = Eventually([&] {
    std::lock_guard<std::mutex> lock(mu);
    return std::find(events.begin(), events.end(), "delete live") != events.end();
  });
  (*informer)->Stop();
  runner.join();
  ASSERT_TRUE(saw_all);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(events, (std::vector<std::string>{"add seed", "add live", "update seed",
                                              "delete live"}));
  StatusOr<Json> seed = (*informer)->store().Get(ConfigMapsResource(), "default", "seed");
  ASSERT_TRUE(seed.ok());
  EXPECT_EQ((*seed)["data"]["k"], "changed");
}

TEST_F(KubeClientIntegrationTest, LeaderElectionOnLeases) {
  ManualClock clock(TimePoint{} + std::chrono::hours(24 * 365 * 54));
  auto make = [&](const std::string& id) {
    auto e = LeaderElector::Create(client_.get(), {.lease_namespace = "kube-system",
                                                   .lease_name = "trimtab",
                                                   .identity = id,
                                                   .clock = &clock,
                                                   .jitter = false});
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return std::move(e).value();
  };
  auto a = make("a");
  auto b = make("b");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  EXPECT_FALSE(b->TryAcquireOrRenew());
  clock.Advance(16s);
  ASSERT_TRUE(b->TryAcquireOrRenew());
  StatusOr<Json> lease = client_->Get(LeasesResource(), "kube-system", "trimtab");
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], "b");
  EXPECT_EQ((*lease)["spec"]["leaseTransitions"], 1);
  EXPECT_EQ((*lease)["spec"]["leaseDurationSeconds"], 15);
  EXPECT_FALSE(a->TryAcquireOrRenew());
}

}  // namespace
}  // namespace trimtab::kube
