// The Flink autoscaler's state (core::flink::AutoscalerState), the executor plugins' private
// state and the latest decision log, split into the per-type documents of an
// AutoscalerStateStore (core/chain/state_store.h) and put back together:
//
//   collectedMetrics       the metric window            [{time, vertices, global}]
//   scalingHistory         per vertex, executed scalings {vid: [{time, summary...}]}
//   scalingTracking        rescale times and restart durations
//   delayedScaleDown       per vertex, pending scale-down recommendations
//   parallelismOverrides   vid -> parallelism (the store writes it as "vid:p,vid:p")
//   recommendations        behavior rules: per vertex, timestamped recommendations
//   scaleEvents            behavior rules: per vertex, {scaleUpEvents, scaleDownEvents}
//   pluginState            executor plugin name -> private state
//   decisionLog            the latest decision log (JSON of the cycle)
//   decisionHistory        chart points and past decision logs, bounded (decision_history.h)
//
// Each document is decoded on its own with the strict core codec (autoscaler_json.h); one that
// does not decode is discarded (as upstream discards undecodable state) and named in `notes`, the
// others are kept. Empty parts are removed from the store rather than written, so a job that has
// collected nothing has no state object.
//
// Thread-safety: functions; the store's own rules apply.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/chain/state_store.h"
#include "core/flink/autoscaler_state.h"

namespace trimtab::op {

struct StoredAutoscalerState {
  core::flink::AutoscalerState state;
  Json plugin_states = Json::object();
  Json history;                    // decisionHistory as stored; null when absent
  std::vector<std::string> notes;  // discarded documents, one line each
};

// Reads every document of `job_key`. Errors: the store's (other than kNotFound).
StatusOr<StoredAutoscalerState> LoadAutoscalerState(core::AutoscalerStateStore& store,
                                                    const std::string& job_key);

// Puts (or removes, when empty) every document and flushes. `decision_log` and `history` null =
// leave the stored one. Errors: the store's; kConflict from Flush means nothing was written.
Status SaveAutoscalerState(core::AutoscalerStateStore& store, const std::string& job_key,
                           const core::flink::AutoscalerState& state, const Json& plugin_states,
                           const Json& decision_log, const Json& history = Json());

}  // namespace trimtab::op
