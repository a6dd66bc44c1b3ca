// The autoscaler state split into store documents and back: every part round-trips, empty parts
// are not written, undecodable documents are discarded one by one with a note.
#include "operator/autoscaler/state_documents.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "adapters/state/in_memory_state_store.h"
#include "core/flink/autoscaler_json.h"

namespace trimtab::op {
namespace {

using core::StateType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const TimePoint kT0 = FromUnixMillis(1'714'554'000'000);  // 2024-05-01T09:00:00Z

core::flink::AutoscalerState FullState() {
  core::flink::AutoscalerState s;
  core::flink::CollectedSample sample;
  sample.time = kT0;
  sample.vertices["v1"] = {{"LOAD", 0.5}, {"NUM_RECORDS_IN", 1000}};
  sample.global = {{"GC_PRESSURE", 0.01}};
  s.metric_window.push_back(sample);
  core::ScalingSummary summary{.current_parallelism = 2, .new_parallelism = 4, .metrics = {}};
  summary.metrics["TRUE_PROCESSING_RATE"].average = 100;
  s.scaling_history["v1"].push_back({kT0, summary});
  s.scaling_tracking.push_back({kT0, {{"v1", 4}}, Millis(30'000)});
  s.delayed_scale_down["v2"] = {kT0, {{kT0, 3, true}}};
  core::hpa::HpaState b;
  b.recommendations.push_back({4, kT0});
  b.scale_up_events.push_back({2, kT0, false});
  s.behavior["v1"] = b;
  s.parallelism_overrides = {{"v1", 4}, {"v2", 2}};
  return s;
}

TEST(StateDocumentsTest, EveryPartRoundTrips) {
  adapters::InMemoryStateStore store;
  const Json plugins = {{"restart-cost-gate", {{"calls", 3}}}};
  const Json log = {{"outcome", "Scale"}};
  ASSERT_TRUE(SaveAutoscalerState(store, "team/orders", FullState(), plugins, log).ok());
  auto loaded = LoadAutoscalerState(store, "team/orders");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(core::flink::ToJson(loaded->state), core::flink::ToJson(FullState()));
  EXPECT_EQ(loaded->plugin_states, plugins);
  EXPECT_TRUE(loaded->notes.empty());

  Json doc;
  ASSERT_TRUE(store.Get("team/orders", StateType::kRecommendations, &doc).ok());
  EXPECT_EQ(doc["v1"].size(), 1u);
  ASSERT_TRUE(store.Get("team/orders", StateType::kScaleEvents, &doc).ok());
  EXPECT_TRUE(doc["v1"].contains("scaleUpEvents"));
  EXPECT_FALSE(doc["v1"].contains("scaleDownEvents"));  // empty lists are not written
  ASSERT_TRUE(store.Get("team/orders", StateType::kDecisionLog, &doc).ok());
  EXPECT_EQ(doc, log);
  ASSERT_TRUE(store.Get("team/orders", StateType::kParallelismOverrides, &doc).ok());
  EXPECT_EQ(doc, (Json{{"v1", 4}, {"v2", 2}}));
}

TEST(StateDocumentsTest, EmptyStateWritesNothing) {
  adapters::InMemoryStateStore store;
  ASSERT_TRUE(SaveAutoscalerState(store, "team/orders", {}, Json::object(), Json()).ok());
  EXPECT_TRUE(store.ListJobKeys()->empty());
  auto loaded = LoadAutoscalerState(store, "team/orders");
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(loaded->state.empty());
  EXPECT_EQ(loaded->plugin_states, Json::object());
}

TEST(StateDocumentsTest, UndecodableDocumentsAreDiscardedOneByOne) {
  adapters::InMemoryStateStore store;
  ASSERT_TRUE(SaveAutoscalerState(store, "team/orders", FullState(), Json::object(), Json()).ok());
  ASSERT_TRUE(store.Put("team/orders", StateType::kScalingHistory, Json{{"v1", "oops"}}).ok());
  ASSERT_TRUE(store.Put("team/orders", StateType::kScaleEvents, Json::array()).ok());
  ASSERT_TRUE(store.Put("team/orders", StateType::kPluginState, Json(3)).ok());
  auto loaded = LoadAutoscalerState(store, "team/orders");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(loaded->state.scaling_history.empty());
  EXPECT_TRUE(loaded->state.behavior.empty());
  EXPECT_EQ(loaded->state.metric_window.size(), 1u);  // the others are kept
  EXPECT_EQ(loaded->state.parallelism_overrides.at("v1"), 4);
  EXPECT_EQ(loaded->plugin_states, Json::object());
  EXPECT_THAT(loaded->notes,
              ElementsAre(HasSubstr("discarded stored scalingHistory: state.scalingHistory.v1"),
                          HasSubstr("discarded stored recommendations"),
                          HasSubstr("discarded stored scaleEvents"),
                          HasSubstr("discarded stored pluginState: expected an object")));
}

}  // namespace
}  // namespace trimtab::op
