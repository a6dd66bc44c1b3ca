// ConfigMapStateStore beyond the shared contract: the ConfigMap on the wire (name, labels, owner,
// encodings), gzip+base64, writes only on change, optimistic locking (409 never overwrites),
// undecodable values, the size cap and garbage collection with the owner. Runs against an
// in-process local API server.
#include "adapters/state/configmap_state_store.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "adapters/kube/kube_client.h"
#include "adapters/kube/rest_config.h"
#include "cluster/apiserver/apiserver.h"
#include "cluster/apiserver/storage/gc.h"

namespace trimtab::adapters {
namespace {

using core::StateType;

const kube::GroupVersionResource kNamespaces{
    .version = "v1", .resource = "namespaces", .namespaced = false};

class ConfigMapStateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = cluster::ApiServer::Create({.port = 0});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = kube::KubeClient::Create({.server = server_->url()}, {});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
    ASSERT_TRUE(
        client_
            ->Create(
                kNamespaces, "",
                {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}})
            .ok());
  }

  std::unique_ptr<ConfigMapStateStore> Open(size_t cap = kDefaultMaxStateChars) {
    auto store = ConfigMapStateStore::Create({.client = client_.get(), .max_state_chars = cap});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return std::move(store).value();
  }

  StatusOr<Json> Raw() const {
    return client_->Get(kube::ConfigMapsResource(), "team", "autoscaler-orders");
  }

  std::unique_ptr<cluster::ApiServer> server_;
  std::unique_ptr<kube::KubeClient> client_;
};

TEST(ConfigMapStateCodecTest, GzipBase64RoundTripsAndRejectsGarbage) {
  std::string text(5000, 'x');
  text += "ünïcode";
  auto encoded = GzipBase64(text);
  ASSERT_TRUE(encoded.ok());
  EXPECT_LT(encoded->size(), 200u);  // 5000 repeated characters compress well
  auto bytes = kube::Base64Decode(*encoded);
  ASSERT_TRUE(bytes.ok());
  ASSERT_GE(bytes->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*bytes)[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>((*bytes)[1]), 0x8b);
  EXPECT_EQ(*GunzipBase64(*encoded), text);

  EXPECT_EQ(GunzipBase64("%%%").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GunzipBase64(kube::Base64Encode("plain text")).status().code(),
            StatusCode::kInvalidArgument);
  std::string truncated = bytes->substr(0, bytes->size() / 2);
  EXPECT_EQ(GunzipBase64(kube::Base64Encode(truncated)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ConfigMapStateCodecTest, ParallelismOverridesUseFlinksMapSyntaxWhenTheyCan) {
  EXPECT_EQ(*EncodeStateValue(StateType::kParallelismOverrides, Json{{"a1", 2}, {"b2", 12}}),
            "a1:2,b2:12");
  EXPECT_EQ(*DecodeStateValue(StateType::kParallelismOverrides, "a1:2, b2:12"),
            (Json{{"a1", 2}, {"b2", 12}}));
  EXPECT_EQ(*EncodeStateValue(StateType::kParallelismOverrides, Json::object()), "");
  EXPECT_EQ(*DecodeStateValue(StateType::kParallelismOverrides, ""), Json::object());
  // Not a parallelism map: kept as JSON, still round-trips.
  Json odd = {{"a", 0}};
  EXPECT_EQ(*EncodeStateValue(StateType::kParallelismOverrides, odd), R"({"a":0})");
  EXPECT_EQ(*DecodeStateValue(StateType::kParallelismOverrides, R"({"a":0})"), odd);
  auto bad = DecodeStateValue(StateType::kParallelismOverrides, "a:x");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("parallelismOverrides"), std::string::npos);
}

TEST_F(ConfigMapStateStoreTest, WritesOneLabelledOwnedConfigMapWithEncodedKeys) {
  auto store = Open();
  store->SetOwner("team/orders", {.api_version = "flink.apache.org/v1beta1",
                                  .kind = "FlinkDeployment",
                                  .name = "orders",
                                  .uid = "u-1"});
  Json history = {{"v1", Json::array({{{"time", "2024-05-01T09:00:00.000Z"}}})}};
  ASSERT_TRUE(store->Put("team/orders", StateType::kScalingHistory, history).ok());
  ASSERT_TRUE(store->Put("team/orders", StateType::kParallelismOverrides, {{"v1", 4}}).ok());
  ASSERT_TRUE(store->Put("team/orders", StateType::kDelayedScaleDown, Json::object()).ok());
  EXPECT_EQ(Raw().status().code(), StatusCode::kNotFound);  // created on the first flush
  ASSERT_TRUE(store->Flush("team/orders").ok());

  auto cm = Raw();
  ASSERT_TRUE(cm.ok()) << cm.status().ToString();
  const Json& meta = (*cm)["metadata"];
  EXPECT_EQ(meta["labels"], (Json{{"app", "orders"}, {"component", "autoscaler"}}));
  ASSERT_EQ(meta["ownerReferences"].size(), 1u);
  EXPECT_EQ(meta["ownerReferences"][0]["kind"], "FlinkDeployment");
  EXPECT_EQ(meta["ownerReferences"][0]["uid"], "u-1");
  const Json& data = (*cm)["data"];
  EXPECT_EQ(data["parallelismOverrides"], "v1:4");
  EXPECT_EQ(data["delayedScaleDown"], "{}");
  EXPECT_EQ(Json::parse(*GunzipBase64(data["scalingHistory"].get<std::string>())), history);
  EXPECT_EQ(data.size(), 3u);

  auto keys = store->ListJobKeys();
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, std::vector<std::string>{"team/orders"});
}

TEST_F(ConfigMapStateStoreTest, WritesOnlyWhenTheEncodedDataChanged) {
  auto store = Open();
  ASSERT_TRUE(store->Put("team/orders", StateType::kPluginState, {{"gate", 1}}).ok());
  ASSERT_TRUE(store->Flush("team/orders").ok());
  const std::string rv = kube::ObjectResourceVersion(*Raw());
  ASSERT_TRUE(store->Flush("team/orders").ok());
  ASSERT_TRUE(store->Put("team/orders", StateType::kPluginState, {{"gate", 1}}).ok());
  ASSERT_TRUE(store->Flush("team/orders").ok());
  EXPECT_EQ(kube::ObjectResourceVersion(*Raw()), rv);
  ASSERT_TRUE(store->Put("team/orders", StateType::kPluginState, {{"gate", 2}}).ok());
  ASSERT_TRUE(store->Flush("team/orders").ok());
  EXPECT_NE(kube::ObjectResourceVersion(*Raw()), rv);
}

TEST_F(ConfigMapStateStoreTest, ConflictDropsTheViewAndNeverOverwrites) {
  auto store = Open();
  ASSERT_TRUE(store->Put("team/orders", StateType::kParallelismOverrides, {{"v1", 2}}).ok());
  ASSERT_TRUE(store->Flush("team/orders").ok());

  // Another writer (a second operator replica, a user) changes the ConfigMap.
  Json cm = *Raw();
  cm["data"]["parallelismOverrides"] = "v1:7";
  ASSERT_TRUE(client_->Update(kube::ConfigMapsResource(), cm).ok());

  ASSERT_TRUE(store->Put("team/orders", StateType::kParallelismOverrides, {{"v1", 3}}).ok());
  Status s = store->Flush("team/orders");
  EXPECT_EQ(s.code(), StatusCode::kConflict) << s.ToString();
  EXPECT_NE(s.message().find("state ConfigMap team/autoscaler-orders changed since it was read"),
            std::string::npos)
      << s.message();
  EXPECT_EQ((*Raw())["data"]["parallelismOverrides"], "v1:7");  // not overwritten

  // The view was dropped: the next access sees the other writer's value, and writes on top.
  Json out;
  ASSERT_TRUE(store->Get("team/orders", StateType::kParallelismOverrides, &out).ok());
  EXPECT_EQ(out, (Json{{"v1", 7}}));
  ASSERT_TRUE(store->Put("team/orders", StateType::kParallelismOverrides, {{"v1", 3}}).ok());
  ASSERT_TRUE(store->Flush("team/orders").ok());
  EXPECT_EQ((*Raw())["data"]["parallelismOverrides"], "v1:3");
}

TEST_F(ConfigMapStateStoreTest, ConcurrentCreationIsAConflict) {
  auto a = Open();
  auto b = Open();
  Json out;
  EXPECT_EQ(a->Get("team/orders", StateType::kPluginState, &out).code(), StatusCode::kNotFound);
  EXPECT_EQ(b->Get("team/orders", StateType::kPluginState, &out).code(), StatusCode::kNotFound);
  ASSERT_TRUE(a->Put("team/orders", StateType::kPluginState, {{"by", "a"}}).ok());
  ASSERT_TRUE(b->Put("team/orders", StateType::kPluginState, {{"by", "b"}}).ok());
  ASSERT_TRUE(a->Flush("team/orders").ok());
  EXPECT_EQ(b->Flush("team/orders").code(), StatusCode::kConflict);
  ASSERT_TRUE(b->Get("team/orders", StateType::kPluginState, &out).ok());
  EXPECT_EQ(out, (Json{{"by", "a"}}));
}

TEST_F(ConfigMapStateStoreTest, UndecodableValuesAreDiscardedAndForeignKeysKept) {
  Json good = Json::array({{{"time", "2024-05-01T09:00:00.000Z"}}});
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata",
              {{"name", "autoscaler-orders"},
               {"namespace", "team"},
               {"labels", {{"component", "autoscaler"}, {"app", "orders"}}}}},
             {"data",
              {{"scalingHistory", "not base64!"},
               {"scalingTracking", kube::Base64Encode("not gzip")},
               {"collectedMetrics", *GzipBase64(good.dump())},
               {"parallelismOverrides", "v1:zero"},
               {"delayedScaleDown", "{broken"},
               {"note", "kept"}}}};
  ASSERT_TRUE(client_->Create(kube::ConfigMapsResource(), "team", cm).ok());
  auto store = Open();
  Json out;
  for (StateType t : {StateType::kScalingHistory, StateType::kScalingTracking,
                      StateType::kParallelismOverrides, StateType::kDelayedScaleDown}) {
    EXPECT_EQ(store->Get("team/orders", t, &out).code(), StatusCode::kNotFound)
        << core::StateTypeName(t);
  }
  ASSERT_TRUE(store->Get("team/orders", StateType::kCollectedMetrics, &out).ok());
  EXPECT_EQ(out, good);
  // The next flush rewrites the ConfigMap without them.
  ASSERT_TRUE(store->Flush("team/orders").ok());
  Json data = (*Raw())["data"];
  EXPECT_EQ(data.size(), 2u) << data.dump();
  EXPECT_EQ(data["note"], "kept");
  EXPECT_TRUE(data.contains("collectedMetrics"));
}

TEST_F(ConfigMapStateStoreTest, SizeCapDropsTheOldestMetricSamples) {
  // 300 samples of ~100 chars of poorly compressible numbers.
  Json samples = Json::array();
  uint64_t x = 12345;
  for (int i = 0; i < 300; ++i) {
    Json values = Json::array();
    for (int k = 0; k < 8; ++k) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      values.push_back(static_cast<double>(x >> 11) / 1e6);
    }
    samples.push_back({{"i", i}, {"v", values}});
  }
  const size_t cap = 8000;
  auto store = Open(cap);
  Json history = {{"v1", "some history"}};
  ASSERT_TRUE(store->Put("team/orders", StateType::kScalingHistory, history).ok());
  ASSERT_TRUE(store->Put("team/orders", StateType::kCollectedMetrics, samples).ok());
  ASSERT_TRUE(store->Flush("team/orders").ok());

  Json data = (*Raw())["data"];
  const size_t total = data["scalingHistory"].get<std::string>().size() +
                       data["collectedMetrics"].get<std::string>().size();
  EXPECT_LE(total, cap);
  Json kept = Json::parse(*GunzipBase64(data["collectedMetrics"].get<std::string>()));
  ASSERT_TRUE(kept.is_array());
  ASSERT_FALSE(kept.empty());
  ASSERT_LT(kept.size(), samples.size());
  // The newest samples survive, in order; dropping one more would have been unnecessary.
  EXPECT_EQ(kept.back()["i"], 299);
  EXPECT_EQ(kept.front()["i"], static_cast<int>(samples.size() - kept.size()));
  Json one_more(samples.begin() + static_cast<std::ptrdiff_t>(samples.size() - kept.size() - 1),
                samples.end());
  EXPECT_GT(data["scalingHistory"].get<std::string>().size() + GzipBase64(one_more.dump())->size(),
            cap);
  // The store's view shows what was written.
  Json out;
  ASSERT_TRUE(store->Get("team/orders", StateType::kCollectedMetrics, &out).ok());
  EXPECT_EQ(out, kept);
}

TEST_F(ConfigMapStateStoreTest, ClearedStateDeletesTheConfigMap) {
  auto store = Open();
  ASSERT_TRUE(store->Put("team/orders", StateType::kParallelismOverrides, {{"v1", 2}}).ok());
  ASSERT_TRUE(store->Flush("team/orders").ok());
  ASSERT_TRUE(Raw().ok());
  ASSERT_TRUE(store->ClearAll("team/orders").ok());
  ASSERT_TRUE(store->Flush("team/orders").ok());
  EXPECT_EQ(Raw().status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(store->ListJobKeys()->empty());
}

TEST_F(ConfigMapStateStoreTest, GarbageCollectedWithItsOwner) {
  // Any object can own it; the collector matches owners by uid.
  auto owner = client_->Create(
      kube::ConfigMapsResource(), "team",
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "orders"}}}});
  ASSERT_TRUE(owner.ok());
  auto store = Open();
  store->SetOwner(
      "team/orders",
      {.api_version = "v1", .kind = "ConfigMap", .name = "orders", .uid = kube::ObjectUid(*owner)});
  ASSERT_TRUE(store->Put("team/orders", StateType::kPluginState, {{"k", 1}}).ok());
  ASSERT_TRUE(store->Flush("team/orders").ok());
  server_->gc()->WaitForPassForTest();
  ASSERT_TRUE(Raw().ok());  // the owner exists: kept
  ASSERT_TRUE(client_->Delete(kube::ConfigMapsResource(), "team", "orders").ok());
  server_->gc()->WaitForPassForTest();
  EXPECT_EQ(Raw().status().code(), StatusCode::kNotFound);
}

TEST_F(ConfigMapStateStoreTest, InvalidJobKeysNameTheKey) {
  auto store = Open();
  Status s = store->Put("no-namespace", StateType::kPluginState, Json::object());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "configmap state store: job key \"no-namespace\" is not <namespace>/<name>");
}

}  // namespace
}  // namespace trimtab::adapters
