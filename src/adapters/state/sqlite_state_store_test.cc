// SQLite-specific behaviour beyond the contract: the on-disk format, discarding undecodable rows,
// and errors naming the file.
#include "adapters/state/sqlite_state_store.h"

#include <sqlite3.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

namespace trimtab::adapters {
namespace {

using core::StateType;

class SqliteStateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/trimtab_sqlite_state_" + std::to_string(::getpid()) + ".db";
    std::filesystem::remove(path_);
  }
  void TearDown() override { std::filesystem::remove(path_); }

  void RawExec(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }

  std::string path_;
};

TEST_F(SqliteStateStoreTest, WritesPlainJsonRowsWithTheFlushTime) {
  ManualClock clock(FromUnixMillis(1700000000000));
  auto store = SqliteStateStore::Create({.path = path_, .clock = &clock});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Put("ns/job", StateType::kParallelismOverrides, Json{{"v1", 4}}).ok());
  ASSERT_TRUE((*store)->Flush("ns/job").ok());

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT job_key, state_type, state_value, update_time "
                               "FROM trimtab_autoscaler_state",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "ns/job");
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)), "parallelismOverrides");
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 2)), R"({"v1":4})");
  EXPECT_EQ(sqlite3_column_int64(stmt, 3), 1700000000000);
  EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_F(SqliteStateStoreTest, UndecodableRowsAreDiscarded) {
  { ASSERT_TRUE(SqliteStateStore::Create({.path = path_}).ok()); }
  RawExec(
      "INSERT INTO trimtab_autoscaler_state VALUES "
      "('ns/job', 'scalingHistory', '{broken', 1),"
      "('ns/job', 'someFutureType', '{}', 1),"
      "('ns/job', 'scaleEvents', '[1,2]', 1)");
  auto store = SqliteStateStore::Create({.path = path_});
  ASSERT_TRUE(store.ok());
  Json out;
  EXPECT_EQ((*store)->Get("ns/job", StateType::kScalingHistory, &out).code(),
            StatusCode::kNotFound);
  ASSERT_TRUE((*store)->Get("ns/job", StateType::kScaleEvents, &out).ok());
  EXPECT_EQ(out, Json::parse("[1,2]"));
  // The next flush of the job rewrites it without the undecodable rows.
  ASSERT_TRUE((*store)->Flush("ns/job").ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM trimtab_autoscaler_state", -1, &stmt,
                               nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 1);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_F(SqliteStateStoreTest, ErrorsNameTheFile) {
  auto bad = SqliteStateStore::Create({.path = "/nonexistent-dir/sub/state.db"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(bad.status().message(),
              ::testing::HasSubstr("sqlite state store /nonexistent-dir/sub/state.db"));

  std::string not_a_db = path_ + ".txt";
  {
    FILE* f = std::fopen(not_a_db.c_str(), "w");
    std::fputs("this is definitely not a sqlite database file, just some text padding it out",
               f);
    std::fclose(f);
  }
  auto garbage = SqliteStateStore::Create({.path = not_a_db});
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.status().message(), ::testing::HasSubstr(not_a_db));
  std::filesystem::remove(not_a_db);
  EXPECT_EQ(SqliteStateStore::Create({.path = ""}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trimtab::adapters
