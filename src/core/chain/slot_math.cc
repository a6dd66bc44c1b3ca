#include "core/chain/slot_math.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

namespace trimtab::core {

int SlotsNeeded(const JobTopology& topology, const ScalingSummaries& summaries, bool slot_sharing,
                bool after) {
  // Each vertex id counts once: the restart-cost gate asks this twice a cycle, so no map of ids.
  // With slot sharing, the largest parallelism per slot-sharing group, summed over the groups;
  // the common case of one group needs no map.
  int total = 0;
  std::map<std::string_view, int> group_max;  // only with several groups
  const std::string_view first_group =
      topology.vertices.empty() ? std::string_view() : topology.vertices[0].slot_sharing_group;
  const bool one_group =
      std::all_of(topology.vertices.begin(), topology.vertices.end(),
                  [&](const VertexInfo& v) { return v.slot_sharing_group == first_group; });
  const auto count = [&](std::string_view group, int p) {
    if (!slot_sharing) {
      total += p;
    } else if (one_group) {
      total = std::max(total, p);
    } else {
      int& m = group_max[group];
      m = std::max(m, p);
    }
  };
  const auto& vertices = topology.vertices;
  for (auto v = vertices.begin(); v != vertices.end(); ++v) {
    // A repeated id counts with its last entry (as a map keyed by id would).
    if (std::any_of(v + 1, vertices.end(), [&](const VertexInfo& w) { return w.id == v->id; })) {
      continue;
    }
    const auto s = after ? summaries.find(v->id) : summaries.end();
    count(v->slot_sharing_group, s != summaries.end() ? s->second.new_parallelism : v->parallelism);
  }
  for (const auto& [id, s] : summaries) {
    if (topology.Find(id) == nullptr) {
      count(first_group, after ? s.new_parallelism : s.current_parallelism);
    }
  }
  for (const auto& [group, m] : group_max) total += m;
  return total;
}

ScalingSummaries CapScaleUps(const JobTopology& topology, const ScalingSummaries& summaries,
                             int max_slots, bool slot_sharing) {
  ScalingSummaries out = summaries;
  const bool several_groups = std::any_of(
      topology.vertices.begin(), topology.vertices.end(), [&](const VertexInfo& v) {
        return v.slot_sharing_group != topology.vertices[0].slot_sharing_group;
      });
  if (slot_sharing && several_groups) {
    // Each group needs its largest parallelism: lower the group whose scale-ups raise it most,
    // one slot at a time (all its vertices at the group's new maximum), ties to the smallest
    // group name, until the job fits or no scale-up is left.
    std::map<VertexId, std::string_view> group_of;
    for (const VertexInfo& v : topology.vertices) group_of[v.id] = v.slot_sharing_group;
    const auto group = [&](const VertexId& id) {
      auto it = group_of.find(id);
      return it == group_of.end() ? topology.vertices[0].slot_sharing_group : it->second;
    };
    while (SlotsNeeded(topology, out, /*slot_sharing=*/true, /*after=*/true) > max_slots) {
      std::map<std::string_view, std::pair<int, int>> groups;  // group -> (new max, before max)
      for (const VertexInfo& v : topology.vertices) {
        auto it = out.find(v.id);
        auto& [now_max, before_max] = groups[v.slot_sharing_group];
        now_max = std::max(now_max, it != out.end() ? it->second.new_parallelism : v.parallelism);
        before_max = std::max(before_max, v.parallelism);
      }
      std::optional<std::string_view> victim;
      int best = 0;
      for (const auto& [g, maxima] : groups) {
        bool raised = false;  // a scale-up of this group sits at the group's new maximum
        for (const auto& [id, s] : out) {
          raised |= group(id) == g && s.new_parallelism == maxima.first &&
                    s.new_parallelism > s.current_parallelism;
        }
        if (raised && maxima.first - maxima.second > best) {
          best = maxima.first - maxima.second;
          victim = g;
        }
      }
      if (!victim) break;
      const int top = groups[*victim].first;
      for (auto& [id, s] : out) {
        if (group(id) == *victim && s.new_parallelism == top &&
            s.new_parallelism > s.current_parallelism) {
          --s.new_parallelism;
        }
      }
    }
  } else if (slot_sharing) {
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
