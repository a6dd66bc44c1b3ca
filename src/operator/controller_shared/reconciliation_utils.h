// Bookkeeping of status.reconciliationStatus as upstream ReconciliationUtils does it (notes §A.7):
// recording the spec the operator acts on (write-ahead: UPGRADING with job.state=suspended before
// a deployment, DEPLOYED with the real state after it), marking it stable, marking a job that
// was cancelled or lost as suspended.
//
// Specs are handled as their JSON encoding (api/flink_spec.h), so the same helpers serve
// FlinkDeployment and FlinkSessionJob.
//
// Thread-safety: pure functions on the status passed in.
#pragma once

#include <optional>

#include "api/flink_status.h"
#include "api/reconciled_spec.h"
#include "common/clock.h"

namespace trimtab::op {

struct RecordOptions {
  api::ReconciliationState state = api::ReconciliationState::kDeployed;
  std::optional<api::JobState> job_state;      // overrides spec.job.state in the record
  std::optional<api::UpgradeMode> upgrade_mode;  // overrides spec.job.upgradeMode (restore mode used)
};

// Records `spec` as lastReconciledSpec: trigger nonces are carried over from the previous record
// (they advance only when a snapshot is triggered), firstDeployment stays true until a deployment
// has been recorded DEPLOYED once, observedGeneration = `generation`,
// reconciliationTimestamp = now.
void RecordSpec(api::CommonStatus* status, Json spec, int64_t generation, TimePoint now,
                const RecordOptions& options);
// Only observedGeneration and the metadata (IGNORE-only changes; the recorded spec stays).
void RecordGeneration(api::CommonStatus* status, int64_t generation);
// lastStableSpec = lastReconciledSpec.
void MarkStable(api::CommonStatus* status);
bool IsStable(const api::CommonStatus& status);
// The job was cancelled or is gone: recorded job.state = suspended, firstDeployment = false.
void MarkSuspended(api::CommonStatus* status);
// Clears lastReconciledSpec (a first deployment that never happened).
void ClearRecordedSpec(api::CommonStatus* status);

// The recorded spec JSON (lastReconciledSpec, or lastStableSpec when ROLLED_BACK), null when none.
Json RecordedSpec(const api::CommonStatus& status);
Json LastReconciledSpec(const api::CommonStatus& status);
bool IsFirstDeployment(const api::CommonStatus& status);
// spec.job.<field> of a spec JSON as int (nullopt when absent).
std::optional<int64_t> JobNonce(const Json& spec, const char* field);
// Sets spec.job.<field> (nonces advance when a snapshot was triggered).
void SetRecordedJobField(api::CommonStatus* status, const char* field, const Json& value);

}  // namespace trimtab::op
