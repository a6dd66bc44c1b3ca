// The kube-apiserver's Priority admission plugin (plugin/pkg/admission/priority), for the local
// API server:
//
//   pod create     spec.priorityClassName names a PriorityClass: spec.priority = its value and
//                  spec.preemptionPolicy = its preemptionPolicy. No name: the globalDefault class
//                  (the one with the lowest value when several are) gives name, priority and
//                  policy; without one the priority is 0 and the policy stays the pod's own.
//                  Refused (403 Forbidden) when the class does not exist ("no PriorityClass with
//                  name foo was found"), or when the pod already carries a priority or policy
//                  other than the computed one.
//   class create   preemptionPolicy defaults to PreemptLowerPriority; a second globalDefault class
//   class update   is refused ("PriorityClass x is already marked as default. Only one default
//                  can exist").
//
// The API server also creates, at start, the two classes every cluster has:
// system-node-critical (2000001000) and system-cluster-critical (2000000000).
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json.h"

namespace trimtab::cluster {

// Resolves the priority of `pod` (create) against every PriorityClass in `classes`. Returns the
// reason of a refusal (the text after `pods "x" is forbidden: `), nullopt when admitted.
std::optional<std::string> AdmitPodPriority(const std::vector<Json>& classes, Json* pod);

// Checks (and defaults) PriorityClass `pc` being created or updated against the stored
// `classes` (which may include the old version of `pc`). Returns the reason of a refusal.
std::optional<std::string> AdmitPriorityClass(const std::vector<Json>& classes, Json* pc);

// system-node-critical and system-cluster-critical, as the API server bootstraps them.
std::vector<Json> SystemPriorityClasses();

}  // namespace trimtab::cluster
