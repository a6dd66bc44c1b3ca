// Scale() stage 1, Prepare (scale_pass.h): options, disabled, the stored state, job status,
// metrics over Flink REST and the custom metrics.
#include <spdlog/spdlog.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "adapters/metrics/metric_sources.h"
#include "core/flink/custom_metrics.h"
#include "operator/autoscaler/operator_autoscaler.h"
#include "operator/autoscaler/scale_pass.h"

namespace trimtab::op {
namespace {

namespace flink = core::flink;

constexpr const char kRestTimeoutKey[] = "flink.rest-client.timeout";

bool HasAutoscalerKey(const std::map<std::string, std::string>& conf, const std::string& key) {
  return conf.count(flink::kAutoscalerPrefix + key) ||
         conf.count(flink::kLegacyAutoscalerPrefix + key);
}

}  // namespace

StatusOr<OperatorAutoscaler::ScaleStep> OperatorAutoscaler::Prepare(ScalePass& pass) {
  const AutoscalerJobContext& c = pass.context;
  Resource& r = pass.resource;

  // Options, parsed once for the whole call.
  StatusOr<flink::AutoscalerOptions> parsed = flink::ParseAutoscalerOptions(c.flink_configuration);
  if (!parsed.ok()) {
    const std::string reason = "invalid autoscaler configuration: " + parsed.status().message();
    CountError(pass);
    EmitError(pass.job_key, reason, flink::AutoscalerOptions{}.scaling_event_interval);
    if (Status loaded = EnsureLoaded(pass.job_key, &r); !loaded.ok() && !r.ever_loaded) {
      return UnknownOverrides(pass.job_key, loaded);
    }
    return ScaleStep::Stop(pass.Skipped(reason));
  }
  pass.options = std::make_shared<const flink::AutoscalerOptions>(*std::move(parsed));
  const flink::AutoscalerOptions& o = *pass.options;

  // Disabled: forget everything; the job goes back to the user's parallelism.
  if (!o.enabled) {
    Status cleared = store_->ClearAll(pass.job_key);
    if (cleared.ok()) cleared = store_->Flush(pass.job_key);
    r.state = flink::AutoscalerState{};
    r.plugin_states = Json::object();
    r.history = Json();
    r.load_notes.clear();
    r.loaded = cleared.ok();
    {
      std::lock_guard<std::mutex> stats(r.stats_mu);
      r.last_evaluation.reset();
    }
    if (exported_) exported_->ClearVertices(pass.labels);
    pass.decision = "Disabled";
    std::string reason = "autoscaler disabled (job.autoscaler.enabled is false): state cleared";
    if (!cleared.ok()) {
      if (configmap_store_ != nullptr) configmap_store_->Invalidate(pass.job_key);
      reason += ", but removing it failed: " + cleared.message();
    }
    AutoscalerOutcome out = pass.Skipped(reason);
    out.parallelism_overrides.clear();
    return ScaleStep::Stop(std::move(out));
  }

  // The stored state.
  if (Status loaded = EnsureLoaded(pass.job_key, &r); !loaded.ok()) {
    CountError(pass);
    if (!r.ever_loaded) return UnknownOverrides(pass.job_key, loaded);
    return ScaleStep::Stop(pass.Skipped("cannot read the autoscaler state: " + loaded.message()));
  }

  // Job status as the reconciler observed it.
  auto not_running = [&](const std::string& status) {
    std::lock_guard<std::mutex> stats(r.stats_mu);
    r.last_evaluation.reset();  // upstream drops the cached evaluation
    if (exported_) exported_->ClearVertices(pass.labels);
    return ScaleStep::Stop(pass.Skipped("job is not RUNNING (status " + status + ")"));
  };
  if (c.job_status != "RUNNING") return not_running(c.job_status);
  if (c.job_id.empty() || c.rest_url.empty()) {
    return ScaleStep::Stop(pass.Skipped("the job context has no job id or REST address"));
  }

  // Metrics over Flink REST.
  const Millis timeout = HasAutoscalerKey(c.flink_configuration, kRestTimeoutKey)
                             ? o.rest_client_timeout
                             : options_.default_rest_timeout;
  const adapters::FlinkJobRef ref{.rest_url = c.rest_url, .job_id = c.job_id};
  if (r.job && (r.job->job_id != ref.job_id || r.job->rest_url != ref.rest_url)) {
    collector_->Forget(*r.job);
  }
  r.job = ref;
  StatusOr<adapters::FlinkCollection> collected = collector_->Collect(ref, pass.now, timeout);
  if (!collected.ok()) {
    CountError(pass);
    EmitError(pass.job_key, "Autoscaler cycle skipped: " + collected.status().message(),
              o.scaling_event_interval);
    return ScaleStep::Stop(pass.Skipped(collected.status().message()));
  }
  if (!collected->missing_metrics.empty()) {
    // Not ready while the job stabilizes; an error once that should be over.
    const std::string missing = collected->MissingMetricsStatus().message();
    if (!r.missing_since) r.missing_since = pass.now;
    if (pass.now - *r.missing_since >= o.stabilization_interval) {
      CountError(pass);
      EmitError(pass.job_key,
                "Metrics are still missing after the stabilization interval: " + missing,
                o.scaling_event_interval);
    }
    return ScaleStep::Stop(pass.Skipped(missing));
  }
  r.missing_since.reset();
  pass.collection = *std::move(collected);
  adapters::FlinkCollection& col = pass.collection;
  if (col.job.state != "RUNNING") return not_running(col.job.state + " on the REST API");

  // Legacy sources without busy time are excluded for this cycle, as upstream does.
  if (col.nan_busy_time_vertices.empty()) {
    pass.cycle_options = pass.options;
  } else {
    auto cycle_options = std::make_shared<flink::AutoscalerOptions>(o);
    cycle_options->vertex_exclude_ids.insert(col.nan_busy_time_vertices.begin(),
                                             col.nan_busy_time_vertices.end());
    pass.cycle_options = std::move(cycle_options);
  }

  // Custom metrics, each from the source its declaration names.
  std::vector<core::VertexId> vertex_ids;
  for (const core::VertexInfo& v : col.job.topology.vertices) vertex_ids.push_back(v.id);
  std::unique_ptr<flink::MetricSource> rest = collector_->MetricSourceFor(ref, timeout);
  std::optional<adapters::PrometheusMetricSource> prometheus;
  if (!options_.prometheus_url.empty()) {
    prometheus.emplace(adapters::PrometheusSourceOptions{.http = http_,
                                                         .url = options_.prometheus_url,
                                                         .timeout = timeout,
                                                         .flink_job_id = ref.job_id});
  }
  std::optional<adapters::ExternalMetricSource> external;
  if (options_.kube) external.emplace(options_.kube, ref.job_id, timeout);
  adapters::RoutingMetricSource custom(rest.get(), prometheus ? &*prometheus : nullptr,
                                       external ? &*external : nullptr);
  TRIMTAB_RETURN_IF_ERROR(flink::CollectCustomMetrics(
      metrics_.Metrics(),
      {.job_key = pass.job_key, .namespace_name = c.namespace_name, .vertices = vertex_ids}, custom,
      &col.sample));
  return ScaleStep::Continue();
}

}  // namespace trimtab::op
