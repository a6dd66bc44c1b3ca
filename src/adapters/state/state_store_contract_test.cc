// The AutoscalerStateStore contract, run against every implementation (STYLE.md §7). Each
// environment can open several stores over the same storage, so "restart" is tested too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "adapters/kube/kube_client.h"
#include "adapters/state/configmap_state_store.h"
#include "adapters/state/in_memory_state_store.h"
#include "adapters/state/sqlite_state_store.h"
#include "cluster/apiserver/apiserver.h"

namespace trimtab::adapters {
namespace {

using core::StateType;
using ::testing::ElementsAre;

class InMemoryEnv {
 public:
  std::unique_ptr<core::AutoscalerStateStore> Open() {
    return std::make_unique<InMemoryStateStore>(backing_);
  }

 private:
  std::shared_ptr<InMemoryStateBacking> backing_ = std::make_shared<InMemoryStateBacking>();
};

class SqliteEnv {
 public:
  SqliteEnv() {
    static std::atomic<int> counter{0};
    path_ = ::testing::TempDir() + "/trimtab_state_contract_" + std::to_string(::getpid()) + "_" +
            std::to_string(counter++) + ".db";
    std::filesystem::remove(path_);
  }
  ~SqliteEnv() { std::filesystem::remove(path_); }
  std::unique_ptr<core::AutoscalerStateStore> Open() {
    auto store = SqliteStateStore::Create({.path = path_});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return std::move(store).value();
  }

 private:
  std::string path_;
};

// ConfigMaps in an in-process local API server (namespace "ns" created up front).
class ConfigMapEnv {
 public:
  ConfigMapEnv() {
    auto server = cluster::ApiServer::Create({.port = 0});
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = kube::KubeClient::Create({.server = server_->url()}, {});
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
    Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ns"}}}};
    auto created = client_->Create({.version = "v1", .resource = "namespaces", .namespaced = false},
                                   "", ns);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
  }
  std::unique_ptr<core::AutoscalerStateStore> Open() {
    auto store = ConfigMapStateStore::Create({.client = client_.get()});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return std::move(store).value();
  }

 private:
  std::unique_ptr<cluster::ApiServer> server_;
  std::unique_ptr<kube::KubeClient> client_;
};

template <typename Env>
class StateStoreContractTest : public ::testing::Test {
 protected:
  Env env_;
};

using Implementations = ::testing::Types<InMemoryEnv, SqliteEnv, ConfigMapEnv>;
TYPED_TEST_SUITE(StateStoreContractTest, Implementations);

Json Get(core::AutoscalerStateStore& store, const std::string& job, StateType type) {
  Json out;
  Status s = store.Get(job, type, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

TYPED_TEST(StateStoreContractTest, AbsentIsNotFound) {
  auto store = this->env_.Open();
  Json out;
  Status s = store->Get("ns/job", StateType::kScalingHistory, &out);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "state ns/job/scalingHistory: not found");
  ASSERT_TRUE(store->ListJobKeys().ok());
  EXPECT_TRUE(store->ListJobKeys()->empty());
}

TYPED_TEST(StateStoreContractTest, PutIsVisibleBeforeFlushAndOverwrites) {
  auto store = this->env_.Open();
  ASSERT_TRUE(store->Put("ns/job", StateType::kParallelismOverrides, Json{{"a", 2}}).ok());
  EXPECT_EQ(Get(*store, "ns/job", StateType::kParallelismOverrides), (Json{{"a", 2}}));
  ASSERT_TRUE(store->Put("ns/job", StateType::kParallelismOverrides, Json{{"a", 5}}).ok());
  EXPECT_EQ(Get(*store, "ns/job", StateType::kParallelismOverrides), (Json{{"a", 5}}));
}

TYPED_TEST(StateStoreContractTest, OnlyFlushedStateSurvivesAReopen) {
  {
    auto store = this->env_.Open();
    ASSERT_TRUE(store->Put("ns/a", StateType::kScalingHistory, Json{{"v", {1, 2, 3}}}).ok());
    ASSERT_TRUE(store->Flush("ns/a").ok());
    ASSERT_TRUE(store->Put("ns/a", StateType::kPluginState, Json{{"gate", "x"}}).ok());
    ASSERT_TRUE(store->Put("ns/b", StateType::kScalingHistory, Json::array()).ok());
  }
  auto reopened = this->env_.Open();
  EXPECT_EQ(Get(*reopened, "ns/a", StateType::kScalingHistory), (Json{{"v", {1, 2, 3}}}));
  Json out;
  EXPECT_EQ(reopened->Get("ns/a", StateType::kPluginState, &out).code(), StatusCode::kNotFound);
  EXPECT_EQ(reopened->Get("ns/b", StateType::kScalingHistory, &out).code(),
            StatusCode::kNotFound);
  EXPECT_THAT(*reopened->ListJobKeys(), ElementsAre("ns/a"));
}

TYPED_TEST(StateStoreContractTest, RemoveAndClearAllAreDurableAfterFlush) {
  auto store = this->env_.Open();
  for (StateType t : core::kAllStateTypes) ASSERT_TRUE(store->Put("ns/a", t, Json{{"t", 1}}).ok());
  ASSERT_TRUE(store->Put("ns/b", StateType::kRecommendations, Json{{"r", 1}}).ok());
  ASSERT_TRUE(store->Flush("ns/a").ok());
  ASSERT_TRUE(store->Flush("ns/b").ok());
  ASSERT_TRUE(store->Remove("ns/a", StateType::kDecisionLog).ok());
  ASSERT_TRUE(store->Remove("ns/a", StateType::kDecisionLog).ok());  // absent is fine
  ASSERT_TRUE(store->Flush("ns/a").ok());
  {
    auto reopened = this->env_.Open();
    Json out;
    EXPECT_EQ(reopened->Get("ns/a", StateType::kDecisionLog, &out).code(), StatusCode::kNotFound);
    EXPECT_EQ(Get(*reopened, "ns/a", StateType::kScaleEvents), (Json{{"t", 1}}));
  }
  ASSERT_TRUE(store->ClearAll("ns/a").ok());
  Json out;
  EXPECT_EQ(store->Get("ns/a", StateType::kScaleEvents, &out).code(), StatusCode::kNotFound);
  ASSERT_TRUE(store->Flush("ns/a").ok());
  auto reopened = this->env_.Open();
  EXPECT_THAT(*reopened->ListJobKeys(), ElementsAre("ns/b"));
  EXPECT_EQ(Get(*reopened, "ns/b", StateType::kRecommendations), (Json{{"r", 1}}));
}

TYPED_TEST(StateStoreContractTest, EveryStateTypeAndJsonShapeRoundTrips) {
  Json doc = Json::parse(R"({"s": "ünïcode ✓", "n": -12.5, "i": 9007199254740991,
                             "a": [true, null, {"nested": []}], "o": {}})");
  {
    auto store = this->env_.Open();
    for (StateType t : core::kAllStateTypes) {
      Json value = doc;
      value["type"] = std::string(core::StateTypeName(t));
      ASSERT_TRUE(store->Put("ns/job", t, value).ok());
    }
    ASSERT_TRUE(store->Put("ns/scalar", StateType::kDelayedScaleDown, Json(42)).ok());
    ASSERT_TRUE(store->Flush("ns/job").ok());
    ASSERT_TRUE(store->Flush("ns/scalar").ok());
  }
  auto store = this->env_.Open();
  for (StateType t : core::kAllStateTypes) {
    Json got = Get(*store, "ns/job", t);
    EXPECT_EQ(got["type"], std::string(core::StateTypeName(t)));
    got.erase("type");
    EXPECT_EQ(got, doc);
  }
  EXPECT_EQ(Get(*store, "ns/scalar", StateType::kDelayedScaleDown), Json(42));
  EXPECT_THAT(*store->ListJobKeys(), ElementsAre("ns/job", "ns/scalar"));
}

TYPED_TEST(StateStoreContractTest, JobsAreIsolated) {
  auto store = this->env_.Open();
  ASSERT_TRUE(store->Put("ns/a", StateType::kScalingTracking, Json{{"who", "a"}}).ok());
  ASSERT_TRUE(store->Put("ns/b", StateType::kScalingTracking, Json{{"who", "b"}}).ok());
  ASSERT_TRUE(store->ClearAll("ns/a").ok());
  EXPECT_EQ(Get(*store, "ns/b", StateType::kScalingTracking), (Json{{"who", "b"}}));
}

TYPED_TEST(StateStoreContractTest, ConcurrentJobsFromManyThreads) {
  auto store = this->env_.Open();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&store, t] {
      for (int i = 0; i < 10; ++i) {
        std::string job = "ns/job-" + std::to_string(t) + "-" + std::to_string(i);
        EXPECT_TRUE(store->Put(job, StateType::kCollectedMetrics, Json{{"i", i}}).ok());
        EXPECT_TRUE(store->Flush(job).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  auto reopened = this->env_.Open();
  ASSERT_EQ(reopened->ListJobKeys()->size(), 40u);
  EXPECT_EQ(Get(*reopened, "ns/job-3-7", StateType::kCollectedMetrics), (Json{{"i", 7}}));
}

}  // namespace
}  // namespace trimtab::adapters
