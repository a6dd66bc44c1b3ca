// PostgresStateStore against Debian's real PostgreSQL, started by the test in a temporary
// directory (tests/support/real_postgres.h): the whole AutoscalerStateStore contract, the table
// it writes, and what happens when the server is gone. Skipped, saying why, only when the
// PostgreSQL server binaries are not installed (scripts/install-deps.sh installs them).
#include "adapters/state/postgres_state_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include <pqxx/pqxx>

#include "adapters/state/state_store_contract.h"
#include "tests/support/real_postgres.h"

namespace trimtab::adapters {
namespace {

using core::StateType;
using ::testing::HasSubstr;
using ::testing::Not;

// One server for the whole test program, started on first use.
struct SharedServer {
  std::unique_ptr<testing::RealPostgres> server;
  std::string skip_reason;  // the binaries are not installed
  std::string start_error;  // installed, but it did not start: every test fails with this
};

SharedServer& Server() {
  static SharedServer shared = [] {
    SharedServer s;
    StatusOr<std::string> bin = testing::RealPostgres::FindBinDir();
    if (!bin.ok()) {
      s.skip_reason = "PostgreSQL tests skipped: " + std::string(bin.status().message());
      return s;
    }
    auto started = testing::RealPostgres::Start(
        *bin, ::testing::TempDir() + "/trimtab_pg_" + std::to_string(::getpid()));
    if (!started.ok()) {
      s.start_error = started.status().ToString();
      return s;
    }
    s.server = std::move(started).value();
    return s;
  }();
  return shared;
}

// A fresh database per environment, so every test starts empty.
class PostgresEnv {
 public:
  PostgresEnv() {
    static std::atomic<int> counter{0};
    SharedServer& s = Server();
    if (!s.server) return;
    const std::string db = "contract_" + std::to_string(counter++);
    Status created = s.server->CreateDatabase(db);
    EXPECT_TRUE(created.ok()) << created.ToString();
    connection_ = s.server->ConnectionString(db);
  }
  // Non-empty: skip. A server that is installed but does not start is a failure, not a skip.
  std::string SkipReason() const {
    SharedServer& s = Server();
    if (s.server) return "";
    if (!s.start_error.empty()) {
      ADD_FAILURE() << "PostgreSQL is installed but did not start: " << s.start_error;
      return "PostgreSQL did not start (failure recorded)";
    }
    return s.skip_reason;
  }
  std::unique_ptr<core::AutoscalerStateStore> Open() {
    auto store = PostgresStateStore::Create({.connection = connection_});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return std::move(store).value();
  }
  const std::string& connection() const { return connection_; }

 private:
  std::string connection_;
};


}  // namespace

namespace contract {
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, StateStoreContractTest, ::testing::Types<PostgresEnv>);
}  // namespace contract

namespace {

class PostgresStateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string reason = env_.SkipReason(); !reason.empty()) GTEST_SKIP() << reason;
  }
  PostgresEnv env_;
};

TEST_F(PostgresStateStoreTest, WritesPlainJsonRowsWithTheFlushTime) {
  ManualClock clock(FromUnixMillis(1700000000000));
  auto store = PostgresStateStore::Create({.connection = env_.connection(), .clock = &clock});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Put("ns/job", StateType::kParallelismOverrides, Json{{"v1", 4}}).ok());
  ASSERT_TRUE((*store)->Flush("ns/job").ok());

  pqxx::connection c(env_.connection());
  pqxx::read_transaction tx(c);
  pqxx::result r = tx.exec(
      "SELECT job_key, state_type, state_value, update_time FROM trimtab_autoscaler_state");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0][0].as<std::string>(), "ns/job");
  EXPECT_EQ(r[0][1].as<std::string>(), "parallelismOverrides");
  EXPECT_EQ(r[0][2].as<std::string>(), R"({"v1":4})");
  EXPECT_EQ(r[0][3].as<int64_t>(), 1700000000000);
}

TEST_F(PostgresStateStoreTest, UndecodableRowsAreDiscardedAndRemovedAtTheNextFlush) {
  {
    auto store = env_.Open();  // creates the table
    ASSERT_TRUE(store->Put("ns/job", StateType::kScalingHistory, Json{{"ok", true}}).ok());
    ASSERT_TRUE(store->Flush("ns/job").ok());
  }
  {
    pqxx::connection c(env_.connection());
    pqxx::work tx(c);
    tx.exec0("INSERT INTO trimtab_autoscaler_state VALUES "
             "('ns/job', 'scalingTracking', '{not json', 1), ('ns/job', 'noSuchType', '{}', 1)");
    tx.commit();
  }
  auto store = env_.Open();
  Json out;
  EXPECT_EQ(store->Get("ns/job", StateType::kScalingTracking, &out).code(),
            StatusCode::kNotFound);
  ASSERT_TRUE(store->Get("ns/job", StateType::kScalingHistory, &out).ok());
  EXPECT_EQ(out, (Json{{"ok", true}}));
  ASSERT_TRUE(store->Flush("ns/job").ok());
  pqxx::connection c(env_.connection());
  pqxx::read_transaction tx(c);
  EXPECT_EQ(tx.exec("SELECT count(*) FROM trimtab_autoscaler_state")[0][0].as<int>(), 1);
}

TEST_F(PostgresStateStoreTest, AServerThatCannotBeReachedIsUnavailableWithoutThePassword) {
  auto store = PostgresStateStore::Create(
      {.connection = "host=127.0.0.1 port=1 user=trimtab password=s3cret dbname=nothing "
                     "connect_timeout=2"});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("postgresql state store: cannot connect"));
  EXPECT_THAT(store.status().message(), Not(HasSubstr("s3cret")));
}

TEST_F(PostgresStateStoreTest, EmptyConnectionStringIsRefused) {
  auto store = PostgresStateStore::Create({});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trimtab::adapters
