// Scale() stage 4, Report (scale_pass.h): the cycle's state becomes the cached one, counters and
// Prometheus series, the cycle's events as Kubernetes Events, and the outcome the reconciler
// realizes.
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "operator/autoscaler/operator_autoscaler.h"
#include "operator/autoscaler/scale_pass.h"

namespace trimtab::op {
namespace {

namespace flink = core::flink;

// The identity upstream deduplicates an event by (its message key), or nullopt = the message.
std::optional<std::string> MessageKey(const flink::AutoscalerEvent& e,
                                      const flink::DecisionLog& log) {
  if (e.message_key) return e.message_key;  // the cycle knew (a veto, a vertex's limit, ...)
  if (e.reason == core::kReasonScalingReport) {
    // A blocked report repeats with moving numbers: the recommended changes identify it.
    std::string key = "parallelism:";
    for (const auto& [id, d] : log.vertices) {
      if (d.proposed_parallelism) key += id + "=" + std::to_string(*d.proposed_parallelism) + ";";
    }
    return key;
  }
  return std::nullopt;
}

}  // namespace

void OperatorAutoscaler::Emit(const std::string& job_key, const flink::DecisionLog& log,
                              const VertexLabels& labels, Millis interval) const {
  for (const flink::AutoscalerEvent& e : log.events) {
    core::AutoscalerEvent event{
        .job_key = job_key,
        .type = e.type == "Warning" ? core::EventType::kWarning : core::EventType::kNormal,
        .reason = e.reason,
        .message = labels.Relabel(e.message),
        .message_key = MessageKey(e, log)};
    // An executed scaling is always reported; everything else at most once per interval.
    if (e.executes_scaling) event.message_key.reset();
    events_->HandleEvent(event,
                         e.executes_scaling ? std::nullopt : std::optional<Duration>(interval));
  }
}

AutoscalerOutcome OperatorAutoscaler::Report(ScalePass& pass) {
  Resource& r = pass.resource;
  flink::ChainedCycleResult& cr = *pass.result;
  const flink::DecisionLog& log = cr.cycle.log;
  const core::JobTopology& topology = pass.collection.job.topology;
  if (exported_) {
    // Rescales whose restart finished in this cycle.
    std::set<TimePoint> timed;
    for (const flink::ScalingRecord& rec : r.state.scaling_tracking) {
      if (rec.restart_duration) timed.insert(rec.time);
    }
    for (const flink::ScalingRecord& rec : cr.cycle.state.scaling_tracking) {
      if (rec.restart_duration && !timed.count(rec.time)) {
        exported_->ObserveRestart(pass.labels,
                                  std::chrono::duration<double>(*rec.restart_duration).count());
      }
    }
  }
  r.state = std::move(cr.cycle.state);
  r.plugin_states = std::move(pass.plugin_states);
  r.history = std::move(pass.history);
  r.load_notes.clear();
  {
    std::lock_guard<std::mutex> stats(r.stats_mu);
    if (!cr.cycle.evaluated.vertices.empty()) r.last_evaluation = cr.cycle.evaluated;
    if (cr.scaled()) ++r.counters.scalings;
    if (log.outcome == flink::CycleOutcome::kNoChange) ++r.counters.balanced;
  }
  pass.decision = pass.outcome;
  if (exported_) {
    if (!cr.cycle.evaluated.vertices.empty()) {
      std::map<std::string, std::string> names;
      for (const core::VertexInfo& v : topology.vertices) names[v.id] = v.name;
      exported_->SetVertices(pass.labels, cr.cycle.evaluated, names, log);
    }
    if (cr.scaled()) {
      exported_->CountScaling(pass.labels);
      exported_->CountRescale(pass.labels);
    }
    if (log.outcome == flink::CycleOutcome::kNoChange) exported_->CountBalanced(pass.labels);
    if (cr.chain && cr.chain->vetoed) exported_->CountVeto(pass.labels, cr.chain->vetoed_by);
  }

  Emit(pass.job_key, log, *pass.vertex_labels, pass.options->scaling_event_interval);
  AutoscalerOutcome out;
  pass.FillStored(&out);
  out.scaled = cr.scaled();
  out.skipped_reason = pass.skipped_reason;
  out.decision_log = std::move(pass.log_json);
  return out;
}

}  // namespace trimtab::op
