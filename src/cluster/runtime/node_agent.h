// NodeAgent: the node side of the kubelet for every local node: registers the Node objects
// (capacity = allocatable from the node config, podCIDR, addresses, nodeInfo, labels, taints),
// keeps them Ready with heartbeats (the Ready/MemoryPressure/DiskPressure/PIDPressure conditions'
// lastHeartbeatTime every `status_update_interval`, the kube-node-lease Lease every
// `lease_renew_interval`), and deletes Nodes an earlier run created that the configuration no
// longer has (recognised by the label node.trimtab.dev/local=true).
//
// Threading: Register() from the owner; Start() runs one heartbeat thread until Stop().
#pragma once

#include <thread>
#include <vector>

#include "adapters/kube/kube_client.h"
#include "adapters/kube/stop_signal.h"
#include "cluster/runtime/node_config.h"
#include "common/clock.h"

namespace trimtab::cluster::runtime {

inline constexpr std::string_view kLocalNodeLabel = "node.trimtab.dev/local";
// The kubelet version the nodes report (the API server reports 1.32 too).
inline constexpr std::string_view kKubeletVersion = "v1.32.4";

struct NodeAgentOptions {
  Duration lease_renew_interval = std::chrono::seconds(10);
  Duration status_update_interval = std::chrono::minutes(1);
  int64_t lease_duration_seconds = 40;
};

class NodeAgent {
 public:
  NodeAgent(const kube::KubeClient* client, Clock* clock, std::vector<LocalNode> nodes,
            NodeAgentOptions options = {});
  ~NodeAgent();

  // Creates or updates every Node and its Lease, and deletes stale local Nodes.
  Status Register();
  void Start();
  void Stop();

  // The Node object as registered (for tests and the scheduler's unit tests).
  static Json NodeObject(const LocalNode& node, TimePoint now);

 private:
  void Loop();
  Status UpdateStatus(const LocalNode& node);
  Status RenewLease(const LocalNode& node);

  const kube::KubeClient* client_;
  Clock* clock_;
  const std::vector<LocalNode> nodes_;
  const NodeAgentOptions options_;
  kube::StopSignal stop_;
  std::thread thread_;
};

}  // namespace trimtab::cluster::runtime
