// Stage 4 of a cycle (cycle_stages.h): the behavior rules, then what blocks a change
// (scaling.enabled, excluded periods, cluster resources, quota) with memory tuning in between;
// a change that gets through is the cycle's scaling, reported for the plugin chain.
#include <cmath>

#include "common/flink_values.h"
#include "core/flink/cluster_resource_check.h"
#include "core/flink/cycle_stages.h"
#include "core/flink/evaluator.h"
#include "core/flink/excluded_periods.h"
#include "core/flink/memory_tuning.h"

namespace trimtab::core::flink::cycle {
namespace {

// Returns the blocking reason from quota.cpu / quota.memory, or "". As upstream
// (ScalingExecutor.scalingWouldExceedResourceQuota): per slot-sharing group the largest current
// and new parallelism of the group's *scaled* vertices (0 when none is scaled), summed over the
// groups; TaskManagers = slots / slots per TaskManager (integer division). Vertices without a
// group share the default one.
std::string QuotaBlock(const ScalingSummaries& s, const JobTopology& topology,
                       const AutoscalerOptions& o, const TaskManagerResources& r) {
  if (!o.quota_cpu && !o.quota_memory_bytes) return "";
  const int slots = std::max(1, r.slots_per_task_manager);
  std::map<std::string, std::pair<int, int>> groups;  // group -> (current max, new max)
  for (const VertexInfo& v : topology.vertices) {
    auto& [cur, next] = groups[v.slot_sharing_group];
    auto it = s.find(v.id);
    if (it == s.end()) continue;
    cur = std::max(cur, it->second.current_parallelism);
    next = std::max(next, it->second.new_parallelism);
  }
  int cur_max = 0, new_max = 0;  // summed over the groups
  for (const auto& [group, maxima] : groups) {
    cur_max += maxima.first;
    new_max += maxima.second;
  }
  const int64_t cur_tms = cur_max / slots;
  const int64_t new_tms = new_max / slots;
  if (new_tms <= cur_tms) return "";
  if (o.quota_cpu && r.cpu && static_cast<double>(new_tms) * *r.cpu > *o.quota_cpu) {
    return "cpu quota: " + std::to_string(new_tms) + " TaskManagers x " + Num(*r.cpu) +
           " cores > quota.cpu " + Num(*o.quota_cpu);
  }
  if (o.quota_memory_bytes && r.memory_bytes &&
      new_tms * *r.memory_bytes > *o.quota_memory_bytes) {
    return "memory quota: " + std::to_string(new_tms) + " TaskManagers x " +
           std::to_string(*r.memory_bytes) + " bytes > quota.memory " +
           std::to_string(*o.quota_memory_bytes) + " bytes";
  }
  return "";
}

}  // namespace

StatusOr<StageResult> Shape(CycleContext& c) {
  const AutoscalerInput& in = c.in;
  const AutoscalerOptions& o = c.o;
  AutoscalerState& state = c.state;
  AutoscalerResult& res = c.res;
  DecisionLog& log = c.res.log;
  const Millis restart_time = c.restart_time;
  ScalingSummaries& proposals = c.proposals;
  // Behavior rules, then blocking.
  if (c.stretched) {
    log.Note("shape", "scale-down stabilization window " + FormatFlinkDuration(c.stretched_floor) +
                          " (" + Num(o.scale_down_restart_time_factor) + " x restart time " +
                          FormatFlinkDuration(restart_time) + ")");
  }
  ScalingSummaries shaped;
  for (auto& [id, summary] : proposals) {
    VertexDecision& d = log.vertices[id];
    int allowed = summary.new_parallelism;
    if (o.behavior.enabled) {
      BehaviorShapeResult b = ShapeWithBehavior(c.Behavior(), &state.behavior[id],
                                                summary.current_parallelism,
                                                summary.new_parallelism, in.now);
      allowed = b.parallelism;
      for (std::string& r : b.reasons) d.reasons.push_back(std::move(r));
    }
    if (allowed == summary.current_parallelism) continue;
    d.final_parallelism = allowed;
    summary.new_parallelism = allowed;
    shaped[id] = summary;
  }
  if (o.behavior.enabled) {
    // Vertices without a change still record their recommendation for stabilization.
    for (const VertexInfo& v : in.topology.vertices) {
      if (!proposals.count(v.id) && !v.finished && !o.vertex_exclude_ids.count(v.id)) {
        (void)ShapeWithBehavior(c.Behavior(), &state.behavior[v.id], v.parallelism,
                                v.parallelism, in.now);
      }
    }
  }
  if (shaped.empty()) {
    log.Note("shape", "behavior rules hold every vertex at its current parallelism");
    return StageResult::Stop(CycleOutcome::kNoChange, "behavior rules hold every vertex");
  }

  std::string blocked_by;
  if (!o.scaling_enabled) {
    blocked_by = std::string(kAutoscalerPrefix) + "scaling.enabled:false";
  } else if (const ExcludedPeriod* p = FindExcludedPeriod(
                 o.excluded_periods,
                 std::chrono::duration_cast<Millis>(in.now.time_since_epoch()).count())) {
    blocked_by = std::string(kAutoscalerPrefix) + "excluded.periods:" + o.excluded_periods_text;
    log.Note("shape", "now is inside excluded period \"" + p->text + "\"");
  }
  if (!blocked_by.empty()) {
    log.Note("shape", "blocked: scaling execution disabled by config " + blocked_by);
    log.events.push_back({"Normal", "ScalingReport",
                          "Scaling execution disabled by config " + blocked_by +
                              ", recommended parallelism change:" + ScalingReportLines(shaped)});
    for (const auto& [id, s] : shaped) {
      log.vertices[id].final_parallelism = s.current_parallelism;
      log.vertices[id].reasons.push_back("blocked: " + blocked_by);
    }
    return StageResult::Stop(CycleOutcome::kBlocked, "blocked: " + blocked_by);
  }
  // Memory tuning: recommended (event) on every scaling that got this far, applied with
  // memory.tuning.enabled; the resource checks then size TaskManagers with the tuned memory.
  const MemoryTuningResult tuning = TuneTaskManagerMemory(
      {.configuration = &in.configuration,
       .options = &o,
       .evaluated = &res.evaluated,
       .topology = &in.topology,
       .summaries = &shaped,
       .task_manager_memory = in.resources.memory_bytes,
       .slots_per_task_manager = in.resources.slots_per_task_manager});
  if (o.memory_tuning_enabled || tuning.event) log.Note("shape", tuning.note);
  if (tuning.event) log.events.push_back(*tuning.event);
  TaskManagerResources tm = in.resources;
  if (auto it = tuning.applied.overrides.find("taskmanager.memory.process.size");
      it != tuning.applied.overrides.end()) {
    if (StatusOr<int64_t> bytes = ParseFlinkMemorySize(it->first, it->second); bytes.ok()) {
      tm.memory_bytes = *bytes;
    }
  }
  if (in.cluster_resources) {
    // Upstream blocks silently (no event) when the TaskManagers would not fit.
    const double used = Current(res.evaluated.global, kMetricNumTaskSlotsUsed);
    const std::optional<std::string> full = ClusterResourceBlock(
        *in.cluster_resources, in.topology, shaped,
        std::isnan(used) ? std::nullopt : std::optional<int>(static_cast<int>(used)),
        tm.slots_per_task_manager, tm.cpu, tm.memory_bytes);
    if (full) {
      log.Note("shape", "blocked: " + *full);
      for (const auto& [id, s] : shaped) {
        log.vertices[id].final_parallelism = s.current_parallelism;
        log.vertices[id].reasons.push_back("blocked: " + *full);
      }
      return StageResult::Stop(CycleOutcome::kBlocked, "blocked: " + *full);
    }
  }
  if (std::string quota = QuotaBlock(shaped, in.topology, o, tm); !quota.empty()) {
    log.Note("shape", "blocked: " + quota);
    log.events.push_back({"Warning", "ResourceQuotaReached",
                          "Resource usage is above the allowed limit for scaling operations. "
                          "Please adjust the resource quota manually."});
    for (const auto& [id, s] : shaped) {
      log.vertices[id].final_parallelism = s.current_parallelism;
      log.vertices[id].reasons.push_back("blocked: " + quota);
    }
    return StageResult::Stop(CycleOutcome::kBlocked, "blocked: " + quota);
  }

  log.events.push_back({.type = "Normal",
                        .reason = "ScalingReport",
                        .message = "Scaling execution enabled, begin scaling vertices:" +
                                   ScalingReportLines(shaped),
                        .executes_scaling = true});
  log.Note("shape", std::to_string(shaped.size()) + " vertex change(s) ready for the plugin chain");
  res.summaries = shaped;
  res.config_overrides = tuning.applied;
  return StageResult::Continue();
}

}  // namespace trimtab::core::flink::cycle
