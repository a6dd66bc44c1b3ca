// The bundled Volcano CRDs on an in-process API server: installed once (a second install
// creates nothing), PodGroups and Queues served with the upstream printer columns (what `kubectl
// get podgroups,queues` shows), and the root and default queues as vc-scheduler creates them.
#include "cluster/volcano/volcano_crds.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/http/test_client.h"
#include "cluster/apiserver/apiserver.h"

namespace trimtab::cluster::volcano {
namespace {

class VolcanoCrdsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ApiServer::Create({.port = 0});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = kube::KubeClient::Create({.server = server_->url()}, {});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<kube::KubeClient> client_;
};

TEST_F(VolcanoCrdsTest, InstallsThePodGroupAndQueueCrdsOnce) {
  ASSERT_EQ(VolcanoCrds().size(), 2u);
  auto created = InstallVolcanoCrds(*client_);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(*created, (std::vector<std::string>{"podgroups.scheduling.volcano.sh",
                                                "queues.scheduling.volcano.sh"}));
  auto again = InstallVolcanoCrds(*client_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->empty());

  Json group = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "PodGroup"},
                {"metadata", {{"name", "pg-1"}}},
                {"spec", {{"minMember", 3}, {"queue", "default"}}}};
  ASSERT_TRUE(client_->Create(PodGroupsGvr(), "default", group).ok());
  // The CRD's schema defaults and printer columns: what kubectl shows.
  http::TestHttpClient http(server_->url());
  auto table = http.Request(
      "GET", "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups", "",
      {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  ASSERT_EQ(table.status, 200) << table.body;
  Json t = Json::parse(table.body);
  std::vector<std::string> columns;
  for (const Json& c : t["columnDefinitions"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "STATUS", "minMember", "RUNNINGS", "AGE",
                                               "QUEUE"}));
  ASSERT_EQ(t["rows"].size(), 1u);
  EXPECT_EQ(t["rows"][0]["cells"][0], "pg-1");
  EXPECT_EQ(t["rows"][0]["cells"][2], 3);
}

TEST_F(VolcanoCrdsTest, CreatesRootAndDefaultQueuesWhenAbsent) {
  ASSERT_TRUE(InstallVolcanoCrds(*client_).ok());
  // A default queue the user made first is left as it is.
  Json mine = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
               {"kind", "Queue"},
               {"metadata", {{"name", "default"}}},
               {"spec", {{"weight", 5}}}};
  ASSERT_TRUE(client_->Create(QueuesGvr(), "", mine).ok());
  ASSERT_TRUE(EnsureVolcanoQueues(*client_, "default").ok());
  ASSERT_TRUE(EnsureVolcanoQueues(*client_, "default").ok());  // idempotent

  auto root = client_->Get(QueuesGvr(), "", "root");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ((*root)["spec"]["weight"], 1);
  EXPECT_EQ((*root)["spec"]["reclaimable"], false);
  auto def = client_->Get(QueuesGvr(), "", "default");
  ASSERT_TRUE(def.ok());
  EXPECT_EQ((*def)["spec"]["weight"], 5);

  ASSERT_TRUE(EnsureVolcanoQueues(*client_, "batch").ok());
  auto batch = client_->Get(QueuesGvr(), "", "batch");
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ((*batch)["spec"]["weight"], 1);
  EXPECT_EQ((*batch)["spec"]["reclaimable"], true);
}

TEST_F(VolcanoCrdsTest, QueueErrorsNameTheQueue) {
  // Without the CRDs the queue resource is not served.
  Status s = EnsureVolcanoQueues(*client_, "default");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("queue root"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace trimtab::cluster::volcano
