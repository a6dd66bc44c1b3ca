// RunAutoscalerCycleWithChain: one autoscaler cycle followed by the executor plugin chain, as
// every caller runs them (the operator's autoscaler, the simulator's Flink policies): the cycle
// runs without committing, a kScale result's summaries go through the chain, and only what the
// chain approved is committed (history, overrides, behavior scale events), so rate limits and
// restart tracking never count a vetoed scaling (upstream ScalingExecutor step 7, notes §C.8).
//
// What the decision log gains (`result.cycle.log`):
//   stage "chain"   one note per plugin that ran ("<name>(<priority>) <verdict>: <reason>")
//   veto            outcome kBlocked; every proposed vertex back at its current parallelism with
//                   the reason "vetoed by plugin <name>: <reason>"; the "Scaling execution
//                   enabled" ScalingReport event is replaced by a Warning ScalingVetoed event
//   modify          final parallelism per vertex as approved, vertices the chain dropped get
//                   "dropped by the executor chain"; the ScalingReport lists the approved values
//
// Usage:
//   ChainedCycleInput in{.cycle = autoscaler_input,
//                        .context = {.job_key = "ns/orders", .namespace_name = "ns"}};
//   TRIMTAB_ASSIGN_OR_RETURN(ChainedCycleResult r,
//                            RunAutoscalerCycleWithChain(in, std::move(state), chain, &plugins));
//   state = std::move(r.cycle.state);      // persist with `plugins`
//   if (r.scaled()) realize(r.cycle.state.parallelism_overrides);
//
// Thread-safety: pure apart from the plugins' Execute calls (see executor_plugin.h).
#pragma once

#include <optional>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/executor_chain.h"
#include "core/flink/autoscaler.h"

namespace trimtab::core::flink {

struct ChainedCycleInput {
  AutoscalerInput cycle;  // `commit` is ignored: the chain decides what is committed
  // What the plugins see besides the summaries: job_key, namespace_name, fleet and, when not
  // empty, the configuration (default: cycle.configuration). `metrics.global` may carry metrics
  // the caller computed itself; they are kept unless the cycle evaluated the same name. now,
  // topology and the evaluated metrics are filled in from the cycle.
  ExecutorContext context;
};

struct ChainedCycleResult {
  AutoscalerResult cycle;             // state committed with `approved`; log as above
  std::optional<ChainOutcome> chain;  // set iff the chain ran (cycle outcome was kScale)
  ScalingSummaries approved;          // what to realize; empty unless the chain approved

  bool scaled() const { return !approved.empty(); }
};

// Errors: those of RunAutoscalerCycle. A plugin error is not an error here: the chain records it
// as a veto. REQUIRES: plugin_states != nullptr (JSON object name -> plugin-private state).
StatusOr<ChainedCycleResult> RunAutoscalerCycleWithChain(const ChainedCycleInput& input,
                                                         AutoscalerState state,
                                                         const ExecutorChain& chain,
                                                         Json* plugin_states);

}  // namespace trimtab::core::flink
