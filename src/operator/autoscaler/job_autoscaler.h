// JobAutoscaler: the autoscaler as the operator's reconcilers see it (upstream
// JobAutoScaler.scale / cleanup, notes flink-autoscaler-and-operator.md §C.1).
//
// The FlinkDeployment (application) and FlinkSessionJob reconcilers call Scale() once per pass,
// before the spec diff, for a job that is deployed. Scale() collects metrics over Flink REST,
// evaluates the window, decides per-vertex parallelism, shapes it with the behavior rules, runs
// the executor plugin chain, stores its state (ConfigMap `autoscaler-<name>`), emits events, and
// returns the parallelism overrides to realize, typed, with the vertices whose user override wins
// (job.autoscaler.vertex.exclude.ids). The FlinkDeployment reconciler hands them to its
// KubernetesScalingRealizer (operator/deployment/kubernetes_scaling_realizer.h), which writes
// them into the spec it is about to reconcile as `pipeline.jobvertex-parallelism-overrides`, so
// the ordinary spec diff turns a change into an in-place rescale or an upgrade.
//
// Faults never scale: a REST timeout, a 5xx, a conflict on the state ConfigMap or missing metrics
// make Scale() return the overrides already stored (or none) with `skipped_reason` set.
//
// Thread-safety: implementations are safe for concurrent calls for different resources; calls for
// the same resource are serialised by the controller's work queue.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

// AutoscalerOutcome holds a Json by value, which needs the complete type (common/json.h only
// forward-declares it).
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/status.h"
#include "core/chain/queue_headroom.h"

namespace trimtab::op {

// What the reconciler knows about the job it is reconciling.
struct AutoscalerJobContext {
  std::string namespace_name;
  std::string resource_name;  // FlinkDeployment / FlinkSessionJob name: the state key
  std::string resource_kind;  // "FlinkDeployment" or "FlinkSessionJob"
  std::string resource_uid;   // owner of the state ConfigMap
  std::string job_id;         // 32-hex, the running job
  std::string job_status;     // Flink JobStatus name as observed ("RUNNING", ...)
  std::string rest_url;       // e.g. http://10.0.0.7:8081 or http://<name>-rest.<ns>:8081
  std::string flink_version;  // spec.flinkVersion, e.g. "v1_20"
  // The effective Flink configuration of the spec being reconciled (flinkConfiguration plus
  // operator defaults), including job.autoscaler.* keys and any user
  // pipeline.jobvertex-parallelism-overrides.
  std::map<std::string, std::string> flink_configuration;
  // TaskManager shape for resource checks (0 when unknown).
  double task_manager_cpu = 0;
  double task_manager_memory_bytes = 0;
  // The job's Volcano queue and the free room on the nodes, when its TaskManagers are in a
  // Volcano queue (the reconciler reads them; nullopt otherwise). Handed to the executor plugins
  // as ExecutorContext::queue (the queue-capacity plugin).
  std::optional<core::QueueHeadroom> queue;
  // The free room on the nodes for a job outside a Volcano queue (ExecutorContext::cluster, the
  // scale-guard plugin); nullopt when unknown.
  std::optional<core::QueueHeadroom> cluster;
};

struct AutoscalerOutcome {
  // Vertex id (32 hex) -> parallelism to realize; empty = no overrides (user parallelism).
  std::map<std::string, int> parallelism_overrides;
  // Memory tuning's TaskManager configuration stored with the last executed scaling (keys to set
  // and to remove); the reconciler realizes them while job.autoscaler.memory.tuning.enabled.
  std::map<std::string, std::string> config_overrides;
  std::set<std::string> config_removals;
  // What the job's options say about realizing the above (empty / false when the options could
  // not be read): vertices where the user's override wins over the autoscaler's
  // (job.autoscaler.vertex.exclude.ids), and whether memory tuning's configuration is realized
  // (job.autoscaler.memory.tuning.enabled).
  std::set<std::string> excluded_vertices;
  bool memory_tuning_enabled = false;
  // True when this call produced a new scaling decision (not just re-applied stored overrides).
  bool scaled = false;
  // Why nothing was decided this pass ("" when the cycle ran), e.g. "job is not RUNNING",
  // "metric window not full (3 of 10 samples)", "REST GET /jobs/<id> failed: ...".
  std::string skipped_reason;
  // The decision log of the cycle (every stage: what it saw and did), as JSON, for status/events.
  Json decision_log;
};

class JobAutoscaler {
 public:
  virtual ~JobAutoscaler() = default;
  virtual StatusOr<AutoscalerOutcome> Scale(const AutoscalerJobContext& context) = 0;
  // The resource is deleted or autoscaling was turned off: drop stored state.
  virtual Status Cleanup(const std::string& namespace_name, const std::string& resource_name) = 0;
  // The job has not run since the autoscaler's last executed scaling and pods of its cluster
  // cannot be scheduled (the reconciler saw them unbound). Once that scaling is older than
  // job.autoscaler.unschedulable.revert-after (trimtab, default 5 min; 0 = never), the vertices
  // it changed go back to the parallelism they last ran at: `scaled` is true, the overrides are
  // the reverted ones and the decision log (outcome "Reverted") says why. Otherwise the stored
  // overrides with `skipped_reason`. Default: nothing to revert.
  virtual StatusOr<AutoscalerOutcome> RevertUnschedulable(const AutoscalerJobContext& context) {
    AutoscalerOutcome out;
    out.skipped_reason = "this autoscaler does not revert";
    return out;
  }
};

}  // namespace trimtab::op
