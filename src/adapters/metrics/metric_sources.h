// Custom metric sources beside the Flink REST one (core/chain/metric_requirements.h), and the
// routing of each declared metric to the source of its kind.
//
// Both sources fill the job into the query before it is sent: {{namespace}}, {{name}} (the
// FlinkDeployment or FlinkSessionJob) and {{jobId}} (the Flink job id).
//
// PrometheusMetricSource: source `prometheus`, the Prometheus HTTP API's instant query,
// GET <url>/api/v1/query?query=<PromQL>, e.g.
//   sum(kafka_consumergroup_lag{consumergroup="{{name}}"})
//   avg by (task_id) (flink_taskmanager_job_task_busyTimeMsPerSecond{job_id="{{jobId}}"})
//
// What the answer must hold, by scope (values combined with the metric's aggregation):
//   job          a scalar, or the series of an instant vector, combined into one value
//   taskmanager  one series per TaskManager, combined
//   vertex       series labelled with the vertex id as `task_id` (the label Flink's Prometheus
//                reporter gives a task's metrics), combined per vertex; vertices without a series
//                have no value
// An empty answer, an answer of another type, a value that is not a number ("NaN" and "+Inf"
// parse, and the collector then reports them as not finite), an error status from Prometheus
// (its errorType and error are quoted) or an HTTP failure is an error naming the metric and the
// query.
//
// ExternalMetricSource: source `external`, the external metrics API an HPA reads
// (external.metrics.k8s.io/v1beta1, served by an adapter such as KEDA's or prometheus-adapter),
// GET /apis/external.metrics.k8s.io/v1beta1/namespaces/<namespace>/<metric>?labelSelector=...
// The query is the metric name, optionally with a label selector in braces:
//   queue_messages_ready{queue={{name}}}
// The items' values (Kubernetes quantities, "1500m") are combined with the metric's aggregation;
// a vertex metric groups items by their `task_id` label. No items, an unparsable value or an API
// error (an adapter that does not serve the metric answers 404) is an error naming the metric.
//
// Thread-safety: safe for concurrent use (the HTTP and Kubernetes clients are).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "adapters/http/client.h"
#include "adapters/kube/kube_client.h"
#include "common/clock.h"
#include "core/flink/custom_metrics.h"

namespace trimtab::adapters {

struct PrometheusSourceOptions {
  const http::HttpClient* http = nullptr;  // required; shared
  std::string url;                         // "http://prometheus:9090" (a trailing slash is ignored)
  Millis timeout{10000};                   // per query
  std::string flink_job_id;                // for {{jobId}}
};

// GET `url` (a Prometheus HTTP API query) and the answer's `data`, or an error starting with
// `what`: the transport's, an answer that is not the API's JSON envelope (Unavailable), or the
// API's own errorType and error (Unavailable for 5xx, else FailedPrecondition). Shared by the
// instant queries here and `trimtab scenario from-flink`'s query_range.
StatusOr<Json> PrometheusApiGet(const http::HttpClient& http, const std::string& url,
                                Millis timeout, const std::string& what);

// A sample value as the API writes it ("12.5", "NaN", "+Inf", "-Inf"), from a [time, "value"]
// pair; nullopt for anything else.
std::optional<double> PrometheusSampleValue(const Json& pair);

class PrometheusMetricSource final : public core::flink::MetricSource {
 public:
  explicit PrometheusMetricSource(PrometheusSourceOptions options);

  StatusOr<double> FetchTaskManagerMetric(const core::flink::MetricFetchJob& job,
                                          const core::MetricRequirement& metric) override;
  StatusOr<std::map<core::VertexId, double>> FetchVertexMetric(
      const core::flink::MetricFetchJob& job, const core::MetricRequirement& metric) override;
  StatusOr<double> FetchJobMetric(const core::flink::MetricFetchJob& job,
                                  const core::MetricRequirement& metric) override;

  // The query with {{namespace}}, {{name}} and {{jobId}} replaced (exposed for tests).
  std::string ExpandQuery(const core::flink::MetricFetchJob& job, const std::string& query) const;

 private:
  struct Series {
    std::map<std::string, std::string> labels;
    double value = 0;
  };
  // The instant query's series (a scalar is one series without labels).
  StatusOr<std::vector<Series>> Query(const core::flink::MetricFetchJob& job,
                                      const core::MetricRequirement& metric) const;

  PrometheusSourceOptions options_;
};

class ExternalMetricSource final : public core::flink::MetricSource {
 public:
  // `kube` (required) must outlive the source.
  ExternalMetricSource(const kube::KubeClient* kube, std::string flink_job_id, Millis timeout)
      : kube_(kube), flink_job_id_(std::move(flink_job_id)), timeout_(timeout) {}

  StatusOr<double> FetchTaskManagerMetric(const core::flink::MetricFetchJob& job,
                                          const core::MetricRequirement& metric) override;
  StatusOr<std::map<core::VertexId, double>> FetchVertexMetric(
      const core::flink::MetricFetchJob& job, const core::MetricRequirement& metric) override;
  StatusOr<double> FetchJobMetric(const core::flink::MetricFetchJob& job,
                                  const core::MetricRequirement& metric) override;

 private:
  // (labels, value) of every item.
  StatusOr<std::vector<std::pair<std::map<std::string, std::string>, double>>> Items(
      const core::flink::MetricFetchJob& job, const core::MetricRequirement& metric) const;

  const kube::KubeClient* kube_;
  std::string flink_job_id_;
  Millis timeout_;
};

// Routes each metric to the source of its kind: Flink REST, Prometheus (when a URL was given) or
// external.metrics.k8s.io. A kind without a source is an error that says how to provide one.
class RoutingMetricSource final : public core::flink::MetricSource {
 public:
  // Any source may be null; none is owned.
  RoutingMetricSource(core::flink::MetricSource* flink, core::flink::MetricSource* prometheus,
                      core::flink::MetricSource* external)
      : flink_(flink), prometheus_(prometheus), external_(external) {}

  StatusOr<double> FetchTaskManagerMetric(const core::flink::MetricFetchJob& job,
                                          const core::MetricRequirement& metric) override;
  StatusOr<std::map<core::VertexId, double>> FetchVertexMetric(
      const core::flink::MetricFetchJob& job, const core::MetricRequirement& metric) override;
  StatusOr<double> FetchJobMetric(const core::flink::MetricFetchJob& job,
                                  const core::MetricRequirement& metric) override;

 private:
  StatusOr<core::flink::MetricSource*> For(const core::MetricRequirement& metric) const;

  core::flink::MetricSource* flink_;
  core::flink::MetricSource* prometheus_;
  core::flink::MetricSource* external_;
};

}  // namespace trimtab::adapters
