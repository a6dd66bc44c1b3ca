#include "adapters/kube/informer.h"

#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/fake_kube_server.h"

namespace trimtab::kube {
namespace {

using namespace std::chrono_literals;
using testing::FakeKubeServer;

// Polls `pred` (real time, bounded) for conditions produced by other threads.
template <typename Pred>
bool Eventually(Pred pred, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return pred();
}

Json Pod(const std::string& name, const std::string& app) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
          {"spec", {{"nodeName", "n1"}}}};
}

class Recorder {
 public:
  EventHandler Handler() {
    return {.on_add = [this](const Json& o) { Push("add " + ObjectKey(o)); },
            .on_update =
                [this](const Json& old_obj, const Json& new_obj) {
                  Push((ObjectResourceVersion(old_obj) == ObjectResourceVersion(new_obj)
                            ? "resync "
                            : "update ") +
                       ObjectKey(new_obj));
                },
            .on_delete = [this](const Json& o) { Push("delete " + ObjectKey(o)); }};
  }
  std::vector<std::string> Events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }
  size_t Count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_.size();
  }
  bool Saw(const std::string& e) const {
    std::lock_guard<std::mutex> lock(mu_);
    return std::find(events_.begin(), events_.end(), e) != events_.end();
  }

 private:
  void Push(std::string e) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(e));
  }
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

class InformerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = FakeKubeServer::Create();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = KubeClient::Create({.server = server_->base_url()}, {});
    ASSERT_TRUE(client.ok());
    client_ = std::move(client).value();
  }

  void TearDown() override {
    if (informer_) informer_->Stop();
    if (runner_.joinable()) runner_.join();
  }

  void Start(InformerOptions options) {
    options.clock = &clock_;
    options.jitter = false;
    options.poll_interval = 2ms;
    auto informer = Informer::Create(client_.get(), std::move(options));
    ASSERT_TRUE(informer.ok()) << informer.status().ToString();
    informer_ = std::move(informer).value();
    informer_->AddEventHandler(recorder_.Handler());
    runner_ = std::thread([this] { informer_->Run(); });
    ASSERT_TRUE(informer_->WaitForSync(10s));
  }

  void Seed(const std::string& ns, const Json& pod) {
    server_->Seed("/api/v1/namespaces/" + ns + "/pods", pod);
  }

  ManualClock clock_{TimePoint{} + std::chrono::hours(1)};
  std::unique_ptr<FakeKubeServer> server_;
  std::unique_ptr<KubeClient> client_;
  std::unique_ptr<Informer> informer_;
  std::thread runner_;
  Recorder recorder_;
};

TEST_F(InformerTest, ListsInPagesThenWatches) {
  for (int i = 0; i < 5; ++i) Seed("ns1", Pod("p" + std::to_string(i), "web"));
  Seed("ns2", Pod("elsewhere", "web"));
  Start({.gvr = PodsResource(), .namespace_name = "ns1", .page_size = 2});
  EXPECT_EQ(informer_->store().Size(), 5u);
  EXPECT_EQ(recorder_.Count(), 5u);
  EXPECT_TRUE(recorder_.Saw("add ns1/p4"));
  EXPECT_EQ(informer_->ListCount(), 1);
  size_t pages = 0;
  for (const std::string& r : server_->Requests()) {
    if (r.starts_with("GET /api/v1/namespaces/ns1/pods?limit=2")) ++pages;
  }
  EXPECT_EQ(pages, 3u);

  ASSERT_TRUE(Eventually([&] { return server_->OpenWatchCount() == 1; }));
  ASSERT_TRUE(client_->Create(PodsResource(), "ns1", Pod("new", "web")).ok());
  ASSERT_TRUE(client_->Patch(PodsResource(), "ns1", "p0", PatchType::kMerge,
                             R"({"spec":{"nodeName":"n7"}})")
                  .ok());
  ASSERT_TRUE(client_->Delete(PodsResource(), "ns1", "p1").ok());
  ASSERT_TRUE(Eventually([&] { return recorder_.Saw("delete ns1/p1"); }));
  EXPECT_TRUE(recorder_.Saw("add ns1/new"));
  EXPECT_TRUE(recorder_.Saw("update ns1/p0"));
  EXPECT_EQ(informer_->store().Size(), 5u);
  StatusOr<Json> p0 = informer_->store().Get(PodsResource(), "ns1", "p0");
  ASSERT_TRUE(p0.ok());
  EXPECT_EQ((*p0)["spec"]["nodeName"], "n7");
  EXPECT_EQ(informer_->LastResourceVersion(), std::to_string(server_->CurrentResourceVersion()));

  std::string watch_request;
  for (const std::string& r : server_->Requests()) {
    if (r.find("watch=true") != std::string::npos) watch_request = r;
  }
  EXPECT_TRUE(watch_request.starts_with("GET /api/v1/namespaces/ns1/pods?watch=true&"))
      << watch_request;
  EXPECT_NE(watch_request.find("watch=true"), std::string::npos);
  EXPECT_NE(watch_request.find("allowWatchBookmarks=true"), std::string::npos);
  EXPECT_NE(watch_request.find("timeoutSeconds="), std::string::npos);
}

TEST_F(InformerTest, RewatchesAfterDisconnectWithoutRelisting) {
  Seed("ns1", Pod("a", "web"));
  Start({.gvr = PodsResource(), .namespace_name = "ns1"});
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatchCount() == 1; }));
  server_->CloseWatches();
  // Changes while no watch is open are replayed from the last resourceVersion.
  ASSERT_TRUE(client_->Create(PodsResource(), "ns1", Pod("b", "web")).ok());
  ASSERT_TRUE(Eventually([&] { return recorder_.Saw("add ns1/b"); }));
  EXPECT_EQ(informer_->ListCount(), 1);
  EXPECT_GE(informer_->WatchCount(), 2);
}

TEST_F(InformerTest, RelistsWhenResourceVersionIsTooOld) {
  Seed("ns1", Pod("a", "web"));
  Seed("ns1", Pod("b", "web"));
  Start({.gvr = PodsResource(), .namespace_name = "ns1"});
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatchCount() == 1; }));
  // Fail the next watch attempt so the deletion below happens while nothing watches.
  server_->FailNext("GET", "/api/v1/namespaces/ns1/pods", 500, "InternalError", 1);
  server_->CloseWatches();
  ASSERT_TRUE(Eventually([&] { return informer_->BackingOffForTest(); }));
  ASSERT_TRUE(client_->Delete(PodsResource(), "ns1", "a").ok());
  server_->CompactHistory();  // the informer's resourceVersion is now too old
  clock_.Advance(800ms);       // the backoff after the 500
  ASSERT_TRUE(Eventually([&] { return recorder_.Saw("delete ns1/a"); }));
  EXPECT_EQ(informer_->ListCount(), 2);
  EXPECT_EQ(informer_->store().Size(), 1u);
  EXPECT_FALSE(informer_->store().GetByKey("ns1/a").has_value());
}

TEST_F(InformerTest, BacksOffOnWatchFailuresOnTheClock) {
  Start({.gvr = PodsResource(), .namespace_name = "ns1"});
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatchCount() == 1; }));
  server_->FailNext("GET", "/api/v1/namespaces/ns1/pods", 500, "InternalError", 2);
  server_->CloseWatches();
  // Watch 2 fails: 800 ms backoff.
  ASSERT_TRUE(Eventually([&] { return informer_->BackingOffForTest(); }));
  EXPECT_EQ(informer_->WatchCount(), 2);
  clock_.Advance(799ms);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(informer_->WatchCount(), 2);  // still waiting
  clock_.Advance(1ms);
  // Watch 3 fails: 1600 ms backoff.
  ASSERT_TRUE(Eventually([&] {
    return informer_->WatchCount() == 3 && informer_->BackingOffForTest();
  }));
  clock_.Advance(1599ms);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(informer_->WatchCount(), 3);
  clock_.Advance(1ms);
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatchCount() == 1; }));
  ASSERT_TRUE(client_->Create(PodsResource(), "ns1", Pod("late", "web")).ok());
  ASSERT_TRUE(Eventually([&] { return recorder_.Saw("add ns1/late"); }));
}

TEST_F(InformerTest, BookmarksAdvanceResourceVersion) {
  Start({.gvr = PodsResource(), .namespace_name = "ns1"});
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatchCount() == 1; }));
  ASSERT_TRUE(client_->Create(PodsResource(), "other", Pod("x", "web")).ok());  // not watched
  const std::string before = informer_->LastResourceVersion();
  server_->SendBookmarks();
  const std::string want = std::to_string(server_->CurrentResourceVersion());
  ASSERT_TRUE(Eventually([&] { return informer_->LastResourceVersion() == want; }));
  EXPECT_NE(before, want);
  EXPECT_EQ(recorder_.Count(), 0u);
}

TEST_F(InformerTest, ResyncCallsUpdateForEveryObject) {
  Seed("ns1", Pod("a", "web"));
  Seed("ns1", Pod("b", "web"));
  Start({.gvr = PodsResource(), .namespace_name = "ns1", .resync_period = 30s});
  EXPECT_EQ(recorder_.Count(), 2u);
  clock_.Advance(30s);
  ASSERT_TRUE(Eventually([&] { return recorder_.Count() == 4u; }));
  EXPECT_TRUE(recorder_.Saw("resync ns1/a"));
  EXPECT_TRUE(recorder_.Saw("resync ns1/b"));
}

TEST_F(InformerTest, ServerSideSelectorsAndValidation) {
  Seed("ns1", Pod("a", "web"));
  Seed("ns1", Pod("b", "db"));
  Start({.gvr = PodsResource(), .label_selector = "app=db"});
  EXPECT_EQ(informer_->store().Keys(), std::vector<std::string>{"ns1/b"});
  EXPECT_FALSE(Informer::Create(client_.get(), {.gvr = PodsResource(), .label_selector = "a=("})
                   .ok());
  EXPECT_FALSE(Informer::Create(nullptr, {.gvr = PodsResource()}).ok());
}

// The same Reader contract for the live client and the informer cache.
class ReaderContractTest : public InformerTest, public ::testing::WithParamInterface<bool> {
 protected:
  const Reader& reader() const {
    if (GetParam()) return informer_->store();
    return *client_;
  }
};

TEST_P(ReaderContractTest, GetAndListWithSelectors) {
  Seed("ns1", Pod("a", "web"));
  Seed("ns1", Pod("b", "db"));
  Seed("ns2", Pod("c", "web"));
  Start({.gvr = PodsResource()});

  StatusOr<Json> a = reader().Get(PodsResource(), "ns1", "a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(ObjectName(*a), "a");
  EXPECT_EQ(reader().Get(PodsResource(), "ns1", "zzz").status().code(), StatusCode::kNotFound);

  auto names = [](const std::vector<Json>& items) {
    std::vector<std::string> out;
    for (const Json& i : items) out.push_back(ObjectKey(i));
    return out;
  };
  StatusOr<std::vector<Json>> all = reader().List(PodsResource(), "", {});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(names(*all), (std::vector<std::string>{"ns1/a", "ns1/b", "ns2/c"}));
  StatusOr<std::vector<Json>> ns1 = reader().List(PodsResource(), "ns1", {});
  ASSERT_TRUE(ns1.ok());
  EXPECT_EQ(names(*ns1), (std::vector<std::string>{"ns1/a", "ns1/b"}));
  StatusOr<std::vector<Json>> web =
      reader().List(PodsResource(), "", {.labels = *LabelSelector::Parse("app in (web)")});
  ASSERT_TRUE(web.ok());
  EXPECT_EQ(names(*web), (std::vector<std::string>{"ns1/a", "ns2/c"}));
  StatusOr<std::vector<Json>> by_name = reader().List(
      PodsResource(), "", {.fields = *FieldSelector::Parse("metadata.name=c")});
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(names(*by_name), std::vector<std::string>{"ns2/c"});
}

INSTANTIATE_TEST_SUITE_P(LiveAndCache, ReaderContractTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Cache" : "Live"; });

}  // namespace
}  // namespace trimtab::kube
