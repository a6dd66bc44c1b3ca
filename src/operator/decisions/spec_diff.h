// Spec diff: what kind of change separates the last reconciled spec from the current one
// (upstream ReflectiveDiffBuilder + @SpecDiff annotations, notes §B.4):
//
//   job.*                     nested: jarURI, entryClass, args, state -> UPGRADE;
//                             parallelism -> SCALE in standalone mode, UPGRADE in native;
//                             savepointTriggerNonce, initialSavepointPath, checkpointTriggerNonce,
//                             upgradeMode, allowNonRestoredState, autoscalerResetNonce -> IGNORE;
//                             savepointRedeployNonce -> SAVEPOINT_REDEPLOY (new null ignored);
//                             job present on one side only -> UPGRADE
//   restartNonce              UPGRADE (new null ignored)
//   flinkConfiguration.<key>  job.autoscaler*, parallelism.default*, kubernetes.operator* -> IGNORE;
//                             pipeline.jobvertex-parallelism-overrides -> SCALE (native) /
//                             UPGRADE (standalone); any other key -> UPGRADE
//   taskManager.replicas      SCALE in standalone, UPGRADE in native; other taskManager fields UPGRADE
//   anything else             UPGRADE (image, serviceAccount, flinkVersion, podTemplate,
//                             jobManager, logConfiguration, mode, ingress, deploymentName, ...)
//
// The result type is the maximum over all changed fields (IGNORE < SCALE < UPGRADE <
// SAVEPOINT_REDEPLOY); `changes` lists them as "job.parallelism : 2 -> 4".
//
// Usage:
//   SpecDiff d = DiffSpecs(EncodeFlinkDeploymentSpec(old), EncodeFlinkDeploymentSpec(now),
//                          DeploymentMode::kNative);
//   if (d.type == DiffType::kScale) TryInPlaceScale(...);
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/flink_enums.h"
#include "common/json.h"

namespace trimtab::op {

struct SpecDiff {
  api::DiffType type = api::DiffType::kIgnore;
  std::vector<std::string> changes;  // every changed field, ignored ones included

  // "Diff: FlinkDeploymentSpec[job.parallelism : 2 -> 4, image : a -> b]"
  std::string Describe(std::string_view spec_kind) const;
};

// Both specs as encoded by api/flink_spec.h (flinkConfiguration flattened).
SpecDiff DiffSpecs(const Json& old_spec, const Json& new_spec, api::DeploymentMode mode);

}  // namespace trimtab::op
