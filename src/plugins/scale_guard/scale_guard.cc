#include "plugins/scale_guard/scale_guard.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/number_format.h"
#include "core/chain/slot_math.h"

namespace trimtab::plugins {
namespace {

constexpr const char kHighestRunning[] = "highestRunning";

// How many requests of `request` fit in `room` (never negative).
int64_t Fits(double room, double request) {
  if (room <= 0) return 0;
  return static_cast<int64_t>(std::floor(room / request + 1e-9));
}

// Records the parallelism every vertex runs at now; returns the highest seen before this call.
std::map<std::string, int> RememberRunning(const core::JobTopology& topology, Json& state) {
  if (!state.is_object()) state = Json::object();
  Json& seen = state[kHighestRunning];
  if (!seen.is_object()) seen = Json::object();
  std::map<std::string, int> before;
  for (auto it = seen.begin(); it != seen.end(); ++it) {
    if (it.value().is_number_integer()) before[it.key()] = it.value().get<int>();
  }
  for (const core::VertexInfo& v : topology.vertices) {
    const int highest = std::max(v.parallelism, before.count(v.id) ? before[v.id] : 0);
    seen[v.id] = highest;
  }
  return before;
}

// The first evaluated metric no running job can show ("" when all are plausible): a load
// outside [0, 1.5] (busy time beyond 1000 ms per second, with room for rounding), a negative or
// NaN rate or lag. Such numbers come from a broken reporter or a proxy, not from the job.
std::string Implausible(const core::EvaluatedMetrics& metrics) {
  for (const auto& [vertex, m] : metrics.vertices) {
    const auto check = [&](const char* name, double max) -> std::string {
      const core::EvaluatedMetric* e = m.Find(name);
      if (e == nullptr) return "";
      for (const std::optional<double>& v : {e->current, e->average}) {
        if (v && (std::isnan(*v) || *v < 0 || *v > max)) {
          return "vertex " + vertex + " " + name + " " + FormatFixed(*v, 2);
        }
      }
      return "";
    };
    const double inf = std::numeric_limits<double>::infinity();
    const std::pair<const char*, double> bounds[] = {{core::kMetricLoad, 1.5},
                                                     {core::kMetricTrueProcessingRate, inf},
                                                     {core::kMetricTargetDataRate, inf},
                                                     {core::kMetricCatchUpDataRate, inf},
                                                     {core::kMetricLag, inf}};
    for (const auto& [name, max] : bounds) {
      std::string bad = check(name, max);
      if (!bad.empty()) return bad;
    }
  }
  return "";
}

}  // namespace

std::optional<int64_t> TaskManagersThatFit(const core::QueueHeadroom& h) {
  const double cpu = h.task_manager.cpu.value_or(0);
  const double memory = h.task_manager.memory_bytes.value_or(0);
  if ((cpu <= 0 && memory <= 0) || !h.node_free) return std::nullopt;
  int64_t total = 0;
  for (const core::ResourceAmounts& free : *h.node_free) {
    int64_t on_node = std::numeric_limits<int64_t>::max();
    if (cpu > 0) on_node = std::min(on_node, Fits(free.cpu.value_or(0), cpu));
    if (memory > 0) on_node = std::min(on_node, Fits(free.memory_bytes.value_or(0), memory));
    total += on_node;
  }
  return total;
}

StatusOr<core::ExecutorResult> ScaleGuard::Execute(const core::ExecutorContext& context,
                                                   const core::ScalingSummaries& summaries,
                                                   core::CycleState& cycle, Json& plugin_state) {
  const std::map<std::string, int> highest = RememberRunning(context.topology, plugin_state);
  if (options_.plausibility) {
    if (std::string bad = Implausible(context.metrics); !bad.empty()) {
      return core::ExecutorResult::Veto("implausible metrics, nothing is scaled: " + bad);
    }
  }
  if (!core::HasScaleUp(summaries)) return core::ExecutorResult::Approve("no scale-up");

  // 1. The factor bound, per vertex.
  core::ScalingSummaries bounded = summaries;
  std::string limited;
  if (options_.max_factor > 0) {
    for (auto& [vertex, s] : bounded) {
      if (s.new_parallelism <= s.current_parallelism) continue;
      const int by_factor = static_cast<int>(
          std::min(std::ceil(s.current_parallelism * options_.max_factor - 1e-9), 1e9));
      auto seen = highest.find(vertex);
      const int by_history = seen == highest.end() ? 0 : seen->second;
      const int bound = std::max({by_factor, by_history, s.current_parallelism + 1});
      if (s.new_parallelism <= bound) continue;
      limited += (limited.empty() ? "" : "; ") + vertex + " " +
                 std::to_string(s.current_parallelism) + " -> " +
                 std::to_string(s.new_parallelism) + " limited to " + std::to_string(bound) +
                 (by_history > by_factor ? " (highest parallelism seen running)"
                                         : " (" + FormatFixed(options_.max_factor, 1) +
                                               "x the running parallelism)");
      s.new_parallelism = bound;
    }
  }

  // 2. The room on the nodes (jobs outside a Volcano queue).
  std::string room;
  std::string room_unknown;  // why the room was not checked, when the operator said why
  if (options_.cluster_room && context.cluster && !context.queue) {
    const core::QueueHeadroom& c = *context.cluster;
    const std::optional<int64_t> fit = TaskManagersThatFit(c);
    if (!fit && !c.node_free_unknown.empty()) {
      room_unknown = "the nodes' free room is unknown (" + c.node_free_unknown + ")";
    }
    if (fit) {
      const int spt = std::max(1, c.slots_per_task_manager);
      const int64_t allowed_tms = c.task_managers + *fit;
      const int allowed = static_cast<int>(std::min<int64_t>(allowed_tms * spt, 1 << 30));
      const int after = core::SlotsNeeded(context.topology, bounded, options_.slot_sharing, true);
      const std::string numbers = "the nodes fit " + std::to_string(*fit) +
                                  " more TaskManagers; " + std::to_string(c.task_managers) +
                                  " TaskManagers x " + std::to_string(spt) +
                                  " slots now, at most " + std::to_string(allowed) + " slots";
      if (after > allowed) {
        core::ScalingSummaries capped =
            core::CapScaleUps(context.topology, bounded, allowed, options_.slot_sharing);
        if (capped.empty()) {
          return core::ExecutorResult::Veto(
              (limited.empty() ? "" : limited + "; ") + "scale-up to " + std::to_string(after) +
              " slots cannot be scheduled: " + numbers);
        }
        room = "trimmed from " + std::to_string(after) + " to " +
               std::to_string(
                   core::SlotsNeeded(context.topology, capped, options_.slot_sharing, true)) +
               " slots: " + numbers;
        bounded = std::move(capped);
      }
    }
  }

  if (limited.empty() && room.empty()) {
    if (!room_unknown.empty()) {
      return core::ExecutorResult::Approve("every scale-up within " +
                                           FormatFixed(options_.max_factor, 1) +
                                           "x its running parallelism; " + room_unknown);
    }
    return core::ExecutorResult::Approve("every scale-up within " +
                                         FormatFixed(options_.max_factor, 1) +
                                         "x its running parallelism and the free room");
  }
  std::string reason = limited;
  if (!room.empty()) reason += (reason.empty() ? "" : "; ") + room;
  if (!room_unknown.empty()) reason += (reason.empty() ? "" : "; ") + room_unknown;
  return core::ExecutorResult::Modify(std::move(bounded), reason);
}

}  // namespace trimtab::plugins
