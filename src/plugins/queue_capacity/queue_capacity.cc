#include "plugins/queue_capacity/queue_capacity.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/number_format.h"
#include "core/chain/slot_math.h"

namespace trimtab::plugins {
namespace {

constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();

struct Dimension {
  const char* name;
  std::optional<double> core::ResourceAmounts::*field;
};
constexpr Dimension kDimensions[] = {{"cpu", &core::ResourceAmounts::cpu},
                                     {"memory", &core::ResourceAmounts::memory_bytes}};

std::optional<double> Get(const core::ResourceAmounts& a, const Dimension& d) { return a.*d.field; }

std::string Amount(const Dimension& d, double v) {
  if (std::string(d.name) == "cpu") return FormatFixed(v, 2) + " cpu";
  return FormatFixed(v / (1024.0 * 1024 * 1024), 2) + " GiB";
}

// How many `request`s fit in `room` (never negative).
int64_t Fits(double room, double request) {
  if (room <= 0) return 0;
  return static_cast<int64_t>(std::floor(room / request + 1e-9));
}

}  // namespace

StatusOr<core::ExecutorResult> QueueCapacity::Execute(const core::ExecutorContext& context,
                                                      const core::ScalingSummaries& summaries,
                                                      core::CycleState& cycle,
                                                      Json& plugin_state) {
  if (!core::HasScaleUp(summaries)) return core::ExecutorResult::Approve("no scale-up");
  if (!context.queue) {
    return core::ExecutorResult::Approve("the job is not in a Volcano queue");
  }
  const core::QueueHeadroom& q = *context.queue;
  const std::string queue = "Volcano queue \"" + q.queue + "\"";
  if (!q.error.empty()) {
    return core::ExecutorResult::Veto("cannot read " + queue + ": " + q.error);
  }
  if (!q.exists) return core::ExecutorResult::Veto(queue + " does not exist");
  if (q.state != "Open") {
    return core::ExecutorResult::Veto(queue + " is " + q.state + ": it admits no new pods");
  }
  bool any_request = false;
  for (const Dimension& d : kDimensions) {
    any_request = any_request || Get(q.task_manager, d).value_or(0) > 0;
  }
  if (!any_request) {
    return core::ExecutorResult::Veto("the TaskManager pods request no cpu or memory: cannot tell "
                                      "what " + queue + " admits");
  }
  if (!q.node_free) {
    return core::ExecutorResult::Veto("the free room on the nodes is unknown");
  }

  // What the queue admits.
  int64_t queue_tms = kUnlimited;
  std::string queue_note;
  for (const Dimension& d : kDimensions) {
    const double request = Get(q.task_manager, d).value_or(0);
    if (request <= 0) continue;
    double limit = std::numeric_limits<double>::infinity();
    std::string source = "unlimited";
    if (const auto cap = Get(q.capability, d); cap && *cap > 0) {
      limit = *cap;
      source = "capability";
    }
    if (const auto total = Get(q.cluster_total, d)) {
      const double own = Get(q.guarantee, d).value_or(0);
      const double real =
          std::max(0.0, *total - Get(q.others_guarantee, d).value_or(0) - own) + own;
      if (real < limit) {
        limit = real;
        source = "cluster less other queues' guarantees";
      }
    }
    if (const auto deserved = Get(q.deserved, d); deserved && !options_.allow_borrowing) {
      const double share = std::max(*deserved, Get(q.guarantee, d).value_or(0));
      if (share < limit) {
        limit = share;
        source = "deserved";
      }
    }
    if (std::isinf(limit)) continue;
    const double room = limit - Get(q.allocated, d).value_or(0);
    const int64_t n = Fits(room, request);
    if (n < queue_tms) {
      queue_tms = n;
      queue_note = d.name + std::string(" ") + source + " " + Amount(d, limit) + ", allocated " +
                   Amount(d, Get(q.allocated, d).value_or(0));
    }
  }

  // What fits on the nodes.
  int64_t node_tms = 0;
  for (const core::ResourceAmounts& free : *q.node_free) {
    int64_t on_node = kUnlimited;
    for (const Dimension& d : kDimensions) {
      const double request = Get(q.task_manager, d).value_or(0);
      if (request > 0) on_node = std::min(on_node, Fits(Get(free, d).value_or(0), request));
    }
    node_tms += on_node == kUnlimited ? 0 : on_node;
  }

  const int64_t extra = std::min(queue_tms, node_tms);
  const int spt = std::max(1, q.slots_per_task_manager);
  const int64_t allowed_tms = q.task_managers + extra;
  const int allowed = static_cast<int>(std::min<int64_t>(allowed_tms * spt, 1 << 30));
  const int before = core::SlotsNeeded(context.topology, summaries, options_.slot_sharing, false);
  const int after = core::SlotsNeeded(context.topology, summaries, options_.slot_sharing, true);
  std::string numbers = queue + " admits " +
                        (queue_tms == kUnlimited ? std::string("any number of")
                                                 : std::to_string(queue_tms)) +
                        " more TaskManagers" + (queue_note.empty() ? "" : " (" + queue_note + ")") +
                        ", the nodes fit " + std::to_string(node_tms) + "; " +
                        std::to_string(q.task_managers) + " TaskManagers x " + std::to_string(spt) +
                        " slots now, at most " + std::to_string(allowed_tms) + " (" +
                        std::to_string(allowed) + " slots)";
  if (after <= allowed) {
    return core::ExecutorResult::Approve(std::to_string(after) + " slots fit: " + numbers);
  }
  core::ScalingSummaries capped =
      core::CapScaleUps(context.topology, summaries, allowed, options_.slot_sharing);
  if (capped.empty()) {
    return core::ExecutorResult::Veto("scale-up to " + std::to_string(after) + " slots (from " +
                                      std::to_string(before) + ") cannot be admitted: " + numbers);
  }
  const int capped_slots = core::SlotsNeeded(context.topology, capped, options_.slot_sharing, true);
  return core::ExecutorResult::Modify(std::move(capped),
                                      "trimmed from " + std::to_string(after) + " to " +
                                          std::to_string(capped_slots) + " slots: " + numbers);
}

}  // namespace trimtab::plugins
