#include "cluster/store/store.h"

#include <atomic>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

namespace trimtab::cluster {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("trimtab-store-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

std::unique_ptr<Store> OpenStore(const std::string& path = ":memory:") {
  auto store = Store::Open({.path = path, .compact_interval = std::chrono::milliseconds(0)});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return std::move(store).value();
}

struct Recorded {
  StoreEvent::Type type;
  std::string key;
  int64_t revision;
  std::string value;
  std::optional<std::string> prev;
  bool created;
};

// Collects watch events (callbacks run under the store lock, so this only appends).
class Recorder {
 public:
  WatchCallback Callback() {
    return [this](std::shared_ptr<const StoreEvent> e) {
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back({e->type, e->kv.key, e->kv.mod_revision, e->kv.value, e->prev_value,
                         e->created});
    };
  }
  std::vector<Recorded> events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  std::mutex mu_;
  std::vector<Recorded> events_;
};

TEST(StoreTest, CreateGetUpdateDeleteWithRevisions) {
  auto store = OpenStore();
  EXPECT_EQ(store->Revision(), 0);
  auto a = store->Create("/r/a", "v1");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->mod_revision, 1);
  EXPECT_EQ(a->create_revision, 1);
  EXPECT_EQ(store->Create("/r/a", "again").status().code(), StatusCode::kAlreadyExists);
  auto b = store->Create("/r/b", "b1");
  EXPECT_EQ(b->mod_revision, 2);

  auto a2 = store->Update("/r/a", "v2", 1);
  ASSERT_TRUE(a2.ok());
  EXPECT_EQ(a2->mod_revision, 3);
  EXPECT_EQ(a2->create_revision, 1);
  EXPECT_EQ(store->Update("/r/a", "v3", 1).status().code(), StatusCode::kConflict);
  EXPECT_EQ(store->Update("/r/zz", "v", 0).status().code(), StatusCode::kNotFound);
  auto a3 = store->Update("/r/a", "v3", 0);  // unconditional
  EXPECT_EQ(a3->mod_revision, 4);

  auto got = store->Get("/r/a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, "v3");
  EXPECT_EQ(got->mod_revision, 4);

  EXPECT_EQ(store->Delete("/r/a", 3).status().code(), StatusCode::kConflict);
  auto del = store->Delete("/r/a", 4);
  ASSERT_TRUE(del.ok());
  EXPECT_EQ(del->mod_revision, 5);
  EXPECT_EQ(del->value, "v3");
  EXPECT_EQ(store->Get("/r/a").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Delete("/r/a", 0).status().code(), StatusCode::kNotFound);
  // Re-creating a deleted key starts a new life.
  auto again = store->Create("/r/a", "new");
  EXPECT_EQ(again->create_revision, 6);
  EXPECT_EQ(store->Revision(), 6);
}

TEST(StoreTest, ListsWithPrefixLimitAndConsistentContinuation) {
  auto store = OpenStore();
  for (const char* k : {"/p/ns1/a", "/p/ns1/b", "/p/ns1/c", "/p/ns2/a", "/q/x"}) {
    ASSERT_TRUE(store->Create(k, k).ok());
  }
  auto all = store->List("/p/", "", 0, 0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->items.size(), 4u);
  EXPECT_EQ(all->revision, 5);
  EXPECT_FALSE(all->more);

  auto page1 = store->List("/p/", "", 2, 0);
  ASSERT_EQ(page1->items.size(), 2u);
  EXPECT_TRUE(page1->more);
  EXPECT_EQ(page1->remaining, 2);
  EXPECT_EQ(page1->items[1].key, "/p/ns1/b");
  int64_t rev = page1->revision;

  // Writes after the first page do not show up in the pages pinned to its revision.
  ASSERT_TRUE(store->Update("/p/ns1/c", "changed", 0).ok());
  ASSERT_TRUE(store->Delete("/p/ns2/a", 0).ok());
  ASSERT_TRUE(store->Create("/p/ns1/bb", "late").ok());

  auto page2 = store->List("/p/", page1->items.back().key, 2, rev);
  ASSERT_TRUE(page2.ok()) << page2.status().ToString();
  ASSERT_EQ(page2->items.size(), 2u);
  EXPECT_EQ(page2->items[0].key, "/p/ns1/c");
  EXPECT_EQ(page2->items[0].value, "/p/ns1/c");
  EXPECT_EQ(page2->items[0].mod_revision, 3);
  EXPECT_EQ(page2->items[1].key, "/p/ns2/a");
  EXPECT_FALSE(page2->more);
  EXPECT_EQ(page2->revision, rev);

  auto now = store->List("/p/ns1/", "", 0, 0);
  ASSERT_EQ(now->items.size(), 4u);
  EXPECT_EQ(now->items[1].key, "/p/ns1/b");
  EXPECT_EQ(now->items[2].key, "/p/ns1/bb");
  EXPECT_EQ(now->items[3].value, "changed");
  EXPECT_EQ(store->Count("/p/"), 4);
  EXPECT_EQ(store->List("/p/", "", 0, 999).status().code(), StatusCode::kInvalidArgument);
}

TEST(StoreTest, WatchReplaysHistoryThenLiveEventsInOrder) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Create("/w/a", "1").ok());         // rev 1
  ASSERT_TRUE(store->Create("/other/x", "o").ok());     // rev 2
  ASSERT_TRUE(store->Update("/w/a", "2", 0).ok());      // rev 3
  Recorder rec;
  auto id = store->Watch("/w/", 1, rec.Callback());
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(store->Create("/w/b", "b").ok());         // rev 4
  ASSERT_TRUE(store->Delete("/w/a", 0).ok());           // rev 5
  ASSERT_TRUE(store->Update("/other/x", "o2", 0).ok()); // rev 6
  auto events = rec.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].revision, 3);
  EXPECT_EQ(events[0].value, "2");
  EXPECT_EQ(events[0].prev, "1");
  EXPECT_FALSE(events[0].created);
  EXPECT_EQ(events[1].revision, 4);
  EXPECT_TRUE(events[1].created);
  EXPECT_EQ(events[2].type, StoreEvent::Type::kDelete);
  EXPECT_EQ(events[2].revision, 5);
  EXPECT_EQ(events[2].value, "2");
  store->Unwatch(*id);
  ASSERT_TRUE(store->Create("/w/c", "c").ok());
  EXPECT_EQ(rec.events().size(), 3u);
}

TEST(StoreTest, CompactionDropsHistoryAndRejectsOldRevisions) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Create("/c/a", "1").ok());  // 1
  for (int i = 2; i <= 10; ++i) ASSERT_TRUE(store->Update("/c/a", std::to_string(i), 0).ok());
  ASSERT_TRUE(store->Create("/c/b", "b").ok());  // 11
  ASSERT_TRUE(store->Delete("/c/b", 0).ok());    // 12
  ASSERT_TRUE(store->Create("/c/c", "c").ok());  // 13
  EXPECT_EQ(store->LogRowsForTest(), 13);
  ASSERT_TRUE(store->Compact(12).ok());
  EXPECT_EQ(store->CompactRevision(), 12);
  // Rows 1..9 of /c/a are superseded, b's create and tombstone are gone.
  EXPECT_EQ(store->LogRowsForTest(), 2);
  EXPECT_EQ(store->Get("/c/a")->value, "10");

  Recorder rec;
  auto too_old = store->Watch("/c/", 5, rec.Callback());
  EXPECT_TRUE(IsCompacted(too_old.status()));
  EXPECT_EQ(too_old.status().message(), "too old resource version: 5 (12)");
  EXPECT_TRUE(IsCompacted(store->List("/c/", "", 1, 3).status()));
  auto ok = store->Watch("/c/", 12, rec.Callback());
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(rec.events().size(), 1u);
  EXPECT_EQ(rec.events()[0].key, "/c/c");
  auto at12 = store->List("/c/", "", 0, 12);
  ASSERT_TRUE(at12.ok());
  ASSERT_EQ(at12->items.size(), 1u);
  EXPECT_EQ(at12->items[0].value, "10");
}

TEST(StoreTest, RestartKeepsObjectsRevisionsAndHistory) {
  TempDir dir;
  std::string path = dir.File("state.db");
  {
    auto store = OpenStore(path);
    ASSERT_TRUE(store->Create("/k/a", "a1").ok());  // 1
    ASSERT_TRUE(store->Create("/k/b", "b1").ok());  // 2
    ASSERT_TRUE(store->Update("/k/a", "a2", 1).ok());  // 3
    ASSERT_TRUE(store->Delete("/k/b", 0).ok());  // 4
    ASSERT_TRUE(store->Compact(2).ok());
    // A second process (here: a second open) cannot use the same database.
    auto second = Store::Open({.path = path, .compact_interval = std::chrono::milliseconds(0)});
    EXPECT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  }
  auto store = OpenStore(path);
  EXPECT_EQ(store->Revision(), 4);
  EXPECT_EQ(store->CompactRevision(), 2);
  auto a = store->Get("/k/a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->value, "a2");
  EXPECT_EQ(a->mod_revision, 3);
  EXPECT_EQ(a->create_revision, 1);
  EXPECT_EQ(store->Get("/k/b").status().code(), StatusCode::kNotFound);
  Recorder rec;
  ASSERT_TRUE(store->Watch("/k/", 2, rec.Callback()).ok());
  auto events = rec.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].revision, 3);
  EXPECT_EQ(events[1].type, StoreEvent::Type::kDelete);
  EXPECT_EQ(events[1].value, "b1");
  // Revisions continue after the restart, never reusing a number.
  EXPECT_EQ(store->Create("/k/c", "c")->mod_revision, 5);
}

TEST(StoreTest, ConcurrentWritersAreSeenByWatchersInRevisionOrder) {
  auto store = OpenStore();
  Recorder rec;
  ASSERT_TRUE(store->Watch("/", 0, rec.Callback()).ok());
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      std::string key = "/t/" + std::to_string(t);
      ASSERT_TRUE(store->Create(key, "0").ok());
      for (int i = 1; i < 50; ++i) ASSERT_TRUE(store->Update(key, std::to_string(i), 0).ok());
    });
  }
  for (auto& w : writers) w.join();
  auto events = rec.events();
  ASSERT_EQ(events.size(), 200u);
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].revision, int64_t(i) + 1);
  EXPECT_EQ(store->Revision(), 200);
}

TEST(StoreTest, BackgroundCompactionKeepsMinimumHistory) {
  auto opened = Store::Open({.compact_interval = std::chrono::milliseconds(20),
                             .compact_min_retain = 5});
  ASSERT_TRUE(opened.ok());
  auto& store = *opened;
  ASSERT_TRUE(store->Create("/b/a", "0").ok());
  for (int i = 1; i < 30; ++i) ASSERT_TRUE(store->Update("/b/a", std::to_string(i), 0).ok());
  for (int i = 0; i < 200 && store->CompactRevision() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GT(store->CompactRevision(), 0);
  EXPECT_LE(store->CompactRevision(), 30 - 5);
  EXPECT_EQ(store->Get("/b/a")->value, "29");
}

}  // namespace
}  // namespace trimtab::cluster
