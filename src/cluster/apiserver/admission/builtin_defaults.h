// Defaulting of the built-in kinds the local cluster runs, as the kube-apiserver's defaulting
// functions and admission plugins do it, so that objects read back look like a real cluster's
// and the controllers find the fields they rely on:
//
//   pods         spec: restartPolicy Always, terminationGracePeriodSeconds 30, dnsPolicy
//                ClusterFirst, schedulerName default-scheduler, enableServiceLinks true,
//                securityContext {}, containers' imagePullPolicy (Always for ":latest" or no
//                tag, else IfNotPresent), terminationMessagePath/Policy, ports' protocol TCP;
//                on create also what admission adds: serviceAccountName/serviceAccount
//                "default", priority 0, preemptionPolicy PreemptLowerPriority, the
//                not-ready/unreachable NoExecute tolerations for 300 s (DefaultTolerationSeconds);
//                status.qosClass (Guaranteed / Burstable / BestEffort)
//   deployments  replicas 1, strategy RollingUpdate with maxUnavailable/maxSurge 25%,
//                revisionHistoryLimit 10, progressDeadlineSeconds 600, template pod spec
//   replicasets  replicas 1, template pod spec
//   hpas         autoscaling/v2 defaults (hpa_rules.h)
//   services     type ClusterIP, sessionAffinity None, internalTrafficPolicy Cluster, ports'
//                protocol TCP and targetPort = port (clusterIP allocation: service_ips.h)
//   jobs         completions/parallelism 1 (both absent), backoffLimit 6, completionMode
//                NonIndexed, suspend false, podReplacementPolicy; on create without
//                manualSelector the selector on batch.kubernetes.io/controller-uid and the
//                template labels (controller-uid, job-name, both with and without prefix)
//   cronjobs     concurrencyPolicy Allow, suspend false, history limits 3 / 1, the job template
//   statefulsets replicas 1, podManagementPolicy OrderedReady, RollingUpdate partition 0,
//                revisionHistoryLimit 10, PVC retention Retain/Retain
//   daemonsets   RollingUpdate maxUnavailable 1 / maxSurge 0, revisionHistoryLimit 10
//   pvcs / pvs   volumeMode Filesystem, status.phase Pending on create; pvs reclaim Retain
//   storageclasses  reclaimPolicy Delete, volumeBindingMode Immediate
//
// Only absent fields are set; a value the user gave is never changed.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "cluster/apiserver/surface/resource_registry.h"
#include "common/json.h"

namespace trimtab::cluster {

// Applies the defaults of `type` to `object`. `create` adds the create-time (admission) defaults
// of pods as well.
void ApplyBuiltinDefaults(const ResourceType& type, Json* object, bool create);

// The pod's QoS class as the API server computes it at creation (pkg/apis/core/helper/qos):
// Guaranteed when every container has cpu and memory limits equal to its requests, BestEffort
// when no container has any cpu/memory request or limit, Burstable otherwise.
std::string PodQosClass(const Json& pod);

}  // namespace trimtab::cluster
