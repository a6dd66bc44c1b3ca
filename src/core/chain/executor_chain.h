// ExecutorChain: runs the executor plugins in explicit order (priority ascending, ties by name)
// and records what each one did, as the chain's part of the decision log (DESIGN.md §2).
//
// Rules of a run (upstream FLIP ScalingExecutorPlugin):
//   1. No plugins: the input passes through unchanged.
//   2. Each plugin gets the previous plugin's output (the first gets the input).
//   3. approve passes the input on; modify passes its own summaries on; a modify whose summaries
//      equal the input is recorded as approve.
//   4. veto, an empty modify, an invalid modify (parallelism < 1) or an error Status stops the
//      chain: the outcome is vetoed and nothing is scaled.
//   5. Every plugin that ran has one ChainStepRecord; plugins after a veto have none.
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(ExecutorChain chain, ExecutorChain::Create(std::move(plugins)));
//   spdlog::info("executor chain: {}", chain.Describe());
//   ChainOutcome out = chain.Run(context, summaries, cycle, &plugin_states);
//   if (auto event = VetoEvent(context.job_key, out, summaries)) {
//     events.HandleEvent(*event, interval);
//   }
//
// Thread-safety: Run is const and may run concurrently for different jobs if the plugins allow.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/cycle_state.h"
#include "core/chain/event_handler.h"
#include "core/chain/executor_plugin.h"
#include "core/chain/metric_requirements.h"
#include "core/scaling_types.h"

namespace trimtab::core {

// What one plugin did in one run.
struct ChainStepRecord {
  std::string plugin;
  int priority = 0;
  ChainVerdict verdict = ChainVerdict::kApprove;  // after normalisation (rules 3 and 4)
  std::string reason;
  bool failed = false;             // the plugin returned an error (the error is the reason)
  ScalingSummaries output;         // what went on to the next plugin (empty on veto)
};

// The result of one run.
struct ChainOutcome {
  ScalingSummaries summaries;      // what to realize; empty when vetoed
  bool vetoed = false;
  std::string vetoed_by;           // plugin name when vetoed
  std::string veto_reason;
  std::vector<ChainStepRecord> steps;
};

class ExecutorChain {
 public:
  // Orders the plugins; fails when two share a name or one is null.
  static StatusOr<ExecutorChain> Create(std::vector<std::unique_ptr<ExecutorPlugin>> plugins);

  ExecutorChain() = default;
  ExecutorChain(ExecutorChain&&) = default;
  ExecutorChain& operator=(ExecutorChain&&) = default;

  // Runs the chain (rules above). `plugin_states` is a JSON object name -> plugin-private state
  // for this job (may be null JSON); each plugin reads and writes its own member, null members
  // are removed afterwards. REQUIRES: plugin_states != nullptr.
  ChainOutcome Run(const ExecutorContext& context, const ScalingSummaries& summaries,
                   CycleState& cycle, Json* plugin_states) const;

  // "cpu-gate(10) -> budget(20) -> hook(20)", or "(empty)".
  std::string Describe() const;
  std::vector<const ExecutorPlugin*> plugins() const;
  size_t size() const { return plugins_.size(); }

  // Declares every plugin's RequiredMetrics() under the plugin's name.
  Status DeclareMetrics(MetricRequirementRegistry& registry) const;

 private:
  std::vector<std::unique_ptr<ExecutorPlugin>> plugins_;  // in run order
};

// The Warning "ScalingVetoed" event for a vetoed outcome, or nullopt when not vetoed. The message
// names the plugin and its reason. The message key is the plugin and the change it vetoed
// (`proposed`, what the chain was given), not the reason: a gate's reason carries numbers that
// move every cycle (a backlog, a rate), and keyed on them a job vetoed every minute would get a
// new Event every minute instead of one Event counting the repeats.
std::optional<AutoscalerEvent> VetoEvent(const std::string& job_key, const ChainOutcome& outcome,
                                         const ScalingSummaries& proposed);

// Decision-log JSON of an outcome:
//   {"vetoed": bool, "vetoedBy": "...", "reason": "...", "summaries": {...},
//    "steps": [{"plugin", "priority", "verdict", "reason", "failed", "output"}]}
Json ToJson(const ChainOutcome& outcome);

// Structural equality of summaries (parallelism and metrics).
bool SameSummaries(const ScalingSummaries& a, const ScalingSummaries& b);

}  // namespace trimtab::core
