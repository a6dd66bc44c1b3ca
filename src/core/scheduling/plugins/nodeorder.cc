// nodeorder: kube-scheduler's scorers, each 0..100 times its weight (arguments
// "<name>.weight"), computed over the candidate nodes of one task:
//   leastrequested   (1)  NodeResourcesFit LeastAllocated on cpu and memory (weights 50/50):
//                          (allocatable - requested) x 100 / allocatable, requests with
//                          kube-scheduler's non-zero defaults (100m cpu, 200Mi memory)
//   mostrequested    (0)  MostAllocated on cpu and memory: requested x 100 / allocatable
//   balancedresource (1)  NodeResourcesBalancedAllocation on cpu, memory, nvidia.com/gpu:
//                          (1 - std. deviation of the requested fractions) x 100
//   nodeaffinity     (2)  preferred node affinity weights, normalized to 100
//   tainttoleration  (3)  intolerable PreferNoSchedule taints, normalized and reversed
// Integer arithmetic as kube-scheduler's. podaffinity, imagelocality and podtopologyspread
// weights are accepted; the local cluster has no pod affinity, images or spread constraints,
// so those scorers add the same to every node and are left out.
#include <cmath>

#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {
namespace {

constexpr int64_t kMaxNodeScore = 100;

struct NodeOrderWeights {
  int least_requested = 1, most_requested = 0, node_affinity = 2, pod_affinity = 2;
  int balanced_resource = 1, taint_toleration = 3, image_locality = 1, pod_topology_spread = 2;
};

int64_t LeastRequested(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

int64_t MostRequested(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;
  return requested * kMaxNodeScore / capacity;
}

class NodeOrderPlugin final : public Plugin {
 public:
  explicit NodeOrderPlugin(NodeOrderWeights w) : w_(w) {}
  std::string_view name() const override { return "nodeorder"; }

  void OnSessionOpen(Session& ssn) override {
    gpu_dim_ = ssn.names().Find("nvidia.com/gpu");
    ssn.AddBatchNodeOrderFn(name(), [this, &ssn](const TaskInfo& task,
                                                 const std::vector<int>& nodes,
                                                 std::vector<double>* scores) {
      Score(ssn, task, nodes, scores);
    });
  }

 private:
  void Score(Session& ssn, const TaskInfo& task, const std::vector<int>& nodes,
             std::vector<double>* scores) const {
    const PodPlacement& p = *task.placement;
    const bool affinity = w_.node_affinity != 0 && !p.preferred.empty();
    const bool taints = w_.taint_toleration != 0;
    int64_t max_affinity = 0, max_taints = 0;
    if (affinity || taints) {
      affinity_raw_.assign(nodes.size(), 0);
      taint_raw_.assign(nodes.size(), 0);
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeInfo& n = ssn.nodes()[nodes[i]];
      const int64_t alloc_cpu = static_cast<int64_t>(n.allocatable[kCpu]);
      const int64_t alloc_mem = static_cast<int64_t>(n.allocatable[kMemory]);
      double s = 0;
      if (w_.least_requested != 0 || w_.most_requested != 0) {
        const int64_t req_cpu = static_cast<int64_t>(n.nonzero_cpu + task.nonzero_cpu);
        const int64_t req_mem = static_cast<int64_t>(n.nonzero_memory + task.nonzero_memory);
        if (w_.least_requested != 0) {
          s += static_cast<double>(
                   WeightedAverage(LeastRequested(req_cpu, alloc_cpu), alloc_cpu,
                                   LeastRequested(req_mem, alloc_mem), alloc_mem, 50)) *
               w_.least_requested;
        }
        if (w_.most_requested != 0) {
          s += static_cast<double>(
                   WeightedAverage(MostRequested(req_cpu, alloc_cpu), alloc_cpu,
                                   MostRequested(req_mem, alloc_mem), alloc_mem, 1)) *
               w_.most_requested;
        }
      }
      if (w_.balanced_resource != 0) s += Balanced(n, task) * w_.balanced_resource;
      (*scores)[i] += s;
      if (affinity) {
        affinity_raw_[i] = p.PreferredScore(n.facts);
        max_affinity = std::max(max_affinity, affinity_raw_[i]);
      }
      if (taints) {
        taint_raw_[i] = p.IntolerablePreferNoSchedule(n.facts);
        max_taints = std::max(max_taints, taint_raw_[i]);
      }
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (affinity) {
        // DefaultNormalizeScore(100, reverse=false): all stay 0 when the best is 0.
        const int64_t v = max_affinity == 0 ? affinity_raw_[i]
                                            : affinity_raw_[i] * kMaxNodeScore / max_affinity;
        (*scores)[i] += static_cast<double>(v * w_.node_affinity);
      }
      if (taints) {
        // DefaultNormalizeScore(100, reverse=true): all 100 when no node has such a taint.
        const int64_t v = max_taints == 0 ? kMaxNodeScore
                                          : kMaxNodeScore - taint_raw_[i] * kMaxNodeScore / max_taints;
        (*scores)[i] += static_cast<double>(v * w_.taint_toleration);
      }
    }
  }

  // The weighted average of the cpu and memory scores; a resource the node does not offer is
  // skipped (both carry `weight`).
  static int64_t WeightedAverage(int64_t cpu_score, int64_t alloc_cpu, int64_t mem_score,
                                 int64_t alloc_mem, int64_t weight) {
    int64_t sum = 0, weights = 0;
    if (alloc_cpu != 0) {
      sum += cpu_score * weight;
      weights += weight;
    }
    if (alloc_mem != 0) {
      sum += mem_score * weight;
      weights += weight;
    }
    return weights == 0 ? 0 : sum / weights;
  }

  // BalancedAllocation on actual requests (not the non-zero defaults).
  int64_t Balanced(const NodeInfo& n, const TaskInfo& task) const {
    double fractions[3];
    int count = 0;
    double total = 0;
    const int dims[3] = {kCpu, kMemory, gpu_dim_};
    for (int d : dims) {
      if (d < 0) continue;
      const int64_t alloc = static_cast<int64_t>(n.allocatable[d]);
      if (alloc == 0) continue;
      const int64_t requested = static_cast<int64_t>(n.k8s_requested[d] + task.resreq[d]);
      double f = static_cast<double>(requested) / static_cast<double>(alloc);
      if (f > 1) f = 1;
      fractions[count++] = f;
      total += f;
    }
    double std = 0;
    if (count == 2) {
      std = std::fabs((fractions[0] - fractions[1]) / 2);
    } else if (count > 2) {
      const double mean = total / count;
      double sum = 0;
      for (int i = 0; i < count; ++i) sum += (fractions[i] - mean) * (fractions[i] - mean);
      std = std::sqrt(sum / count);
    }
    return static_cast<int64_t>((1 - std) * static_cast<double>(kMaxNodeScore));
  }

  NodeOrderWeights w_;
  int gpu_dim_ = -1;
  mutable std::vector<int64_t> affinity_raw_, taint_raw_;
};

}  // namespace

PluginPtr NewNodeOrderPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  NodeOrderWeights w;
  TRIMTAB_RETURN_IF_ERROR(a.Int("leastrequested.weight", &w.least_requested));
  TRIMTAB_RETURN_IF_ERROR(a.Int("mostrequested.weight", &w.most_requested));
  TRIMTAB_RETURN_IF_ERROR(a.Int("nodeaffinity.weight", &w.node_affinity));
  TRIMTAB_RETURN_IF_ERROR(a.Int("podaffinity.weight", &w.pod_affinity));
  TRIMTAB_RETURN_IF_ERROR(a.Int("balancedresource.weight", &w.balanced_resource));
  TRIMTAB_RETURN_IF_ERROR(a.Int("tainttoleration.weight", &w.taint_toleration));
  TRIMTAB_RETURN_IF_ERROR(a.Int("imagelocality.weight", &w.image_locality));
  TRIMTAB_RETURN_IF_ERROR(a.Int("podtopologyspread.weight", &w.pod_topology_spread));
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Plugin>(new NodeOrderPlugin(w));
}

}  // namespace trimtab::core::scheduling
