#include "core/chain/slot_math.h"

#include <algorithm>

namespace trimtab::core {

int SlotsNeeded(const JobTopology& topology, const ScalingSummaries& summaries, bool slot_sharing,
                bool after) {
  // Each vertex id counts once: the restart-cost gate asks this twice a cycle, so no map of ids.
  int total = 0;
  const auto count = [&](int p) { total = slot_sharing ? std::max(total, p) : total + p; };
  const auto& vertices = topology.vertices;
  for (auto v = vertices.begin(); v != vertices.end(); ++v) {
    // A repeated id counts with its last entry (as a map keyed by id would).
    if (std::any_of(v + 1, vertices.end(), [&](const VertexInfo& w) { return w.id == v->id; })) {
      continue;
    }
    const auto s = after ? summaries.find(v->id) : summaries.end();
    count(s != summaries.end() ? s->second.new_parallelism : v->parallelism);
  }
  for (const auto& [id, s] : summaries) {
    if (topology.Find(id) == nullptr) count(after ? s.new_parallelism : s.current_parallelism);
  }
  return total;
}

ScalingSummaries CapScaleUps(const JobTopology& topology, const ScalingSummaries& summaries,
                             int max_slots, bool slot_sharing) {
  ScalingSummaries out = summaries;
  if (slot_sharing) {
    for (auto& [id, s] : out) {
      if (s.new_parallelism > s.current_parallelism) {
        s.new_parallelism = std::max(s.current_parallelism, std::min(s.new_parallelism, max_slots));
      }
    }
  } else {
    int excess = SlotsNeeded(topology, out, /*slot_sharing=*/false, /*after=*/true) - max_slots;
    while (excess > 0) {
      ScalingSummary* victim = nullptr;
      int best = 0;
      for (auto& [id, s] : out) {  // std::map: ascending id, so '>' keeps the smallest on ties
        int increase = s.new_parallelism - s.current_parallelism;
        if (increase > best) {
          best = increase;
          victim = &s;
        }
      }
      if (victim == nullptr) break;
      --victim->new_parallelism;
      --excess;
    }
  }
  std::erase_if(out, [](const auto& kv) {
    return kv.second.new_parallelism == kv.second.current_parallelism;
  });
  return out;
}

bool HasScaleUp(const ScalingSummaries& summaries) {
  return std::any_of(summaries.begin(), summaries.end(), [](const auto& kv) {
    return kv.second.new_parallelism > kv.second.current_parallelism;
  });
}

}  // namespace trimtab::core
