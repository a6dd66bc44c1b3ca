// The AutoscalerStateStore contract (core/chain/state_store.h), a typed test suite every
// implementation instantiates (STYLE.md section 7). An environment `Env` opens stores over the
// same storage (`std::unique_ptr<core::AutoscalerStateStore> Open()`), so "restart" is tested too;
// it may have `std::string SkipReason() const` (non-empty: the storage is not available here and
// the tests are skipped with that message).
//
// Usage (one test file per dependency set):
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, StateStoreContractTest, ::testing::Types<SqliteEnv>);
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/chain/state_store.h"

namespace trimtab::adapters::contract {

using core::StateType;
using ::testing::ElementsAre;

template <typename Env>
class StateStoreContractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if constexpr (requires(const Env& e) { e.SkipReason(); }) {
      if (const std::string reason = env_.SkipReason(); !reason.empty()) GTEST_SKIP() << reason;
    }
  }
  Env env_;
};

TYPED_TEST_SUITE_P(StateStoreContractTest);

inline Json ContractGet(core::AutoscalerStateStore& store, const std::string& job, StateType type) {
  Json out;
  Status s = store.Get(job, type, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

TYPED_TEST_P(StateStoreContractTest, AbsentIsNotFound) {
  auto store = this->env_.Open();
  Json out;
  Status s = store->Get("ns/job", StateType::kScalingHistory, &out);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "state ns/job/scalingHistory: not found");
  ASSERT_TRUE(store->ListJobKeys().ok());
  EXPECT_TRUE(store->ListJobKeys()->empty());
}

TYPED_TEST_P(StateStoreContractTest, PutIsVisibleBeforeFlushAndOverwrites) {
  auto store = this->env_.Open();
  ASSERT_TRUE(store->Put("ns/job", StateType::kParallelismOverrides, Json{{"a", 2}}).ok());
  EXPECT_EQ(ContractGet(*store, "ns/job", StateType::kParallelismOverrides), (Json{{"a", 2}}));
  ASSERT_TRUE(store->Put("ns/job", StateType::kParallelismOverrides, Json{{"a", 5}}).ok());
  EXPECT_EQ(ContractGet(*store, "ns/job", StateType::kParallelismOverrides), (Json{{"a", 5}}));
}

TYPED_TEST_P(StateStoreContractTest, OnlyFlushedStateSurvivesAReopen) {
  {
    auto store = this->env_.Open();
    ASSERT_TRUE(store->Put("ns/a", StateType::kScalingHistory, Json{{"v", {1, 2, 3}}}).ok());
    ASSERT_TRUE(store->Flush("ns/a").ok());
    ASSERT_TRUE(store->Put("ns/a", StateType::kPluginState, Json{{"gate", "x"}}).ok());
    ASSERT_TRUE(store->Put("ns/b", StateType::kScalingHistory, Json::array()).ok());
  }
  auto reopened = this->env_.Open();
  EXPECT_EQ(ContractGet(*reopened, "ns/a", StateType::kScalingHistory), (Json{{"v", {1, 2, 3}}}));
  Json out;
  EXPECT_EQ(reopened->Get("ns/a", StateType::kPluginState, &out).code(), StatusCode::kNotFound);
  EXPECT_EQ(reopened->Get("ns/b", StateType::kScalingHistory, &out).code(),
            StatusCode::kNotFound);
  EXPECT_THAT(*reopened->ListJobKeys(), ElementsAre("ns/a"));
}

TYPED_TEST_P(StateStoreContractTest, RemoveAndClearAllAreDurableAfterFlush) {
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
    EXPECT_EQ(ContractGet(*reopened, "ns/a", StateType::kScaleEvents), (Json{{"t", 1}}));
  }
  ASSERT_TRUE(store->ClearAll("ns/a").ok());
  Json out;
  EXPECT_EQ(store->Get("ns/a", StateType::kScaleEvents, &out).code(), StatusCode::kNotFound);
  ASSERT_TRUE(store->Flush("ns/a").ok());
  auto reopened = this->env_.Open();
  EXPECT_THAT(*reopened->ListJobKeys(), ElementsAre("ns/b"));
  EXPECT_EQ(ContractGet(*reopened, "ns/b", StateType::kRecommendations), (Json{{"r", 1}}));
}

TYPED_TEST_P(StateStoreContractTest, EveryStateTypeAndJsonShapeRoundTrips) {
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
    Json got = ContractGet(*store, "ns/job", t);
    EXPECT_EQ(got["type"], std::string(core::StateTypeName(t)));
    got.erase("type");
    EXPECT_EQ(got, doc);
  }
  EXPECT_EQ(ContractGet(*store, "ns/scalar", StateType::kDelayedScaleDown), Json(42));
  EXPECT_THAT(*store->ListJobKeys(), ElementsAre("ns/job", "ns/scalar"));
}

TYPED_TEST_P(StateStoreContractTest, JobsAreIsolated) {
  auto store = this->env_.Open();
  ASSERT_TRUE(store->Put("ns/a", StateType::kScalingTracking, Json{{"who", "a"}}).ok());
  ASSERT_TRUE(store->Put("ns/b", StateType::kScalingTracking, Json{{"who", "b"}}).ok());
  ASSERT_TRUE(store->ClearAll("ns/a").ok());
  EXPECT_EQ(ContractGet(*store, "ns/b", StateType::kScalingTracking), (Json{{"who", "b"}}));
}

TYPED_TEST_P(StateStoreContractTest, ConcurrentJobsFromManyThreads) {
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
  EXPECT_EQ(ContractGet(*reopened, "ns/job-3-7", StateType::kCollectedMetrics), (Json{{"i", 7}}));
}

REGISTER_TYPED_TEST_SUITE_P(StateStoreContractTest, AbsentIsNotFound,
                            PutIsVisibleBeforeFlushAndOverwrites,
                            OnlyFlushedStateSurvivesAReopen,
                            RemoveAndClearAllAreDurableAfterFlush,
                            EveryStateTypeAndJsonShapeRoundTrips,
                            JobsAreIsolated,
                            ConcurrentJobsFromManyThreads);

}  // namespace trimtab::adapters::contract
