#include "plugins/source_aligned/source_aligned.h"

#include <algorithm>

#include "common/number_format.h"

namespace trimtab::plugins {
namespace {

std::optional<double> ValueOf(const core::MetricMap& metrics, const char* name) {
  const core::EvaluatedMetric* m = metrics.Find(name);
  if (!m) return std::nullopt;
  return m->current ? m->current : m->average;
}

std::optional<double> SourceLag(const core::ExecutorContext& context,
                                const core::VertexId& source,
                                const core::ScalingSummary& summary) {
  auto v = context.metrics.vertices.find(source);
  if (v != context.metrics.vertices.end()) {
    if (auto lag = ValueOf(v->second, core::kMetricLag)) return lag;
  }
  return ValueOf(summary.metrics, core::kMetricLag);
}

}  // namespace

StatusOr<core::ExecutorResult> SourceAligned::Execute(const core::ExecutorContext& context,
                                                      const core::ScalingSummaries& summaries,
                                                      core::CycleState& cycle,
                                                      Json& plugin_state) {
  const core::JobTopology& topology = context.topology;
  if (topology.vertices.empty()) {
    return FailedPreconditionError("source-aligned: the job topology is unknown");
  }
  core::ScalingSummaries out;
  std::map<core::VertexId, int> aligned;  // vertex -> parallelism after alignment
  int scaled_up_sources = 0;
  for (const core::VertexInfo& v : topology.vertices) {
    if (!topology.IsSource(v.id)) continue;
    aligned[v.id] = v.parallelism;
    auto it = summaries.find(v.id);
    if (it == summaries.end() || it->second.new_parallelism <= it->second.current_parallelism) {
      continue;
    }
    std::optional<double> lag = SourceLag(context, v.id, it->second);
    if (!lag || *lag <= options_.lag_threshold) {
      return core::ExecutorResult::Veto(
          "scale-up of source " + v.id + " is not lag-driven (lag " +
          (lag ? FormatFixed(*lag, 0) : std::string("unknown")) + " <= threshold " +
          FormatFixed(options_.lag_threshold, 0) + ")");
    }
    aligned[v.id] = it->second.new_parallelism;
    out[v.id] = it->second;
    ++scaled_up_sources;
  }
  if (scaled_up_sources == 0) return core::ExecutorResult::Veto("no source is scaled up");

  // Topological order: every input of a vertex is aligned before the vertex.
  for (const core::VertexInfo& v : topology.vertices) {
    if (topology.IsSource(v.id)) continue;
    int target = 0;
    for (const core::VertexId& input : topology.Inputs(v.id)) {
      auto a = aligned.find(input);
      if (a != aligned.end()) target = std::max(target, a->second);
    }
    if (target == 0) target = v.parallelism;  // inputs unknown: leave the vertex alone
    if (options_.clamp_to_max_parallelism) target = std::min(target, v.max_parallelism);
    aligned[v.id] = target;
    if (target == v.parallelism) continue;
    core::ScalingSummary summary;
    if (auto it = summaries.find(v.id); it != summaries.end()) summary = it->second;
    summary.current_parallelism = v.parallelism;
    summary.new_parallelism = target;
    out[v.id] = summary;
  }
  int lead = 0;
  for (const auto& [id, s] : out) {
    if (topology.IsSource(id)) lead = std::max(lead, s.new_parallelism);
  }
  return core::ExecutorResult::Modify(
      std::move(out), "downstream vertices aligned to source parallelism " + std::to_string(lead));
}

}  // namespace trimtab::plugins
