#include "adapters/kube/object_store.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::kube {
namespace {

GroupVersionResource Pods() { return {"", "v1", "pods", true}; }
GroupVersionResource Nodes() { return {"", "v1", "nodes", false}; }

Json Pod(const std::string& ns, const std::string& name, Json labels = Json::object(),
         const std::string& owner_uid = "") {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"namespace", ns}, {"name", name}, {"labels", std::move(labels)}}}};
  if (!owner_uid.empty()) {
    pod["metadata"]["ownerReferences"] = Json::array(
        {{{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", "rs"}, {"uid", owner_uid},
          {"controller", true}}});
  }
  return pod;
}

ObjectPtr Shared(Json object) { return std::make_shared<const Json>(std::move(object)); }

std::vector<std::string> Names(const std::vector<ObjectPtr>& objects) {
  std::vector<std::string> out;
  for (const ObjectPtr& o : objects) out.push_back(ObjectKey(*o));
  return out;
}

LabelSelector Selector(const std::string& text) {
  auto s = LabelSelector::Parse(text);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : LabelSelector::Nothing();
}

TEST(ObjectStoreTest, NamespaceRangeHoldsExactlyTheNamespace) {
  ObjectStore store(Pods());
  // "a" and "a-b" and "a0" sort around "a/..."; only "a" belongs to the namespace.
  store.Upsert(Shared(Pod("a", "p1")));
  store.Upsert(Shared(Pod("a-b", "p2")));
  store.Upsert(Shared(Pod("a0", "p3")));
  store.Upsert(Shared(Pod("a", "p4")));
  store.Upsert(Shared(Pod("b", "p5")));
  EXPECT_EQ(Names(store.ListShared("a")), (std::vector<std::string>{"a/p1", "a/p4"}));
  EXPECT_EQ(Names(store.ListShared("")).size(), 5u);
  EXPECT_TRUE(store.ListShared("c").empty());
  auto copies = store.List(Pods(), "a", {});
  ASSERT_TRUE(copies.ok());
  ASSERT_EQ(copies->size(), 2u);
  EXPECT_EQ((*copies)[1], *store.GetShared("a/p4"));
}

TEST(ObjectStoreTest, LabelSelectorsUseTheIndexAndStillCheckEveryRequirement) {
  ObjectStore store(Pods());
  store.Upsert(Shared(Pod("ns", "web-1", {{"app", "web"}, {"tier", "front"}})));
  store.Upsert(Shared(Pod("ns", "web-2", {{"app", "web"}, {"tier", "back"}})));
  store.Upsert(Shared(Pod("ns", "db-1", {{"app", "db"}})));
  store.Upsert(Shared(Pod("other", "web-3", {{"app", "web"}})));
  EXPECT_EQ(Names(store.ListShared("ns", {.labels = Selector("app=web")})),
            (std::vector<std::string>{"ns/web-1", "ns/web-2"}));
  EXPECT_EQ(Names(store.ListShared("ns", {.labels = Selector("app=web,tier!=back")})),
            (std::vector<std::string>{"ns/web-1"}));
  EXPECT_EQ(Names(store.ListShared("ns", {.labels = Selector("app=web,tier=missing")})),
            (std::vector<std::string>{}));
  EXPECT_EQ(Names(store.ListShared("ns", {.labels = Selector("app in (db,web),tier")})),
            (std::vector<std::string>{"ns/web-1", "ns/web-2"}));
  EXPECT_EQ(Names(store.ListShared("", {.labels = Selector("app=web")})),
            (std::vector<std::string>{"ns/web-1", "ns/web-2", "other/web-3"}));
  EXPECT_TRUE(store.ListShared("ns", {.labels = LabelSelector::Nothing()}).empty());

  // A label change moves the object between buckets.
  store.Upsert(Shared(Pod("ns", "web-2", {{"app", "db"}})));
  EXPECT_EQ(Names(store.ListShared("ns", {.labels = Selector("app=web")})),
            (std::vector<std::string>{"ns/web-1"}));
  EXPECT_EQ(Names(store.ListShared("ns", {.labels = Selector("app=db")})),
            (std::vector<std::string>{"ns/db-1", "ns/web-2"}));
  store.Remove("ns/web-1");
  EXPECT_TRUE(store.ListShared("ns", {.labels = Selector("app=web")}).empty());
}

TEST(ObjectStoreTest, OwnerIndexFollowsUpdatesRemovalsAndReplaceAll) {
  ObjectStore store(Pods());
  store.Upsert(Shared(Pod("ns", "a", {}, "rs-1")));
  store.Upsert(Shared(Pod("ns", "b", {}, "rs-1")));
  store.Upsert(Shared(Pod("ns", "c", {}, "rs-2")));
  store.Upsert(Shared(Pod("ns", "d")));
  EXPECT_EQ(Names(store.ListOwnedBy("rs-1")), (std::vector<std::string>{"ns/a", "ns/b"}));
  store.Upsert(Shared(Pod("ns", "b", {}, "rs-2")));  // adopted by another owner
  EXPECT_EQ(Names(store.ListOwnedBy("rs-1")), (std::vector<std::string>{"ns/a"}));
  EXPECT_EQ(Names(store.ListOwnedBy("rs-2")), (std::vector<std::string>{"ns/b", "ns/c"}));
  store.Upsert(Shared(Pod("ns", "a")));  // orphaned
  EXPECT_TRUE(store.ListOwnedBy("rs-1").empty());
  store.Remove("ns/c");
  EXPECT_EQ(Names(store.ListOwnedBy("rs-2")), (std::vector<std::string>{"ns/b"}));

  std::map<std::string, ObjectPtr> fresh;
  fresh["ns/x"] = Shared(Pod("ns", "x", {{"app", "x"}}, "rs-3"));
  auto old = store.ReplaceAll(std::move(fresh));
  EXPECT_EQ(old.size(), 3u);
  EXPECT_TRUE(store.ListOwnedBy("rs-2").empty());
  EXPECT_EQ(Names(store.ListOwnedBy("rs-3")), (std::vector<std::string>{"ns/x"}));
  EXPECT_EQ(Names(store.ListShared("ns", {.labels = Selector("app=x")})),
            (std::vector<std::string>{"ns/x"}));
  EXPECT_EQ(store.Size(), 1u);
}

TEST(ObjectStoreTest, SharedObjectsStayAsReadWhenTheCacheMovesOn) {
  ObjectStore store(Pods());
  store.Upsert(Shared(Pod("ns", "p", {{"v", "1"}})));
  ObjectPtr held = store.GetShared("ns/p");
  ObjectPtr previous = store.Upsert(Shared(Pod("ns", "p", {{"v", "2"}})));
  EXPECT_EQ(previous, held);
  EXPECT_EQ((*held)["metadata"]["labels"]["v"], "1");
  EXPECT_EQ((*store.GetShared("ns/p"))["metadata"]["labels"]["v"], "2");
  ObjectPtr removed = store.Remove("ns/p");
  EXPECT_EQ((*removed)["metadata"]["labels"]["v"], "2");
  EXPECT_EQ(store.GetShared("ns/p"), nullptr);
  EXPECT_FALSE(store.GetByKey("ns/p").has_value());
}

TEST(ObjectStoreTest, ClusterScopedObjectsAndFieldSelectors) {
  ObjectStore store(Nodes());
  store.Upsert(Shared({{"metadata", {{"name", "n1"}, {"labels", {{"zone", "a"}}}}}}));
  store.Upsert(Shared({{"metadata", {{"name", "n2"}, {"labels", {{"zone", "b"}}}}}}));
  EXPECT_EQ(Names(store.ListShared("", {.labels = Selector("zone=b")})),
            (std::vector<std::string>{"n2"}));
  auto fields = FieldSelector::Parse("metadata.name=n1");
  ASSERT_TRUE(fields.ok());
  EXPECT_EQ(Names(store.ListShared("", {.fields = *fields})), (std::vector<std::string>{"n1"}));
  auto got = store.Get(Nodes(), "ignored", "n1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(ObjectKey(*got), "n1");
  EXPECT_FALSE(store.List(Pods(), "", {}).ok());
}

}  // namespace
}  // namespace trimtab::kube
