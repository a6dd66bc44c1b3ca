#include "operator/autoscaler/autoscaler_metrics.h"

#include <cmath>

namespace trimtab::op {
namespace {

constexpr size_t kMaxVertexNameLabel = 128;
constexpr char kVertexPrefix[] = "flink_k8soperator_namespace_resource_AutoScaler_";

const std::vector<std::string>& JobLabelNames() {
  static const std::vector<std::string> names = {"resourcens", "resourcename", "resourcetype"};
  return names;
}

std::vector<std::string> Plus(std::vector<std::string> names, std::vector<std::string> more) {
  names.insert(names.end(), more.begin(), more.end());
  return names;
}

struct GaugeSpec {
  const char* metric;
  const char* help;
};

// The upstream ScalingMetric names exported per vertex, with what they mean.
constexpr GaugeSpec kCurrentGauges[] = {
    {core::kMetricParallelism, "Current parallelism of the job vertex."},
    {core::kMetricRecommendedParallelism,
     "Parallelism the autoscaler recommends for the job vertex (its current one when it "
     "recommends no change)."},
    {core::kMetricMaxParallelism, "Max parallelism (key groups) of the job vertex."},
    {core::kMetricTrueProcessingRate,
     "Records per second the job vertex could process at full utilization."},
    {core::kMetricTargetDataRate, "Records per second arriving at the job vertex (input rate)."},
    {core::kMetricCatchUpDataRate,
     "Extra records per second needed to clear the backlog within the catch-up duration."},
    {core::kMetricLag, "Records pending at the source (backlog)."},
    {core::kMetricLoad, "Busy time ratio of the job vertex (utilization, 0..1)."},
    {core::kMetricNumSourcePartitions, "Partitions of the source."},
    {core::kMetricScaleUpRateThreshold, "Processing rate above which the vertex scales up."},
    {core::kMetricScaleDownRateThreshold, "Processing rate below which the vertex scales down."},
    {core::kMetricExpectedProcessingRate, "Processing rate expected after the last scaling."},
};
constexpr GaugeSpec kAverageGauges[] = {
    {core::kMetricLoad, "Busy time ratio of the job vertex, averaged over the metric window."},
    {core::kMetricTrueProcessingRate,
     "True processing rate of the job vertex, averaged over the metric window."},
    {core::kMetricTargetDataRate,
     "Input rate of the job vertex, averaged over the metric window."},
};

}  // namespace

AutoscalerMetrics::AutoscalerMetrics(MetricsRegistry* registry) : registry_(registry) {
  const std::vector<std::string> vertex_labels =
      Plus(JobLabelNames(), {"jobVertexID", "vertex"});
  for (const GaugeSpec& g : kCurrentGauges) {
    vertex_gauges_.push_back(
        {g.metric, false,
         &registry->Gauge(std::string(kVertexPrefix) + g.metric + "_Current", g.help,
                          vertex_labels)});
  }
  for (const GaugeSpec& g : kAverageGauges) {
    vertex_gauges_.push_back(
        {g.metric, true,
         &registry->Gauge(std::string(kVertexPrefix) + g.metric + "_Average", g.help,
                          vertex_labels)});
  }
  scalings_ = &registry->Counter(std::string(kVertexPrefix) + "scalings",
                                 "Autoscaler cycles that decided a scaling.", JobLabelNames());
  errors_ = &registry->Counter(std::string(kVertexPrefix) + "errors",
                               "Autoscaler cycles that failed (REST, metrics, state, "
                               "configuration).",
                               JobLabelNames());
  balanced_ = &registry->Counter(std::string(kVertexPrefix) + "balanced",
                                 "Autoscaler cycles that evaluated a full window and changed "
                                 "nothing.",
                                 JobLabelNames());
  decisions_ = &registry->Counter(
      "trimtab_autoscaler_decisions_total",
      "Autoscaler passes by outcome: Scaled, Vetoed, Blocked, NoChange, WindowNotFull, "
      "NotEnoughSamples, Stabilizing, JobNotRunning, Disabled or Skipped.",
      Plus(JobLabelNames(), {"outcome"}));
  vetoes_ = &registry->Counter("trimtab_autoscaler_vetoes_total",
                               "Scaling decisions vetoed, by the executor plugin that vetoed.",
                               Plus(JobLabelNames(), {"plugin"}));
  rescales_ = &registry->Counter("trimtab_autoscaler_rescales_total",
                                 "Scalings the autoscaler executed.", JobLabelNames());
  restart_seconds_ = &registry->Histogram(
      "trimtab_autoscaler_rescale_restart_seconds",
      "Time from an executed scaling until the job ran at the new parallelism.", JobLabelNames(),
      {5, 10, 20, 30, 60, 120, 300, 600, 1200});
}

LabelValues AutoscalerMetrics::JobLabels(const AutoscalerMetricsJob& job) const {
  return {job.namespace_name, job.name, job.kind};
}

LabelValues AutoscalerMetrics::WithLabel(LabelValues labels, const std::string& value) const {
  labels.push_back(value);
  return labels;
}

void AutoscalerMetrics::CountScaling(const AutoscalerMetricsJob& job) {
  scalings_->Inc(JobLabels(job));
}
void AutoscalerMetrics::CountError(const AutoscalerMetricsJob& job) {
  errors_->Inc(JobLabels(job));
}
void AutoscalerMetrics::CountBalanced(const AutoscalerMetricsJob& job) {
  balanced_->Inc(JobLabels(job));
}
void AutoscalerMetrics::CountDecision(const AutoscalerMetricsJob& job, const std::string& outcome) {
  decisions_->Inc(WithLabel(JobLabels(job), outcome));
}
void AutoscalerMetrics::CountVeto(const AutoscalerMetricsJob& job, const std::string& plugin) {
  vetoes_->Inc(WithLabel(JobLabels(job), plugin));
}
void AutoscalerMetrics::CountRescale(const AutoscalerMetricsJob& job) {
  rescales_->Inc(JobLabels(job));
}
void AutoscalerMetrics::ObserveRestart(const AutoscalerMetricsJob& job, double seconds) {
  restart_seconds_->Observe(JobLabels(job), seconds);
}

void AutoscalerMetrics::SetVertices(const AutoscalerMetricsJob& job,
                                    const core::EvaluatedMetrics& evaluated,
                                    const std::map<std::string, std::string>& names,
                                    const core::flink::DecisionLog& log) {
  const std::map<std::string, std::string> match = {{"resourcens", job.namespace_name},
                                                    {"resourcename", job.name}};
  std::map<MetricFamily*, std::vector<LabelValues>> kept;
  for (const auto& [id, metrics] : evaluated.vertices) {
    auto name_it = names.find(id);
    std::string name = name_it == names.end() ? id : name_it->second;
    if (name.size() > kMaxVertexNameLabel) name.resize(kMaxVertexNameLabel);
    const LabelValues labels = {job.namespace_name, job.name, job.kind, id, name};
    for (const VertexGauge& g : vertex_gauges_) {
      std::optional<double> value;
      if (const core::EvaluatedMetric* m = metrics.Find(g.metric)) {
        value = g.average ? m->average : m->current;
      }
      if (!value && !g.average && g.metric == core::kMetricRecommendedParallelism) {
        // The log knows what the cycle recommended; no recommendation = stay where it is.
        auto d = log.vertices.find(id);
        if (d != log.vertices.end()) {
          value = d->second.proposed_parallelism ? *d->second.proposed_parallelism
                                                 : d->second.current_parallelism;
        }
      }
      if (!value || std::isnan(*value)) continue;
      g.family->Set(labels, *value);
      kept[g.family].push_back(labels);
    }
  }
  for (const VertexGauge& g : vertex_gauges_) g.family->RemoveMatchingExcept(match, kept[g.family]);
}

void AutoscalerMetrics::ClearVertices(const AutoscalerMetricsJob& job) {
  const std::map<std::string, std::string> match = {{"resourcens", job.namespace_name},
                                                    {"resourcename", job.name}};
  for (const VertexGauge& g : vertex_gauges_) g.family->RemoveMatching(match);
}

void AutoscalerMetrics::Forget(const std::string& namespace_name, const std::string& name) {
  registry_->RemoveMatching({{"resourcens", namespace_name}, {"resourcename", name}});
}

}  // namespace trimtab::op
