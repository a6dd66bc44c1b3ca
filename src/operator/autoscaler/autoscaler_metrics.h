// AutoscalerMetrics: the operator autoscaler's Prometheus series, per job (FlinkDeployment or
// FlinkSessionJob) and job vertex, fed by OperatorAutoscaler::Scale from the results of each
// cycle it ran (the evaluated metrics, the decision log, the chain's outcome, the state it
// committed) and cleared by Cleanup, so a deleted job stops being exported. Names follow the
// upstream operator's AutoScaler metric group where one exists (docs/metrics.md):
//
//   flink_k8soperator_namespace_resource_AutoScaler_<METRIC>_Current   per vertex, gauges for
//       PARALLELISM, RECOMMENDED_PARALLELISM, MAX_PARALLELISM, TRUE_PROCESSING_RATE,
//       TARGET_DATA_RATE, CATCH_UP_DATA_RATE, LAG, LOAD (utilization), NUM_SOURCE_PARTITIONS,
//       SCALE_UP_RATE_THRESHOLD, SCALE_DOWN_RATE_THRESHOLD, EXPECTED_PROCESSING_RATE
//   flink_k8soperator_namespace_resource_AutoScaler_<METRIC>_Average   window averages of LOAD,
//       TRUE_PROCESSING_RATE, TARGET_DATA_RATE
//   flink_k8soperator_namespace_resource_AutoScaler_{scalings,errors,balanced}   counters
//   trimtab_autoscaler_decisions_total{outcome}      every Scale() by how it ended
//   trimtab_autoscaler_vetoes_total{plugin}          vetoes by the executor plugin that vetoed
//   trimtab_autoscaler_rescales_total                executed scalings
//   trimtab_autoscaler_rescale_restart_seconds       histogram: how long rescales took until the
//                                                    job ran at the new parallelism
//
// Labels: resourcens, resourcename, resourcetype on every series; jobVertexID and vertex (the
// vertex name, at most 128 characters) on per-vertex series. A vertex the job no longer has is
// dropped at the next evaluation; the vertex series go when the job leaves RUNNING (upstream drops
// its evaluation then); everything of a job goes with Forget.
//
// Thread-safety: safe for concurrent use (the registry's rules).
#pragma once

#include <map>
#include <string>

#include "common/metrics_registry.h"
#include "core/flink/decision_log.h"
#include "core/scaling_types.h"

namespace trimtab::op {

struct AutoscalerMetricsJob {
  std::string namespace_name;
  std::string name;
  std::string kind;  // FlinkDeployment or FlinkSessionJob
};

class AutoscalerMetrics {
 public:
  // `registry` must outlive this object.
  explicit AutoscalerMetrics(MetricsRegistry* registry);

  // Upstream's counters.
  void CountScaling(const AutoscalerMetricsJob& job);
  void CountError(const AutoscalerMetricsJob& job);
  void CountBalanced(const AutoscalerMetricsJob& job);
  // One Scale() call ended with `outcome` (a CycleOutcome name, "Scaled", "Vetoed" or "Skipped").
  void CountDecision(const AutoscalerMetricsJob& job, const std::string& outcome);
  void CountVeto(const AutoscalerMetricsJob& job, const std::string& plugin);
  void CountRescale(const AutoscalerMetricsJob& job);
  void ObserveRestart(const AutoscalerMetricsJob& job, double seconds);

  // The per-vertex gauges of one evaluation; `names` maps vertex ids to names; the decision log
  // gives the recommended parallelism where the evaluation has none.
  void SetVertices(const AutoscalerMetricsJob& job, const core::EvaluatedMetrics& evaluated,
                   const std::map<std::string, std::string>& names,
                   const core::flink::DecisionLog& log);
  void ClearVertices(const AutoscalerMetricsJob& job);
  // Every series of the job.
  void Forget(const std::string& namespace_name, const std::string& name);

 private:
  struct VertexGauge {
    std::string metric;  // ScalingMetric name
    bool average;        // the window average rather than the current value
    MetricFamily* family;
  };
  LabelValues JobLabels(const AutoscalerMetricsJob& job) const;
  LabelValues WithLabel(LabelValues labels, const std::string& value) const;

  MetricsRegistry* registry_;
  std::vector<VertexGauge> vertex_gauges_;
  MetricFamily* scalings_;
  MetricFamily* errors_;
  MetricFamily* balanced_;
  MetricFamily* decisions_;
  MetricFamily* vetoes_;
  MetricFamily* rescales_;
  MetricFamily* restart_seconds_;
};

}  // namespace trimtab::op
