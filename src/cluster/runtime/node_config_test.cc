#include "cluster/runtime/node_config.h"

#include <gtest/gtest.h>

namespace trimtab::cluster::runtime {
namespace {

TEST(NodeConfigTest, ParsesANodesFile) {
  auto nodes = ParseNodesFile(R"(
nodes:
- name: big
  count: 2
  cpu: 16
  memory: 64Gi
  labels: {pool: big}
  taints: [{key: dedicated, value: flink, effect: NoSchedule}]
  resources: {nvidia.com/gpu: "2"}
- name: small
)", "nodes.yaml");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 3u);
  EXPECT_EQ((*nodes)[0].name, "big-1");
  EXPECT_EQ((*nodes)[1].name, "big-2");
  EXPECT_EQ((*nodes)[1].cpu, "16");
  EXPECT_EQ((*nodes)[1].labels.at("pool"), "big");
  EXPECT_EQ((*nodes)[1].taints[0].effect, "NoSchedule");
  EXPECT_EQ((*nodes)[1].extended_resources.at("nvidia.com/gpu"), "2");
  EXPECT_EQ((*nodes)[2].name, "small");
  EXPECT_EQ((*nodes)[2].memory, "32Gi");
}

TEST(NodeConfigTest, ErrorsNameTheField) {
  auto typo = ParseNodesFile("nodes:\n- name: a\n  cpus: 4\n", "nodes.yaml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("nodes[0].cpus"), std::string::npos)
      << typo.status().message();
  auto taint = ParseNodesFile("nodes:\n- name: a\n  taints: [{key: k, effect: Sometimes}]\n", "f");
  ASSERT_FALSE(taint.ok());
  EXPECT_NE(taint.status().message().find("nodes[0].taints[0].effect"), std::string::npos)
      << taint.status().message();
  EXPECT_FALSE(ParseNodesFile("nodes: []\n", "f").ok());
  EXPECT_FALSE(ParseNodesFile("nodes:\n- name: a\n- name: a\n", "f").ok());
  auto cpu = ParseNodesFile("nodes:\n- name: a\n  cpu: lots\n", "f");
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.status().message().find("cpu \"lots\""), std::string::npos);
  EXPECT_FALSE(ValidateNodes(UniformNodes(1, "8", "0")).ok());
  EXPECT_FALSE(ValidateNodes(UniformNodes(1, "8", "1Gi", 0)).ok());
}

TEST(NodeConfigTest, PlansNetworks) {
  auto planned = PlanNodes(UniformNodes(3, "4", "8Gi"), *Ipv4Range::Parse("127.20.0.0/16"), 24,
                           *Ipv4Range::Parse("127.30.0.0/16"));
  ASSERT_TRUE(planned.ok());
  EXPECT_EQ((*planned)[2].pod_cidr.String(), "127.20.2.0/24");
  EXPECT_EQ((*planned)[2].node_ip, "127.30.0.3");
  auto too_many = PlanNodes(UniformNodes(3, "4", "8Gi"), *Ipv4Range::Parse("127.20.0.0/23"), 24,
                            *Ipv4Range::Parse("127.30.0.0/16"));
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("room for 2 nodes"), std::string::npos);
}

}  // namespace
}  // namespace trimtab::cluster::runtime
