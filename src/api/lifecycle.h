// status.lifecycleState derivation, in upstream's exact order (notes §A.8):
//  1. DELETING / DELETED stay.
//  2. No lastReconciledSpec: CREATED, or FAILED when status.error is set.
//  3. Reconciliation state UPGRADING -> UPGRADING; ROLLING_BACK -> ROLLING_BACK.
//  4. lastReconciledSpec.job.state == suspended -> SUSPENDED.
//  5. jobStatus.state == FAILED -> FAILED.
//  6. FlinkDeployment with JobManager MISSING or ERROR and an error naming a manual-restore
//     situation -> FAILED.
//  7. ROLLED_BACK -> ROLLED_BACK; lastReconciledSpec == lastStableSpec -> STABLE; else DEPLOYED.
//
// Thread-safety: pure functions.
#pragma once

#include "api/flink_status.h"

namespace trimtab::api {

LifecycleState DeriveLifecycleState(const FlinkDeploymentStatus& status);
LifecycleState DeriveLifecycleState(const FlinkSessionJobStatus& status);

}  // namespace trimtab::api
