#include "core/flink/cluster_resource_check.h"

#include <algorithm>
#include <cmath>

namespace trimtab::core::flink {
namespace {

// One resource of a node: what the view started with, plus what this check released or placed.
struct Resource {
  double allocatable = 0;
  double used = 0;
  double pending = 0;
  double Used() const { return used + pending; }
  double Free() const { return allocatable - Used(); }
};

}  // namespace

int EstimateTaskSlotsAfterRescale(const JobTopology& topology, const ScalingSummaries& summaries,
                                  int slots_used) {
  int current_max = 0, new_max = 0, new_sum = 0;
  for (const VertexInfo& v : topology.vertices) {
    auto it = summaries.find(v.id);
    const int p = it != summaries.end() ? it->second.new_parallelism : v.parallelism;
    current_max = std::max(current_max, v.parallelism);
    new_max = std::max(new_max, p);
    new_sum += p;
  }
  // Slot sharing is on when the largest vertex fills every slot the job holds; otherwise assume
  // none (upstream has no better metric).
  return current_max == slots_used ? new_max : new_sum;
}

bool TrySchedule(ClusterResourceView view, int current_instances, int new_instances, double cpu,
                 int64_t memory_bytes) {
  std::vector<std::pair<Resource, Resource>> nodes;  // (cpu, memory)
  for (const NodeResources& n : view.nodes) {
    nodes.push_back({{n.cpu_allocatable, n.cpu_used, 0}, {n.memory_allocatable, n.memory_used, 0}});
  }
  const double memory = static_cast<double>(memory_bytes);
  for (int i = 0; i < current_instances; ++i) {
    for (auto& [c, m] : nodes) {
      if (c.Used() >= cpu && m.Used() >= memory) {
        c.pending -= std::min(cpu, c.Used());
        m.pending -= std::min(memory, m.Used());
        break;
      }
    }
  }
  for (int i = 0; i < new_instances; ++i) {
    bool placed = false;
    for (auto& [c, m] : nodes) {
      if (c.Free() >= cpu && m.Free() >= memory) {
        c.pending += cpu;
        m.pending += memory;
        placed = true;
        break;
      }
    }
    if (!placed) return false;
  }
  return true;
}

std::optional<std::string> ClusterResourceBlock(const ClusterResourceView& view,
                                                const JobTopology& topology,
                                                const ScalingSummaries& summaries,
                                                std::optional<int> slots_used,
                                                int slots_per_task_manager,
                                                std::optional<double> tm_cpu,
                                                std::optional<int64_t> tm_memory_bytes) {
  if (!tm_cpu || *tm_cpu <= 0 || !tm_memory_bytes || *tm_memory_bytes <= 0) return std::nullopt;
  if (!slots_used) return "cluster resources: JobManager slot metrics not ready yet";
  const int slots = std::max(1, slots_per_task_manager);
  const int after = EstimateTaskSlotsAfterRescale(topology, summaries, *slots_used);
  const int current_tms = static_cast<int>(std::ceil(*slots_used / static_cast<double>(slots)));
  const int new_tms = static_cast<int>(std::ceil(after / static_cast<double>(slots)));
  if (TrySchedule(view, current_tms, new_tms, *tm_cpu, *tm_memory_bytes)) return std::nullopt;
  return "cluster resources: " + std::to_string(new_tms) + " TaskManagers (" +
         std::to_string(after) + " slots) do not fit on the " +
         std::to_string(view.nodes.size()) + " node(s) once the current " +
         std::to_string(current_tms) + " are released";
}

}  // namespace trimtab::core::flink
