// Scale() stage 2, Run (scale_pass.h): the core's cycle with the executor chain, the decision log
// as JSON and the decision history.
#include <string>
#include <utility>

#include "common/flink_values.h"
#include "core/flink/autoscaler_json.h"
#include "operator/autoscaler/decision_history.h"
#include "operator/autoscaler/operator_autoscaler.h"
#include "operator/autoscaler/scale_pass.h"

namespace trimtab::op {
namespace {

namespace flink = core::flink;

constexpr const char kTaskSlotsKey[] = "taskmanager.numberOfTaskSlots";

// The last note of a decision-log stage ("" when none).
std::string LastNote(const flink::DecisionLog& log, const std::string& stage) {
  auto it = log.stages.find(stage);
  return it == log.stages.end() || it->second.empty() ? "" : it->second.back();
}

// Why a cycle that ran decided nothing yet, or "" when it reached a decision.
std::string SkippedReason(const flink::DecisionLog& log, size_t samples) {
  switch (log.outcome) {
    case flink::CycleOutcome::kStabilizing:
      return "job is " + LastNote(log, "collect");
    case flink::CycleOutcome::kNotEnoughSamples:
      return LastNote(log, "collect");
    case flink::CycleOutcome::kWindowNotFull:
      return LastNote(log, "evaluate") + " (" + std::to_string(samples) + " samples)";
    case flink::CycleOutcome::kJobNotRunning:
      return LastNote(log, "collect");
    default:
      return "";
  }
}

}  // namespace

StatusOr<OperatorAutoscaler::ScaleStep> OperatorAutoscaler::Run(ScalePass& pass) {
  const AutoscalerJobContext& c = pass.context;
  Resource& r = pass.resource;
  adapters::FlinkCollection& col = pass.collection;

  flink::ChainedCycleInput in;
  in.cycle.topology = col.job.topology;
  in.cycle.configuration = c.flink_configuration;
  in.cycle.parsed_options = pass.cycle_options;
  in.cycle.samples = {col.sample};
  in.cycle.now = pass.now;
  in.cycle.job_status = "RUNNING";
  in.cycle.job_running_since = col.job.running_since;
  if (c.task_manager_cpu > 0) in.cycle.resources.cpu = c.task_manager_cpu;
  if (c.task_manager_memory_bytes > 0) {
    in.cycle.resources.memory_bytes = static_cast<int64_t>(c.task_manager_memory_bytes);
  }
  if (auto slots = c.flink_configuration.find(kTaskSlotsKey);
      slots != c.flink_configuration.end()) {
    StatusOr<int64_t> n = ParseFlinkInt(kTaskSlotsKey, slots->second);
    if (n.ok() && *n > 0) in.cycle.resources.slots_per_task_manager = static_cast<int>(*n);
  }
  in.cycle.custom_metrics = metrics_.Metrics();
  in.context.job_key = pass.job_key;
  in.context.namespace_name = c.namespace_name;
  in.context.configuration = c.flink_configuration;
  in.context.queue = c.queue;
  in.context.cluster = c.cluster;
  pass.plugin_states = r.plugin_states;
  StatusOr<flink::ChainedCycleResult> result =
      flink::RunAutoscalerCycleWithChain(in, r.state, ChainFor(*pass.options), &pass.plugin_states);
  if (!result.ok()) {
    CountError(pass);
    const std::string reason = "autoscaler cycle failed: " + result.status().message();
    EmitError(pass.job_key, reason, pass.options->scaling_event_interval);
    return ScaleStep::Stop(pass.Skipped(reason, col.notes));
  }
  pass.result = *std::move(result);
  flink::ChainedCycleResult& cr = *pass.result;
  flink::DecisionLog& log = cr.cycle.log;
  for (const std::string& note : r.load_notes) log.Note("collect", note);
  for (const std::string& note : col.notes) log.Note("collect", note);
  for (const std::string& id : col.nan_busy_time_vertices) {
    log.Note("collect", "vertex " + id + " reports no busy time (legacy source): excluded");
  }
  // Vertices by name in everything people read (issue 26); ids stay in the structured fields.
  pass.vertex_labels.emplace(col.job.topology);
  const VertexLabels& vertex_labels = *pass.vertex_labels;
  vertex_labels.Relabel(&log);

  Json log_json = flink::ToJson(log);
  log_json["jobKey"] = pass.job_key;
  log_json["jobId"] = c.job_id;
  log_json["scaled"] = cr.scaled();
  if (cr.chain) {
    Json chain = core::ToJson(*cr.chain);
    for (Json& step : chain["steps"]) {
      if (step.contains("reason")) vertex_labels.RelabelStrings(&step["reason"]);
    }
    if (chain.contains("reason")) vertex_labels.RelabelStrings(&chain["reason"]);
    log_json["chain"] = std::move(chain);
  }
  pass.skipped_reason = SkippedReason(log, cr.cycle.state.metric_window.size());
  if (!pass.skipped_reason.empty()) log_json["skippedReason"] = pass.skipped_reason;

  pass.outcome = cr.chain && cr.chain->vetoed ? "Vetoed"
                 : cr.scaled()                ? "Scaled"
                                              : std::string(flink::CycleOutcomeName(log.outcome));
  pass.history = AppendToHistory(r.history, {.time = pass.now,
                                             .outcome = pass.outcome,
                                             .topology = &col.job.topology,
                                             .evaluated = &cr.cycle.evaluated,
                                             .decision_log = &log_json});
  pass.log_json = std::move(log_json);
  return ScaleStep::Continue();
}

}  // namespace trimtab::op
