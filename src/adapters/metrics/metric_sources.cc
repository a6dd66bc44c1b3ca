#include "adapters/metrics/metric_sources.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/quantity.h"

namespace trimtab::adapters {

namespace {

using core::MetricAggregation;
using core::MetricRequirement;
using core::VertexId;
using core::flink::MetricFetchJob;

// The vertex id label of Flink's Prometheus reporter.
constexpr const char kVertexLabel[] = "task_id";

std::string Describe(const MetricRequirement& m) {
  return "metric " + m.name + " (prometheus " + m.query + ")";
}

}  // namespace

std::optional<double> PrometheusSampleValue(const Json& pair) {
  if (!pair.is_array() || pair.size() != 2 || !pair[1].is_string()) return std::nullopt;
  const std::string text = pair[1].get<std::string>();
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (...) {
  }
  return std::nullopt;
}

StatusOr<Json> PrometheusApiGet(const http::HttpClient& http, const std::string& url,
                                Millis timeout, const std::string& what) {
  http::ClientRequest request;
  request.url = url;
  request.timeout = timeout;
  StatusOr<http::ClientResponse> response = http.Do(request);
  if (!response.ok()) {
    return Status(response.status().code(), what + ": " + std::string(response.status().message()));
  }
  const Json body = Json::parse(response->body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return UnavailableError(what + ": HTTP " + std::to_string(response->status) +
                            ", not a Prometheus API answer");
  }
  if (body.value("status", "") != "success") {
    return (response->status >= 500 ? UnavailableError : FailedPreconditionError)(
        what + ": Prometheus says " + body.value("errorType", "error") + ": " +
        body.value("error", "(no message)"));
  }
  return body.value("data", Json::object());
}

namespace {

// REQUIRES: !values.empty().
double Combine(const std::vector<double>& values, MetricAggregation a) {
  if (a == MetricAggregation::kMax) return *std::max_element(values.begin(), values.end());
  if (a == MetricAggregation::kMin) return *std::min_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  return a == MetricAggregation::kSum ? sum : sum / static_cast<double>(values.size());
}

void ReplaceAll(std::string& text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// `query` with {{namespace}}, {{name}} and {{jobId}} replaced.
std::string Expand(const MetricFetchJob& job, const std::string& query, const std::string& job_id) {
  const size_t slash = job.job_key.find('/');
  const std::string name = slash == std::string::npos ? job.job_key : job.job_key.substr(slash + 1);
  std::string out = query;
  ReplaceAll(out, "{{namespace}}", job.namespace_name);
  ReplaceAll(out, "{{name}}", name);
  ReplaceAll(out, "{{jobId}}", job_id);
  return out;
}

// Per vertex of `job`, the values labelled with its id as `task_id`, combined; an error when no
// value has the label.
template <typename LabelledValues>
StatusOr<std::map<VertexId, double>> ByVertex(const LabelledValues& values,
                                              const MetricFetchJob& job,
                                              const MetricRequirement& m,
                                              const std::string& what) {
  std::map<VertexId, std::vector<double>> by_vertex;
  bool labelled = false;
  for (const auto& [labels, value] : values) {
    auto it = labels.find(kVertexLabel);
    if (it == labels.end()) continue;
    labelled = true;
    by_vertex[it->second].push_back(value);
  }
  if (!labelled) {
    return FailedPreconditionError(what + ": no series has a " + kVertexLabel +
                                   " label (the vertex id, as Flink's Prometheus reporter "
                                   "labels task metrics)");
  }
  std::map<VertexId, double> out;
  for (const VertexId& v : job.vertices) {
    if (auto it = by_vertex.find(v); it != by_vertex.end()) out[v] = Combine(it->second, m.aggregation);
  }
  return out;
}

}  // namespace

PrometheusMetricSource::PrometheusMetricSource(PrometheusSourceOptions options)
    : options_(std::move(options)) {
  while (!options_.url.empty() && options_.url.back() == '/') options_.url.pop_back();
}

std::string PrometheusMetricSource::ExpandQuery(const MetricFetchJob& job,
                                                const std::string& query) const {
  return Expand(job, query, options_.flink_job_id);
}

StatusOr<std::vector<PrometheusMetricSource::Series>> PrometheusMetricSource::Query(
    const MetricFetchJob& job, const MetricRequirement& m) const {
  if (!options_.http) return InternalError("prometheus source: no HTTP client");
  TRIMTAB_ASSIGN_OR_RETURN(
      const Json data,
      PrometheusApiGet(*options_.http,
                       options_.url + "/api/v1/query?query=" +
                           http::UrlEncode(ExpandQuery(job, m.query)),
                       options_.timeout, Describe(m)));
  const std::string type = data.value("resultType", "");
  const Json result = data.value("result", Json());
  std::vector<Series> out;
  if (type == "scalar") {
    std::optional<double> v = PrometheusSampleValue(result);
    if (!v) return FailedPreconditionError(Describe(m) + ": a scalar without a number");
    out.push_back({{}, *v});
    return out;
  }
  if (type != "vector" || !result.is_array()) {
    return FailedPreconditionError(Describe(m) + ": answers a " +
                                   (type.empty() ? std::string("result") : type) +
                                   ", not an instant vector or a scalar");
  }
  for (const Json& series : result) {
    std::optional<double> v = PrometheusSampleValue(series.value("value", Json()));
    if (!v) return FailedPreconditionError(Describe(m) + ": a series without a number");
    Series s;
    s.value = *v;
    const Json labels = series.value("metric", Json::object());
    if (labels.is_object()) {
      for (auto it = labels.begin(); it != labels.end(); ++it) {
        if (it.value().is_string()) s.labels[it.key()] = it.value().get<std::string>();
      }
    }
    out.push_back(std::move(s));
  }
  if (out.empty()) return NotFoundError(Describe(m) + ": no series");
  return out;
}

StatusOr<double> PrometheusMetricSource::FetchJobMetric(const MetricFetchJob& job,
                                                        const MetricRequirement& m) {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Series> series, Query(job, m));
  std::vector<double> values;
  for (const Series& s : series) values.push_back(s.value);
  return Combine(values, m.aggregation);
}

StatusOr<double> PrometheusMetricSource::FetchTaskManagerMetric(const MetricFetchJob& job,
                                                                const MetricRequirement& m) {
  return FetchJobMetric(job, m);
}

StatusOr<std::map<VertexId, double>> PrometheusMetricSource::FetchVertexMetric(
    const MetricFetchJob& job, const MetricRequirement& m) {
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Series> series, Query(job, m));
  std::vector<std::pair<std::map<std::string, std::string>, double>> values;
  for (Series& s : series) values.emplace_back(std::move(s.labels), s.value);
  return ByVertex(values, job, m, Describe(m));
}

StatusOr<std::vector<std::pair<std::map<std::string, std::string>, double>>>
ExternalMetricSource::Items(const MetricFetchJob& job, const MetricRequirement& m) const {
  const std::string what = "metric " + m.name + " (external " + m.query + ")";
  if (!kube_) return InternalError(what + ": no Kubernetes client");
  const std::string query = Expand(job, m.query, flink_job_id_);
  std::string metric = query, selector;
  if (const size_t brace = query.find('{'); brace != std::string::npos) {
    if (query.back() != '}') return InvalidArgumentError(what + ": expected name{selector}");
    metric = query.substr(0, brace);
    selector = query.substr(brace + 1, query.size() - brace - 2);
  }
  std::string path = "/apis/external.metrics.k8s.io/v1beta1/namespaces/" +
                     http::UrlEncode(job.namespace_name.empty() ? "default" : job.namespace_name) +
                     "/" + http::UrlEncode(metric);
  if (!selector.empty()) path += "?labelSelector=" + http::UrlEncode(selector);
  http::ClientRequest request{.url = path};
  request.headers.emplace_back("Accept", "application/json");
  request.timeout = timeout_;
  StatusOr<http::ClientResponse> response = kube_->Raw(request);
  if (!response.ok()) {
    return Status(response.status().code(), what + ": " + std::string(response.status().message()));
  }
  const Json body = Json::parse(response->body, nullptr, false);
  if (response->status / 100 != 2) {
    const std::string message =
        body.is_object() ? body.value("message", response->body) : response->body;
    return (response->status >= 500 ? UnavailableError : FailedPreconditionError)(
        what + ": GET " + path + ": HTTP " + std::to_string(response->status) + ": " + message);
  }
  if (!body.is_object() || !body.contains("items") || !body["items"].is_array()) {
    return FailedPreconditionError(what + ": not an ExternalMetricValueList");
  }
  std::vector<std::pair<std::map<std::string, std::string>, double>> out;
  for (const Json& item : body["items"]) {
    StatusOr<Quantity> q = Quantity::Parse(item.value("value", ""));
    if (!q.ok()) return FailedPreconditionError(what + ": value: " + q.status().message());
    std::map<std::string, std::string> labels;
    const Json item_labels = item.value("metricLabels", Json::object());
    if (item_labels.is_object()) {
      for (auto it = item_labels.begin(); it != item_labels.end(); ++it) {
        if (it.value().is_string()) labels[it.key()] = it.value().get<std::string>();
      }
    }
    out.emplace_back(std::move(labels), q->AsApproximateFloat64());
  }
  if (out.empty()) return NotFoundError(what + ": no items");
  return out;
}

StatusOr<double> ExternalMetricSource::FetchJobMetric(const MetricFetchJob& job,
                                                      const MetricRequirement& m) {
  TRIMTAB_ASSIGN_OR_RETURN(auto items, Items(job, m));
  std::vector<double> values;
  for (const auto& item : items) values.push_back(item.second);
  return Combine(values, m.aggregation);
}

StatusOr<double> ExternalMetricSource::FetchTaskManagerMetric(const MetricFetchJob& job,
                                                              const MetricRequirement& m) {
  return FetchJobMetric(job, m);
}

StatusOr<std::map<VertexId, double>> ExternalMetricSource::FetchVertexMetric(
    const MetricFetchJob& job, const MetricRequirement& m) {
  TRIMTAB_ASSIGN_OR_RETURN(auto items, Items(job, m));
  return ByVertex(items, job, m, "metric " + m.name + " (external " + m.query + ")");
}

StatusOr<core::flink::MetricSource*> RoutingMetricSource::For(const MetricRequirement& m) const {
  switch (m.source) {
    case core::MetricSourceKind::kFlinkRest:
      if (flink_) return flink_;
      return FailedPreconditionError("metric " + m.name + ": no Flink REST source");
    case core::MetricSourceKind::kPrometheus:
      if (prometheus_) return prometheus_;
      return FailedPreconditionError("metric " + m.name +
                                     ": source prometheus, but no Prometheus is configured "
                                     "(--prometheus-url)");
    case core::MetricSourceKind::kExternalMetrics:
      if (external_) return external_;
      return FailedPreconditionError("metric " + m.name +
                                     ": source external, but no Kubernetes API is at hand for "
                                     "external.metrics.k8s.io");
  }
  return InternalError("metric " + m.name + ": unknown source");
}

StatusOr<double> RoutingMetricSource::FetchTaskManagerMetric(const MetricFetchJob& job,
                                                             const MetricRequirement& m) {
  TRIMTAB_ASSIGN_OR_RETURN(core::flink::MetricSource * source, For(m));
  return source->FetchTaskManagerMetric(job, m);
}

StatusOr<std::map<VertexId, double>> RoutingMetricSource::FetchVertexMetric(
    const MetricFetchJob& job, const MetricRequirement& m) {
  TRIMTAB_ASSIGN_OR_RETURN(core::flink::MetricSource * source, For(m));
  return source->FetchVertexMetric(job, m);
}

StatusOr<double> RoutingMetricSource::FetchJobMetric(const MetricFetchJob& job,
                                                     const MetricRequirement& m) {
  TRIMTAB_ASSIGN_OR_RETURN(core::flink::MetricSource * source, For(m));
  return source->FetchJobMetric(job, m);
}

}  // namespace trimtab::adapters
