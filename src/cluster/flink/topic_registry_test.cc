#include "cluster/flink/topic_registry.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

namespace trimtab::sim::flink {
namespace {

class TopicJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("trimtab-topics-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "topics.jsonl").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A registry on the journal, as a restarted process opens it; `completed` are the snapshots
  // whose metadata is on disk.
  std::unique_ptr<TopicRegistry> Open(std::set<std::string> completed = {"chk-1", "chk-2", "sp-3"}) {
    auto r = std::make_unique<TopicRegistry>(&clock_);
    Status s = r->Persist(path_, [completed](const std::string& p) { return completed.count(p) > 0; });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return r;
  }

  static LedgerEntry Entry(double from, double to, int64_t cp, const std::string& path) {
    return {.from = from, .to = to, .job_id = "job-a", .checkpoint_id = cp, .savepoint = false,
            .time_ms = 1000 * cp, .snapshot_path = path};
  }

  ManualClock clock_{FromUnixMillis(1'700'000'000'000)};
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(TopicJournalTest, LedgerSurvivesARestartWithoutFalseGaps) {
  {
    auto topics = Open();
    ASSERT_TRUE(topics->Attach("ns/c/src", "ns/pod/job-a", {.partitions = 2}).ok());
    topics->Commit("ns/c/src", 0, Entry(0, 100, 1, "chk-1"));
    topics->Commit("ns/c/src", 1, Entry(0, 90, 1, "chk-1"));
    topics->Commit("ns/c/src", 0, Entry(100, 200, 2, "chk-2"));
  }  // the process dies; the job was still reading
  auto topics = Open();
  StatusOr<TopicInfo> info = topics->Describe("ns/c/src");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->reader, "");  // readers do not survive
  EXPECT_EQ(info->partitions, 2);
  ASSERT_EQ(topics->Ledger("ns/c/src", 0).size(), 2u);
  EXPECT_EQ(topics->Ledger("ns/c/src", 0)[1].snapshot_path, "chk-2");
  // A new job restores chk-2 and commits from 200: contiguous.
  StatusOr<TopicLease> lease = topics->Attach("ns/c/src", "ns/pod2/job-b", {.partitions = 2});
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->committed_offsets, (std::vector<double>{200, 90}));
  topics->Commit("ns/c/src", 0, Entry(200, 300, 3, "sp-3"));
  EXPECT_TRUE(topics->CheckLedger("ns/c/src").empty())
      << LedgerIssuesToString(topics->CheckLedger("ns/c/src"));
}

TEST_F(TopicJournalTest, CommitsOfSnapshotsThatNeverCompletedAreDropped) {
  {
    auto topics = Open();
    ASSERT_TRUE(topics->Attach("ns/c/src", "ns/pod/job-a", {.partitions = 1}).ok());
    topics->Commit("ns/c/src", 0, Entry(0, 100, 1, "chk-1"));
    topics->Commit("ns/c/src", 0, Entry(100, 150, 4, "chk-4"));  // killed before its _metadata
  }
  {
    auto topics = Open();
    ASSERT_EQ(topics->Ledger("ns/c/src", 0).size(), 1u);
    EXPECT_EQ(topics->Ledger("ns/c/src", 0)[0].to, 100);
  }
  // A cut last line (the kill came mid-write) is ignored.
  { std::ofstream(path_, std::ios::app) << "{\"t\":\"commit\",\"key\":\"ns/c/s"; }
  auto topics = Open();
  EXPECT_EQ(topics->Ledger("ns/c/src", 0).size(), 1u);
}

TEST_F(TopicJournalTest, RetractTakesBackTheLastCommitAlsoAfterARestart) {
  {
    auto topics = Open();
    ASSERT_TRUE(topics->Attach("ns/c/src", "ns/pod/job-a", {.partitions = 1}).ok());
    topics->Commit("ns/c/src", 0, Entry(0, 100, 1, "chk-1"));
    topics->Commit("ns/c/src", 0, Entry(100, 180, 2, "chk-2"));
    topics->Retract("ns/c/src", 0, Entry(0, 100, 1, "chk-1"));  // not the last: ignored
    topics->Retract("ns/c/src", 0, Entry(100, 180, 2, "chk-2"));
    EXPECT_EQ(topics->Ledger("ns/c/src", 0).size(), 1u);
  }
  auto topics = Open();
  ASSERT_EQ(topics->Ledger("ns/c/src", 0).size(), 1u);
  EXPECT_EQ(topics->Ledger("ns/c/src", 0)[0].to, 100);
}

}  // namespace
}  // namespace trimtab::sim::flink
