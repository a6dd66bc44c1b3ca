// The AutoscalerStateStore contract (state_store_contract.h) for the in-memory, SQLite and
// ConfigMap stores; postgres_state_store_test.cc runs it against a real PostgreSQL.
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
#include "adapters/state/state_store_contract.h"
#include "cluster/apiserver/apiserver.h"

namespace trimtab::adapters {
namespace {

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



}  // namespace

namespace contract {
using Implementations = ::testing::Types<InMemoryEnv, SqliteEnv, ConfigMapEnv>;
INSTANTIATE_TYPED_TEST_SUITE_P(Stores, StateStoreContractTest, Implementations);
}  // namespace contract

}  // namespace trimtab::adapters
