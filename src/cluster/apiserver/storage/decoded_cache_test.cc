#include "cluster/apiserver/storage/decoded_cache.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_types.h"
#include "cluster/apiserver/storage/object_meta.h"
#include "cluster/apiserver/storage/object_service.h"
#include "cluster/apiserver/surface/resource_registry.h"
#include "cluster/store/store.h"
#include "common/clock.h"

namespace trimtab::cluster {
namespace {

std::shared_ptr<const Json> Obj(const std::string& v) {
  return std::make_shared<const Json>(Json{{"v", v}});
}

TEST(DecodedCache, FindsOnlyTheRevisionAndVersionThatWerePut) {
  DecodedCache cache(4);
  EXPECT_EQ(cache.Find("/a", 1, "v1"), nullptr);
  cache.Put("/a", 1, "v1", Obj("one"));
  ASSERT_NE(cache.Find("/a", 1, "v1"), nullptr);
  EXPECT_EQ((*cache.Find("/a", 1, "v1"))["v"], "one");
  EXPECT_EQ(cache.Find("/a", 2, "v1"), nullptr);  // a later write: never the old object
  EXPECT_EQ(cache.Find("/a", 1, "v2"), nullptr);  // read as another version
  EXPECT_EQ(cache.Find("/b", 1, "v1"), nullptr);
  EXPECT_EQ(cache.hits(), 2);
  EXPECT_EQ(cache.misses(), 4);
}

TEST(DecodedCache, ANewerRevisionReplacesAndAnOlderOneDoesNot) {
  DecodedCache cache(4);
  cache.Put("/a", 1, "v1", Obj("one"));
  cache.Put("/a", 5, "v1", Obj("five"));
  EXPECT_EQ(cache.Find("/a", 1, "v1"), nullptr);
  EXPECT_EQ((*cache.Find("/a", 5, "v1"))["v"], "five");
  cache.Put("/a", 3, "v1", Obj("three"));  // a reader of a past revision
  EXPECT_EQ(cache.Find("/a", 3, "v1"), nullptr);
  EXPECT_EQ((*cache.Find("/a", 5, "v1"))["v"], "five");
  EXPECT_EQ(cache.size(), 1u);
}

TEST(DecodedCache, EraseDropsTheKey) {
  DecodedCache cache(4);
  cache.Put("/a", 1, "v1", Obj("one"));
  cache.Erase("/a");
  cache.Erase("/absent");
  EXPECT_EQ(cache.Find("/a", 1, "v1"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(DecodedCache, EvictsTheLeastRecentlyUsed) {
  DecodedCache cache(2);
  cache.Put("/a", 1, "v1", Obj("a"));
  cache.Put("/b", 2, "v1", Obj("b"));
  ASSERT_NE(cache.Find("/a", 1, "v1"), nullptr);  // /b is now the least recently used
  cache.Put("/c", 3, "v1", Obj("c"));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(cache.Find("/a", 1, "v1"), nullptr);
  EXPECT_EQ(cache.Find("/b", 2, "v1"), nullptr);
  EXPECT_NE(cache.Find("/c", 3, "v1"), nullptr);
}

TEST(DecodedCache, ZeroCapacityKeepsNothing) {
  DecodedCache cache(0);
  cache.Put("/a", 1, "v1", Obj("a"));
  EXPECT_EQ(cache.Find("/a", 1, "v1"), nullptr);
}

// The cache under ObjectService: reads after writes and deletes see the write, never the object
// decoded before it.
class ObjectServiceCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open(StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(*store);
    RegisterBuiltinTypes(registry_);
    objects_ = std::make_unique<ObjectService>(store_.get(), &registry_, RealClock::Default());
    auto ns_type = registry_.FindShared("", "v1", "namespaces");
    ASSERT_TRUE(ns_type);
    ASSERT_TRUE(objects_
                    ->Create(*ns_type, "",
                             Json{{"apiVersion", "v1"},
                                  {"kind", "Namespace"},
                                  {"metadata", {{"name", "default"}}}},
                             WriteOptions{})
                    .ok());
    cm_ = registry_.FindShared("", "v1", "configmaps");
    ASSERT_TRUE(cm_);
  }

  Json ConfigMap(const std::string& name, const std::string& value) {
    return Json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata", {{"name", name}, {"labels", {{"app", "x"}}}}},
                {"data", {{"k", value}}}};
  }
  std::string Value(const Json& object) { return object["data"]["k"].get<std::string>(); }

  std::unique_ptr<Store> store_;
  ResourceRegistry registry_;
  std::unique_ptr<ObjectService> objects_;
  std::shared_ptr<const ResourceType> cm_;
};

TEST_F(ObjectServiceCacheTest, RepeatedReadsOfOneRevisionHitTheCache) {
  ASSERT_TRUE(objects_->Create(*cm_, "default", ConfigMap("a", "1"), WriteOptions{}).ok());
  auto first = objects_->Get(*cm_, "default", "a");
  ASSERT_TRUE(first.ok());
  const int64_t hits = objects_->decoded_cache_for_test().hits();
  auto second = objects_->Get(*cm_, "default", "a");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(objects_->decoded_cache_for_test().hits(), hits + 1);
  // What a caller does with its copy does not reach the cache.
  (*second)["data"]["k"] = "changed";
  auto third = objects_->Get(*cm_, "default", "a");
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(Value(*third), "1");
}

TEST_F(ObjectServiceCacheTest, AReadAfterAnUpdateSeesTheUpdate) {
  ASSERT_TRUE(objects_->Create(*cm_, "default", ConfigMap("a", "1"), WriteOptions{}).ok());
  ASSERT_TRUE(objects_->Get(*cm_, "default", "a").ok());
  ListOptions all;
  ASSERT_EQ(objects_->List(*cm_, "default", all)->items.size(), 1u);
  auto updated = objects_->Modify(
      *cm_, "default", "a",
      [](const Json& current) -> ApiResult<Json> {
        Json next = current;
        next["data"]["k"] = "2";
        return next;
      },
      "", WriteOptions{});
  ASSERT_TRUE(updated.ok());
  auto got = objects_->Get(*cm_, "default", "a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(Value(*got), "2");
  EXPECT_EQ(MetaString(*got, "resourceVersion"), MetaString(*updated, "resourceVersion"));
  auto listed = objects_->List(*cm_, "default", all);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(Value(listed->items[0]), "2");
  ListOptions selected;
  selected.labels = *LabelSelector::Parse("app=x");
  listed = objects_->List(*cm_, "default", selected);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(Value(listed->items[0]), "2");
}

TEST_F(ObjectServiceCacheTest, AReadAfterADeleteFindsNothingAndARecreatedObjectIsNew) {
  ASSERT_TRUE(objects_->Create(*cm_, "default", ConfigMap("a", "1"), WriteOptions{}).ok());
  ASSERT_TRUE(objects_->Get(*cm_, "default", "a").ok());
  ASSERT_TRUE(objects_->Delete(*cm_, "default", "a", DeleteOptions{}).ok());
  auto gone = objects_->Get(*cm_, "default", "a");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, 404);
  EXPECT_TRUE(objects_->List(*cm_, "default", ListOptions{})->items.empty());
  ASSERT_TRUE(objects_->Create(*cm_, "default", ConfigMap("a", "3"), WriteOptions{}).ok());
  auto again = objects_->Get(*cm_, "default", "a");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Value(*again), "3");
}

TEST_F(ObjectServiceCacheTest, AListAtAPastRevisionReadsThatRevision) {
  auto created = objects_->Create(*cm_, "default", ConfigMap("a", "1"), WriteOptions{});
  ASSERT_TRUE(created.ok());
  const std::string first_rv = MetaString(*created, "resourceVersion");
  ASSERT_TRUE(objects_
                  ->Update(*cm_, "default", "a", ConfigMap("a", "2"), "", WriteOptions{})
                  .ok());
  ASSERT_EQ(Value(*objects_->Get(*cm_, "default", "a")), "2");
  ListOptions past;
  past.resource_version = first_rv;
  past.resource_version_match = "Exact";
  auto listed = objects_->List(*cm_, "default", past);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(Value(listed->items[0]), "1");
  EXPECT_EQ(MetaString(listed->items[0], "resourceVersion"), first_rv);
  // and the current revision is still what a GET returns
  EXPECT_EQ(Value(*objects_->Get(*cm_, "default", "a")), "2");
}

}  // namespace
}  // namespace trimtab::cluster
