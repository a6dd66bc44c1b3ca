// The simulated nodes of the local cluster: what `trimtab local --nodes/--node-cpu/--node-memory`
// or a `--nodes-file` describes, validated before anything starts.
//
// Nodes file (YAML or JSON); unknown fields are errors:
//
//   nodes:
//   - name: big              # required; with count > 1 the nodes are big-1 .. big-N
//     count: 2               # default 1
//     cpu: "16"              # a quantity, default "8"
//     memory: 64Gi           # default "32Gi"
//     pods: 110              # default 110
//     labels: {pool: big}
//     taints: [{key: dedicated, value: flink, effect: NoSchedule}]
//     resources: {nvidia.com/gpu: "2"}   # extended resources
//
// Thread-safety: values and pure functions.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/apiserver/ipv4.h"
#include "common/status.h"

namespace trimtab::cluster::runtime {

struct NodeTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule or NoExecute
};

struct NodeConfig {
  std::string name;
  std::string cpu = "8";
  std::string memory = "32Gi";
  int64_t pods = 110;
  std::map<std::string, std::string> labels;
  std::vector<NodeTaint> taints;
  std::map<std::string, std::string> extended_resources;  // name -> quantity
};

// `count` nodes node-1 .. node-N of one shape.
std::vector<NodeConfig> UniformNodes(int count, const std::string& cpu, const std::string& memory,
                                     int64_t pods = 110);
// The default local cluster: 4 nodes of 8 cpu / 32Gi / 110 pods.
std::vector<NodeConfig> DefaultNodes();

// A node with its place on the loopback network.
struct LocalNode {
  NodeConfig config;
  std::string node_ip;  // status.addresses InternalIP, the pods' hostIP
  Ipv4Range pod_cidr;   // spec.podCIDR: the kubelet hands out pod IPs from it
};

// Node i (in order) gets the i-th /`node_prefix` subnet of `pod_range` and the (i+1)-th address
// of `node_ip_range`. Fails when either range is too small.
StatusOr<std::vector<LocalNode>> PlanNodes(const std::vector<NodeConfig>& nodes,
                                           const Ipv4Range& pod_range, int node_prefix,
                                           const Ipv4Range& node_ip_range);

// Parses the nodes file text (see header comment). `what` names the file in errors.
StatusOr<std::vector<NodeConfig>> ParseNodesFile(std::string_view text, std::string_view what);
// Names are unique DNS-1123 subdomains, quantities parse and are positive, taint effects known.
Status ValidateNodes(const std::vector<NodeConfig>& nodes);

}  // namespace trimtab::cluster::runtime
