#include "core/flink/cycle_with_chain.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace trimtab::core::flink {
namespace {

constexpr const char kEnabledReportPrefix[] = "Scaling execution enabled";

// Removes the cycle's "Scaling execution enabled, begin scaling vertices:" report.
void DropExecutionReport(DecisionLog* log) {
  std::erase_if(log->events, [](const AutoscalerEvent& e) { return e.executes_scaling; });
}

}  // namespace

StatusOr<ChainedCycleResult> RunAutoscalerCycleWithChain(const ChainedCycleInput& input,
                                                         AutoscalerState state,
                                                         const ExecutorChain& chain,
                                                         Json* plugin_states) {
  // The cycle must not commit: the chain decides. Copy the input (topology, samples) only when
  // the caller left `commit` set.
  // Parse the configuration once, for the cycle and the commit below.
  std::optional<AutoscalerInput> uncommitted;
  if (input.cycle.commit || !input.cycle.parsed_options) {
    uncommitted = input.cycle;
    uncommitted->commit = false;
    TRIMTAB_ASSIGN_OR_RETURN(uncommitted->parsed_options, OptionsOf(input.cycle));
  }
  const AutoscalerInput& cycle_input = uncommitted ? *uncommitted : input.cycle;
  ChainedCycleResult out;
  TRIMTAB_ASSIGN_OR_RETURN(out.cycle, RunAutoscalerCycle(cycle_input, std::move(state)));
  AutoscalerResult& r = out.cycle;
  if (r.log.outcome != CycleOutcome::kScale || r.summaries.empty()) return out;

  ExecutorContext context = input.context;
  if (context.configuration.empty()) context.configuration = cycle_input.configuration;
  context.now = cycle_input.now;
  context.topology = cycle_input.topology;
  MetricMap caller_global = std::move(context.metrics.global);
  context.metrics = r.evaluated;
  caller_global.ForEach([&](std::string_view name, const EvaluatedMetric& metric) {
    if (!context.metrics.global.count(name)) context.metrics.global[name] = metric;
  });

  CycleState cycle_state;
  ChainOutcome chain_out = chain.Run(context, r.summaries, cycle_state, plugin_states);
  if (chain.size() == 0) r.log.Note("chain", "no executor plugins: the decision passes unchanged");
  for (const ChainStepRecord& s : chain_out.steps) {
    r.log.Note("chain", s.plugin + "(" + std::to_string(s.priority) + ") " +
                            std::string(ChainVerdictName(s.verdict)) +
                            (s.reason.empty() ? "" : ": " + s.reason));
  }

  if (chain_out.vetoed) {
    const std::string why =
        "vetoed by plugin " + chain_out.vetoed_by + ": " + chain_out.veto_reason;
    r.log.outcome = CycleOutcome::kBlocked;
    r.log.Note("chain", why + "; nothing is scaled this cycle");
    for (const auto& [id, summary] : r.summaries) {
      VertexDecision& d = r.log.vertices[id];
      d.final_parallelism = summary.current_parallelism;
      d.reasons.push_back(why);
    }
    DropExecutionReport(&r.log);
    if (std::optional<core::AutoscalerEvent> veto =
            VetoEvent(context.job_key, chain_out, r.summaries)) {
      r.log.events.push_back({std::string(EventTypeName(veto->type)), veto->reason, veto->message,
                              veto->message_key});
    }
    r.summaries.clear();
    r.config_overrides = {};
    out.chain = std::move(chain_out);
    return out;
  }

  out.approved = chain_out.summaries;
  for (const auto& [id, summary] : r.summaries) {
    VertexDecision& d = r.log.vertices[id];
    auto it = out.approved.find(id);
    if (it == out.approved.end()) {
      d.final_parallelism = summary.current_parallelism;
      d.reasons.push_back("dropped by the executor chain");
    } else {
      d.final_parallelism = it->second.new_parallelism;
    }
  }
  for (const auto& [id, summary] : out.approved) {
    if (!r.summaries.count(id)) r.log.vertices[id].final_parallelism = summary.new_parallelism;
  }
  if (!SameSummaries(out.approved, r.summaries)) {
    DropExecutionReport(&r.log);
    r.log.events.push_back({.type = "Normal",
                            .reason = kReasonScalingReport,
                            .message = std::string(kEnabledReportPrefix) +
                                       ", begin scaling vertices:" +
                                       ScalingReportLines(out.approved),
                            .executes_scaling = true});
  }
  r.state = CommitScaling(std::move(r.state), out.approved, cycle_input.topology, cycle_input.now,
                          *cycle_input.parsed_options);
  if (out.approved.empty()) r.config_overrides = {};
  if (!out.approved.empty()) r.state.config_overrides = r.config_overrides;
  r.summaries = out.approved;
  out.chain = std::move(chain_out);
  return out;
}

}  // namespace trimtab::core::flink
