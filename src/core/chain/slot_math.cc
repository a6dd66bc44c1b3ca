#include "core/chain/slot_math.h"

#include <algorithm>

namespace trimtab::core {

int SlotsNeeded(const JobTopology& topology, const ScalingSummaries& summaries, bool slot_sharing,
                bool after) {
  std::map<VertexId, int> parallelism;
  for (const VertexInfo& v : topology.vertices) parallelism[v.id] = v.parallelism;
  for (const auto& [id, s] : summaries) {
    if (after) {
      parallelism[id] = s.new_parallelism;
    } else if (!parallelism.contains(id)) {
      parallelism[id] = s.current_parallelism;
    }
  }
  int total = 0;
  for (const auto& [id, p] : parallelism) total = slot_sharing ? std::max(total, p) : total + p;
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
