#include "operator/deployment/queue_headroom_reader.h"

#include <gtest/gtest.h>

#include "tests/support/fake_kube_server.h"

namespace trimtab::op {
namespace {

using trimtab::testing::FakeKubeServer;

class NodeHeadroomTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = FakeKubeServer::Create();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = kube::KubeClient::Create({.server = server_->base_url()}, {});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
    for (const char* name : {"n1", "n2"}) {
      server_->Seed("/api/v1/nodes",
                    {{"apiVersion", "v1"},
                     {"kind", "Node"},
                     {"metadata", {{"name", name}}},
                     {"status",
                      {{"allocatable", {{"cpu", "4"}, {"memory", "16Gi"}}},
                       {"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
    }
    server_->Seed("/api/v1/namespaces/other-team/pods",
                  {{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata", {{"name", "busy"}, {"namespace", "other-team"}}},
                   {"spec",
                    {{"nodeName", "n1"},
                     {"containers", Json::array({{{"name", "c"},
                                                  {"resources",
                                                   {{"requests", {{"cpu", "3"}}}}}}})}}},
                   {"status", {{"phase", "Running"}}}});
  }

  QueueJobShape Shape() const {
    return {.task_manager = {.cpu = 1, .memory_bytes = int64_t{1} << 30},
            .slots_per_task_manager = 2,
            .task_managers = 1};
  }

  std::unique_ptr<FakeKubeServer> server_;
  std::unique_ptr<kube::KubeClient> client_;
};

TEST_F(NodeHeadroomTest, CountsEveryNamespacesPods) {
  core::QueueHeadroom h = ReadNodeHeadroom(*client_, Shape());
  ASSERT_TRUE(h.node_free.has_value()) << h.node_free_unknown;
  EXPECT_TRUE(h.node_free_unknown.empty());
  EXPECT_EQ(h.cluster_total.cpu, 8);
  ASSERT_EQ(h.node_free->size(), 2u);
  EXPECT_DOUBLE_EQ(*(*h.node_free)[0].cpu + *(*h.node_free)[1].cpu, 5);
}

// Issue 26: the single-namespace install's RBAC forbids listing pods in all namespaces. The room
// is then unknown with the API server's answer as the reason (scale-guard says so in its
// decision); the nodes' total is still known.
TEST_F(NodeHeadroomTest, PodsForbiddenAcrossNamespacesLeaveTheRoomUnknownWithTheReason) {
  server_->FailNext("GET", "/api/v1/pods", 403, "Forbidden");
  core::QueueHeadroom h = ReadNodeHeadroom(*client_, Shape());
  EXPECT_FALSE(h.node_free.has_value());
  EXPECT_NE(h.node_free_unknown.find("list pods in all namespaces"), std::string::npos)
      << h.node_free_unknown;
  EXPECT_EQ(h.cluster_total.cpu, 8);
  EXPECT_EQ(h.task_managers, 1);
  EXPECT_TRUE(h.error.empty());
}

TEST_F(NodeHeadroomTest, NodesForbiddenLeaveEverythingUnknown) {
  server_->FailNext("GET", "/api/v1/nodes", 403, "Forbidden");
  core::QueueHeadroom h = ReadNodeHeadroom(*client_, Shape());
  EXPECT_FALSE(h.node_free.has_value());
  EXPECT_NE(h.node_free_unknown.find("list nodes"), std::string::npos) << h.node_free_unknown;
  EXPECT_FALSE(h.cluster_total.cpu.has_value());
}

}  // namespace
}  // namespace trimtab::op
