// Scale() stage 3, Persist (scale_pass.h): state, plugin state, decision log and history written
// back with optimistic locking; a conflict skips the cycle, never a blind overwrite.
#include <spdlog/spdlog.h>

#include <string>
#include <utility>

#include "operator/autoscaler/operator_autoscaler.h"
#include "operator/autoscaler/scale_pass.h"
#include "operator/autoscaler/state_documents.h"

namespace trimtab::op {

StatusOr<OperatorAutoscaler::ScaleStep> OperatorAutoscaler::Persist(ScalePass& pass) {
  Resource& r = pass.resource;
  Status saved = SaveAutoscalerState(*store_, pass.job_key, pass.result->cycle.state,
                                     pass.plugin_states, pass.log_json, pass.history);
  if (saved.ok()) return ScaleStep::Continue();
  r.loaded = false;  // re-read the stored state next time
  if (configmap_store_ != nullptr) configmap_store_->Invalidate(pass.job_key);
  CountError(pass);
  const std::string why = saved.code() == StatusCode::kConflict
                              ? "the autoscaler state changed concurrently, cycle skipped: "
                              : "cannot write the autoscaler state, cycle skipped: ";
  spdlog::warn("autoscaler {}: {}{}", pass.job_key, why, saved.message());
  // The cycle's decision log, marked skipped; the overrides as stored before the cycle.
  AutoscalerOutcome out;
  pass.FillStored(&out);
  out.skipped_reason = why + saved.message();
  out.decision_log = std::move(pass.log_json);
  out.decision_log["cycleOutcome"] = out.decision_log["outcome"];
  out.decision_log["outcome"] = "Skipped";
  out.decision_log["skippedReason"] = out.skipped_reason;
  out.decision_log["scaled"] = false;
  return ScaleStep::Stop(std::move(out));
}

}  // namespace trimtab::op
